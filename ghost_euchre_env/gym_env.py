"""Ghost Hand Euchre for single-agent libraries: one learner seat, the others played by given policies.

``gymnasium.make("GhostEuchre-v0", learner=0, opponents=None, **env_kwargs)``
(registered when ``ghost_euchre_env`` is imported). Runs on the AEC env
:mod:`ghost_euchre_env.ghost_euchre_v0`, so seeding, options, rewards,
validation and rendering are the AEC env's:

- observation: float32[390] of the learner's seat (the AEC layout);
- action: Discrete(34); ``action_masks()`` returns bool[34] (the convention of
  sb3-contrib's ``MaskablePPO``, which finds it through ``gymnasium.make``'s
  wrappers) and ``info["action_mask"]`` holds the same; Gymnasium 1.x wrappers
  do not forward methods, so on a made env call ``env.unwrapped.action_masks()``;
- reward: the learner's reward summed over its action and the opponents'
  actions up to its next turn (or the end of the episode);
- terminated / truncated: the AEC env's, for the learner;
- info: the learner's AEC info (``phase``, ``illegal_action`` and the latest
  deal's summary as flat ``last_deal_*`` keys: numbers that stack) plus
  ``action_mask``;
- a step (the learner's action and the opponents' after it) and a reset are
  all or nothing: when any action is refused or an opponent raises, the env is
  put back as it was before the call (the opponents' generator included) and
  the error passes on.

``opponents`` is None (every other seat plays uniformly random legal actions,
drawn from the env's ``np_random``), one opponent for every other seat, or a
dict from agent name (``"player_1"``) or seat to one (missing seats play
randomly); an opponent is a spec string (``"heuristic"``, built with
``ghost_euchre.agents.make_policy`` seeded ``policy_seed``), a policy object with a batched
``act(obs, mask)``, or a callable ``(obs float32[390], mask bool[34]) ->
action``. ``mask_in_observation=True`` makes the observation
``Dict(observations=Box, action_mask=Box(0, 1, [34], float32))``, as the
vector env's. Every keyword is checked by :mod:`ghost_euchre_env.options`
(an unknown one is a ``TypeError``). ``reset(seed=s)`` deals like the AEC env seeded with ``s`` and seeds
the random opponents; ``reset()`` continues with the next episode.

``gymnasium.make_vec("GhostEuchre-v0", num_envs=N)`` builds the native vector
env instead of N of these (:mod:`ghost_euchre_env.gym_vector`; sub-env i is
this env seeded ``seed + i``).

Version history: v0 (ghost_euchre_env 0.1.0); before its first published
release, info took the AEC env's fixed-shape numeric infos (``legal_actions``
dropped: ``action_masks()`` holds them).
"""

from typing import TYPE_CHECKING, Any, cast

import gymnasium
import numpy as np
from gymnasium import spaces

from . import GYM_ENV_ID as ENV_ID  # noqa: F401 (the id of GhostEuchreGymEnv, as before)
from . import options, variants
from .aec import EuchreAEC, render_as


class EuchreGymEnv(gymnasium.Env):
    """A variant's game for single-agent libraries: ``EuchreGymEnv(learner=0, opponents=None,
    render_mode=None, episode="game", reward="points", illegal_action="raise",
    illegal_action_penalty=-1.0, mask_in_observation=False, policy_seed=None, **rules)``: the
    options of :mod:`ghost_euchre_env.options`; see the module docstring.

    A variant's class (:func:`gym_env_class`: ``GhostEuchreGymEnv``, ``ClassicEuchreGymEnv``)
    sets ``env_id``, ``aec_class`` and ``skips_undecided``. learner: a seat or agent name.
    With ``illegal_action="terminate"`` an illegal learner action ends the episode with the
    penalty as its reward.
    """

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}  # noqa: RUF012 (an instance attribute in the base)
    env_id: str  # the id it is registered as (named in messages)
    aec_class: type[EuchreAEC]  # the variant's AEC env this view runs on
    door_kind = "gym"
    default_opponent: object = None  # plays the seats an opponents dict does not name (random)

    @classmethod
    def door(cls) -> options.Door:
        """This env's door: its name in messages, its options and its variant's rules."""
        aec = cls.aec_class
        name = f"gymnasium.make({cls.env_id!r})"
        return options.Door(name, cls.door_kind, aec.door().engine, aec.agent_names)

    def __init__(self, **given):
        chosen = options.parse(self.door(), given)
        self.options = chosen
        self.render_mode = chosen.render_mode
        self.aec = self.make_aec(chosen)
        agents = self.aec.possible_agents
        self.learner = agents[chosen.learner]
        engine = self.door().engine
        self.opponents = {
            agents[seat]: self._random_action if policy is None else options.as_callable(policy)
            for seat, policy in options.resolve_opponents(
                chosen, agents, engine, self.default_opponent
            ).items()
        }
        board = cast(spaces.Dict, self.aec.observation_space(self.learner))["observation"]
        num_actions = self.aec.game.num_actions
        self.mask_in_observation = chosen.mask_in_observation
        if chosen.mask_in_observation:
            mask_space = spaces.Box(0.0, 1.0, (num_actions,), np.float32)
            self.observation_space = spaces.Dict({"observations": board, "action_mask": mask_space})
        else:
            self.observation_space = board
        self.action_space = spaces.Discrete(num_actions)
        self._mask = np.zeros(num_actions, bool)

    def make_aec(self, chosen: options.EnvOptions) -> EuchreAEC:
        """The AEC env this view runs on (it renders as text; this view prints it for "human")."""
        return self.aec_class(
            "ansi" if chosen.render_mode else None,
            episode=chosen.episode,
            reward=chosen.reward,
            illegal_action=chosen.illegal_action,
            illegal_action_penalty=chosen.illegal_action_penalty,
            **chosen.rules,
        )

    def _random_action(self, obs, mask):
        legal = np.flatnonzero(mask)
        return int(legal[self.np_random.integers(len(legal))])

    skips_undecided = False  # a view where an episode may end before the learner's first decision

    def reset(self, *, seed=None, options=None):  # keyword-only, as gymnasium.Env.reset
        return self.all_or_nothing(self._reset_to_a_decision, seed, options)

    def _reset_to_a_decision(self, seed, options):
        """``_reset``; with ``skips_undecided``, an episode that ends before the learner's first
        decision is skipped (the next ones continue the seeded stream: same seed, same episodes)."""
        obs, info = self._reset(seed, options)
        while self.skips_undecided and self._episode_over():
            obs, info = self._reset(None, None)
        return obs, info

    def _reset(self, seed, options):
        super().reset(seed=seed)
        self.aec.reset(seed=seed, options=options)
        self._play_opponents()
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action):
        """The learner's action, then the opponents' up to its next turn: all applied, or
        (an error in any of them: a bad action, a failing policy) none."""
        if not self.aec.agents or self._episode_over():
            raise RuntimeError("no episode is running; call reset()")
        return self.all_or_nothing(self._step, action)

    def _step(self, action):
        aec = self.aec
        aec.step(action)
        reward = aec.rewards[self.learner]
        reward += self._play_opponents()
        if self.render_mode == "human":
            self.render()
        terminated = aec.terminations[self.learner]
        truncated = aec.truncations[self.learner]
        return self._observation(), float(reward), terminated, truncated, self._info()

    def all_or_nothing(self, call, *args):
        """``call(*args)``; if it raises, the env (the AEC env, the mask, the random
        opponents' generator) is put back as it was before, and the error passes on."""
        saved = self.aec.snapshot()
        mask, generator, seed = self._mask, self._np_random, self._np_random_seed
        draws = {} if generator is None else generator.bit_generator.state  # a copy, cheap
        try:
            return call(*args)
        except BaseException:
            self.aec.restore(saved)
            self._mask, self._np_random, self._np_random_seed = mask, generator, seed
            if generator is not None:
                generator.bit_generator.state = draws
            raise

    def _play_opponents(self):
        """Let the other seats act until the learner is on move or the episode ends; learner's reward."""
        aec = self.aec
        reward = 0.0
        while not self._episode_over() and aec.agent_selection != self.learner:
            agent = aec.agent_selection
            obs = aec.observe(agent)
            aec.step(self.opponents[agent](obs["observation"], obs["action_mask"].astype(bool)))
            reward += aec.rewards[self.learner]
        return reward

    def _episode_over(self):
        return self.aec.terminations[self.learner] or self.aec.truncations[self.learner]

    def _observation(self) -> Any:  # Gymnasium's ObsType: an array, or a dict of two
        obs = self.aec.observe(self.learner)
        self._mask = obs["action_mask"].astype(bool)
        if self.mask_in_observation:
            return {
                "observations": obs["observation"],
                "action_mask": self._mask.astype(np.float32),
            }
        return obs["observation"]

    def _info(self):
        info = dict(self.aec.infos[self.learner])
        info["action_mask"] = self._mask.copy()
        return info

    def action_masks(self):
        """bool[A]: the learner's legal actions now (all False once the episode is over);
        RuntimeError before ``reset()``, as ``step``."""
        if not self.aec.agents:
            raise RuntimeError("call reset() before action_masks()")
        return self._mask.copy()

    def render(self):
        return render_as(self.render_mode, self.aec.render)

    def close(self):
        self.aec.close()


def gym_env_class(variant) -> type[EuchreGymEnv]:
    """The variant's single-agent Gymnasium env class (``GhostEuchreGymEnv``, ``ClassicEuchreGymEnv``)."""
    name = variant.door_name("gym")[1]
    written = f"""``{name}(learner=0, opponents=None, render_mode=None, episode="game", reward="points",
illegal_action="raise", illegal_action_penalty=-1.0, mask_in_observation=False,
policy_seed=None, **rules)``: {variant.title} as :class:`EuchreGymEnv`.
"""
    return variant.door_class(
        "gym",
        (EuchreGymEnv,),
        written,
        env_id=variant.doors.gym_id,
        aec_class=variant.door("aec"),
        skips_undecided=variant.seat_can_sit_out,
    )


__getattr__, __dir__ = variants.published(__name__)  # the doors the declarations publish here
if TYPE_CHECKING:  # the shipped variants' ones, as ghost.py and classic.py declare them
    GhostEuchreGymEnv: type[EuchreGymEnv]
