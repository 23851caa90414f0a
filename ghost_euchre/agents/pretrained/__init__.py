"""The networks shipped with the package, by name: ``ppo:NAME`` in a policy spec.

Each file is the ``policy.pt`` of a ``ghost-euchre-train`` run (the network alone), installed
with the package; how each was made and its full results are in this folder's
README.md. Each variant's declaration names its networks (``networks``,
:class:`ghost_euchre_env.core.ShippedNetwork`); ``NETWORKS`` gathers them, the one list of
names that policy specs, the web page's suggestions and the documentation read;
``main_network(variant)`` names each variant's own agent (the network named after it).
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
    shipped.name: Network(shipped.name, shipped.file, name, shipped.about)
    for name in variants.available()
    for shipped in variants.make(name).networks
}


def main_network(variant):
    """The shipped :class:`Network` that plays ``variant`` (a name or a Variant) for the project: the
    one named after it (``ppo:ghost``, ``ppo:classic``)."""
    return NETWORKS[variants.make(variant).name]


def network_path(name):
    """The file of the shipped network ``name`` (absolute path), or None if no network has that name."""
    network = NETWORKS.get(name)
    return None if network is None else network.path
