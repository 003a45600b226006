"""Compile the compiled core's kernels once, before the test processes start (tests/conftest.py).

On a cold numba cache (a fresh checkout, as on CI) each pytest-xdist worker compiled the same kernels beside the
other, about four minutes of one core each. Compiled once here, every worker and every process a test starts loads
them from numba's on-disk cache instead.
"""

from __future__ import annotations

import random

import numpy as np

from agents.batched_policies import random_actions
from agents.registry import make_player
from kdenv.batched.rng import draw_states
from kdenv.game import Game
from kdenv.rules import STUDY_RULES
from kdenv.view import PublicView
from training.envs.one_learner import OneLearnerVectorEnv


def compile_kernels() -> None:
    """Run each compiled path the tests take once: a search with Full-Greedy rollouts, playouts, and the vector env
    with the gains observed and compiled opponents."""
    game = Game(4, STUDY_RULES, 0)
    rng = random.Random(0)
    for _ in range(30):
        game.step(rng.choice(game.legal_actions()))
    view = PublicView(game)
    for spec in ("az:default,simulations=8,batch=4", "mce:playouts=4"):
        player = make_player(spec, 4, STUDY_RULES)
        player.reset(view.current_player, seed=0)
        player.act(view)
    venv = OneLearnerVectorEnv(4, 4, opponents=["fg"] * 3, middle_kingdom=True, harmony=True, gains=True, copy=False)
    venv.reset(seed=0)
    actions, draws = np.zeros(4, np.int64), draw_states(np.random.default_rng(0), 4)
    for _ in range(50):
        random_actions(venv.env.observation()["action_mask"], actions, draws)
        venv.step(actions)
