"""The networks shipped with the package, by name: ``ppo:NAME`` in a policy spec.

Each file is the ``policy.pt`` of a ``ghost-euchre-train`` run (the network alone), installed
with the package; how each was made and its full results are in this folder's
README.md. ``NETWORKS`` is the one list of names: policy specs, the web page's
suggestions and the documentation read it; ``main_network(variant)`` names each
variant's own agent (the network named after it).
"""

import os
from dataclasses import dataclass

from ghost_euchre_env import variants

# the real folder: a clone reaches it through the link ghost_euchre/agents -> ../agents, and
# a shipped network has one path (what the web page's checks resolve with realpath)
HERE = os.path.dirname(os.path.realpath(__file__))


@dataclass(frozen=True)
class Network:
    """A shipped network: its ``name`` (``ppo:NAME``), its ``file`` in this folder, the ``variant`` it
    plays, one line ``about`` it."""

    name: str
    file: str
    variant: str
    about: str

    @property
    def path(self):
        """The file's absolute path."""
        return os.path.join(HERE, self.file)


NETWORKS = {
    network.name: network
    for network in (
        Network(
            "ghost",
            "ghost_ppo.pt",
            "ghost",
            "the Ghost Hand agent: 280M decisions of self-play, 59.1% against two heuristics",
        ),
        Network(
            "ghost-bidder",
            "ghost_bidder.pt",
            "ghost",
            "a Ghost Hand bidder: the network bids and names trump, the heuristic plays the cards",
        ),
        Network(
            "ghost-180m",
            "ghost_ppo_180m.pt",
            "ghost",
            "the Ghost Hand agent after 180M decisions (shipped before; configs/bidding.yaml starts from it)",
        ),
        Network(
            "classic",
            "classic_ppo.pt",
            "classic",
            "the classic Euchre agent (all four seats): 118M + 59M decisions, 70.3% for its team against the heuristics', 53.6% against pimc's",
        ),
        Network(
            "classic-bidder",
            "classic_bidder.pt",
            "classic",
            "a classic Euchre bidder: the network orders up, names trump, goes alone and discards, the heuristic plays the cards",
        ),
    )
}


def main_network(variant):
    """The shipped :class:`Network` that plays ``variant`` (a name or a Variant) for the project: the
    one named after it (``ppo:ghost``, ``ppo:classic``)."""
    return NETWORKS[variants.make(variant).name]


def network_path(name):
    """The file of the shipped network ``name`` (absolute path), or None if no network has that name."""
    network = NETWORKS.get(name)
    return None if network is None else network.path
