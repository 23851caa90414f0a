"""Bot versions: a fingerprint of the code (or the file) a policy spec plays with.

A stored player is its spec plus :func:`fingerprint` (SHA-256, hex; '' when
nothing can be read: a league refuses to store such a player's results rather than
pool two versions), so that a bot whose code changed is a new player:

- ``ppo:PATH`` (and ``ppo:NAME``): the checkpoint file's bytes; ``proc:PATH``: the
  program file's bytes (a program rebuilt is a new version; what it reads at run
  time is not looked at);
- ``package.module:Class`` and the built-in names (``heuristic``, ``random``,
  ``pimc``, ``human``: their modules in :mod:`agents`): the source of the
  defining module and of the *local* modules it imports, transitively: the
  modules it takes names from (``from a import b``: the module ``a.b``, else
  ``a``), not the ``__init__`` of every package on the way, so that a bot's
  version follows what it runs (``random`` is ``random_policy``, ``base`` and
  ``streams``; ``search`` changes with the heuristic it plays out with), not
  every module its package imports. Local:
  found under the same ``sys.path`` folder as the defining module, never in
  another installed package nor in this project's other packages
  (``ghost_euchre_env``, ``ghost_euchre.arena``, ``ghost_euchre.trainer``, and ``agents`` for a
  bot outside it). A bot split over several files (``mybots/lowcard.py`` using
  ``mybots/common.py``) is a new version when any of them changes, while an
  upgrade of numpy, or of the engine (recorded per match as its
  ``code_version``), is not one. Modules are found by reading ``import``
  statements, never by running them: a module imported inside a function
  counts, one loaded by name at run time (``importlib.import_module(name)``)
  does not;
- a class of ``__main__`` when ``__main__`` is a script file (``python bot.py``):
  the script's source and its local imports, as for a module (so an edit of a
  helper function or a constant the class uses is a new version too);
- a module with no source file (a sourceless ``.pyc``, an extension): its file's
  bytes; a class with no file at all (defined in ``__main__`` by ``python -c``,
  a notebook, or standard input): its code as loaded (:func:`code_hash`: the
  bytecode of its methods and its attributes, and of the functions, classes and
  plain values of its module that they name);
- an option value that is itself a spec (``pimc:rollout=ppo:ghost``) and a
  composite's two parts add their own fingerprints.

The files are read from disk when the fingerprint is taken: a process that
imported a module before it was edited still plays the old code (Python's
import cache); each command line starts a fresh process.
"""

import ast
import hashlib
import importlib.util
import inspect
import marshal
import os
import site
import sys
import sysconfig

from .renamed import current_module
from .specs import BUILTINS, spec_tree

PROJECT_PACKAGES = ("ghost_euchre", "ghost_euchre_env")


def fingerprint(spec):
    """The version of the code ``spec`` (a spec string or its tree) plays with: SHA-256 (hex) as the
    module docstring says, or '' when there is nothing to read (a missing checkpoint file or
    module)."""
    tree = spec_tree(spec)
    if tree.kind == "composite":
        parts = [fingerprint(part) for part in tree.parts]
        return _combine(parts) if all(parts) else ""
    if tree.kind in ("ppo", "proc"):
        return file_hash(tree.target) if tree.target and os.path.isfile(tree.target) else ""
    module, _, attribute = (BUILTINS.get(tree.kind) or tree.target or "").partition(":")
    module = current_module(module) if module else module
    own = (main_source_hash() if module == "__main__" else source_hash(module)) or compiled_hash(
        module, attribute
    )
    nested = [fingerprint(value) for value in tree.nested.values()]
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
    return _digest(local_sources(module))


def _digest(sources):
    """SHA-256 (hex) over {module name: source file}, keyed by name; '' for none."""
    if not sources:
        return ""
    digest = hashlib.sha256()
    for name in sorted(sources):
        with open(sources[name], "rb") as handle:
            digest.update(f"{name}\0{hashlib.sha256(handle.read()).hexdigest()}\n".encode())
    return digest.hexdigest()


def main_source_hash():
    """SHA-256 (hex) over the source of ``__main__`` when it is a script file (``python bot.py``)
    and its local imports (from the script's folder), as :func:`source_hash`; '' when it is no file
    (``python -c``, standard input, a notebook)."""
    path = getattr(sys.modules.get("__main__"), "__file__", None)
    if not isinstance(path, str) or not path.endswith(".py") or not os.path.isfile(path):
        return ""
    path = os.path.abspath(path)
    return _digest(_sources("__main__", path, os.path.dirname(path)))


def compiled_hash(module, attribute):
    """The version of a module with no source to read: SHA-256 (hex) of its file when it has one (a
    sourceless ``.pyc``, an extension module), else of the code of ``attribute`` in the loaded module
    (a class defined in ``__main__`` by ``python -c``, a notebook or a script: :func:`code_hash`);
    '' when neither exists."""
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):  # __main__ has no spec when run as a script or from stdin
        found = None
    if found is not None and found.origin and os.path.isfile(found.origin):
        return _combine([module, file_hash(found.origin)])
    loaded = sys.modules.get(module)
    target = getattr(loaded, attribute, None) if loaded is not None and attribute else None
    return "" if target is None else code_hash(target)


def code_hash(target):
    """SHA-256 (hex) of a class's or a function's code as loaded: each function's bytecode, constants,
    names and defaults (``marshal`` of its code object), a class's bases and attributes in name order,
    a nested class's the same way; other attribute values by type, and plain values (numbers, text) by
    value. An edited class is a new version; the same source loaded again is the same one."""
    digest = hashlib.sha256()
    _feed_code(digest, target, set())
    return digest.hexdigest()


_PLAIN = (int, float, complex, str, bytes, bool, type(None))


def _feed_code(digest, value, seen):
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        for part in (value.fget, value.fset, value.fdel):
            _feed_code(digest, part, seen)
        return
    if inspect.isfunction(value):
        digest.update(marshal.dumps(value.__code__))
        digest.update(
            repr([d for d in (value.__defaults__ or ()) if isinstance(d, _PLAIN)]).encode()
        )
        for name in sorted(_global_names(value.__code__)):  # what it reads from its module
            found = value.__globals__.get(name, seen)
            own = inspect.isfunction(found) or inspect.isclass(found)
            if own and getattr(found, "__module__", None) == value.__module__:
                if id(found) not in seen:
                    if inspect.isfunction(found):  # a class marks itself
                        seen.add(id(found))
                    digest.update(f"\0global {name}=".encode())
                    _feed_code(digest, found, seen)
            elif found is not seen and _is_plain(found):
                digest.update(f"\0global {name}={_plain_text(found)}".encode())
        return
    if inspect.isclass(value):
        if id(value) in seen:
            return
        seen.add(id(value))
        digest.update(
            f"class {value.__qualname__}({[b.__qualname__ for b in value.__bases__]})".encode()
        )
        for base in value.__bases__:  # bases defined beside it count (not the library's)
            if base.__module__ == value.__module__:
                _feed_code(digest, base, seen)
        for name in sorted(vars(value)):
            attribute = vars(value)[name]
            dunder = name.startswith("__") and name.endswith("__")
            if not dunder or inspect.isfunction(getattr(attribute, "__func__", attribute)):
                digest.update(f"\0{name}=".encode())
                _feed_code(digest, attribute, seen)
        return
    digest.update((_plain_text(value) if _is_plain(value) else type(value).__qualname__).encode())


def _global_names(code):
    """The names a code object (and the code nested in it: lambdas, comprehensions) may read as
    globals."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if inspect.iscode(constant):
            names |= _global_names(constant)
    return names


def _is_plain(value, depth=0):
    """Whether ``value`` is a plain value hashed by its content: a number, text, bytes, None, a
    NumPy array, or a tuple, list, set or dict of such (a few levels deep)."""
    if isinstance(value, _PLAIN) or _is_array(value):
        return True
    if depth > 4:
        return False
    if isinstance(value, (tuple, list, frozenset, set)):
        return all(_is_plain(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(_is_plain(k, depth + 1) and _is_plain(v, depth + 1) for k, v in value.items())
    return False


def _is_array(value):
    return type(value).__name__ == "ndarray" and hasattr(value, "tobytes")


def _plain_text(value):
    """The text a plain value is hashed as (an array: its dtype, shape and bytes' SHA-256)."""
    if _is_array(value):
        return f"array({value.dtype}, {value.shape}, {hashlib.sha256(value.tobytes()).hexdigest()})"
    if isinstance(value, (set, frozenset)):
        return f"{type(value).__name__}({sorted(map(_plain_text, value))})"
    return repr(value)


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
    return _sources(module, found.origin, root)


def _sources(module, origin, root):
    """{module name: source file} of ``module`` (its source file ``origin``, found under the
    ``sys.path`` folder ``root``) and the local modules it imports, transitively."""
    in_site = os.path.realpath(root) in _site_folders()
    top = module.split(".")[0]

    def followed(name):
        first = name.split(".")[0]
        if first == top:
            return True
        return not in_site and first not in PROJECT_PACKAGES

    sources, waiting = {}, [(module, origin)]
    while waiting:
        name, path = waiting.pop()
        if name in sources:
            continue
        sources[name] = path
        package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
        for imported in _imported_names(path, package, lambda name: _locate(root, name)):
            if imported in sources or not followed(imported):
                continue
            waiting.append((imported, _locate(root, imported)))
    return sources


def _imported_names(path, package, locate):
    """The modules an ``import`` statement of the file at ``path`` takes names from (relative
    ones resolved against ``package``) that ``locate`` (name -> source file or None) finds:
    ``import a.b`` takes a.b; ``from a import b`` takes a.b where that is a module, else a. A
    package's ``__init__`` that merely holds a module imported is not one: what a bot runs
    is what it names, not everything its package's ``__init__`` imports."""
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
            modules = [f"{base}.{a.name}" if base else a.name for a in node.names]
            found = [name for name in modules if locate(name)]
            names += found + ([base] if base and len(found) < len(modules) else [])
    return [name for name in names if locate(name)]


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


def _combine(hashes):
    return hashlib.sha256("\n".join(hashes).encode()).hexdigest()
