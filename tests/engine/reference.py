"""A deliberately naive model of a kingdom (a dict of cells) to check the bitboard engine against."""

from __future__ import annotations

from kdenv.actions import decode
from kdenv.tiles import domino

CASTLE = "castle"
STEPS = ((0, 1), (1, 0), (0, -1), (-1, 0))


class NaiveKingdom:
    """cells: (row, col) castle-relative -> (terrain, crowns), the castle as (CASTLE, 0)."""

    def __init__(self, size: int = 5) -> None:
        self.size = size
        self.cells: dict[tuple[int, int], tuple] = {(0, 0): (CASTLE, 0)}

    def fits(self, extra: list[tuple[int, int]]) -> bool:
        rows = [r for r, _ in self.cells] + [r for r, _ in extra]
        cols = [c for _, c in self.cells] + [c for _, c in extra]
        return max(rows) - min(rows) < self.size and max(cols) - min(cols) < self.size

    def connects(self, cell: tuple[int, int], terrain: int) -> bool:
        for dr, dc in STEPS:
            other = self.cells.get((cell[0] + dr, cell[1] + dc))
            if other is not None and other[0] in (CASTLE, terrain):
                return True
        return False

    def legal(self, number: int) -> set[tuple[tuple[int, int], tuple[int, int]]]:
        """Every legal (cell of half A, cell of half B), by brute force over a wide area."""
        d = domino(number)
        found = set()
        span = range(-self.size, self.size + 1)
        for r in span:
            for c in span:
                for dr, dc in STEPS:
                    a, b = (r, c), (r + dr, c + dc)
                    if a in self.cells or b in self.cells or not self.fits([a, b]):
                        continue
                    if self.connects(a, d.a.terrain) or self.connects(b, d.b.terrain):
                        found.add((a, b))
        return found

    def place(self, number: int, a: tuple[int, int], b: tuple[int, int]) -> None:
        d = domino(number)
        self.cells[a] = (d.a.terrain, d.a.crowns)
        self.cells[b] = (d.b.terrain, d.b.crowns)

    def properties(self) -> list[tuple[int, int]]:
        """(squares, crowns) of every property, by breadth-first search."""
        seen, found = set(), []
        for start, (terrain, _) in self.cells.items():
            if terrain == CASTLE or start in seen:
                continue
            seen.add(start)
            todo, squares, crowns = [start], 0, 0
            while todo:
                cell = todo.pop()
                squares += 1
                crowns += self.cells[cell][1]
                for dr, dc in STEPS:
                    nxt = (cell[0] + dr, cell[1] + dc)
                    if nxt not in seen and self.cells.get(nxt, (None,))[0] == terrain:
                        seen.add(nxt)
                        todo.append(nxt)
            found.append((squares, crowns))
        return found

    def score(self, middle_kingdom: bool = False, harmony: bool = False, discards: int = 0) -> int:
        total = sum(s * c for s, c in self.properties())
        half = self.size // 2
        if middle_kingdom and all(abs(r) <= half and abs(c) <= half for r, c in self.cells):
            total += 10
        if harmony and len(self.cells) == self.size**2 and not discards:
            total += 5
        return total


def replay_naively(game) -> tuple[list[NaiveKingdom], list[int]]:
    """Re-build every kingdom from the game's move log, checking each placement naively.

    Returns the kingdoms and each player's discards; raises AssertionError on an illegal move.
    """
    size = game.rules.kingdom_size
    kingdoms = [NaiveKingdom(size) for _ in range(game.num_players)]
    discards = [0] * game.num_players
    for player, action, number in game.moves:
        move = decode(action, size)
        if move.kind == "place":
            a, b = move.cells
            assert (a, b) in kingdoms[player].legal(number), f"illegal placement {move} of #{number}"
            kingdoms[player].place(number, a, b)
        elif move.kind == "discard":
            assert not kingdoms[player].legal(number) or game.rules.voluntary_discard, f"#{number} was placeable"
            discards[player] += 1
    return kingdoms, discards
