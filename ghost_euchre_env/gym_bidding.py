"""The auction of both games for single-agent libraries: one learner seat bids, given policies do the rest.

``gymnasium.make("GhostEuchreBidding-v0", learner=0, opponents="heuristic",
card_play="heuristic", **env_kwargs)`` (registered when ``ghost_euchre_env`` is
imported). :mod:`ghost_euchre_env.gym_env`'s view on the auction-only AEC env
:mod:`ghost_euchre_env.ghost_bidding_v0`: the learner makes only its auction
and trump decisions, the other seats' auction and trump decisions are made by
``opponents``, and every card play by ``card_play``. Episodes are single deals
by default (``episode="deal"``); reward ``"points"`` or ``"margin"``. An
episode in which the learner has no decision (a moon bid before its turn) is
played out inside ``reset`` and skipped.

- observation float32[390], action Discrete(34), ``action_masks()`` bool[34]
  (``info["action_mask"]`` holds the same; on a made env call
  ``env.unwrapped.action_masks()``, as for ``GhostEuchre-v0``), infos: as ``GhostEuchre-v0``.
- ``card_play``: an object with the batched ``act(obs, mask)`` of
  ``agents.Policy``, or a policy spec string (default ``"heuristic"``).
- ``opponents``: a spec string or such an object for every other seat, a
  callable ``(obs float32[390], mask bool[34]) -> action``, or a dict from
  agent name or seat to any of these (missing seats: the heuristic).

``gymnasium.make("ClassicEuchreBidding-v0", learner=0, opponents="heuristic",
card_play="heuristic", **env_kwargs)`` is classic Euchre's (on
:mod:`ghost_euchre_env.classic_bidding_v0`, :class:`ClassicEuchreBiddingGymEnv`):
observation float32[464], action Discrete(31); the learner makes its decisions
before the first card (ordering up or passing, naming trump, alone or with the
partner, the dealer's discard) and is paid its team's points. Its partner (seat
``(learner + 2) % 4``) is played like the opponents: by ``opponents`` (one spec or
policy for every other seat, the partner's auction included), or by the dict's
entry for that seat (e.g. ``{2: "ppo:classic-bidder", 1: "heuristic"}``;
missing seats: the heuristic). An episode in which the learner has no decision
(its partner went alone before its first turn) is skipped.

Spec strings are the one thing resolved outside this package: they are built
with ``agents.make_policy``, imported by name when a string is given (this
package has no import of ``agents``; pass policy objects to avoid it).
"""

import importlib

from .classic import ClassicEuchre
from .classic_bidding_v0 import raw_env as classic_bidding_raw_env
from .ghost import GhostEuchre
from .ghost_bidding_v0 import raw_env as bidding_raw_env
from .gym_env import GhostEuchreGymEnv

DEFAULT_POLICY = "heuristic"


def resolve_policy(policy, rules, engine=GhostEuchre, seed=None):
    """A policy object: ``policy`` itself, or the spec string built (with ``seed``) for an
    ``engine`` (the variant's engine class) with ``rules``."""
    if isinstance(policy, str):
        agents = importlib.import_module("agents")
        return agents.make_policy(policy, engine(**rules), seed=seed)
    return policy


def as_callable(policy):
    """(obs float32[390], mask bool[34]) -> int: a batched policy's ``act`` on one observation, or ``policy`` if callable."""
    act = getattr(policy, "act", None)
    if act is None:
        return policy
    return lambda obs, mask: int(act(obs[None], mask[None])[0])


class GhostEuchreBiddingGymEnv(GhostEuchreGymEnv):
    """``GhostEuchreBiddingGymEnv(learner=0, opponents="heuristic", card_play="heuristic",
    render_mode=None, episode="deal", reward="points", illegal_action="raise",
    illegal_action_penalty=-1.0, **rules)``; see the module docstring.
    """

    ENGINE: type = GhostEuchre  # the variant's engine (what spec strings are built for)
    bidding_aec: type = bidding_raw_env  # the variant's auction-only AEC env

    def __init__(
        self,
        learner=0,
        opponents: object = DEFAULT_POLICY,
        card_play: object = DEFAULT_POLICY,
        render_mode=None,
        episode="deal",
        reward="points",
        illegal_action="raise",
        illegal_action_penalty=-1.0,
        **rules,
    ):
        self._rules = rules
        self.card_play = resolve_policy(card_play, rules, self.ENGINE)
        super().__init__(
            learner,
            opponents,
            render_mode,
            episode,
            reward,
            illegal_action,
            illegal_action_penalty,
            **rules,
        )

    skips_undecided = True  # a moon bid before the learner's turn ends the auction

    def make_aec(
        self, render_mode, episode, reward, illegal_action, illegal_action_penalty, **rules
    ):
        return self.bidding_aec(
            self.card_play,
            render_mode,
            episode,
            reward,
            illegal_action,
            illegal_action_penalty,
            **rules,
        )

    def _parse_opponents(self, opponents):
        if isinstance(opponents, dict):
            given = {key: self._opponent(value) for key, value in opponents.items()}
            default = self._opponent(DEFAULT_POLICY)
            chosen = super()._parse_opponents(given)
            return {
                agent: default if policy == self._random_action else policy
                for agent, policy in chosen.items()
            }
        return super()._parse_opponents(self._opponent(opponents))

    def _opponent(self, policy):
        return as_callable(resolve_policy(policy, self._rules, self.ENGINE))


class ClassicEuchreBiddingGymEnv(GhostEuchreBiddingGymEnv):
    """``ClassicEuchreBiddingGymEnv(learner=0, opponents="heuristic", card_play="heuristic", ...)``:
    classic Euchre's auction (the learner's team against the other; its partner played as
    ``opponents`` says); arguments as :class:`GhostEuchreBiddingGymEnv`, rules:
    :class:`~ghost_euchre_env.classic.ClassicRules`."""

    ENGINE = ClassicEuchre
    bidding_aec = classic_bidding_raw_env
    skips_undecided = True  # a partner's lone hand before the learner's turn ends the auction
