"""A variant declared here alone: "echo", Ghost Hand's rules and kernels under a name of its own.

What a new variant takes beyond its rules (docs/design.md): an engine class, a
``VariantDeclaration`` (here a copy of Ghost Hand's with its own name, engine, doors and no
shipped networks), registered by :func:`ghost_euchre_env.variants.register` (by the tests'
fixture, which takes it out again). Its doors are generated from the declaration and published
in this module (``variants.published``).
"""

import dataclasses

from ghost_euchre_env import ghost, variants
from ghost_euchre_env.core import Doors


class EchoEuchre(ghost.GhostEuchre):
    """Ghost Hand's engine, registered as the variant "echo"."""


HERE = __name__
DECLARATION = dataclasses.replace(
    ghost.DECLARATION,
    name="echo",
    title="Echo Euchre",
    engine=EchoEuchre,
    doors=Doors(
        pettingzoo=f"{HERE}_v0",
        auction_pettingzoo=f"{HERE}_bidding_v0",
        gym_id="EchoEuchre-v0",
        auction_gym_id="EchoEuchreBidding-v0",
        vector=f"{HERE}:EchoEuchreVec",
        auction_game=f"{HERE}:EchoAuctionGame",
        auction_vector=f"{HERE}:EchoBiddingVec",
        gym=f"{HERE}:EchoEuchreGymEnv",
        auction_gym=f"{HERE}:EchoBiddingGymEnv",
        gym_vector=f"{HERE}:echo_vector_env",
        auction_gym_vector=f"{HERE}:echo_bidding_vector_env",
    ),
    networks=(),
)
__getattr__, __dir__ = variants.published(__name__)
