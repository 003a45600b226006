"""The web game's JSON API through Starlette's TestClient (no browser): games, moves, and a 4xx for every bad
request, never a 500; what the server trusts (Host, Origin, JSON only, a capped body, offered players with
bounded budgets); and a GET that never waits for a thinking agent (on a real server)."""

from __future__ import annotations

import json
import threading
import time
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest
from starlette.testclient import TestClient

from agents.greedy import FullGreedyPlayer
from agents.play.web.server import create_app
from agents.ppo_player import DEFAULT_CHECKPOINT
from agents.registry import PLAYERS
from kdenv.replay import read_records, replay_record
from tests.web.browser import web_server

PAGE = "http://127.0.0.1:8000"  # where create_app's page is served by default


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(tmp_path / "records"), base_url=PAGE, raise_server_exceptions=True) as client:
        yield client


def new_game(client, **request):
    response = client.post("/api/games", json={"opponents": ["fg"], "players": 2, "seed": 7, **request})
    assert response.status_code == 201, response.text
    return response.json()


def play_out(client, state):
    """Play the first legal move until the game is over; the last state."""
    while state["state"]["phase"] != "over":
        response = client.post(f"/api/games/{state['id']}/moves", json={"action": state["legal"][0]["action"]})
        assert response.status_code == 200, response.text
        state = response.json()
    return state


def test_the_page_is_served_self_contained(client):
    response = client.get("/")
    assert response.status_code == 200 and "text/html" in response.headers["content-type"]
    assert "<script src" not in response.text and 'href="http' not in response.text


def test_a_whole_game_through_the_api_saves_a_record_that_replays(client, tmp_path):
    state = new_game(client)
    assert state["seat"] == 0 and state["table"]["agents"] == ["human", "fg"]
    assert state["legal"] and all(move["kind"] == "pick" for move in state["legal"])
    assert client.get(f"/api/games/{state['id']}").json()["state"] == state["state"]
    final = play_out(client, state)
    assert final["legal"] == [] and final["final"] is not None
    (record,) = read_records(final["record"])
    assert record["agents"] == ["human", "fg"] and record["final"]["scores"] == final["state"]["scores"]
    assert replay_record(record).scores() == final["state"]["scores"]


def test_placements_come_with_their_cells(client):
    state = new_game(client, seat=1)  # fg picks first where it sits first
    while not any(move["kind"] == "place" for move in state["legal"]):
        state = client.post(f"/api/games/{state['id']}/moves", json={"action": state["legal"][0]["action"]}).json()
    place = next(move for move in state["legal"] if move["kind"] == "place")
    (ra, ca), (rb, cb) = place["cells"]
    assert abs(ra - rb) + abs(ca - cb) == 1


def test_several_games_at_once_are_kept_apart(client):
    first, second = new_game(client, seed=1), new_game(client, seed=2, players=3, opponents=["fg", "random"])
    assert first["id"] != second["id"] and len(second["state"]["scores"]) == 3
    client.post(f"/api/games/{first['id']}/moves", json={"action": first["legal"][0]["action"]})
    assert client.get(f"/api/games/{second['id']}").json()["moves"] == second["moves"]


def test_a_traced_game_keeps_the_agents_thoughts(client):
    final = play_out(client, new_game(client, opponents=["mce:playouts=4"], trace=True))
    (record,) = read_records(final["record"])
    traced = [move for move in record["moves"] if "trace" in move]
    assert traced and all(move["player"] == 1 for move in traced)


BAD_NEW_GAMES = [
    ({"opponents": ["nobody"], "players": 2}, "opponents[0] is not a player this server offers; choose one of fg,"),
    ({"opponents": ["fg", "fg"], "players": 2}, "give 1 opponent spec"),
    ({"opponents": "fg", "players": 2}, "must be a list of player specs"),
    ({"opponents": ["fg"], "players": 5}, "2, 3 or 4 players"),
    ({"opponents": ["fg"], "players": True}, '"players" must be a whole number'),
    ({"opponents": ["fg"], "players": 2, "seat": 2}, '"seat" must be 0..1'),
    ({"opponents": ["fg"], "players": 2, "seed": "x"}, '"seed" must be a whole number'),
    ({"opponents": ["fg"], "players": 2, "rules": ["no_such_rule"]}, "unknown rule"),
    ({"opponents": ["fg"], "players": 2, "rules": "harmony"}, '"rules" must be a list'),
    ({"opponents": ["fg", "fg"], "players": 3, "rules": ["mighty_duel"]}, "Mighty Duel"),
    ({"opponents": ["fg"], "players": 2, "trace": "yes"}, '"trace" must be true or false'),
]


@pytest.mark.parametrize(("request_body", "message"), BAD_NEW_GAMES)
def test_a_bad_new_game_gets_a_400_saying_why(client, request_body, message):
    response = client.post("/api/games", json=request_body)
    assert response.status_code == 400 and message in response.json()["error"]


@pytest.mark.parametrize("body", [b"{not json", b"\xff\xfe", b'["a list"]', b""])
def test_malformed_json_gets_a_400(client, body):
    state = new_game(client)
    for url in ("/api/games", f"/api/games/{state['id']}/moves"):
        response = client.post(url, content=body, headers={"content-type": "application/json"})
        assert response.status_code == 400 and "JSON" in response.json()["error"]


@pytest.mark.parametrize(
    ("move", "message"),
    [({"action": 0}, "illegal move"), ({"action": 10**6}, "illegal move"), ({"action": "1"}, '{"action": N}'),
     ({"action": True}, '{"action": N}'), ({}, '{"action": N}')],
)  # fmt: skip
def test_an_illegal_move_gets_a_400_and_changes_nothing(client, move, message):
    state = new_game(client)
    response = client.post(f"/api/games/{state['id']}/moves", json=move)
    assert response.status_code == 400 and message in response.json()["error"]
    assert client.get(f"/api/games/{state['id']}").json()["moves"] == state["moves"]


def test_a_discard_that_the_rules_do_not_allow_gets_a_400(client):
    state = new_game(client, seat=1)
    while not any(move["kind"] == "place" for move in state["legal"]):
        state = client.post(f"/api/games/{state['id']}/moves", json={"action": state["legal"][0]["action"]}).json()
    assert not any(move["kind"] == "discard" for move in state["legal"])
    response = client.post(f"/api/games/{state['id']}/moves", json={"action": 4 * 9 * 9})  # discard at 5x5
    assert response.status_code == 400 and "illegal move" in response.json()["error"]


def test_unknown_and_finished_games(client):
    assert client.get("/api/games/feedbeef").status_code == 404
    response = client.post("/api/games/feedbeef/moves", json={"action": 325})
    assert response.status_code == 404 and "no game 'feedbeef'" in response.json()["error"]
    final = play_out(client, new_game(client))
    response = client.post(f"/api/games/{final['id']}/moves", json={"action": 325})
    assert response.status_code == 409 and "is over" in response.json()["error"]
    assert client.get("/api/nothing").status_code == 404
    assert client.put("/api/games").status_code == 405


# ----- what the server trusts ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"content-type": "text/plain"}, 415),  # what a cross-site form can post
        ({"content-type": "application/x-www-form-urlencoded"}, 415),
        ({"origin": "http://evil.example"}, 403),
        ({"origin": "null"}, 403),
        ({"origin": "http://127.0.0.1:8001"}, 403),
        ({"host": "evil.example:8000"}, 403),  # a rebound DNS name
        ({"host": "127.0.0.1:8001"}, 403),
    ],
)
def test_a_request_that_is_not_the_pages_own_is_refused(client, headers, status):
    body = json.dumps({"opponents": ["fg"], "players": 2})
    response = client.post("/api/games", content=body, headers={"content-type": "application/json", **headers})
    assert response.status_code == status and response.json()["error"]


@pytest.mark.parametrize(
    "repeated",
    [
        [("origin", "http://127.0.0.1:8000"), ("origin", "http://evil.example")],
        [("origin", "http://127.0.0.1:8000"), ("origin", "http://127.0.0.1:8000")],  # even twice the page's own
        [("content-type", "application/json"), ("content-type", "text/plain")],
        [("host", "127.0.0.1:8000"), ("host", "evil.example:8000")],
    ],
    ids=["origin", "origin-twice-its-own", "content-type", "host"],
)
def test_a_request_that_repeats_a_checked_header_is_refused(client, repeated):
    """A proxy or a browser may pass on either value: judging the first would judge what may not be acted on."""
    headers = [("content-type", "application/json")] * (repeated[0][0] != "content-type") + repeated
    body = json.dumps({"opponents": ["fg"], "players": 2})
    response = client.post("/api/games", content=body, headers=headers)
    name = repeated[0][0].title()
    assert (
        response.status_code == 400
        and response.json()["error"] == f"the request repeats its {name} header; send it once"
    )
    assert client.get("/api/players", headers=[repeated[0], repeated[0]]).status_code == 400


def test_the_pages_own_requests_pass_on_both_names_of_127_0_0_1(client):
    for host in ("127.0.0.1:8000", "localhost:8000", "LOCALHOST:8000"):
        own = {"host": host, "origin": f"http://{host.lower()}", "content-type": "application/json; charset=utf-8"}
        response = client.post("/api/games", content=json.dumps({"opponents": ["fg"]}), headers=own)
        assert response.status_code == 201, response.text
        assert client.get(f"/api/games/{response.json()['id']}", headers={"host": host}).status_code == 200
    for url in ("/", "/api/players", f"/api/games/{response.json()['id']}"):  # a rebound name reads nothing either
        assert client.get(url, headers={"host": "evil.example:8000"}).status_code == 403


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (b'{"opponents": ["fg"], "pad": "' + b"x" * 70_000 + b'"}', 413, "over 65536 bytes"),
        (b"[" * 100_000, 413, "over 65536 bytes"),
        (b"[" * 50_000, 400, "nested too deeply"),
        (b'{"opponents": ' + b"[" * 50_000, 400, "nested too deeply"),
    ],
)
def test_a_big_or_deeply_nested_body_gets_a_4xx_saying_why(client, body, status, message):
    state = new_game(client)
    for url in ("/api/games", f"/api/games/{state['id']}/moves"):
        response = client.post(url, content=body, headers={"content-type": "application/json"})
        assert response.status_code == status and message in response.json()["error"]


def test_the_offered_players_are_built_in_or_shipped_and_the_page_offers_them(client):
    offered = client.get("/api/players").json()
    specs = [entry["spec"] for entry in offered]
    assert specs[:7] == ["fg", "fgt", "gprd", "random", "mce:seconds=0.5", "uct:seconds=0.5", "az:default,seconds=0.5"]
    assert {"ppo:default", "ppo:v1"} <= set(specs) and not any("/" in s or "rllib" in s for s in specs)
    mce = offered[specs.index("mce:seconds=0.5")]["options"]
    assert mce["seconds"] == {"type": "number", "exclusiveMinimum": 0, "maximum": 5}
    assert json.dumps(specs, separators=(",", ":")) in client.get("/").text  # the page's select


NOT_OFFERED = [
    "ppo:/etc/passwd",  # a file that exists
    "ppo:/no/such/checkpoint.zip",  # one that does not
    f"ppo:{DEFAULT_CHECKPOINT}",  # a shipped checkpoint, by its path
    "rllib:/tmp/checkpoint",  # RLlib's checkpoints unpickle code
    "ppo:default,x=1",
    "mce:policy=fg",  # an option that is no budget
    "mce:/etc/passwd",
    "fg:seconds=1",
    "",
    "mce:seconds",
    "MCE:seconds=1",
    "az:/etc/passwd,seconds=1",  # az names a shipped network, never a path
    "az:v1.zip,simulations=4",
]


@pytest.mark.parametrize("spec", NOT_OFFERED)
def test_a_player_that_is_not_offered_is_refused_with_the_same_words(client, spec):
    response = client.post("/api/games", json={"opponents": [spec], "players": 2, "seed": 7})
    assert response.status_code == 400
    refusal = client.post("/api/games", json={"opponents": ["nobody"], "players": 2}).json()["error"]
    assert response.json()["error"] == refusal  # nothing about files: "not a zip file" / "not found" are gone


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mce:seconds=100000", "seconds=100000 is more than this server allows (at most 5)"),
        ("uct:seconds=5.5", "at most 5"),
        ("mce:playouts=1000000", "playouts=1000000 is more than this server allows (at most 1000)"),
        ("mce:seconds=inf", "at most 5"),
        ("mce:seconds=nan", "must be greater than 0"),
        ("uct:seconds=0", "must be greater than 0"),
        ("uct:playouts=1.5", "not an integer"),
        ("az:default,simulations=100000", "simulations=100000 is more than this server allows (at most 2000)"),
        ("az:default,seconds=60", "at most 5"),
    ],
)
def test_a_budget_beyond_its_bound_is_refused(client, spec, message):
    response = client.post("/api/games", json={"opponents": [spec], "players": 2, "seed": 7})
    assert response.status_code == 400 and message in response.json()["error"]


@pytest.mark.parametrize("spec", ["uct:playouts=8", "az:default,simulations=4"])
def test_budgets_within_their_bounds_are_played(client, spec):
    final = play_out(client, new_game(client, opponents=[spec]))
    (record,) = read_records(final["record"])
    assert record["agents"] == ["human", spec]


def test_the_command_line_opponents_are_offered_to_that_server_only(tmp_path):
    named = [f"ppo:{DEFAULT_CHECKPOINT}", "mce:policy=random,playouts=2000"]  # neither offered otherwise
    with TestClient(create_app(tmp_path, {"opponents": named}), base_url=PAGE) as client:
        assert [entry["spec"] for entry in client.get("/api/players").json()][-2:] == named
        state = new_game(client, players=4, opponents=[*named, "fg"])
        assert state["table"]["agents"] == ["human", *named, "fg"]
    with TestClient(create_app(tmp_path), base_url=PAGE) as client:
        for spec in named:
            assert client.post("/api/games", json={"opponents": [spec], "players": 2, "seed": 7}).status_code == 400


# ----- a thinking agent freezes nothing ---------------------------------------------------------------------
class SlowPlayer(FullGreedyPlayer):
    """fg that thinks 2 s over its first move: long enough to see whether a request waits on it."""

    thinking = threading.Event()

    def act(self, view):
        if not self.thinking.is_set():
            self.thinking.set()
            time.sleep(2)
        return super().act(view)


def fetch(url: str, body: dict | None = None) -> tuple[dict, float]:
    """The JSON answer of a GET (or a POST of ``body``) and the seconds it took."""
    data = None if body is None else json.dumps(body).encode()
    start = time.monotonic()
    with urlopen(Request(url, data, {"Content-Type": "application/json"})) as response:
        text = response.read()
    return (json.loads(text) if text.startswith(b"{") else {}), time.monotonic() - start


def test_a_get_never_waits_for_a_thinking_agent(tmp_path, monkeypatch):
    monkeypatch.setitem(PLAYERS, "slow", f"{__name__}:SlowPlayer")
    SlowPlayer.thinking.clear()
    with web_server(tmp_path, {"opponents": ["slow"]}) as url:
        other, _ = fetch(f"{url}api/games", {"opponents": ["fg"], "players": 2, "seed": 1})
        slow, _ = fetch(f"{url}api/games", {"opponents": ["slow"], "players": 2, "seed": 7})  # the person picks first
        mover = threading.Thread(target=fetch, args=(f"{url}api/games/{slow['id']}/moves", slow["legal"][0]))
        mover.start()
        assert SlowPlayer.thinking.wait(10)
        answers: list[tuple[dict, float]] = []
        reader = threading.Thread(target=lambda: answers.append(fetch(f"{url}api/games/{slow['id']}")))
        reader.start()  # the thinking game's own state ...
        time.sleep(0.1)
        for path in (f"api/games/{other['id']}", ""):  # ... and, meanwhile, another game's and the page
            assert fetch(url + path)[1] < 0.5, path
        reader.join()
        (state, seconds), *_ = answers
        assert seconds < 0.5 and len(state["moves"]) == len(slow["moves"]) + 1 and state["legal"] == []
        with pytest.raises(HTTPError) as busy:  # another move of that game meanwhile is refused, not queued
            fetch(f"{url}api/games/{slow['id']}/moves", slow["legal"][1])
        assert busy.value.code == 409 and "still moving" in json.loads(busy.value.read())["error"]
        mover.join()


def test_a_game_forgotten_before_its_end_lets_its_agents_go(tmp_path, monkeypatch):
    from agents.play.web import server

    closed = []
    monkeypatch.setattr(FullGreedyPlayer, "close", lambda self: closed.append(self))
    monkeypatch.setattr(server, "MAX_GAMES", 2)
    with TestClient(create_app(tmp_path / "records"), base_url=PAGE) as client:
        first, *_ = [new_game(client) for _ in range(3)]
        assert len(closed) == 1 and client.get(f"/api/games/{first['id']}").status_code == 404
        play_out(client, new_game(client))  # a game played to its end lets its agents go at once, and only once
        assert len(closed) == 3
