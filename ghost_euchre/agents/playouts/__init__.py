"""Compiled playouts and replays of the network players: the engine's own loops, one call each.

``pimc`` and ``search`` play every world of a decision to the deal's end with a
playout policy. When that policy has a compiled playout here (or the heuristic's,
:mod:`ghost_euchre.agents.heuristic`), the engine plays all the worlds until a deal
ends in one kernel call (``BatchedGame.play_until_deal_ends``), never returning to
Python:

- a greedy network of the built-in MLP (``ppo:...``): :func:`network_playout`, the
  kernel :func:`ghost_euchre.agents.forward.network_actions` at every decision;
- a greedy network's auction over the heuristic's card play
  (``composite[ppo:ghost | heuristic]``, ``search``'s default playouts):
  :func:`bid_playout`; a decision is the heuristic's when its observation's phase
  is the play (as :meth:`ghost_euchre.agents.composite.CompositePolicy.act` splits them).

``search``'s inference replays each candidate world through the deal's actions,
weighing every action of another seat by a model of that seat
(:mod:`ghost_euchre.agents.inference`). With a compiled model the replay is one kernel
call (``BatchedGame.replay_and_weigh``): the heuristic's (its ``replay``), a greedy
network's softmax probabilities (:func:`network_replay`, ``infer=network``), or their
mix (:func:`mix_replay`, ``infer=mix``).

Each kernel is one variant's and one policy's, written out (not a kernel passed as
an argument), so Numba loads it from its cache instead of compiling it in every process:
a variant's are its own module's (:mod:`ghost_euchre.agents.playouts.ghost`,
:mod:`ghost_euchre.agents.playouts.classic`, each ending with its :class:`Playouts`), over
the policy kernels they share (:mod:`ghost_euchre.agents.playouts.policies`).
"""

from ..forward import Forward
from ..heuristic import HEURISTICS
from . import classic, ghost
from .policies import Playouts

PLAYOUTS: dict[str, Playouts] = {ghost.VARIANT: ghost.PLAYOUTS, classic.VARIANT: classic.PLAYOUTS}
"""Each variant's compiled playouts and replays of the network players, by the descriptor's name."""


def network_playout(policy):
    """(playout kernel, its policy arguments) of a greedy network policy of the built-in MLP
    (``PPOPolicy``), for the engine's ``play_until_deal_ends``; None for any other."""
    if getattr(policy, "sample", True) or not isinstance(getattr(policy, "network", None), Forward):
        return None
    return PLAYOUTS[policy.variant.name].network, policy.network.kernel_args()


def bid_playout(auction, play):
    """(playout kernel, its policy arguments) of the composite of a greedy network's auction
    (:func:`network_playout`'s kind) and the heuristic's card play; None for other parts."""
    variant = auction.variant
    if network_playout(auction) is None or type(play) is not HEURISTICS[variant.name]:
        return None
    kernel = PLAYOUTS[variant.name].bid
    return kernel, (*auction.network.kernel_args(), play_column(variant), play.kernel_args())


def network_replay(policy, floor):
    """(replay kernel, its arguments) of a network policy as a model of the other seats (its
    softmax probability of each action, with likelihood floor ``floor``), for the engine's
    ``replay_and_weigh``; None unless :func:`network_playout` compiles it."""
    if network_playout(policy) is None:
        return None
    kernel = PLAYOUTS[policy.variant.name].network_replay
    return kernel, (*policy.network.kernel_args(), float(floor))


def mix_replay(network, heuristic, weight, floor):
    """(replay kernel, its arguments) of ``weight`` times a network's probabilities plus ``1 -
    weight`` times the heuristic's (1 on its action), for the engine's ``replay_and_weigh``;
    None unless the network is compiled (:func:`network_playout`) and ``heuristic`` the variant's."""
    if network_playout(network) is None or type(heuristic) is not HEURISTICS[network.variant.name]:
        return None
    kernel = PLAYOUTS[network.variant.name].mix_replay
    net = network.network.kernel_args()[0]
    return kernel, (net, float(floor), float(weight), heuristic.kernel_args())


def play_column(variant):
    """The observation column (int) that is 1 when the decision is a card play (the phase field's
    "play" column)."""
    return variant.view_type.fields["phase"].start + variant.phases.index("play")
