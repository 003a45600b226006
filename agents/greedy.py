"""The study's scripted players: ``gprd`` (greedy placement, random pick) and ``fg`` (Full Greedy).

Both judge a placement by the score of the resulting kingdom under the game's rules, so with Middle
Kingdom on a kingdom that stays within the window centred on the castle carries its +10, and the
placement that completes a kingdom with no discard carries Harmony's +5 (see :func:`bonus`).

Full Greedy (Gedda et al. 2018) tries every (placement of the held domino, pick of the next line,
best placement of the picked domino) triple and keeps the best, ties at random. Placements are
first filtered, each with a fall-back to the unfiltered set when the filter would drop them all:
  1. keep both squares inside the S x S window centred on the castle (the castle stays the centre);
  2. then drop placements that leave a single-square hole (an empty cell with no empty neighbour).
The filters apply to the held domino's placement and to the picked domino's hypothetical one.
``gprd`` places by the same filters and score (one placement deep), breaks ties by the rules' own
tie-break (the larger largest property after placing), and picks at random. The filters and the
tie-break each make it win more often against three random players (measured: benchmarks/RESULTS.md,
section "The study's protocol").
With no next line (last round) only the placement counts; a domino that cannot be placed is
discarded and the pick is chosen by the best placement of the picked domino. The set-up pick
takes the domino with the most crowns on one half.
"""

from __future__ import annotations

import random

from agents.base import Player
from agents.gains import TerrainTable, centred_masks, hole_masks, joined_squares, placement_gain, terrain_table
from kdenv.actions import discard_action, pick_action
from kdenv.game import PICK, PLACE, Game
from kdenv.kingdom import HALVES, Kingdom
from kdenv.tiles import NUM_TERRAINS
from kdenv.view import PublicView

GameLike = Game | PublicView


def bonus(game: GameLike, occupied: int, discards: int) -> int:
    """Variant bonuses of a (hypothetical) kingdom with squares ``occupied`` under the game's rules."""
    middle, harmony = game.rules.bonuses(occupied, discards)
    return middle + harmony


def _tables(kingdom: Kingdom, cache: dict) -> list[TerrainTable]:
    return [terrain_table(kingdom, t, cache) for t in range(NUM_TERRAINS)]


def _after(tables: list[TerrainTable], kingdom: Kingdom, number: int, a: int, b: int) -> list[TerrainTable]:
    """The gain tables once domino ``number`` lies on cells a (half A) and b (half B)."""
    f = kingdom.frame
    ta, ca, tb, cb = HALVES[number]
    new = tables[:]
    if ta == tb:
        new[ta] = tables[ta].with_square(f, a, ca, b, cb)
    else:
        new[ta] = tables[ta].with_square(f, a, ca)
        new[tb] = tables[tb].with_square(f, b, cb)
    return new


def study_filter(kingdom: Kingdom) -> tuple[tuple[int, int, int, int] | None, tuple[int, int, int, int]]:
    """Full Greedy's filters for one kingdom: the in-window placement masks (None when the kingdom is
    no longer centred, so the first filter is moot) and the hole-making placement masks."""
    window, pairs = centred_masks(kingdom.frame.size)
    occupied = kingdom.occupied
    if not occupied & ~window:
        return pairs, hole_masks(kingdom.frame, window & ~occupied)
    return None, hole_masks(kingdom.frame, kingdom.window)


def apply_filter(filt: tuple, masks: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """Placement masks kept by a :func:`study_filter`: in the window, then no hole, each with fall-back."""
    pairs, holes = filt
    if pairs is not None:
        kept = (masks[0] & pairs[0], masks[1] & pairs[1], masks[2] & pairs[2], masks[3] & pairs[3])
        if kept[0] or kept[1] or kept[2] or kept[3]:
            masks = kept
    kept = (masks[0] & ~holes[0], masks[1] & ~holes[1], masks[2] & ~holes[2], masks[3] & ~holes[3])
    return kept if (kept[0] or kept[1] or kept[2] or kept[3]) else masks


def study_masks(kingdom: Kingdom, masks: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """Full Greedy's filters on placement masks: stay centred, then leave no single-square hole."""
    return apply_filter(study_filter(kingdom), masks)


def best_placement_value(
    game: GameLike,
    kingdom: Kingdom,
    tables: list[TerrainTable],
    number: int,
    discards: int,
    filt: tuple | None = None,
) -> int:
    """Best score change (bonuses of the result included) of placing ``number`` in ``kingdom`` by FG's filters
    (``filt``: the kingdom's :func:`study_filter`, if already known).

    Returns the value of discarding it when it has no legal placement.
    """
    window, pairs = centred_masks(kingdom.frame.size)
    occupied = kingdom.occupied
    masks = apply_filter(filt or study_filter(kingdom), kingdom.placement_masks(number))
    if not (masks[0] or masks[1] or masks[2] or masks[3]):
        return bonus(game, occupied, discards + 1)
    # a placement inside the window keeps Middle Kingdom (if the kingdom has it); one outside loses it
    rules = game.rules
    harmony = rules.harmony_bonus(occupied.bit_count() + 2, discards)
    mk = rules.middle_bonus(not occupied & ~window)
    inside = (masks[0] & pairs[0], masks[1] & pairs[1], masks[2] & pairs[2], masks[3] & pairs[3])
    outside = (masks[0] ^ inside[0], masks[1] ^ inside[1], masks[2] ^ inside[2], masks[3] ^ inside[3])
    steps = kingdom.frame.steps
    return max(
        max_gain(tables, number, inside, steps) + mk + harmony,
        max_gain(tables, number, outside, steps) + harmony,
    )


NONE = -(1 << 30)  # max_gain of no placement at all


def max_gain(tables: list[TerrainTable], number: int, masks: tuple[int, ...], steps: tuple[int, ...]) -> int:
    """The highest property-score change over the placements in ``masks`` (NONE if there is none)."""
    ta, ca, tb, cb = HALVES[number]
    t, u = tables[ta], tables[tb]
    tbase, tmult, ubase, umult = t.base, t.mult, u.base, u.mult
    top = NONE
    for d in range(4):
        m = masks[d]
        step = steps[d]
        while m:
            low = m & -m
            a = low.bit_length() - 1
            m ^= low
            if ta == tb:
                g = t.pair_gain(a, a + step, ca + cb)
            else:
                g = tbase[a] + ca * tmult[a] + ubase[a + step] + cb * umult[a + step]
            if g > top:
                top = g
    return top


class FullGreedy:
    """Full Greedy's decision on any game or public view, with a cache of gain tables shared across calls."""

    def __init__(self, cache: dict | None = None) -> None:
        self.cache: dict = {} if cache is None else cache
        self._plan: tuple | None = None  # (kingdom squares after placing, line, claims, slot) chosen when placing

    def act(self, game: GameLike, rng: random.Random) -> int:
        phase = game.phase
        if phase == PLACE:
            return self._place(game, rng)
        if phase == PICK:
            return self._pick(game, rng)
        raise ValueError("the game is over: no action to choose")

    # ----- picking -----------------------------------------------------------------------------
    def pick_options(self, game: GameLike) -> list[tuple[int, int]]:
        """(value, slot) of every free slot of the next line: at set-up the most crowns on one half,
        later the best score reachable by placing the picked domino next."""
        line, claims = game.line, game.claims
        free = [i for i, owner in enumerate(claims) if owner < 0]
        if game.round == 0:
            return [(max(HALVES[line[i]][1], HALVES[line[i]][3]), i) for i in free]
        kingdom = game.kingdoms[game.current_player]
        tables = _tables(kingdom, self.cache)
        return [(best_placement_value(game, kingdom, tables, line[i], kingdom.discards), i) for i in free]

    def _pick(self, game: GameLike, rng: random.Random) -> int:
        size = game.rules.kingdom_size
        plan = self._plan
        if plan is not None and game.round:
            line, claims = game.line, game.claims
            if plan[0] == game.kingdoms[game.current_player].occupied and plan[1] == line and plan[2] == claims:
                return pick_action(plan[3], size)
        return pick_action(_one(self.choices(game), rng)[1], size)

    def choices(self, game: GameLike) -> list[tuple[int, int]]:
        """The (placement, slot) rows it chooses from at random now, its ties broken by :meth:`break_ties`: its
        :meth:`best_turns` when placing (a domino it can place), (-1, slot) of its best picks when picking (no plan
        made when placing)."""
        if game.phase == PLACE:
            return self.break_ties(game, self.best_turns(game))
        options = self.pick_options(game)
        top = max(options)[0]
        return self.break_ties(game, [(-1, slot) for value, slot in options if value == top])

    def break_ties(self, game: GameLike, rows: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """The best (placement, slot) rows (placement -1 when picking) to choose from at random: all of them, as
        the study's Full Greedy breaks its ties (:class:`agents.tie_break.TieBrokenFullGreedy` narrows them)."""
        return rows

    # ----- placing -----------------------------------------------------------------------------
    def place_options(self, game: GameLike, masks: tuple[int, int, int, int] | None = None) -> list[tuple]:
        """(value, placement action, slot) of every triple FG weighs (slot -1 in the last round).

        The value is the score change of the kingdom after the placement and the best placement of the
        picked domino, bonuses included. ``masks`` (default: FG's filtered placements) limits the placements.
        """
        kingdom = game.kingdoms[game.current_player]
        number = game.held_domino
        if masks is None:
            masks = study_masks(kingdom, game.placement_masks())
        line, claims = game.line, game.claims
        free = [i for i, owner in enumerate(claims) if owner < 0]
        f = kingdom.frame
        steps = f.steps
        tables = _tables(kingdom, self.cache)
        discards = kingdom.discards
        options = []
        for d in range(4):
            m = masks[d]
            step = steps[d]
            while m:
                low = m & -m
                a = low.bit_length() - 1
                m ^= low
                b = a + step
                gain = placement_gain(tables, number, a, b)
                if not free:
                    occupied = kingdom.occupied | low | (1 << b)
                    options.append((gain + bonus(game, occupied, discards), 4 * a + d, -1))
                    continue
                after = kingdom.copy()
                after.place(number, 4 * a + d)
                tables1 = _after(tables, kingdom, number, a, b)
                filt = study_filter(after)
                for i in free:
                    value = gain + best_placement_value(game, after, tables1, line[i], discards, filt)
                    options.append((value, 4 * a + d, i))
        return options

    def _place(self, game: GameLike, rng: random.Random) -> int:
        raw = game.placement_masks()
        if not (raw[0] or raw[1] or raw[2] or raw[3]):
            self._plan = None
            return discard_action(game.rules.kingdom_size)
        action, slot = _one(self.choices(game), rng)
        if slot >= 0:
            self._plan = (_occupied_after(game, action), list(game.line), list(game.claims), slot)
        else:
            self._plan = None
        return action

    def best_turns(self, game: GameLike) -> list[tuple[int, int]]:
        """The (placement, slot) pairs of the best value among :meth:`place_options` (same values).

        Branch and bound: a picked domino sharing no terrain with the held one cannot score more after
        the placement than its best placement anywhere in the kingdom now (its squares' neighbours are
        unchanged and no cell is freed), so a triple whose bound is below the best so far is skipped.
        """
        kingdom = game.kingdoms[game.current_player]
        number = game.held_domino
        line, claims = game.line, game.claims
        free = [i for i, owner in enumerate(claims) if owner < 0]
        if not free:
            options = self.place_options(game)
            top = max(options)[0]
            return [(action, slot) for value, action, slot in options if value == top]
        steps = kingdom.frame.steps
        tables = _tables(kingdom, self.cache)
        discards = kingdom.discards
        bounds = _pick_bounds(game, kingdom, tables, free)
        masks = study_masks(kingdom, game.placement_masks())
        firsts = []
        for d in range(4):
            m = masks[d]
            while m:
                low = m & -m
                a = low.bit_length() - 1
                m ^= low
                firsts.append((placement_gain(tables, number, a, a + steps[d]), a, d))
        firsts.sort(reverse=True)
        best_value, best = NONE, []
        for gain, a, d in firsts:
            placed = None  # (the kingdom after the placement, its gain tables, its filter), made when first needed
            for k, i in enumerate(free):
                bound = bounds[k]
                if bound is not None and gain + bound < best_value:
                    continue
                if placed is None:
                    after = kingdom.copy()
                    after.place(number, 4 * a + d)
                    placed = (after, _after(tables, kingdom, number, a, a + steps[d]), study_filter(after))
                value = gain + best_placement_value(game, placed[0], placed[1], line[i], discards, placed[2])
                if value > best_value:
                    best_value, best = value, [(4 * a + d, i)]
                elif value == best_value:
                    best.append((4 * a + d, i))
        return best


def _pick_bounds(game: GameLike, kingdom: Kingdom, tables: list, free: list[int]) -> list[int | None]:
    """For each free slot, a bound on what its domino can add after any placement of the held one (None when
    the two share a terrain, so that the placement may change what the pick can score): its best placement in
    the kingdom now, plus the bonuses the kingdom could still earn."""
    rules = game.rules
    window, _ = centred_masks(kingdom.frame.size)
    extra = rules.middle_bonus(not kingdom.occupied & ~window) + rules.harmony_bonus(
        kingdom.occupied.bit_count() + 4, kingdom.discards
    )
    ta, _, tb, _ = HALVES[game.held_domino]
    bounds: list[int | None] = []
    for i in free:
        pa, _, pb, _ = HALVES[game.line[i]]
        disjoint = pa not in (ta, tb) and pb not in (ta, tb)
        number = game.line[i]
        top = max_gain(tables, number, kingdom.placement_masks(number), kingdom.frame.steps) if disjoint else None
        bounds.append(None if top is None else max(top, 0) + extra)
    return bounds


def _occupied_after(game: GameLike, action: int) -> int:
    """The current player's squares once placement ``action`` is played."""
    kingdom = game.kingdoms[game.current_player]
    a = action >> 2
    return kingdom.occupied | (1 << a) | (1 << (a + kingdom.frame.steps[action & 3]))


def _one(rows: list[tuple[int, int]], rng: random.Random) -> tuple[int, int]:
    """One of ``rows`` at random (no draw when there is only one)."""
    return rows[0] if len(rows) == 1 else rows[rng.randrange(len(rows))]


class GreedyPlacement:
    """Greedy placement: among the placements Full Greedy's filters keep, the best standing of the
    resulting kingdom (score, then largest property; remaining ties at random); a random pick."""

    def __init__(self, cache: dict | None = None) -> None:
        self.cache: dict = {} if cache is None else cache

    def act(self, game: GameLike, rng: random.Random) -> int:
        best = self.best_placements(game)
        if not best:  # a pick, or a domino to discard
            actions = game.legal_actions()
            return actions[rng.randrange(len(actions))]
        return best[0] if len(best) == 1 else best[rng.randrange(len(best))]

    def best_placements(self, game: GameLike) -> list[int]:
        """The placements of the best (score, largest property) among those FG's filters keep; [] when
        picking or when the domino cannot be placed."""
        raw = game.placement_masks() if game.phase == PLACE else (0, 0, 0, 0)
        if not (raw[0] or raw[1] or raw[2] or raw[3]):
            return []
        kingdom = game.kingdoms[game.current_player]
        number = game.held_domino
        masks = study_masks(kingdom, raw)
        steps = kingdom.frame.steps
        tables = _tables(kingdom, self.cache)
        largest = max(max(table.sizes, default=0) for table in tables)  # the kingdom's largest property now
        options = []
        for d in range(4):
            m = masks[d]
            while m:
                low = m & -m
                a = low.bit_length() - 1
                m ^= low
                b = a + steps[d]
                score = placement_gain(tables, number, a, b) + bonus(
                    game, kingdom.occupied | low | (1 << b), kingdom.discards
                )
                options.append(((score, max(largest, joined_squares(tables, number, a, b))), 4 * a + d))
        top = max(options)[0]
        return [action for value, action in options if value == top]


class _PolicyPlayer(Player):
    """A Player around one of the fast policies above (one policy object keeps its caches across games)."""

    policy_type: type[GreedyPlacement] | type[FullGreedy]

    def __init__(self) -> None:
        super().__init__()
        self.policy = self.policy_type()

    def act(self, view: PublicView) -> int:
        return self.policy.act(view, self.rng)


class GreedyPlacementPlayer(_PolicyPlayer):
    """``gprd``: places for the best immediate score, picks at random."""

    policy_type = GreedyPlacement


class FullGreedyPlayer(_PolicyPlayer):
    """``fg``: the study's Full Greedy player (see the module docstring)."""

    policy_type = FullGreedy
