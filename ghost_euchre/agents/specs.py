"""Policy spec strings: how a policy is named in the CLI, in configs and in Python.

Grammar (one string, no spaces needed):

- ``random``, ``heuristic``, ``human``, ``pimc``, ``search``: built-in policies;
  ``oracle``: the search shown every hand, a perfect-information reference and
  no legal player (:mod:`ghost_euchre.agents.oracle`; it plays only in an arena match);
- ``ppo:NAME``: a network shipped with the package (:mod:`ghost_euchre.agents.pretrained`:
  ``ppo:ghost``, ``ppo:ghost-bidder``, ``ppo:ghost-180m``, ``ppo:classic``,
  ``ppo:classic-bidder``);
- ``ppo:PATH``: a checkpoint or policy file of the trainer (loaded by ``ghost_euchre.agents.ppo``); a
  file named like a shipped network is written with its folder (``ppo:./ghost``);
- ``package.module:ClassName``: any class with the :class:`ghost_euchre.agents.base.Policy`
  interface, built as ``ClassName(game, seed=seed, **kwargs)``;
- ``proc:PATH``: a program in any language, spoken to in lines of JSON
  (:mod:`ghost_euchre.agents.program`; options ``timeout`` and ``log``);
- ``composite[AUCTION | PLAY]``: two specs (composites included), the first
  making the auction and trump decisions, the second the card play
  (:mod:`ghost_euchre.agents.composite`), e.g. ``composite[pimc | heuristic]``.

Any of them may end with ``:key=value,key=value`` keyword arguments for the
policy's constructor; values are read as int, float, ``true``/``false``, or else
kept as strings. The names ``game`` and ``seed`` (and ``path`` after ``ppo:``)
are reserved: make_policy passes them itself (``path`` after ``proc:`` too). Examples: ``random``, ``pimc:samples=16``,
``ppo:ghost``, ``ppo:runs/a/final.pt``, ``proc:./mybot:timeout=5``,
``mybots.greedy:GreedyBot:depth=2,temperature=0.5``. After a built-in name a value
may itself be a spec with colons: ``pimc:rollout=ppo:ghost,samples=16``.

A spec is read once, into a :class:`SpecTree` (:func:`spec_tree`), which :func:`make_policy`
builds; a bot that builds other bots (``pimc``, ``search``, ``oracle``) takes a keyword
``build``, and make_policy hands it itself, with the option values its parse already read: the
bots never import this module, which loads them by name.
"""

import contextlib
import contextvars
import dataclasses
import functools
import importlib
import inspect
import os
import re
from collections.abc import Callable

from ghost_euchre_env.core import check_int

from .base import Policy, import_hint
from .checked import PolicyRaised, find_module, raised
from .composite import CompositePolicy, composite_spec, is_composite, split_composite
from .extras import extra_named, missing_extra
from .network_file import fit_error, network_sizes
from .pretrained import NETWORKS, network_path
from .program import ProgramPolicy, program_error

EXPECTED = (
    "random, heuristic, human, pimc, search, oracle, ppo:NAME (a shipped network), ppo:PATH, proc:PATH "
    "(a program) or package.module:ClassName "
    "(each optionally followed by :key=value,...), or composite[AUCTION_SPEC | PLAY_SPEC]"
)
_IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*"
_MODULE_RE = re.compile(rf"{_IDENTIFIER}(\.{_IDENTIFIER})*")
_CLASS_RE = re.compile(_IDENTIFIER)
_KEY_RE = re.compile(_IDENTIFIER)
PATHS = ("ppo", "proc")  # the kinds whose target is a file path: ppo:PATH, proc:PATH

# Built-in names -> "module:factory"; the factory is called as factory(game, seed=seed, **kwargs).
BUILTINS = {
    "random": "ghost_euchre.agents.random_policy:RandomPolicy",
    "heuristic": "ghost_euchre.agents.heuristic:heuristic_policy",
    "human": "ghost_euchre.agents.human:HumanPolicy",
    "pimc": "ghost_euchre.agents.pimc:PIMCPolicy",
    "search": "ghost_euchre.agents.search:SearchPolicy",
    "oracle": "ghost_euchre.agents.oracle:OraclePolicy",
}


def parse_kwargs(text, spec):
    """'a=1,b=x' -> {'a': 1, 'b': 'x'}; values are int, float, bool or str."""
    kwargs = {}
    for item in text.split(","):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not _KEY_RE.fullmatch(key):
            raise ValueError(
                f"policy spec {spec!r}: bad argument {item!r}; expected key=value pairs separated by commas"
            )
        if key in kwargs:
            raise ValueError(f"policy spec {spec!r}: argument {key!r} is given twice")
        kwargs[key] = parse_value(value.strip())
    return kwargs


def parse_value(text):
    """'3' -> 3, '0.5' -> 0.5, 'true'/'false' -> bool, anything else stays a str."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        with contextlib.suppress(ValueError):
            return kind(text)
    return text


def split_spec(spec):
    """-> (kind, target, kwargs): kind is a built-in name, 'ppo', 'proc', 'class' or 'composite'.

    target is the checkpoint path for 'ppo' (a shipped network's name resolved to its
    file), the program's path for 'proc', 'module:Class' for 'class', else None
    (a composite's parts: :func:`ghost_euchre.agents.composite.split_composite`).
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(
            f"policy spec must be a non-empty string, got {spec!r}; expected {EXPECTED}"
        )
    if is_composite(spec):
        split_composite(spec)  # raises unless written composite[AUCTION | PLAY]
        return "composite", None, {}
    spec = spec.strip()
    head, _, arguments = spec.partition(":")
    if head in BUILTINS and "=" in arguments:  # values may hold colons: pimc:rollout=ppo:PATH
        return head, None, parse_kwargs(arguments, spec)
    parts = spec.split(":")
    kwargs = {}
    if len(parts) > 1 and "=" in parts[-1] and not (parts[0] in PATHS and len(parts) == 2):
        kwargs = parse_kwargs(parts.pop(), spec)
    head, rest = parts[0], parts[1:]
    if head == "ppo":
        path = ":".join(rest)
        if not path:
            raise ValueError(
                f"policy spec {spec!r}: ppo needs a shipped network's name or a checkpoint path, "
                "as in ppo:ghost or ppo:runs/NAME/final.pt"
            )
        return "ppo", network_path(path) or path, kwargs
    if head == "proc":
        path = ":".join(rest)
        if not path:
            raise ValueError(
                f"policy spec {spec!r}: proc needs a program's path, as in proc:./mybot "
                "or proc:./mybot:timeout=5"
            )
        return "proc", path, kwargs
    if head in BUILTINS:
        if rest:
            raise ValueError(
                f"policy spec {spec!r}: unexpected {':'.join(rest)!r} after {head!r}; "
                f"arguments are written {head}:key=value,..."
            )
        return head, None, kwargs
    if len(rest) == 1 and _MODULE_RE.fullmatch(head) and _CLASS_RE.fullmatch(rest[0]):
        return "class", f"{head}:{rest[0]}", kwargs
    raise ValueError(f"unknown policy spec {spec!r}; expected {EXPECTED}")


@dataclasses.dataclass(frozen=True)
class SpecTree:
    """A policy spec parsed, nothing imported, opened or built (see :func:`spec_tree`).

    kind: a built-in name, 'ppo', 'proc', 'class' or 'composite'; target: the checkpoint
    path for 'ppo', the program's path for 'proc', 'module:Class' for 'class', else None; options: the
    ``key=value`` arguments as :func:`parse_value` read them; parts: a
    composite's (auction, play) trees, else (); nested: {option: tree} of the option values
    that are themselves specs (``pimc:rollout=ppo:ghost``); text: the spec as written ('' for a
    tree made by hand: :func:`spec_text` writes it). Trees compare by kind, target, options
    and parts.
    """

    kind: str
    target: str | None = None
    options: dict = dataclasses.field(default_factory=dict)
    parts: tuple = ()
    nested: dict = dataclasses.field(default_factory=dict, compare=False)
    text: str = dataclasses.field(default="", compare=False)


ROLES = ("auction", "play")  # a composite's parts


def spec_tree(spec):
    """The :class:`SpecTree` of ``spec`` (a tree is returned as it is): every level read once,
    composites' parts and option values that are specs included; the ValueErrors of
    :func:`split_spec`, a composite's naming its bad part."""
    if isinstance(spec, SpecTree):
        return spec
    if is_composite(spec):
        parts = []
        for role, part in zip(ROLES, split_composite(spec), strict=True):
            with _naming_part(spec, role):
                parts.append(spec_tree(part))
        return SpecTree("composite", parts=tuple(parts), text=spec)
    kind, target, options = split_spec(spec)
    nested = {}
    for key, value in options.items():
        if isinstance(value, str):
            with contextlib.suppress(ValueError):  # a plain string option (a path, a name)
                nested[key] = spec_tree(value)
    return SpecTree(kind, target, options, nested=nested, text=spec)


def composite_tree(auction, play):
    """The :class:`SpecTree` of ``composite[AUCTION | PLAY]`` from its parts' trees (read already)."""
    return SpecTree(
        "composite", parts=(auction, play), text=composite_spec(written(auction), written(play))
    )


def written(tree):
    """The spec string of ``tree`` as written, or as :func:`spec_text` writes it."""
    return tree.text or spec_text(tree)


def spec_text(tree):
    """The spec string of a :class:`SpecTree`: ``spec_tree(spec_text(t)) == t`` for a parsed tree."""
    if tree.kind == "composite":
        return composite_spec(*(spec_text(part) for part in tree.parts))
    head = {"ppo": f"ppo:{tree.target}", "proc": f"proc:{tree.target}", "class": tree.target}.get(
        tree.kind, tree.kind
    )
    if not tree.options:
        return head
    values = {True: "true", False: "false"}
    return f"{head}:" + ",".join(
        f"{key}={values[value] if isinstance(value, bool) else value}"
        for key, value in tree.options.items()
    )


# Policy files a caller has already read and checked ({path: payload}, see :func:`checked_files`).
_CHECKED_FILES = contextvars.ContextVar("checked_policy_files", default=None)


@contextlib.contextmanager
def checked_files(payloads):
    """Within it, ``ppo:PATH`` is built from ``payloads[PATH]`` (the dict read from a policy file
    by a caller that checked it: a server, :mod:`ghost_euchre.arena.web.gate`) and PATH is never opened
    again; a ``ppo:PATH`` not in ``payloads`` is refused (ValueError)."""
    token = _CHECKED_FILES.set(payloads)
    try:
        yield
    finally:
        _CHECKED_FILES.reset(token)


HUMAN_SEAT = (
    "human plays only a whole seat of a game: at a terminal (the evaluate command with "
    "human SPEC SPEC) or on the web page (its serve subcommand)"
)


def uses_human(spec):
    """Whether ``spec`` (a spec string or its :class:`SpecTree`) names ``human`` at any depth: the
    spec itself, a composite's part, or an option value that is itself such a spec
    (``pimc:rollout=human``). ValueError (as :func:`spec_tree`) for a spec that does not parse."""
    tree = spec_tree(spec)
    return tree.kind == "human" or any(map(uses_human, (*tree.parts, *tree.nested.values())))


def make_policy(spec, game, seed=None):
    """Build the policy named by ``spec`` (see the module docstring; a string or its
    :class:`SpecTree`) for ``game``.

    game: the variant's engine (``GhostEuchre`` or ``ClassicEuchre``); seed: int >= 0 or
    None. Raises ValueError (one line, saying what was expected) for an unknown
    name, a missing module, class or file, an object without the Policy interface,
    ``human`` inside another policy (:func:`uses_human`), or a bad seed; and
    :class:`ghost_euchre.agents.extras.MissingExtra` (an ImportError) naming the spec and the
    extra to install when it needs one that is not installed (torch: ``[train]``), the line
    the commands print. A user's class (or its module) that raises anything else while it is
    built is :class:`ghost_euchre.agents.checked.PolicyRaised`: one line naming the spec, then
    its traceback.
    """
    if seed is not None:
        check_int("seed", seed, 0)
    tree = spec_tree(spec)
    with extra_named(f"policy spec {written(tree)!r}"):
        return _build(tree, game, seed)


def _build(tree, game, seed):
    """:func:`make_policy` of a parsed spec, an optional dependency's absence not yet named."""
    spec = written(tree)
    if tree.kind != "human" and uses_human(tree):
        raise ValueError(f"policy spec {spec!r}: {HUMAN_SEAT}, not inside another policy")
    if tree.kind == "composite":
        return _make_composite(tree, spec, game, seed)
    kind, target, kwargs = tree.kind, tree.target, dict(tree.options)
    checked = _CHECKED_FILES.get()
    if kind == "ppo" and checked is not None and target not in checked:
        raise ValueError(f"policy spec {spec!r}: not a policy file read and checked for this build")
    if kind == "ppo":
        payload = None if checked is None else checked[target]
        if payload is None and (target is None or not os.path.isfile(target)):
            raise ValueError(
                f"policy spec {spec!r}: checkpoint file {target!r} does not exist and no shipped "
                f"network has that name; the shipped networks are {', '.join(NETWORKS)}"
            )
        sizes = payload is None and network_sizes(
            target
        )  # before torch: a network of the other variant is told at once
        reason = sizes and fit_error(*sizes, game)
        if reason:
            raise ValueError(f"policy spec {spec!r}: {reason}")
        try:
            ppo = importlib.import_module("ghost_euchre.agents.ppo")
        except ModuleNotFoundError as error:
            if error.name != "ghost_euchre.agents.ppo":
                raise
            raise ValueError(
                f"policy spec {spec!r}: PPO checkpoints need the module ghost_euchre.agents.ppo "
                "(agents/ppo.py in a clone), which is not installed"
            ) from None
        check_options(spec, ppo.load_policy, kwargs, "ppo", given=("path",))
        policy, learn, partner = (
            ppo.load_policy(target, game, seed, **kwargs)
            if payload is None
            else ppo.policy_from(target, payload, game, seed, **kwargs)
        )
        if partner is not None:  # a network of the auction (or the card play) alone: a full player
            role = "card play" if learn == "auction" else "auction"
            try:
                partner_tree = spec_tree(partner)
                if uses_human(partner_tree):
                    raise ValueError(f"{HUMAN_SEAT}, not inside another policy")
                other = make_policy(partner_tree, game, seed=None if seed is None else seed + 1)
            except ValueError as error:
                raise ValueError(
                    f"PPO checkpoint {target!r}: the spec recorded in it for the {role}, "
                    f"{partner!r}, does not build: {error}"
                ) from None
            parts = (policy, other) if learn == "auction" else (other, policy)
            policy = CompositePolicy(game, *parts)
    elif kind == "proc":
        reason = program_error(target)
        if reason:
            raise ValueError(f"policy spec {spec!r}: {reason}")
        check_options(spec, ProgramPolicy, kwargs, "proc", given=("path",))
        try:
            policy = ProgramPolicy(game, seed=seed, path=str(target), **kwargs)
        except ValueError as error:
            raise ValueError(f"policy spec {spec!r}: {error}") from None
        policy.name = spec.strip()
    else:
        factory: Callable[..., Policy] = _load_attribute(BUILTINS.get(kind, target), spec)
        if not callable(factory):
            raise ValueError(
                f"policy spec {spec!r}: {target} is not a class; expected a Policy subclass"
            )
        builds = _takes_build(factory)
        check_options(spec, factory, kwargs, target or kind, given=("build",) if builds else ())
        if builds:  # a bot of bots: handed the builder, its option values already read
            kwargs["build"] = functools.partial(_build_option, tree.nested)
        try:
            policy = factory(game, seed=seed, **kwargs)
        except TypeError as error:
            raise ValueError(
                f"policy spec {spec!r}: cannot build it as {target or kind}(game, seed=..., "
                f"{', '.join(f'{k}=...' for k in kwargs)}): {error}"
            ) from None
        except Exception as error:  # a user's class raising while built: named, then shown
            told = isinstance(error, (ValueError, PolicyRaised)) or missing_extra(error)
            if kind != "class" or told:
                raise
            raise raised(f"policy spec {spec!r}", error, "while it was built") from error
    check_policy(policy, spec)
    if kind == "class" and getattr(policy, "name", None) in (None, Policy.name):
        policy.name = spec
    return policy


RESERVED_OPTIONS = ("game", "seed")  # passed by make_policy to every factory, never by the spec


def check_options(spec, factory, kwargs, what, given=()):
    """ValueError (one line, listing the valid options) unless ``factory`` takes every key of ``kwargs``.

    The valid options are the factory's keyword parameters but ``self``,
    :data:`RESERVED_OPTIONS` and the names in ``given`` (others that
    make_policy passes itself, e.g. ppo's checkpoint ``path``); a factory
    taking ``**kwargs`` accepts anything. A reserved name given as an option is
    refused as such, whatever the factory takes.
    """
    names = (*RESERVED_OPTIONS, *given)
    reserved = [key for key in kwargs if key in names]
    if reserved:
        raise ValueError(
            f"policy spec {spec!r}: option {', '.join(map(repr, reserved))} of {what} is reserved "
            f"(the reserved names are {', '.join(names)}: the program gives them, not the spec)"
        )
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # no signature to read: let the call decide
        return
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return
    valid = [
        p.name
        for p in parameters
        if p.name not in ("self", *names)
        and p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    ]
    unknown = [key for key in kwargs if key not in valid]
    if unknown:
        takes = f"its options are {', '.join(valid)}" if valid else "it takes no options"
        raise ValueError(
            f"policy spec {spec!r}: unknown option {', '.join(map(repr, unknown))} for {what}; {takes}"
        )


def _make_composite(tree, spec, game, seed):
    """The CompositePolicy of ``composite[AUCTION | PLAY]``; an error in a part names the part."""
    parts = []
    for role, part in zip(ROLES, tree.parts, strict=True):
        part_seed = None if seed is None else seed + len(parts)
        with _naming_part(spec, role):
            parts.append(make_policy(part, game, seed=part_seed))
    return CompositePolicy(game, *parts, name=spec.strip())


@contextlib.contextmanager
def _naming_part(spec, role):
    """A ValueError within it names the part ``role`` of the composite ``spec``."""
    try:
        yield
    except ValueError as error:
        raise ValueError(f"policy spec {spec!r}: its {role} part: {error}") from None


def _takes_build(factory):
    """Whether ``factory`` builds other bots: it takes ``build`` (:func:`make_policy`, handed down)."""
    try:
        return "build" in inspect.signature(factory).parameters
    except (TypeError, ValueError):  # no signature to read
        return False


def _build_option(nested, spec, game, seed=None):
    """The ``build`` a bot of bots is handed: :func:`make_policy` of an option value, from the tree
    its spec's parse already holds (``nested``: {option: tree}) when it is one of them."""
    read = {tree.text: tree for tree in nested.values()}
    return make_policy(read.get(spec, spec) if isinstance(spec, str) else spec, game, seed)


def _load_attribute(path, spec):
    module_name, _, attribute = path.partition(":")
    module = find_module(module_name, f"policy spec {spec!r}")
    if module is None:
        raise ValueError(
            f"policy spec {spec!r}: no module named {module_name!r} (expected "
            f"package.module:ClassName; {import_hint(module_name)})"
        )
    if not hasattr(module, attribute):
        raise ValueError(
            f"policy spec {spec!r}: module {module_name!r} has no {attribute!r}; "
            "expected package.module:ClassName"
        )
    return getattr(module, attribute)


def check_policy(policy, spec="policy"):
    """Raise ValueError unless ``policy`` has callable ``act`` and ``reset`` and a str ``name``."""
    missing = [attr for attr in ("act", "reset") if not callable(getattr(policy, attr, None))]
    if missing or not isinstance(getattr(policy, "name", None), str):
        what = type(policy).__name__
        raise ValueError(
            f"policy spec {spec!r}: {what} does not meet the Policy interface; expected "
            "act(obs, mask) -> int64[N], reset(games) and a str name (subclass ghost_euchre.agents.base.Policy)"
        )
    if isinstance(policy, Policy) and type(policy).act is Policy.act:
        raise ValueError(
            f"policy spec {spec!r}: {type(policy).__name__} subclasses Policy but defines no act "
            "method; expected act(self, obs, mask) -> int64[N], one legal action per game "
            "(obs float32[N, D], mask bool[N, A])"
        )
