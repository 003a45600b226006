"""``learner_turn``: a step of the single-agent view against compiled opponents in one compiled call.

The learner's action, then the opponents' replies (:func:`agents.batched.policy.advance`) until the learner is to
move again or the game ends, then the learner's observation: what ``training.envs.single_agent`` asks of one game
(:meth:`kdenv.batched.single.SingleGame.play`) instead of three calls, each with numba's cost of a call.
"""

from __future__ import annotations

from agents.batched.policy import advance
from kdenv.batched.batch import play_rows
from kdenv.batched.jit import jit
from kdenv.batched.machine import player
from kdenv.batched.observe import observe
from kdenv.batched.single import REFUSED


@jit
def learner_turn(s, g, t, actions, step, movers, out, seats, plans, waiting, policy_work, draws):
    """Play the learner's ``actions[i]`` in the one game i of ``step.rows`` (``REFUSED``, nothing changed, if its
    mask forbids it), then the compiled opponents of ``seats`` (as ``advance``), the rewards of every move summed;
    then observe the learner into ``out``. The learner (the player to move again), or -1 once the game is over."""
    step.rewards[:, :] = 0.0
    step.ended[:] = False
    if play_rows(s, g, t, actions, step, out.mask) >= 0:
        return REFUSED
    advance(s, g, t, step, seats, plans, waiting, policy_work, draws)
    i = step.rows[0]
    if step.ended[i]:
        return -1
    movers[i] = player(g, i)
    observe(s, g, i, t, movers[i], out.board[i], out.features[i], out.mask[i], out.work)
    return movers[i]
