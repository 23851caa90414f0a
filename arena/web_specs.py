"""What the web page may build: the allow-list of bot specs a request can name.

The server decides what is built, never the request. :meth:`SpecGate.check`
parses a requested spec with ``agents.specs``' own parser (:func:`agents.specs.spec_tree`:
nothing imported, opened or built) and checks every node of the tree, before
any import, file access or call:

- ``random``, ``heuristic``: no options; ``pimc``: ``samples`` 1..256,
  ``max_games`` 256..32768 (the playout batch bound; fewer is only slower), ``objective`` one of
  :data:`agents.pimc.OBJECTIVES`, ``rollout`` a *playout spec* (the same
  allow-list without ``pimc``: a search inside every playout step of a search
  has no useful bound);
- ``ppo:NAME`` for a policy file (``*.pt``) of the operator's policy directories
  (``serve --policy-dir DIR``; default the shipped ``agents/pretrained/``):
  NAME is a shipped network's name (``ppo:ghost``, :mod:`agents.pretrained`;
  offered by that name when its file is in one of the directories), a file
  name of one of them or a path (from the server's working
  folder) lexically inside one, then resolved with ``realpath`` to a file that
  is still inside; option ``sample`` (true/false). A missing file and a file
  that is not offered get the same one-line answer, and a path outside the
  directories is refused without touching the file system;
- ``composite[AUCTION | PLAY]`` of allowed parts, at most :data:`MAX_DEPTH`
  levels of composites and rollouts, a spec at most :data:`MAX_SPEC_CHARS`
  characters;
- exactly a spec the operator named with ``serve --allow-spec SPEC`` (e.g.
  ``mybots:HighCard`` or ``pimc:samples=1024``), as a whole or as a part;
- never ``human`` (the page's person is the only human seat; a human bot would
  wait on the server's terminal), at any depth, and no other ``module:Class``.

:meth:`SpecGate.check` returns the spec to build: the same tree with each policy
file's resolved path, written back with :func:`agents.specs.spec_text` and parsed
again to the same tree (so what is built is what was checked).
"""

import os

from agents.pimc import OBJECTIVES
from agents.pretrained import HERE as PRETRAINED_DIR
from agents.pretrained import NETWORKS, network_path
from agents.specs import SpecTree, spec_text, spec_tree

MAX_SPEC_CHARS = 200
MAX_DEPTH = 4  # levels of specs: composite[composite[pimc:rollout=ppo:X | ...] | ...] is 4
POLICY_SUFFIX = ".pt"
SAFE_NAME = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
PLAYOUT_BOTS = ("random", "heuristic")
BUILTIN_BOTS = (*PLAYOUT_BOTS, "pimc")


def _int_option(low, high):
    def check(value):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"an int {low}..{high}")
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
    "ppo": {"sample": _bool_option},
}


def _shown(spec):
    """A spec as an error names it: quoted, at most 60 characters."""
    text = repr(spec)
    return text if len(text) <= 60 else text[:57] + "..."


class SpecGate:
    """The bot specs this server builds (see the module docstring).

    policy_dirs: the directories whose ``*.pt`` files ``ppo:NAME`` may name;
    allowed: the specs the operator named with ``--allow-spec`` (each taken as
    written, options included; ValueError for one naming ``human``).
    """

    def __init__(self, policy_dirs=(PRETRAINED_DIR,), allowed=()):
        self.policy_dirs = [os.path.realpath(d) for d in policy_dirs]
        self.allowed = []
        for spec in allowed:
            tree = spec_tree(spec)
            if _mentions_human(tree):
                raise ValueError(
                    f"--allow-spec {spec!r}: human cannot play on the page (the page's "
                    "person is the human seat)"
                )
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
        :data:`agents.pretrained.NETWORKS`' order), then the other policy files by file name."""
        shipped = {}
        for name in NETWORKS:
            path = os.path.realpath(str(network_path(name)))
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
            *(f"ppo:{name}" for name in self.policy_names()),
            *(text for _, text in self.allowed),
        ]

    def hide_paths(self, message):
        """``message`` with the policy directories' paths left out (a file is named by its name)."""
        for directory in self.policy_dirs:
            message = message.replace(directory + os.sep, "")
        return message

    # --------------------------------------------------------------- check
    def check(self, spec):
        """The spec to build for the requested ``spec`` (a str); ValueError (one line) if not allowed."""
        if not isinstance(spec, str) or not spec.strip():
            raise ValueError(f"a bot is a non-empty spec string, got {_shown(spec)}")
        if len(spec) > MAX_SPEC_CHARS:
            raise ValueError(f"a bot spec is at most {MAX_SPEC_CHARS} characters, got {len(spec)}")
        try:
            tree = spec_tree(spec)
        except ValueError:
            raise ValueError(f"{_shown(spec)} is not a policy spec; {self._expected()}") from None
        checked = self._node(tree, 1, playout=False)
        text = spec_text(checked)
        if spec_tree(text) != checked:  # a value that does not survive being written back
            raise ValueError(f"{_shown(spec)} cannot be offered as written; {self._expected()}")
        return text

    def _expected(self):
        return (
            "this page offers random, heuristic, pimc (samples 1..256), "
            f"ppo:NAME for NAME in {_listed(self.policy_names())}, composite[A | B] of those"
            + "".join(f", {text}" for _, text in self.allowed[:4])
        )

    def _node(self, tree, depth, playout):
        if depth > MAX_DEPTH:
            raise ValueError(f"bot specs nest at most {MAX_DEPTH} levels (composites and rollouts)")
        for allowed, _ in self.allowed:
            if tree == allowed:
                return tree
        if tree.kind == "human":
            raise ValueError("human is the page's own seat, not a bot; choose a bot spec")
        if tree.kind == "composite":
            parts = tuple(self._node(part, depth + 1, playout) for part in tree.parts)
            return SpecTree("composite", parts=parts)
        if tree.kind not in ("ppo", *(PLAYOUT_BOTS if playout else BUILTIN_BOTS)):
            what = "a playout" if playout and tree.kind == "pimc" else _shown(spec_text(tree))
            raise ValueError(f"{what} is not offered on this page; {self._expected()}")
        options = {}
        for key, value in tree.options.items():
            if key not in OPTIONS[tree.kind]:
                valid = ", ".join(OPTIONS[tree.kind]) or "none"
                raise ValueError(f"{tree.kind} option {key!r} is not offered; its options: {valid}")
            if key == "rollout":
                options[key] = self._rollout(value, depth)
                continue
            try:
                options[key] = OPTIONS[tree.kind][key](value)
            except ValueError as expected:
                raise ValueError(
                    f"{tree.kind} option {key} must be {expected}, got {_shown(value)}"
                ) from None
        target = self.policy_path(tree.target) if tree.kind == "ppo" else None
        return SpecTree(tree.kind, target, options)

    def _rollout(self, value, depth):
        if not isinstance(value, str):
            raise ValueError(f"pimc option rollout must be a playout spec, got {_shown(value)}")
        try:
            tree = spec_tree(value)
        except ValueError:
            raise ValueError(f"rollout {_shown(value)} is not a policy spec") from None
        return spec_text(self._node(tree, depth + 1, playout=True))

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
        raise ValueError(
            f"{_shown('ppo:' + target)} is not a policy file of this page; it offers "
            f"{_listed(f'ppo:{n}' for n in self.policy_names())}"
        )

    @staticmethod
    def _policy_file(directory, name):
        """directory/name's real path if it is a ``*.pt`` file inside ``directory``, else None."""
        parts = name.split(os.sep)
        if not name.endswith(POLICY_SUFFIX) or any(
            not p or p in (".", "..") or not set(p) <= SAFE_NAME for p in parts
        ):
            return None
        path = os.path.realpath(os.path.join(directory, name))
        if not _inside(path, directory) or not os.path.isfile(path):
            return None
        return path


def _listed(names, most=8):
    """'a, b, c' of at most ``most`` names ('none' for none)."""
    names = list(names)
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more if names else "none"


def _inside(path, directory):
    """True if ``path`` (absolute, normalized) is below ``directory`` (absolute, real)."""
    return os.path.commonpath([path, directory]) == directory and path != directory


def _mentions_human(tree):
    if tree.kind == "human":
        return True
    rollout = tree.options.get("rollout")
    nested = [spec_tree(rollout)] if isinstance(rollout, str) else []
    return any(_mentions_human(t) for t in (*tree.parts, *nested))
