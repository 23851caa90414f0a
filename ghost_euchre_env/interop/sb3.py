"""Stable-Baselines3's ``VecEnv`` over the native vector env: N games in one engine call.

``SB3VecEnv(env)`` takes a :class:`ghost_euchre_env.gym_vector.EuchreVectorEnv`
made with ``autoreset_mode=AutoresetMode.SAME_STEP`` (SB3's rule: the step
that ends an episode returns the next one's first observation, the last one
in ``infos[i]["terminal_observation"]``), or an env id and keyword arguments
for ``gymnasium.make_vec``::

    from sb3_contrib import MaskablePPO
    from ghost_euchre_env.interop.sb3 import SB3VecEnv

    env = SB3VecEnv("GhostEuchre-v0", num_envs=64, opponents="heuristic", episode="deal")
    MaskablePPO("MlpPolicy", env).learn(100_000)

``action_masks()`` (bool[N, A]) is what sb3-contrib's ``MaskablePPO`` asks
for, through ``env_method("action_masks")``. The info of a game whose episode
ends holds SB3's episode statistics, ``info["episode"] = {"r": return, "l":
length (learner decisions), "t": seconds since the env was made}``, as SB3's
``Monitor`` writes them, so SB3 logs ``rollout/ep_rew_mean`` and
``rollout/ep_len_mean`` (no ``VecMonitor`` needed). ``seed(s)`` seeds game i with
``s + i`` at the next reset, as SB3's own vector envs do. Importing this module
needs stable-baselines3.
"""

import time

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv

from ..gym_vector import EuchreVectorEnv


class SB3VecEnv(VecEnv):
    """``SB3VecEnv(env_or_id, num_envs=1, **make_vec_kwargs)``; see the module docstring."""

    def __init__(self, env, num_envs=1, **kwargs):
        if isinstance(env, str):
            env = gymnasium.make_vec(
                env, num_envs, autoreset_mode=AutoresetMode.SAME_STEP, **kwargs
            ).unwrapped
        if not isinstance(env, EuchreVectorEnv):
            raise ValueError(f"env must be an env id or an EuchreVectorEnv, got {env!r}")
        if env.metadata["autoreset_mode"] != AutoresetMode.SAME_STEP:
            raise ValueError(
                "SB3VecEnv needs the vector env made with autoreset_mode=AutoresetMode.SAME_STEP, "
                f"got {env.metadata['autoreset_mode']}"
            )
        self.env = env
        self._actions = None
        self._returns = np.zeros(env.num_envs, np.float64)  # each game's episode so far
        self._lengths = np.zeros(env.num_envs, np.int64)
        self._start = time.time()
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)

    def reset(self):
        seeds = None if any(seed is None for seed in self._seeds) else list(self._seeds)
        options = self._options if any(self._options) else None
        obs, _ = self.env.reset(seed=seeds, options=options)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        self._returns[:], self._lengths[:] = 0.0, 0
        return obs

    def step_async(self, actions):
        self._actions = actions

    def step_wait(self):
        obs, rewards, terminated, truncated, infos = self.env.step(self._actions)
        done = terminated | truncated
        self._returns += rewards
        self._lengths += 1
        step_infos = [{} for _ in range(self.num_envs)]
        elapsed = round(time.time() - self._start, 6)
        for game in np.flatnonzero(done):
            step_infos[game] = {
                "terminal_observation": infos["final_obs"][game],
                "TimeLimit.truncated": bool(truncated[game] and not terminated[game]),
                "episode": {
                    "r": float(self._returns[game]),
                    "l": int(self._lengths[game]),
                    "t": elapsed,
                },
            }
        self._returns[done], self._lengths[done] = 0.0, 0
        return obs, rewards, done, step_infos

    def action_masks(self):
        """bool[N, A]: the legal actions of every game now; RuntimeError before ``reset()``, as
        the env's ``step`` (there are no games yet, so no legal action to give)."""
        try:
            self.env.state  # noqa: B018 (read for its check: RuntimeError before reset)
        except RuntimeError:
            raise RuntimeError("call reset() before action_masks()") from None
        return self.env.action_masks()

    def _get_indices(self, indices):
        """The env indices ``indices`` names (None: all; an int; ints), each checked to be one of
        0..N-1: ValueError (one line) otherwise, as SB3's own vector envs would fail on it."""
        try:
            rows: list[object] = list(super()._get_indices(indices))
        except TypeError:
            rows = [indices]
        checked = []
        for row in rows:
            if (
                isinstance(row, bool)
                or not isinstance(row, (int, np.integer))
                or not 0 <= row < self.num_envs
            ):
                raise ValueError(
                    f"indices must name envs 0..{self.num_envs - 1} (an int, a list of them or "
                    f"None for all), got {row!r} in {indices!r}"
                )
            checked.append(int(row))
        return checked

    def close(self):
        self.env.close()

    def get_attr(self, attr_name, indices=None):
        value = (
            getattr(self, attr_name)
            if attr_name == "action_masks"
            else getattr(self.env, attr_name)
        )
        return [value] * len(list(self._get_indices(indices)))

    def set_attr(self, attr_name, value, indices=None):
        self._get_indices(indices)  # checked: the one batched env holds every game's attributes
        setattr(self.env, attr_name, value)

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        """Calls on the one batched env; ``action_masks`` returns game i's row for each index."""
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self.action_masks()[rows])
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(rows)

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * len(list(self._get_indices(indices)))

    def get_images(self):
        raise NotImplementedError("the Euchre envs render text (render_mode='ansi'), not images")
