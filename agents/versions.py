"""Bot versions: a fingerprint of the code (or the file) a policy spec plays with.

A stored player is its spec plus :func:`fingerprint` (SHA-256, hex; '' when
nothing can be read), so that a bot whose code changed is a new player:

- ``ppo:PATH`` (and ``ppo:NAME``): the checkpoint file's bytes; ``proc:PATH``: the
  program file's bytes (a program rebuilt is a new version; what it reads at run
  time is not looked at);
- ``package.module:Class`` and the built-in names (``heuristic``, ``random``,
  ``pimc``, ``human``: their modules in :mod:`agents`): the source of the
  defining module and of the *local* modules it imports, transitively. Local:
  found under the same ``sys.path`` folder as the defining module, never in
  another installed package nor in this project's other packages
  (``ghost_euchre_env``, ``arena``, ``euchre_trainer``, and ``agents`` for a
  bot outside it). A bot split over several files (``mybots/lowcard.py`` using
  ``mybots/common.py``) is a new version when any of them changes, while an
  upgrade of numpy, or of the engine (recorded per match as its
  ``code_version``), is not one. Modules are found by reading ``import``
  statements, never by running them: a module imported inside a function
  counts, one loaded by name at run time (``importlib.import_module(name)``)
  does not;
- an option value that is itself a spec (``pimc:rollout=ppo:ghost``) and a
  composite's two parts add their own fingerprints.

The files are read from disk when the fingerprint is taken: a process that
imported a module before it was edited still plays the old code (Python's
import cache); each command line starts a fresh process.
"""

import ast
import hashlib
import importlib.util
import os
import site
import sysconfig

from .composite import is_composite, split_composite
from .specs import BUILTINS, split_spec

PROJECT_PACKAGES = ("agents", "arena", "euchre_trainer", "ghost_euchre_env")


def fingerprint(spec):
    """The version of the code ``spec`` plays with: SHA-256 (hex) as the module docstring says, or ''
    when there is nothing to read (a missing checkpoint file or module)."""
    if is_composite(spec):
        return _combine([fingerprint(part) for part in split_composite(spec)])
    kind, target, options = split_spec(spec)
    if kind in ("ppo", "proc"):
        return file_hash(target) if target and os.path.isfile(target) else ""
    module = (BUILTINS.get(kind) or target or "").partition(":")[0]
    own = source_hash(module)
    nested = [fingerprint(value) for value in options.values() if _is_spec(value)]
    if not nested or not own:
        return own
    return _combine([own, *nested])


def file_hash(path):
    """SHA-256 (hex) of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def source_hash(module):
    """SHA-256 (hex) over the sources of ``module`` and its local imports (:func:`local_sources`),
    keyed by module name (the same code in another folder is the same version); '' if not found."""
    sources = local_sources(module)
    if not sources:
        return ""
    digest = hashlib.sha256()
    for name in sorted(sources):
        with open(sources[name], "rb") as handle:
            digest.update(f"{name}\0{hashlib.sha256(handle.read()).hexdigest()}\n".encode())
    return digest.hexdigest()


def local_sources(module):
    """{module name: source file} of ``module`` and the local modules it imports, transitively
    (see the module docstring); {} when ``module`` has no Python source file."""
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return {}
    if found is None or not found.origin or not found.origin.endswith(".py"):
        return {}
    parts = module.split(".")
    root = os.path.dirname(found.origin)
    for _ in range(len(parts) - (0 if found.submodule_search_locations is None else -1) - 1):
        root = os.path.dirname(root)
    in_site = os.path.realpath(root) in _site_folders()
    top = parts[0]

    def followed(name):
        first = name.split(".")[0]
        if first == top:
            return True
        return not in_site and first not in PROJECT_PACKAGES

    sources, waiting = {}, [(module, found.origin)]
    while waiting:
        name, path = waiting.pop()
        if name in sources:
            continue
        sources[name] = path
        package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
        for imported in _imported_names(path, package):
            if imported in sources or not followed(imported):
                continue
            where = _locate(root, imported)
            if where:
                waiting.append((imported, where))
    return sources


def _imported_names(path, package):
    """The module names an ``import`` statement of the file at ``path`` may load (relative ones
    resolved against ``package``), each with its parent packages."""
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read(), path)
    except (OSError, SyntaxError, ValueError):
        return []
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".") if package else []
                anchor = anchor[: len(anchor) - (node.level - 1)] if node.level > 1 else anchor
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            if base:
                names.append(base)
            names += [f"{base}.{alias.name}" if base else alias.name for alias in node.names]
    with_parents = []
    for name in names:
        pieces = name.split(".")
        with_parents += [".".join(pieces[: k + 1]) for k in range(len(pieces))]
    return with_parents


def _locate(root, name):
    """The source file of module ``name`` under ``root`` (``a/b.py`` or ``a/b/__init__.py``), or None."""
    base = os.path.join(root, *name.split("."))
    for path in (f"{base}.py", os.path.join(base, "__init__.py")):
        if os.path.isfile(path):
            return path
    return None


def _site_folders():
    """The folders installed packages live in (their modules are never local)."""
    folders = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    folders.update(site.getsitepackages())
    folders.add(site.getusersitepackages())
    return {os.path.realpath(f) for f in folders}


def _is_spec(value):
    """Whether an option value names a policy (a string that parses as a spec other than a bare word)."""
    if not isinstance(value, str):
        return False
    if value.strip() in BUILTINS:
        return True
    if ":" not in value and not is_composite(value):
        return False
    try:
        split_spec(value)
    except ValueError:
        return False
    return True


def _combine(hashes):
    return hashlib.sha256("\n".join(hashes).encode()).hexdigest()
