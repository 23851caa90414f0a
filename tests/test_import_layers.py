"""Imports point down the layers: ghost_euchre_env -> agents -> arena -> euchre_trainer -> ghost_euchre (the commands) -> scripts.

A package's ``__main__`` module (``python -m arena``) is a script, of the top layer, and is left out.
``python tests/test_import_layers.py`` prints the import graph of the packages' modules
(every module and the project modules it imports, at any depth of the file: lazy imports too).
"""

import ast
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYERS = (
    "ghost_euchre_env",
    "agents",
    "arena",
    "euchre_trainer",
    "ghost_euchre",
)  # each imports only those before it


def module_names():
    """{module name: file path} of every module of the packages in LAYERS."""
    found = {}
    for package in LAYERS:
        for folder, _, files in os.walk(os.path.join(ROOT, package)):
            for name in files:
                if name.endswith(".py") and name != "__main__.py":  # scripts: the top layer
                    path = os.path.join(folder, name)
                    parts = os.path.relpath(path, ROOT)[:-3].split(os.sep)
                    found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def import_graph():
    """{module: sorted project modules it imports (not its own packages)}, relative imports resolved."""
    modules = module_names()
    graph = {}
    for name, path in sorted(modules.items()):
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, *([base] if base else [])])
                targets.add(base)
                targets.update(f"{base}.{alias.name}" for alias in node.names)
        # a module's own packages are imported before it anyway: no edge (nor a circle)
        ancestors = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        graph[name] = sorted(t for t in targets if t in modules and t not in ancestors | {name})
    return graph


def test_every_import_points_down_the_layers():
    upward = [
        (module, target)
        for module, targets in import_graph().items()
        for target in targets
        if LAYERS.index(target.split(".")[0]) > LAYERS.index(module.split(".")[0])
    ]
    assert upward == []


def test_no_module_imports_itself_through_others():
    graph = import_graph()

    def reaches(start, goal, seen):
        return any(
            target == goal or (target not in seen and reaches(target, goal, seen | {target}))
            for target in graph[start]
        )

    assert [module for module in graph if reaches(module, module, {module})] == []


if __name__ == "__main__":
    for module, targets in import_graph().items():
        if module.split(".")[0] in sys.argv[1:] or len(sys.argv) == 1:
            print(f"{module} -> {', '.join(targets) or '(none)'}")
