"""The PettingZoo Parallel API over a variant's AEC env, written once: ``ghost_euchre_v0.parallel_env()``,
``classic_euchre_v0.parallel_env()`` (:func:`parallel_env_function` makes a variant's).

Euchre is turn based; in the Parallel API every live agent sends an action at every step.
:class:`EuchreParallel` plays the action of the agent on move (the AEC env's
``agent_selection``) and ignores the others':

- a step is one decision, the AEC env's step: the same seed and the same actions of the agents
  on move give the same game, observations, rewards and infos (a test checks it);
- ``observations[agent]`` is the AEC env's ``observe(agent)`` for every live agent; the
  ``action_mask`` of an agent not on move holds one legal action, PASS (24 in both
  variants), which stands for waiting: libraries that sample every agent's action through its
  mask (TorchRL's ``PettingZooWrapper``, PettingZoo's ``parallel_api_test``) need one, and a
  masked policy learns nothing from a choice of one. ``infos[agent]`` is the AEC env's info plus
  ``"on_move"`` (bool: the agent's action is the one played);
- ``rewards`` are the AEC env's ``rewards`` of the step (each agent's reward the moment it is
  paid: a deal's points at its last card, a penalty at an illegal action), so an agent's
  rewards add up to its AEC return;
- the step that ends the episode terminates (or truncates) every agent, with all-zero masks;
  ``agents`` is then empty (no dead steps: they are an AEC matter);
- an action that is missing for the agent on move, or not an int in range, or illegal (with
  ``illegal_action="raise"``) raises ``ValueError`` and changes nothing; with
  ``illegal_action="terminate"`` an illegal action ends the episode as in the AEC env.

The options are the AEC env's (:mod:`ghost_euchre_env.options`).
"""

from typing import Any

import numpy as np
from pettingzoo import ParallelEnv

from . import options
from .aec import EuchreAEC

WAIT = 24  # PASS in both variants: the one legal action of an agent not on move


class EuchreParallel(ParallelEnv):
    """``EuchreParallel(aec_class, render_mode=None, **options)``: the Parallel env of a
    variant's AEC env class (its ``raw_env``); see the module docstring."""

    def __init__(self, aec_class: type[EuchreAEC], render_mode=None, **given):
        name = aec_class.metadata["name"]
        aec_door = aec_class.door()
        door = options.Door(
            f"{name}.parallel_env()", aec_door.kind, aec_door.engine, aec_door.agents
        )
        options.parse(door, {"render_mode": render_mode, **given})  # its own name in messages
        self.aec = aec_class(render_mode, **given)
        self.metadata = {**aec_class.metadata, "is_parallelizable": True}
        self.render_mode = render_mode
        self.possible_agents = list(self.aec.possible_agents)
        self.agents: list[str] = []
        self.observation_spaces = self.aec.observation_spaces
        self.action_spaces = self.aec.action_spaces
        num_actions = self.aec.game.num_actions
        self._wait = np.zeros(num_actions, np.int8)
        self._wait[WAIT] = 1

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    @property
    def game(self):
        """The variant's batched engine (a batch of one game), as the AEC env's ``game``."""
        return self.aec.game

    @property
    def last_deal(self) -> dict:
        """The latest finished deal's summary, as the AEC env's ``last_deal``."""
        return self.aec.last_deal

    def reset(self, seed=None, options=None):
        """As the AEC env's ``reset``; returns (observations, infos) of every agent."""
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.aec.agents)
        return self._observations(), self._infos()

    def step(self, actions: dict[str, Any]):
        """Play the action of the agent on move (the others' are ignored); returns
        (observations, rewards, terminations, truncations, infos) of every agent live before
        the step."""
        if not self.agents:
            raise RuntimeError("no episode is running; call reset()")
        aec = self.aec
        agent = aec.agent_selection
        if not isinstance(actions, dict) or agent not in actions:
            raise ValueError(
                f"actions must be a dict holding the action of {agent}, the agent on move, "
                f"got {actions!r}"
            )
        aec.step(actions[agent])
        observations, infos = self._observations(), self._infos()
        rewards = dict(aec.rewards)
        terminations, truncations = dict(aec.terminations), dict(aec.truncations)
        if any(terminations.values()) or any(truncations.values()):
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observations(self):
        aec = self.aec
        rows = aec.observe_every_seat()  # one engine call for every seat
        mover = aec._on_move
        if mover is None:  # the episode is over: no action for anyone
            masks = [aec._no_actions] * len(rows)
        else:
            masks = [self._wait] * len(rows)
            masks[mover] = aec._mask
        return {
            agent: {"observation": row, "action_mask": mask.copy()}
            for agent, row, mask in zip(self.possible_agents, rows, masks, strict=True)
        }

    def _infos(self):
        aec = self.aec
        mover = aec.agent_selection if aec._on_move is not None else None
        return {agent: {**info, "on_move": agent == mover} for agent, info in aec.infos.items()}

    def render(self):
        return self.aec.render()

    def close(self):
        self.aec.close()

    def state(self):
        raise NotImplementedError("the Euchre envs have no global state observation")


def parallel_env_function(variant):
    """The variant's ``parallel_env(render_mode=None, **options)`` (its ``*_v0`` module's)."""
    raw_env = variant.door("aec")

    def parallel_env(render_mode=None, **options):
        return EuchreParallel(raw_env, render_mode, **options)

    parallel_env.__doc__ = variant.door_doc(
        "parallel",
        """The PettingZoo Parallel env of this game, with the options of ``env()``; see
:mod:`ghost_euchre_env.parallel`.""",
    )
    return parallel_env
