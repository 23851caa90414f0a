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
with ``ghost_euchre.agents.make_policy``, imported by name when a string is given (this
package has no import of ``agents``; pass policy objects to avoid it).
"""

from . import BIDDING_GYM_ENV_ID, CLASSIC_BIDDING_GYM_ENV_ID, options
from .classic_bidding_v0 import raw_env as classic_bidding_raw_env
from .ghost_bidding_v0 import raw_env as bidding_raw_env
from .gym_env import GhostEuchreGymEnv
from .options import DEFAULT_POLICY, as_callable, resolve_policy

__all__ = [
    "DEFAULT_POLICY",
    "ClassicEuchreBiddingGymEnv",
    "GhostEuchreBiddingGymEnv",
    "as_callable",
    "resolve_policy",
]


class GhostEuchreBiddingGymEnv(GhostEuchreGymEnv):
    """``GhostEuchreBiddingGymEnv(learner=0, opponents="heuristic", card_play="heuristic",
    render_mode=None, episode="deal", reward="points", illegal_action="raise",
    illegal_action_penalty=-1.0, mask_in_observation=False, policy_seed=None, **rules)``; see
    the module docstring.
    """

    env_id = BIDDING_GYM_ENV_ID
    aec_class = bidding_raw_env  # the variant's auction-only AEC env
    door_kind = "gym_auction"
    default_opponent = DEFAULT_POLICY
    skips_undecided = True  # a moon bid before the learner's turn ends the auction

    def make_aec(self, chosen: options.EnvOptions):
        return self.aec_class(
            render_mode="ansi" if chosen.render_mode else None,
            card_play=chosen.card_play,
            episode=chosen.episode,
            reward=chosen.reward,
            illegal_action=chosen.illegal_action,
            illegal_action_penalty=chosen.illegal_action_penalty,
            policy_seed=chosen.policy_seed,
            **chosen.rules,
        )

    @property
    def card_play(self):
        """The card-play policy (built from its spec string when one was given)."""
        return self.aec.game.card_play


class ClassicEuchreBiddingGymEnv(GhostEuchreBiddingGymEnv):
    """``ClassicEuchreBiddingGymEnv(learner=0, opponents="heuristic", card_play="heuristic", ...)``:
    classic Euchre's auction (the learner's team against the other; its partner played as
    ``opponents`` says); arguments as :class:`GhostEuchreBiddingGymEnv`, rules:
    :class:`~ghost_euchre_env.classic.ClassicRules`."""

    env_id = CLASSIC_BIDDING_GYM_ENV_ID
    aec_class = classic_bidding_raw_env
    skips_undecided = True  # a partner's lone hand before the learner's turn ends the auction
