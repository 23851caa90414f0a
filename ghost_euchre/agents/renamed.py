"""Module paths written by ghost-euchre 0.1, and where those modules are now.

Files made by 0.1 (checkpoints, stores, records, configs, cards) name classes by
their module path (``agents.cardset:CardSetNet``, ``agents.random_policy:RandomPolicy``).
Since 0.2 the project installs one import name, ``ghost_euchre``: such a name is
read through :data:`OLD_PACKAGES` when the module it names exists under its new
name, with a one-line note on stderr (once per name); any other module is
imported as written (a user's own ``agents`` package stays theirs).
"""

import importlib.util
import sys

OLD_PACKAGES = {
    "agents": "ghost_euchre.agents",
    "arena": "ghost_euchre.arena",
    "euchre_trainer": "ghost_euchre.trainer",
    "ghost_euchre_examples": "ghost_euchre.examples",
}
_noted: set[str] = set()


def current_module(name):
    """The module name ``name`` (dotted) stands for today: its new name when it is a 0.1 name of
    one of the project's modules (noted on stderr once), else ``name`` itself."""
    head, dot, rest = name.partition(".")
    new_package = OLD_PACKAGES.get(head)
    if new_package is None:
        return name
    new = new_package + dot + rest
    try:
        found = importlib.util.find_spec(new)
    except (ImportError, ValueError):
        found = None
    if found is None:
        return name
    if name not in _noted:
        _noted.add(name)
        print(
            f"note: {name!r} (a module name of ghost-euchre 0.1) is read as {new!r}",
            file=sys.stderr,
        )
    return new
