"""``kdenv play --web``: a person plays against agents in the browser, on a local server (127.0.0.1 only).

A Starlette app with a small JSON API; the agents move on the server, the page (``static/play.js``) only shows
the table from the person's seat and sends the person's moves:

* ``GET /`` the page;
* ``GET /api/players`` the players offered (:mod:`agents.play.web.offer`): ``[{"spec": str, "options": {name:
  bound}}, ...]``, a request names one of those specs, or its player with budget options within their bounds;
* ``POST /api/games`` ``{"opponents": [spec, ...], "players": 2-4, "rules": [name, ...], "seed": int|null,
  "seat": int, "trace": bool}`` starts a game (one offered opponent per other seat) and answers its state;
* ``GET /api/games/{id}`` the state: the table, the public state, every kingdom's squares, the moves so far
  and, when it is the person's turn, the legal moves with their cells (so the page can highlight them);
* ``POST /api/games/{id}/moves`` ``{"action": int}`` plays the person's move, then the agents' up to the
  person's next turn; the state after them.

Every request is checked first (:mod:`agents.play.web.guard`: Host, Origin, JSON only, the body's size). Bad
requests get a 4xx with ``{"error": message}``: malformed JSON or fields, a player not offered, an illegal move
(400), an unknown or forgotten game id (404), a move in a finished game or while the agents of an earlier one
still move (409). The agents move in worker threads, off the event loop; a GET answers the game's last state
(a snapshot) without waiting for them. Games live in memory by id, several at once (the oldest of more than
``MAX_GAMES`` is forgotten); each finished game's record (``kingdomino-replay/1``) is saved in the record
folder (``runs/web/`` by default) and can be opened with ``kdenv view``.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route

from agents.base import Player
from agents.game_loop import play_moves, seat_players
from agents.play.web.guard import Guard, RequestError
from agents.play.web.offer import Offer
from agents.registry import make_player
from kdenv.actions import decode
from kdenv.errors import KingdominoError
from kdenv.game import OVER, Game
from kdenv.replay import to_record, write_record
from kdenv.rules import Rules
from kdenv.viewer.pages import page
from kdenv.viewer.state import HUMAN, breakdown, kingdom_squares, public_state, table

HOST = "127.0.0.1"  # the only address served
MAX_GAMES = 64  # games kept in memory; the oldest beyond that is forgotten


class WebGame:
    """One game in progress: the person in ``seat``, agents in the other seats, moved on the server."""

    def __init__(self, game_id: str, game: Game, seat: int, players: list[Player | None], trace: bool) -> None:
        self.id, self.game, self.seat, self.players = game_id, game, seat, players
        self.agents = [HUMAN if p is None else p.spec for p in players]
        self.traces: list[dict | None] | None = [] if trace else None
        self.lock = threading.Lock()  # one request at a time changes a game
        self.record: Path | None = None
        self.snapshot = self.state()  # the state after the last move, read without the lock

    def publish(self) -> None:
        """Take a new snapshot of the state: what a GET answers, even while the agents think."""
        self.snapshot = self.state()

    def advance(self, record_dir: Path) -> None:
        """Let the agents move until it is the person's turn or the game is over (then save the record)."""
        play_moves(self.players, self.game, self.traces, on_move=self.publish)
        if self.game.phase == OVER and self.record is None:
            self.record = record_dir / f"web-{time.strftime('%Y%m%d-%H%M%S')}-{self.id}.json"
            record_dir.mkdir(parents=True, exist_ok=True)
            write_record(self.record, to_record(self.game, self.agents, self.traces))
            self.close()
            self.publish()

    def close(self) -> None:
        """Let go of the agents (a search's threads, a network), once: at the end of the game, or when it is
        forgotten before its end."""
        players, self.players = self.players, [None] * len(self.players)
        for player in players:
            if player is not None:
                player.close()

    def move(self, action: Any, record_dir: Path) -> dict:
        """Play the person's ``action``, then the agents' moves; the state after them. A request that comes
        while the agents still move for an earlier one is refused, not queued (no thread waits on a game)."""
        if not self.lock.acquire(blocking=False):
            raise RequestError(409, f"the agents of game {self.id} are still moving; wait for their moves")
        try:
            if self.game.phase == OVER:
                raise RequestError(409, f"game {self.id} is over; start a new game")
            if not isinstance(action, int) or isinstance(action, bool):
                raise RequestError(400, 'a move is {"action": N} with N one of the legal actions of the state')
            try:
                self.game.step(action, self.seat)
            except KingdominoError as err:
                raise RequestError(400, f"illegal move: {err}") from None
            if self.traces is not None:
                self.traces.append(None)  # the person's move: nothing thought to tell
            self.publish()
            self.advance(record_dir)
            return self.snapshot
        finally:
            self.lock.release()

    def state(self) -> dict:
        """What the page shows: the table, the public state, the kingdoms, the moves, the person's legal moves."""
        game = self.game
        over = game.phase == OVER
        yours = not over and game.current_player == self.seat
        return {
            "id": self.id,
            "seat": self.seat,
            "table": table(game, self.agents),
            "state": public_state(game),
            "kingdoms": [kingdom_squares(k) for k in game.kingdoms],
            "moves": to_record(game, self.agents)["moves"],
            "legal": [legal_move(action, game) for action in game.legal_actions()] if yours else [],
            "final": breakdown(game) if over else None,
            "record": str(self.record) if self.record else None,
        }


def legal_move(action: int, game: Game) -> dict:
    """A legal action as the page uses it: its number, its kind and the cells of half A and B, or the slot."""
    move = decode(action, game.rules.kingdom_size)
    entry: dict[str, Any] = {"action": action, "kind": move.kind}
    if move.cells is not None:
        entry["cells"] = [list(move.cells[0]), list(move.cells[1])]
    if move.slot is not None:
        entry["slot"] = move.slot
    return entry


class WebGames:
    """The games in progress by id, the oldest forgotten beyond ``MAX_GAMES``; their opponents from ``offer``."""

    def __init__(self, record_dir: Path, offer: Offer) -> None:
        self.record_dir, self.offer = record_dir, offer
        self.games: OrderedDict[str, WebGame] = OrderedDict()
        self.lock = threading.Lock()

    def new(self, request: dict) -> WebGame:
        """A new game from a new-game request, the agents' first moves made (before any other request sees it)."""
        game_id = secrets.token_hex(6)
        players, rules, seed, seat, trace = _settings(request)
        opponents = request.get("opponents")
        if not isinstance(opponents, list) or not all(isinstance(s, str) for s in opponents):
            raise RequestError(400, '"opponents" must be a list of player specs, e.g. ["fg"]')
        if len(opponents) != players - 1:
            raise RequestError(400, f"give {players - 1} opponent spec(s) for {players} players, not {len(opponents)}")
        made: list[Player] = []
        try:
            specs = [self.offer.choose(spec, f"opponents[{i}]") for i, spec in enumerate(opponents)]
            for spec in specs:
                made.append(make_player(spec, players, rules))
        except KingdominoError as err:
            for player in made:
                player.close()
            raise RequestError(400, str(err)) from None
        seats: list[Player | None] = [*made[:seat], None, *made[seat:]]
        seat_players(seats, seed)
        web = WebGame(game_id, Game(players, rules, seed), seat, seats, trace)
        web.advance(self.record_dir)
        with self.lock:
            self.games[game_id] = web
            forgotten = [self.games.popitem(last=False)[1] for _ in range(len(self.games) - MAX_GAMES)]
        for old in forgotten:  # after its agents' moves under way, if any
            with old.lock:
                old.close()
        return web

    def get(self, game_id: str) -> WebGame:
        with self.lock:
            web = self.games.get(game_id)
        if web is None:
            raise RequestError(404, f"no game {game_id!r} here (the server forgets games when it stops); start one")
        return web


def _settings(request: dict) -> tuple[int, Rules, int, int, bool]:
    """(players, rules, seed, seat, trace) of a new-game request, checked."""
    players, seat, seed = request.get("players", 2), request.get("seat", 0), request.get("seed")
    for name, value in (("players", players), ("seat", seat), ("seed", seed)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise RequestError(400, f'"{name}" must be a whole number')
    names = request.get("rules", [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise RequestError(400, '"rules" must be a list of rule names, e.g. ["middle_kingdom", "harmony"]')
    try:
        rules = Rules.from_names(names)
        rules.setup(players)
    except KingdominoError as err:
        raise RequestError(400, str(err)) from None
    if not 0 <= seat < players:
        raise RequestError(400, f'"seat" must be 0..{players - 1} at a {players}-player table')
    trace = request.get("trace", False)
    if not isinstance(trace, bool):
        raise RequestError(400, '"trace" must be true or false')
    return players, rules, seed if seed is not None else secrets.randbelow(1_000_000), seat, trace


async def _body(request: Request) -> dict:
    """The request's JSON object, or a 400."""
    try:
        body = await request.json()
    except ValueError:  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise RequestError(400, "the request body is not valid JSON") from None
    except RecursionError:
        raise RequestError(400, "the request body is not valid JSON here: nested too deeply") from None
    if not isinstance(body, dict):
        raise RequestError(400, "the request body must be a JSON object")
    return body


def create_app(record_dir: str | Path = "runs/web", defaults: dict | None = None, port: int = 8000) -> Starlette:
    """The web game's app, served on 127.0.0.1:``port``; finished games' records go to ``record_dir``; the page's
    form starts with ``defaults`` (``opponents``, ``players``, ``trace``). The opponents of ``defaults`` (those
    the command line named) are offered besides :data:`agents.play.web.offer.OFFERED`."""
    defaults = {"opponents": ["fg"], "players": 2, "trace": False, **(defaults or {})}
    offer = Offer(defaults["opponents"])
    games = WebGames(Path(record_dir), offer)
    data = {**defaults, "offered": offer.specs()}

    async def index(request: Request) -> HTMLResponse:
        return HTMLResponse(page("Kingdomino: play", ["draw.js", "play.js"], data))

    async def players(request: Request) -> JSONResponse:
        return JSONResponse(offer.to_json())

    async def new_game(request: Request) -> JSONResponse:
        body = await _body(request)
        web = await run_in_threadpool(games.new, body)
        return JSONResponse(web.snapshot, status_code=201)

    async def get_state(request: Request) -> JSONResponse:
        return JSONResponse(games.get(request.path_params["game_id"]).snapshot)

    async def move(request: Request) -> JSONResponse:
        web = games.get(request.path_params["game_id"])
        body = await _body(request)
        return JSONResponse(await run_in_threadpool(web.move, body.get("action"), games.record_dir))

    async def refused(request: Request, err: Exception) -> JSONResponse:
        assert isinstance(err, RequestError)
        return err.answer()

    routes = [
        Route("/", index),
        Route("/api/players", players),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", get_state),
        Route("/api/games/{game_id}/moves", move, methods=["POST"]),
    ]
    middleware = [Middleware(Guard, host=HOST, port=port)]
    return Starlette(routes=routes, middleware=middleware, exception_handlers={RequestError: refused})


def serve(port: int, record_dir: str | Path, defaults: dict) -> None:
    """Serve the web game on 127.0.0.1:``port`` until Ctrl-C (the page's form starts with ``defaults``)."""
    import uvicorn

    print(f"Kingdomino in the browser: http://{HOST}:{port}/  (records saved in {record_dir}/; Ctrl-C stops)")
    uvicorn.run(create_app(record_dir, defaults, port), host=HOST, port=port, log_level="warning")
