"""``learner_turn``: a step of the single-agent view against compiled opponents in one compiled call.

The learner's action, then the opponents' replies (:func:`agents.batched_policies.advance`) until the learner is to
move again or the game ends, then the learner's observation: what ``training.envs.single_agent`` asks of one game
(:meth:`kdenv.batched.single.SingleGame.play`) instead of three calls, each with numba's cost of a call.
"""

from __future__ import annotations

from agents.batched_policies import advance
from kdenv.batched.batch import play_rows
from kdenv.batched.jit import jit
from kdenv.batched.machine import player
from kdenv.batched.observe import observe
from kdenv.batched.single import REFUSED


@jit
def learner_turn(s, g, t, actions, rows, reward, paid, rewards, ended, movers, board, features, mask, work, seats,
                 plans, waiting, policy_work, draws):  # fmt: skip
    """Play the learner's ``actions[i]`` in the one game i of ``rows`` (``REFUSED``, nothing changed, if its mask
    forbids it), then the compiled opponents of ``seats`` (as ``advance``), the rewards of every move summed; then
    observe the learner. The learner (the player to move again), or -1 once the game is over."""
    rewards[:, :] = 0.0
    ended[:] = False
    if play_rows(s, g, t, actions, rows, reward, paid, rewards, ended, mask) >= 0:
        return REFUSED
    advance(s, g, t, rows, reward, paid, rewards, ended, seats, plans, waiting, policy_work, draws)
    i = rows[0]
    if ended[i]:
        return -1
    movers[i] = player(g, i)
    observe(s, g, i, t, movers[i], board[i], features[i], mask[i], work)
    return movers[i]
