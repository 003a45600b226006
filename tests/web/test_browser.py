"""The viewer and the web game in a real browser: Debian's headless Chromium, driven by Playwright."""

from __future__ import annotations

import pytest

from kdenv.replay import read_records
from tests.web.browser import browser_page, needs_chromium, web_server
from training.cli import main
from training.view_cli import write_site

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def site(traced_tournament, tmp_path_factory):
    return write_site([traced_tournament], tmp_path_factory.mktemp("site") / "site")


def test_the_viewer_steps_to_the_end_and_shows_the_final_scores(site, traced_tournament):
    record = next(read_records(traced_tournament / "games.jsonl"))
    moves, scores = len(record["moves"]), record["final"]["scores"]
    with browser_page() as page:
        page.goto((site.parent / "games" / "0001.html").as_uri())
        assert page.text_content("#counter") == f"move 0 / {moves}"
        assert not page.is_visible("#final")
        for _ in range(3):
            page.click("#btn-next")
        page.click("#btn-prev")
        assert page.text_content("#counter") == f"move 2 / {moves}"
        for _ in range(moves - 2):
            page.keyboard.press("ArrowRight")
        assert page.text_content("#counter") == f"move {moves} / {moves}"
        page.keyboard.press("ArrowRight")  # past the end: stays there
        assert page.text_content("#counter") == f"move {moves} / {moves}"
        assert [int(page.text_content(f"#score-p{p}")) for p in range(2)] == scores
        assert page.is_visible("#breakdown")
        totals = page.locator("#breakdown td.total").all_text_contents()
        assert [int(t) for t in totals] == scores
        page.keyboard.press("Home")
        assert page.text_content("#counter") == f"move 0 / {moves}"
        assert page.errors == []


def test_the_viewer_shows_the_traces(site, traced_tournament):
    record = next(r for r in read_records(traced_tournament / "games.jsonl") if "ppo:default" in r["agents"])
    number = list(read_records(traced_tournament / "games.jsonl")).index(record) + 1
    first = next(i for i, move in enumerate(record["moves"]) if move.get("trace", {}).get("kind") == "policy")
    with browser_page() as page:
        page.goto((site.parent / "games" / f"{number:04d}.html").as_uri())
        page.fill("#slider", str(first + 1))
        assert "What ppo:default thought: value" in page.text_content("#trace")
        assert page.locator("#trace tr.chosen").count() == 1
        assert page.errors == []


def test_the_index_lists_and_filters_the_games(site, traced_tournament):
    records = list(read_records(traced_tournament / "games.jsonl"))
    with browser_page() as page:
        page.goto(site.as_uri())
        agents = {agent for record in records for agent in record["agents"]}
        assert page.locator("#results-1 tr").count() == 1 + len(agents)  # the header and a row per agent
        assert page.locator("#games tr:not([hidden])").count() == 1 + len(records)
        page.select_option("#filter-winner", "fg")
        won = sum(1 for r in records if any(r["agents"][p] == "fg" for p in r["final"]["winners"]))
        assert page.locator("#games tr:not([hidden])").count() == 1 + won
        page.select_option("#filter-winner", "")
        page.select_option("#filter-agent", "ppo:default")
        assert page.locator("#games tr:not([hidden])").count() == 1 + sum("ppo:default" in r["agents"] for r in records)
        page.click("#games tr:not([hidden]) a >> nth=0")
        page.wait_for_selector("#counter")
        assert page.errors == []


def test_a_whole_game_against_fg_by_clicks_saves_a_record_that_replays(tmp_path, capsys):
    with web_server(tmp_path / "records") as url, browser_page() as page:
        page.goto(url)
        offered = [entry["spec"] for entry in page.request.get(f"{url}api/players").json()]
        assert page.locator("#opponent-0 option").all_text_contents() == offered  # a select of the offered players
        page.select_option("#opponent-0", "fg")
        page.fill("#seed", "12")
        page.click("#start")
        for _ in range(200):
            page.wait_for_function("document.body.dataset.busy === 'false'")
            phase = page.evaluate("document.body.dataset.phase")
            if phase == "over":
                break
            turn = page.evaluate("document.body.dataset.turn")
            if phase == "pick":
                page.locator("g.slot.pickable").last.click()
            elif page.locator("rect.legal").count():
                page.locator("rect.legal").first.click()
                assert page.is_enabled("#btn-place") and not page.is_enabled("#btn-discard")
                if page.is_enabled("#btn-rotate"):
                    page.click("#btn-rotate")
                page.click("#btn-place")
            else:
                page.click("#btn-discard")
            page.wait_for_function(f"document.body.dataset.turn !== '{turn}'")
        assert page.evaluate("document.body.dataset.phase") == "over"
        assert page.text_content("#error") == ""
        assert page.errors == []
        (path,) = (tmp_path / "records").glob("*.json")
        assert str(path) in page.text_content("#record")
    (record,) = read_records(path)
    assert record["agents"] == ["human", "fg"] and len(record["moves"]) == 48
    assert main(["replay", str(path)]) == 0
    assert "1 record(s) re-played and checked" in capsys.readouterr().out
