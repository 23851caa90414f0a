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

from typing import TYPE_CHECKING

from . import options, variants
from .gym_env import EuchreGymEnv
from .options import DEFAULT_POLICY, as_callable, resolve_policy

__all__ = [
    "DEFAULT_POLICY",
    "ClassicEuchreBiddingGymEnv",
    "EuchreBiddingGymEnv",
    "GhostEuchreBiddingGymEnv",
    "as_callable",
    "auction_gym_env_class",
    "resolve_policy",
]


class EuchreBiddingGymEnv(EuchreGymEnv):
    """A variant's auction for single-agent libraries: ``EuchreBiddingGymEnv(learner=0,
    opponents="heuristic", card_play="heuristic", render_mode=None, episode="deal",
    reward="points", illegal_action="raise", illegal_action_penalty=-1.0,
    mask_in_observation=False, policy_seed=None, **rules)``; see the module docstring. A
    variant's class (:func:`auction_gym_env_class`) sets ``env_id`` and ``aec_class``.
    """

    door_kind = "gym_auction"
    default_opponent = DEFAULT_POLICY
    skips_undecided = True  # Ghost Hand: a moon bid before the learner's turn ends the auction;
    # classic: a partner's lone hand before the learner's turn

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


def auction_gym_env_class(variant) -> type[EuchreBiddingGymEnv]:
    """The variant's single-agent Gymnasium env class of its auction (``GhostEuchreBiddingGymEnv``),
    a subclass of its single env's (``GhostEuchreGymEnv``)."""
    name = variant.door_name("auction_gym")[1]
    written = f"""``{name}(learner=0, opponents="heuristic", card_play="heuristic", ...)``:
{variant.title}'s auction as :class:`EuchreBiddingGymEnv`.
"""
    return variant.door_class(
        "auction_gym",
        (EuchreBiddingGymEnv, variant.door("gym")),  # a view of the variant's single env
        written,
        env_id=variant.doors.auction_gym_id,
        aec_class=variant.door("auction_aec"),
    )


__getattr__, __dir__ = variants.published(__name__)  # the doors the declarations publish here
if TYPE_CHECKING:  # the shipped variants' ones, as ghost.py and classic.py declare them
    GhostEuchreBiddingGymEnv: type[EuchreBiddingGymEnv]
    ClassicEuchreBiddingGymEnv: type[EuchreBiddingGymEnv]
