"""The learner's vector view as a Stable-Baselines3 ``VecEnv``: MaskablePPO trains on hundreds of games in one
process, no subprocess.

:class:`SB3VecEnv` wraps :class:`training.envs.one_learner.OneLearnerVectorEnv` (keywords are its own). SB3 asks a
``VecEnv`` for float32 rewards, done flags, one info dict per env (with ``terminal_observation`` for a
game that ended: SB3 resets it in the same step, as Gymnasium's ``SAME_STEP`` mode does) and, for
sb3_contrib, ``env_method("action_masks")``. Observations are dicts of arrays, or with ``observation="flat"`` one
array (for SB3's ``MlpPolicy``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from kdenv.checks import seed_value
from training.envs.one_learner import OneLearnerVectorEnv


def row(obs: Any, i: int) -> Any:
    """Game ``i``'s observation in a batch of them: a dict of arrays, or one array (``observation="flat"``)."""
    return obs[i] if isinstance(obs, np.ndarray) else {key: value[i] for key, value in obs.items()}


class SB3VecEnv(VecEnv):
    """A Stable-Baselines3 ``VecEnv`` of ``num_envs`` games, one learner seat each (see the module docstring)."""

    render_mode = None

    def __init__(self, num_envs: int, venv: Any = None, **kwargs: Any) -> None:
        """``num_envs`` games of a :class:`OneLearnerVectorEnv` made with ``kwargs``, or those of ``venv``, another
        env of its interface (:class:`training.envs.table_vector.TableVectorEnv`)."""
        self.venv = OneLearnerVectorEnv(num_envs, copy=True, **kwargs) if venv is None else venv  # SB3 keeps them
        super().__init__(num_envs, self.venv.single_observation_space, self.venv.single_action_space)
        self._actions: np.ndarray | None = None
        self._seed: int | None = None

    def reset(self) -> Any:
        obs, info = self.venv.reset(seed=self._seed)
        self._seed = None
        self.reset_infos = [{"seat": int(seat)} for seat in info["seat"]]
        return obs

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the next reset (every game's deal and the compiled opponents); a bad seed is refused now."""
        self._seed = seed = seed_value(seed)
        return [seed] * self.num_envs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[Any, np.ndarray, np.ndarray, list[dict]]:
        obs, reward, terminated, truncated, info = self.venv.step(self._actions)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(terminated).tolist():
            final = info["final_info"]
            infos[i] = {
                "terminal_observation": row(info["final_obs"], i),
                "TimeLimit.truncated": False,
                "scores": final["scores"][i].tolist(),
                "placings": final["placings"][i].tolist(),
                "seat": int(final["seat"][i]),
                "agents": list(final["agents"][i]),
            }
        return obs, reward.astype(np.float32), terminated | truncated, infos

    def action_masks(self) -> np.ndarray:
        """(N, A) bool: the learner's legal actions in each game."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    # ----- the VecEnv plumbing: one process holds every game ------------------------------------------
    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self.venv, attr_name) if attr_name != "render_mode" else None
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        rows = self._indices(indices)
        if method_name == "action_masks":
            return list(self.venv.action_masks()[rows])
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._indices(indices)]
