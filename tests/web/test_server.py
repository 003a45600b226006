"""The web game's JSON API through Starlette's TestClient (no browser): games, moves, and a 4xx for every bad
request, never a 500."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from kdenv.replay import read_records, replay_record
from training.web.server import create_app


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(tmp_path / "records"), raise_server_exceptions=True) as client:
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
    ({"opponents": ["nobody"], "players": 2}, "unknown player 'nobody'"),
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
