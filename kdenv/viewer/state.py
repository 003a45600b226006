"""What the browser pages draw of a game, as plain JSON: the table's set-up, the public state after a move, the
kingdoms' squares and the final score breakdown. The record viewer and the web game share it."""

from __future__ import annotations

from kdenv.game import OVER, Game
from kdenv.kingdom import HALVES, Kingdom
from kdenv.render import palette
from kdenv.tiles import TERRAINS

HUMAN = "human"  # the agent name of a person in game records (kdenv play, in the terminal and the browser)


def table(game: Game, agents: list[str] | None) -> dict:
    """What does not change during a game: players, rules, seed, the dominoes' halves and the colours."""
    return {
        "num_players": game.num_players,
        "kingdom_size": game.rules.kingdom_size,
        "rules": game.rules.to_dict(),
        "seed": game.seed,
        "agents": agents or [f"P{p}" for p in range(game.num_players)],
        "halves": [list(h) for h in HALVES],  # halves[n] = [terrain A, crowns A, terrain B, crowns B]
        "terrains": list(TERRAINS),
        "palette": palette(),
    }


def public_state(game: Game) -> dict:
    """The state every player sees: round, who acts on which king, both lines with their kings, the scores."""
    over = game.phase == OVER
    return {
        "round": game.round,
        "phase": game.phase,
        "player": None if over else game.current_player,
        "king": game.king,
        "queue": list(game.queue),  # owner of each king of the current line, in acting order
        "held": list(game.held),  # the domino under each of those kings (0: none)
        "line": list(game.line),  # the next line, lowest number first
        "claims": list(game.claims),  # who claimed each domino of the next line (-1: free)
        "scores": game.scores(),
        "winners": game.winners() if over else [],
    }


def kingdom_squares(kingdom: Kingdom) -> list[list[int]]:
    """The kingdom's squares as [row, col, terrain, crowns], castle-relative; the castle has terrain -1."""
    reach = kingdom.frame.size - 1
    squares = []
    for row in range(-reach, reach + 1):
        for col in range(-reach, reach + 1):
            content = kingdom.cell_at(row, col)
            if content is not None:
                squares.append([row, col, *content])
    return squares


def breakdown(game: Game) -> list[dict]:
    """Per player, where the score comes from: each property with crowns, and the variant bonuses."""
    result = []
    for player in range(game.num_players):
        score = game.breakdown(player)
        properties = [
            {"terrain": p.terrain, "squares": p.squares, "crowns": p.crowns, "points": p.squares * p.crowns}
            for p in sorted(score.properties, key=lambda p: -p.squares * p.crowns)
            if p.crowns
        ]
        result.append(
            {
                "properties": properties,
                "middle_kingdom": score.middle_kingdom,
                "harmony": score.harmony,
                "total": score.total,
            }
        )
    return result
