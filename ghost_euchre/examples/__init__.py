"""The examples the docs teach with, installed with the package as ``ghost_euchre.examples``.

- ``rule_bots``: rule-based bots written by names only (docs/bots.md):
  ``ghost-euchre-evaluate ghost_euchre.examples.rule_bots:GhostBowers heuristic random``;
- ``cleanrl_ppo``: CleanRL-style PPO on the native vector env, in one file (docs/rl-libraries.md):
  ``python -m ghost_euchre.examples.cleanrl_ppo --help``;
- ``proc/first_legal.c``, ``proc/simple_rule.c``: bots in C that speak the line protocol
  (docs/protocol.md), played as ``proc:./first_legal`` once compiled.

Copy one (its path: ``python -c "import ghost_euchre.examples; print(ghost_euchre.examples.__path__[0])"``)
and change what you like.
"""
