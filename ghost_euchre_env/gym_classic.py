"""Classic Euchre for single-agent libraries: one learner seat, its partner and the opponents played by given policies.

``gymnasium.make("ClassicEuchre-v0", learner=0, opponents=None, **env_kwargs)``
(registered when ``ghost_euchre_env`` is imported): :mod:`ghost_euchre_env.gym_env`'s
view on the classic AEC env :mod:`ghost_euchre_env.classic_euchre_v0`.
Observation float32[464], action Discrete(31), ``action_masks()`` bool[31];
the reward is the learner's team's points (or win reward) as the AEC env pays
it to the learner. The learner's partner (seat ``(learner + 2) % 4``) is one of
the ``opponents``: a dict names it by seat or agent name, e.g. ``{2: policy}``
for seat 0's partner (seats not named play uniformly random legal actions). An
episode in which the learner has no decision (its partner ordered up and went
alone before its first turn, with ``episode="deal"``) is played out inside
``reset`` and skipped. ``gymnasium.make_vec("ClassicEuchre-v0", num_envs=N)``
is the native vector env (:mod:`ghost_euchre_env.gym_vector`).
"""

from typing import TYPE_CHECKING

from . import variants

__getattr__, __dir__ = variants.published(__name__)  # ClassicEuchreGymEnv, as classic.py declares
if TYPE_CHECKING:
    from .gym_env import EuchreGymEnv

    ClassicEuchreGymEnv: type[EuchreGymEnv]
