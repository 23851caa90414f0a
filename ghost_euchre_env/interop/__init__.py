"""Thin adapters from the native vector env (:mod:`ghost_euchre_env.gym_vector`) to library interfaces.

Each module imports its library inside, so the core package needs none of them:
``ghost_euchre_env.interop.sb3.SB3VecEnv`` is Stable-Baselines3's ``VecEnv``
(with ``action_masks()`` for sb3-contrib's ``MaskablePPO``). RLlib needs no
adapter: it makes the native env itself through ``gym_env_vectorize_mode``
(docs/rl-libraries.md).
"""
