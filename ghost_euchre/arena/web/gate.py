"""What the web page may build: the allow-list of bot specs a request can name.

The server decides what is built, never the request, nor a file. :meth:`SpecGate.check`
parses a requested spec with ``ghost_euchre.agents.specs``' own parser (:func:`ghost_euchre.agents.specs.spec_tree`:
nothing imported, opened or built) and checks every node of the tree, before
any import, file access or call:

- ``random``, ``heuristic``: no options; ``pimc``: ``samples`` 1..256,
  ``max_games`` 256..32768 (the playout batch bound; fewer is only slower), ``objective`` one of
  :data:`ghost_euchre.agents.pimc.OBJECTIVES`, ``rollout`` a *playout spec* (random, heuristic,
  ppo:NAME and composites of those: a search inside every playout step of a
  search has no useful bound);
- ``search``: ``samples`` 1..128, ``pool`` 1..4 (at most 512 candidate worlds a
  decision), ``infer`` one of :data:`ghost_euchre.agents.search.INFERENCE_MODELS`, ``floor`` 0..0.99,
  ``evidence`` one of :data:`ghost_euchre.agents.search.EVIDENCE`, ``top`` 0..34, ``prior`` 0..100, ``max_games`` and ``objective`` as pimc's,
  ``rollout`` a playout spec and ``network`` a playout spec too (the model it reads);
- ``ppo:NAME`` for a policy file (``*.pt``) of the operator's policy directories
  (``serve --policy-dir DIR``; default the shipped ``agents/pretrained/``):
  NAME is a shipped network's name (``ppo:ghost``, :mod:`ghost_euchre.agents.pretrained`;
  offered by that name when its file is in one of the directories), a file
  name of one of them or a path (from the server's working
  folder) lexically inside one, then resolved with ``realpath`` to a file that
  is still inside; option ``sample`` (true/false). A missing file and a file
  that is not offered get the same one-line answer (naming NAME as written,
  never an install path), and a path outside the directories is refused without
  touching the file system;
- what a policy file records is as untrusted as a request (:meth:`SpecGate.read_policy`):
  the file is opened once, the opened descriptor checked (a regular file of at
  most :data:`MAX_POLICY_BYTES`, the very file of a real path inside the
  directory: a name swapped for a symlink between the check and the open is
  refused), and read from that descriptor with ``torch.load(weights_only=True)``;
  its network must be the trainer's MLP (no ``model`` class named: that
  is code) whose layers are exactly the weights the file holds (the config is
  built on torch's ``meta`` device first: a small file cannot ask for a huge
  network), and the partner spec recorded with a network of one role
  (``learn: auction|play``) goes through this same gate, one level deeper;
- ``composite[AUCTION | PLAY]`` of allowed parts, at most :data:`MAX_DEPTH`
  levels of composites, rollouts and recorded partners, a spec at most
  :data:`MAX_SPEC_CHARS` characters;
- a spec the operator named with ``serve --allow-spec SPEC`` (e.g.
  ``mybots:HighCard`` or ``pimc:samples=1024``), as a whole or as a part, exactly
  as written: it lifts the kinds and option bounds above for that node, never
  the other rules (depth, length, ``human``, no search in a playout, policy
  files inside the directories and checked as above);
- never ``human`` (the page's person is the only human seat; a human bot would
  wait on the server's terminal) nor ``proc:PATH`` (a program of the server's
  machine, started by a request), at any depth, even named by ``--allow-spec``;
  and no other ``module:Class``.

:meth:`SpecGate.check` returns the spec to build: the same tree with each policy
file's resolved path, written back with :func:`ghost_euchre.agents.specs.spec_text` and parsed
again to the same tree (so what is built is what was checked); given a dict
``files``, it fills it with the checked contents of every policy file named, to
build from with :func:`ghost_euchre.agents.specs.checked_files` (no file is opened twice).
"""

import io
import os
import stat
import threading

import numpy as np

from ghost_euchre.agents.composite import LEARN_MODES
from ghost_euchre.agents.forward import is_mlp, mlp_shapes
from ghost_euchre.agents.network_file import read_network
from ghost_euchre.agents.pimc import OBJECTIVES
from ghost_euchre.agents.ppo import learned_role
from ghost_euchre.agents.pretrained import HERE as PRETRAINED_DIR
from ghost_euchre.agents.pretrained import NETWORKS, network_path
from ghost_euchre.agents.search import EVIDENCE, INFERENCE_MODELS
from ghost_euchre.agents.specs import SpecTree, spec_text, spec_tree

MAX_SPEC_CHARS = 200
MAX_DEPTH = 4  # levels of specs: composite[composite[pimc:rollout=ppo:X | ...] | ...] is 4
MAX_POLICY_BYTES = 32 << 20  # a policy file read (the shipped ones: under 1 MB)
MAX_POLICY_TENSORS = 64  # tensors of a policy file's network (an MLP of 16 layers has 36)
MAX_READ_FILES = 8  # policy files whose checked contents are kept (by device, inode, size, mtime)
POLICY_SUFFIX = ".pt"
SAFE_NAME = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
PLAYOUT_BOTS = ("random", "heuristic")
BUILTIN_BOTS = (*PLAYOUT_BOTS, "pimc", "search")
SPEC_OPTIONS = ("rollout", "network")  # options of the searchers whose values are specs
OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)


def _int_option(low, high):
    def check(value):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"an int {low}..{high}")
        return value

    return check


def _number_option(low, high):
    def check(value):
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not low <= value <= high
        ):
            raise ValueError(f"a number {low}..{high}")
        return value

    return check


def _choice_option(choices):
    def check(value):
        if value not in choices:
            raise ValueError(f"one of {', '.join(choices)}")
        return value

    return check


def _bool_option(value):
    if not isinstance(value, bool):
        raise ValueError("true or false")
    return value


# The options a request may give each kind of bot, with their bounds (see the module docstring).
OPTIONS = {
    "random": {},
    "heuristic": {},
    "pimc": {
        "samples": _int_option(1, 256),
        "max_games": _int_option(256, 32768),
        "objective": _choice_option(OBJECTIVES),
        "rollout": None,  # a playout spec: checked as a tree of its own
    },
    "search": {
        "samples": _int_option(1, 128),
        "pool": _int_option(1, 4),
        "infer": _choice_option(INFERENCE_MODELS),
        "evidence": _choice_option(EVIDENCE),
        "floor": _number_option(0, 0.99),
        "top": _int_option(0, 34),
        "prior": _number_option(0, 100),
        "max_games": _int_option(256, 32768),
        "objective": _choice_option(OBJECTIVES),
        "rollout": None,  # playout specs: checked as trees of their own
        "network": None,
    },
    "ppo": {"sample": _bool_option},
}
# A shipped network's name by its path, as a spec resolves it and as realpath does.
SHIPPED_NAMES = {
    path: name
    for name in NETWORKS
    for path in (str(network_path(name)), os.path.realpath(str(network_path(name))))
}


def _shown(spec):
    """A spec as an error names it: quoted, at most 60 characters."""
    text = repr(spec)
    return text if len(text) <= 60 else text[:57] + "..."


class SpecGate:
    """The bot specs this server builds (see the module docstring).

    policy_dirs: the directories whose ``*.pt`` files ``ppo:NAME`` may name;
    allowed: the specs the operator named with ``--allow-spec`` (each taken as
    written, options included; ValueError for one that breaks a rule no
    allow-list lifts: ``human``, a search in a playout, more than MAX_DEPTH levels).
    """

    def __init__(self, policy_dirs=(PRETRAINED_DIR,), allowed=()):
        self.policy_dirs = [os.path.realpath(d) for d in policy_dirs]
        self.allowed = []
        self._read = {}  # (device, inode, size, mtime_ns) -> the checked contents of a policy file
        self._read_lock = threading.Lock()
        for spec in allowed:
            tree = spec_tree(spec)
            try:
                self._node(tree, 1, playout=False, files=None, allowed=True)
            except ValueError as error:
                raise ValueError(f"--allow-spec {spec!r}: {error}") from None
            self.allowed.append((tree, spec.strip()))

    # ------------------------------------------------------------- offered
    def policy_files(self):
        """The file names ``ppo:NAME`` may name (sorted; the first directory holding a name wins)."""
        names = set()
        for directory in self.policy_dirs:
            if os.path.isdir(directory):
                names.update(
                    n for n in os.listdir(directory) if self._policy_file(directory, n) is not None
                )
        return sorted(names)

    def policy_names(self):
        """What ``ppo:NAME`` offers: the shipped networks in the directories by name (in
        :data:`ghost_euchre.agents.pretrained.NETWORKS`' order), then the other policy files by file name."""
        shipped = {}
        for path, name in SHIPPED_NAMES.items():
            if any(_inside(path, d) for d in self.policy_dirs):
                shipped[os.path.basename(path)] = name
        files = self.policy_files()
        return [n for f, n in shipped.items() if f in files] + [
            f for f in files if f not in shipped
        ]

    def offered(self):
        """Suggested specs for the page: the built-in bots, the policy files, the operator's specs."""
        return [
            "heuristic",
            "random",
            "pimc",
            "pimc:samples=16",
            "search:samples=16",
            *(f"ppo:{name}" for name in self.policy_names()),
            *(text for _, text in self.allowed),
        ]

    def hide_paths(self, message):
        """``message`` with the policy directories' and the shipped networks' paths left out
        (a file is named by its name)."""
        for directory in (*self.policy_dirs, os.path.realpath(PRETRAINED_DIR)):
            message = message.replace(directory + os.sep, "")
        return message

    # --------------------------------------------------------------- check
    def check(self, spec, files=None):
        """The spec to build for the requested ``spec`` (a str); ValueError (one line) if not allowed.

        files: a dict, filled with {real path: checked contents} of every policy
        file the spec names, read here (:meth:`read_policy`), to build from with
        :func:`ghost_euchre.agents.specs.checked_files` (None: they are read and checked all the same).
        """
        files = {} if files is None else files
        if not isinstance(spec, str) or not spec.strip():
            raise ValueError(f"a bot is a non-empty spec string, got {_shown(spec)}")
        if len(spec) > MAX_SPEC_CHARS:
            raise ValueError(f"a bot spec is at most {MAX_SPEC_CHARS} characters, got {len(spec)}")
        try:
            tree = spec_tree(spec)
        except ValueError:
            raise ValueError(f"{_shown(spec)} is not a policy spec; {self._expected()}") from None
        checked = self._node(tree, 1, playout=False, files=files)
        text = spec_text(checked)
        if spec_tree(text) != checked:  # a value that does not survive being written back
            raise ValueError(f"{_shown(spec)} cannot be offered as written; {self._expected()}")
        return text

    def _expected(self):
        return (
            "this page offers random, heuristic, pimc (samples 1..256), search (samples 1..128), "
            f"ppo:NAME for NAME in {_listed(self.policy_names())}, composite[A | B] of those"
            + "".join(f", {text}" for _, text in self.allowed[:4])
        )

    def _node(self, tree, depth, playout, files, allowed=False):
        """The checked tree of ``tree`` at ``depth``; playout: inside a rollout (no search);
        files: as :meth:`check`'s (None: no policy file is looked at, for the operator's
        specs at start); allowed: inside an operator's spec (its kinds and options as written)."""
        if depth > MAX_DEPTH:
            raise ValueError(
                f"bot specs nest at most {MAX_DEPTH} levels (composites, rollouts and the "
                "partners policy files record)"
            )
        if tree.kind == "human":
            raise ValueError("human is the page's own seat, not a bot; choose a bot spec")
        if tree.kind == "proc":
            raise ValueError(
                "proc:PATH runs a program: never on the web page (play it with the evaluate "
                "command); choose a bot spec"
            )
        if playout and tree.kind not in ("composite", "ppo", *PLAYOUT_BOTS):
            raise ValueError(
                f"a playout is random, heuristic, ppo:NAME or a composite of those, not "
                f"{_shown(spec_text(tree))} (a search inside a playout has no useful bound)"
            )
        allowed = allowed or any(tree == a for a, _ in self.allowed)
        if tree.kind == "composite":
            parts = tuple(self._node(p, depth + 1, playout, files, allowed) for p in tree.parts)
            return SpecTree("composite", parts=parts)
        if not allowed and tree.kind not in ("ppo", *BUILTIN_BOTS):
            raise ValueError(
                f"{_shown(spec_text(tree))} is not offered on this page; {self._expected()}"
            )
        options = {}
        for key, value in tree.options.items():
            if (
                key in SPEC_OPTIONS
                and tree.kind in ("pimc", "search")
                and key in OPTIONS[tree.kind]
            ):
                options[key] = self._rollout(key, value, depth, files, allowed)
            elif allowed:
                options[key] = value
            elif key not in OPTIONS[tree.kind]:
                valid = ", ".join(OPTIONS[tree.kind]) or "none"
                raise ValueError(f"{tree.kind} option {key!r} is not offered; its options: {valid}")
            else:
                try:
                    options[key] = OPTIONS[tree.kind][key](value)
                except ValueError as expected:
                    raise ValueError(
                        f"{tree.kind} option {key} must be {expected}, got {_shown(value)}"
                    ) from None
        target = tree.target
        if tree.kind == "ppo" and files is not None:
            target = self.policy_path(target)
            files[target] = self.read_policy(target, depth, playout, files)
        return SpecTree(tree.kind, target, options)

    def _rollout(self, key, value, depth, files, allowed):
        """The checked text of a searcher's spec option ``key`` (rollout, network): a playout spec."""
        if not isinstance(value, str):
            raise ValueError(f"option {key} must be a playout spec, got {_shown(value)}")
        try:
            tree = spec_tree(value)
        except ValueError:
            raise ValueError(f"{key} {_shown(value)} is not a policy spec") from None
        return spec_text(self._node(tree, depth + 1, True, files, allowed))

    # --------------------------------------------------------- policy files
    def policy_path(self, target):
        """The real path of the offered policy file ``target`` names; ValueError otherwise.

        A bare name is looked up in each policy directory; a path must lie inside one
        lexically (no file system access otherwise) and really (after ``realpath``).
        The message is the same for a file that does not exist and one not offered.
        """
        target = target or ""
        if os.sep in target or (os.altsep and os.altsep in target):
            lexical = os.path.abspath(target)
            candidates = [
                (d, os.path.relpath(lexical, d)) for d in self.policy_dirs if _inside(lexical, d)
            ]
        else:
            candidates = [(d, target) for d in self.policy_dirs]
        for directory, name in candidates:
            path = self._policy_file(directory, name)
            if path is not None:
                return path
        raise self._not_offered(target)

    def _not_offered(self, target):
        """The one answer for a policy file missing, outside or not offered (``target`` as asked:
        a shipped network by its name, never by its install path)."""
        target = SHIPPED_NAMES.get(target or "", target or "")
        return ValueError(
            f"{_shown('ppo:' + target)} is not a policy file of this page; it offers "
            f"{_listed(f'ppo:{n}' for n in self.policy_names())}"
        )

    def read_policy(self, path, depth=1, playout=False, files=None):
        """The checked contents of the policy file at ``path`` (a real path :meth:`policy_path`
        gave): {"format", "model", "model_config", "learn", "partner": the checked spec
        text or None}; ValueError (one line) for a file this page does not build.

        The file is opened once and what was opened is checked (module docstring);
        its recorded partner is checked at ``depth + 1`` (``playout``, ``files``: as
        :meth:`check`'s, for the policy files the partner names in turn).
        """
        directory = next((d for d in self.policy_dirs if _inside(path, d)), None)
        refused = self._not_offered(SHIPPED_NAMES.get(path, os.path.basename(path)))
        if directory is None:
            raise refused
        try:
            fd = os.open(path, OPEN_FLAGS)
        except OSError:
            raise refused from None
        with os.fdopen(fd, "rb") as handle:
            opened = os.fstat(fd)
            key = (opened.st_dev, opened.st_ino, opened.st_size, opened.st_mtime_ns)
            if not (stat.S_ISREG(opened.st_mode) and _is_file_at(opened, path, directory)):
                raise refused  # swapped between the check and the open
            shown = f"ppo:{os.path.basename(path)}"
            if opened.st_size > MAX_POLICY_BYTES:
                raise ValueError(
                    f"{shown}: the policy file is {opened.st_size} bytes; this page reads files "
                    f"of at most {MAX_POLICY_BYTES}"
                )
            with self._read_lock:
                contents = self._read.get(key)
            if contents is None:
                data = handle.read(MAX_POLICY_BYTES + 1)
                if len(data) > MAX_POLICY_BYTES:  # grown since it was opened
                    raise ValueError(f"{shown}: the policy file is over {MAX_POLICY_BYTES} bytes")
                contents = _policy_contents(data, shown)
                with self._read_lock:
                    if len(self._read) >= MAX_READ_FILES:
                        self._read.clear()
                    self._read[key] = contents
        partner = contents["partner"]
        if partner is not None:
            try:
                tree = spec_tree(partner) if len(partner) <= MAX_SPEC_CHARS else None
                if tree is None:
                    raise ValueError(f"a spec is at most {MAX_SPEC_CHARS} characters")
                partner = spec_text(self._node(tree, depth + 1, playout, files))
            except RecordedRefusal:
                raise  # the deepest file's own answer, told once
            except ValueError as error:
                raise RecordedRefusal(
                    f"{shown}: the spec recorded in it for the other decisions, "
                    f"{_shown(contents['partner'])}, is refused: {error}"
                ) from None
        return dict(contents, partner=partner)

    @staticmethod
    def _policy_file(directory, name):
        """directory/name's real path if it is a ``*.pt`` file inside ``directory``, else None."""
        parts = name.split(os.sep)
        if not name.endswith(POLICY_SUFFIX) or any(
            not p or p in (".", "..") or not set(p) <= SAFE_NAME for p in parts
        ):
            return None
        path = _real_path(os.path.join(directory, name))
        if path is None or not _inside(path, directory) or not os.path.isfile(path):
            return None
        return path


class RecordedRefusal(ValueError):
    """A policy file refused for the partner spec recorded in it."""


def _real_path(path):
    """``os.path.realpath(path)``, or None when the path changes under it (a file swapped for a
    symlink between its checks: readlink's EINVAL): the file is then not offered (a 4xx, not a 500)."""
    try:
        return os.path.realpath(path)
    except OSError:
        return None


def _is_file_at(opened, path, directory):
    """Whether the opened file (its ``os.fstat``) is the one at ``path``'s real path, inside ``directory``."""
    real = _real_path(path)
    try:
        there = os.stat(real) if real is not None else None
    except OSError:
        there = None
    if there is None:
        return False
    return _inside(real, directory) and (there.st_dev, there.st_ino) == (
        opened.st_dev,
        opened.st_ino,
    )


def _policy_contents(data, shown):
    """The contents of a policy file (its bytes ``data``) the page builds from; ValueError if none.

    Read without torch (:func:`ghost_euchre.agents.network_file.read_network`: tensors and plain
    containers only); the MLP config must be the built-in network's and hold exactly the file's
    weights (:func:`ghost_euchre.agents.forward.mlp_shapes`); learn and partner as
    :func:`ghost_euchre.agents.ppo.learned_role` reads them (the partner unchecked here).
    """
    buffer = io.BytesIO(data)
    buffer.name = shown
    payload = read_network(buffer, "policy file")
    config, weights = payload["model_config"], payload["model"]
    if not isinstance(config, dict) or not isinstance(weights, dict):
        raise ValueError(f"{shown} is not a policy file of the trainer (no model and model_config)")
    layers = config.get("hidden_sizes", ())
    if (
        len(weights) > MAX_POLICY_TENSORS
        or not isinstance(layers, (list, tuple))
        or len(layers) > len(weights)
    ):
        raise ValueError(
            f"{shown}: its network is not a list of layers no longer than the file's weights "
            f"(at most {MAX_POLICY_TENSORS} tensors)"
        )
    if "model" in config:
        raise ValueError(
            f"{shown}: its network names a class to import ({_shown(config['model'])}); this page "
            "builds the trainer's MLP networks only"
        )
    try:
        if not is_mlp(config):
            raise ValueError(f"keys {sorted(map(str, config))}")
        shapes = mlp_shapes(config)
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{shown}: its model_config does not build: {error}") from None
    held = {k: tuple(v.shape) for k, v in weights.items() if isinstance(v, np.ndarray)}
    if held != shapes or len(held) != len(weights):
        raise ValueError(f"{shown}: its model_config does not match the weights the file holds")
    if not isinstance(payload.get("config") or {}, dict):
        raise ValueError(f"{shown}: its training config is not a dict")
    learn, partner = learned_role(payload)
    if learn != "all" and (learn not in LEARN_MODES or not isinstance(partner, str)):
        raise ValueError(f"{shown}: learn={_shown(learn)} without a partner spec")
    return {
        "format": payload.get("format"),
        "model": weights,
        "model_config": config,
        "learn": learn,
        "partner": partner if learn != "all" else None,
    }


def _listed(names, most=8):
    """'a, b, c' of at most ``most`` names ('none' for none)."""
    names = list(names)
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more if names else "none"


def _inside(path, directory):
    """True if ``path`` (absolute, normalized) is below ``directory`` (absolute, real)."""
    return os.path.commonpath([path, directory]) == directory and path != directory
