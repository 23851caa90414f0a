"""Imports point down the layers: ghost_euchre_env -> ghost_euchre.agents -> ghost_euchre.plumbing -> ghost_euchre.arena -> ghost_euchre.trainer -> ghost_euchre.examples -> ghost_euchre (the commands) -> scripts.

A package's ``__main__`` module (``python -m ghost_euchre.arena``) is a script, of the top layer,
and is left out. An import is an ``import`` statement at any depth of a file (lazy imports too) or
a call of ``importlib.import_module`` / ``__import__`` with a constant name.
``python tests/test_import_layers.py`` prints the import graph of the packages' modules;
``python tests/test_import_layers.py ghost_euchre.arena`` only those of a layer.
"""

import ast
import os
import sys

import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYERS = (
    "ghost_euchre_env",
    "ghost_euchre.agents",
    "ghost_euchre.plumbing",
    "ghost_euchre.arena",
    "ghost_euchre.trainer",
    "ghost_euchre.examples",
    "ghost_euchre",
)  # each imports only those before it


def layer(module):
    """The layer ``module`` belongs to: the longest name of LAYERS it starts with."""
    return max(
        (name for name in LAYERS if module == name or module.startswith(name + ".")), key=len
    )


def module_names():
    """{module name: file path} of every module of the packages in LAYERS."""
    found = {}
    for package in LAYERS:
        top = os.path.join(ROOT, package.replace(".", os.sep))
        for folder, _, files in os.walk(top):
            for name in files:
                if name.endswith(".py") and name != "__main__.py":  # scripts: the top layer
                    parts = [*package.split("."), *os.path.relpath(folder, top).split(os.sep)]
                    parts = [p for p in parts if p != "."] + [name[:-3]]
                    module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
                    found.setdefault(module, os.path.join(folder, name))
    return found


def imported_by_name(node):
    """The module a call ``importlib.import_module("x")`` / ``import_module("x")`` /
    ``__import__("x")`` names, or None."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    first = node.args[0]
    if called in ("import_module", "__import__") and isinstance(first, ast.Constant):
        return first.value if isinstance(first.value, str) else None
    return None


def import_graph(late=False):
    """{module: sorted project modules it imports (not its own packages)}, relative imports resolved;
    late: only the imports inside a function (made when it is first called)."""
    modules = module_names()
    graph = {}
    for name, path in sorted(modules.items()):
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
        targets = set()
        functions = [
            n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        ]
        nodes = (node for f in functions for node in ast.walk(f)) if late else ast.walk(tree)
        for node in nodes:
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, *([base] if base else [])])
                targets.add(base)
                targets.update(f"{base}.{alias.name}" for alias in node.names)
            elif (by_name := imported_by_name(node)) is not None:
                targets.add(by_name)
        # a module's own packages are imported before it anyway: no edge (nor a circle)
        ancestors = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        graph[name] = sorted(t for t in targets if t in modules and t not in ancestors | {name})
    return graph


def test_every_import_points_down_the_layers():
    upward = [
        (module, target)
        for module, targets in import_graph().items()
        for target in targets
        if LAYERS.index(layer(target)) > LAYERS.index(layer(module))
    ]
    assert upward == []


def test_calls_of_import_module_are_imports():
    call = ast.parse('importlib.import_module("ghost_euchre.agents.specs")', mode="eval").body
    assert imported_by_name(call) == "ghost_euchre.agents.specs"
    assert "ghost_euchre.agents" in module_names()


def test_the_wheel_lists_every_package():
    """pyproject.toml names the packages a wheel holds: every package folder of the layers."""
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        listed = set(tomllib.load(handle)["tool"]["setuptools"]["packages"])
    packages = {name for name, path in module_names().items() if path.endswith("__init__.py")}
    assert packages <= listed, sorted(packages - listed)


def reachable(graph, start):
    """The modules ``start`` imports in ``graph``, directly or through others."""
    seen, waiting = set(), list(graph[start])
    while waiting:
        module = waiting.pop()
        if module not in seen:
            seen.add(module)
            waiting.extend(graph[module])
    return seen


def test_no_module_imports_itself_through_others():
    graph = import_graph()
    assert [module for module in graph if module in reachable(graph, module)] == []


def test_bots_built_by_name_do_not_import_their_builder():
    """specs builds the built-in bots by name; a bot of bots (pimc, search, oracle) is handed
    make_policy (its ``build`` keyword) instead of importing it, lazily or not: no hidden cycle."""
    from ghost_euchre.agents.specs import BUILTINS

    graph = import_graph()
    for target in BUILTINS.values():
        module = target.partition(":")[0]
        assert "ghost_euchre.agents.specs" not in reachable(graph, module), module


def test_the_bots_import_late_only_what_needs_torch():
    """A late import (inside a function) hides what a module needs; among the bots only torch's
    network classes are imported so, when a checkpoint is first read, and the bots that the spec
    reader loads by name (a checkpoint's player among them)."""
    late = {
        (module, target)
        for module, targets in import_graph(late=True).items()
        if layer(module) == "ghost_euchre.agents"
        for target in targets
    }
    assert late == {
        ("ghost_euchre.agents.ppo", "ghost_euchre.agents.networks"),
        ("ghost_euchre.agents.specs", "ghost_euchre.agents.ppo"),
    }


if __name__ == "__main__":
    for module, targets in import_graph().items():
        if layer(module) in sys.argv[1:] or len(sys.argv) == 1:
            print(f"{module} -> {', '.join(targets) or '(none)'}")
