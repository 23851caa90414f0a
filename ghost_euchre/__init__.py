"""Ghost Hand Euchre's two commands, the top layer: nothing below imports it.

:mod:`ghost_euchre.commands` holds the entry points of ``ghost-euchre-train``
(``train.py``, ``python -m ghost_euchre.trainer``) and ``ghost-euchre-evaluate``
(``evaluate.py``, ``python -m ghost_euchre.arena``). The packages below are the engine
(:mod:`ghost_euchre_env`), the bots (:mod:`agents`), where bots meet
(:mod:`ghost_euchre.arena`) and the trainer (:mod:`ghost_euchre.trainer`).
"""
