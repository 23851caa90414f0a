"""One parser and checker of every environment door's keywords, with one set of messages.

The doors: the AEC envs (``ghost_euchre_v0.env()``, ``classic_euchre_v0.env()``) and their
Parallel envs (``parallel_env()``), the auction-only AEC envs (``ghost_bidding_v0``,
``classic_bidding_v0``), the single Gymnasium envs (``gymnasium.make(id)``) and the native
vector envs (``gymnasium.make_vec(id, num_envs)``) of the four ids. Each hands its keywords to
:func:`parse` with its :class:`Door`, and gets back one :class:`EnvOptions`:

- a keyword the door does not take (neither one of its options nor a rules option of its
  variant) is a ``TypeError`` in Python's words ("got an unexpected keyword argument
  'frameskip'"), so that libraries that pass optional keywords and retry without them on a
  ``TypeError`` (TorchRL's ``GymEnv``) work;
- a bad value is a ``ValueError`` of one line naming the option, what it takes and the value;
- ``human`` (a person at the terminal) is refused as an opponent and as ``card_play``: an env
  is stepped by a library, not a person.

:data:`OPTIONS` is the table of every option (its default, what it takes, which doors take
it); :func:`options_table` writes it as the Markdown table of the documentation's Options page
(a test checks the page against it).

Spec strings (``"heuristic"``, ``"ppo:ghost"``...) are read by the module that reads them:
the entry point ``specs`` of the group ``ghost_euchre_env.policies`` (:data:`SPEC_READERS`),
which the ghost-euchre distribution declares as ``ghost_euchre.agents.specs`` (its
``spec_tree``, ``SpecTree``, ``written``, ``uses_human`` and ``make_policy``: a door reads a
spec string once into a tree, checks it and builds from it), found in the installed
distributions' metadata or, in a clone run with ``PYTHONPATH=.`` before any install, in the
``pyproject.toml`` beside this package (:func:`spec_reader`). This package imports nothing above it; without a reader a spec
string is one line saying why, and a policy object plays as it is.
"""

import dataclasses
import functools
import importlib
import importlib.metadata
import math
import os
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from . import dealing
from .core import EPISODES, check_choice

ILLEGAL_ACTION_MODES = ("raise", "terminate")
AUTORESET_MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)
RENDER_MODES = ("human", "ansi")
DEFAULT_POLICY = "heuristic"  # the auction views' opponents and card play


@dataclasses.dataclass(frozen=True)
class Option:
    """One keyword of the env doors: its default, what it takes, which doors take it."""

    name: str
    default: Any
    takes: str  # for the table and the messages
    doors: str  # for the table
    meaning: str


OPTIONS = {
    option.name: option
    for option in (
        Option(
            "learner",
            0,
            'a seat 0..S-1 or an agent name (`"player_1"`)',
            "Gymnasium, vector",
            "the seat the library plays",
        ),
        Option(
            "opponents",
            None,
            'None (random legal play), a spec string (`"heuristic"`, `"ppo:ghost"`), a '
            "policy object with a batched `act(obs, mask)`, a callable `(obs, mask) -> action`, "
            "or a dict from seat or agent name to any of these (seats it does not name: the "
            "default)",
            "Gymnasium, vector",
            "who plays the other seats (the learner's partner included); auction views: "
            '`"heuristic"` by default',
        ),
        Option(
            "card_play",
            DEFAULT_POLICY,
            "a spec string or a policy object with a batched `act(obs, mask)`",
            "auction views (AEC, Gymnasium, vector)",
            "who plays every card of the auction views",
        ),
        Option(
            "render_mode",
            None,
            'None, `"ansi"` (`render()` returns the table) or `"human"` (prints it)',
            "all",
            "how `render()` shows the table",
        ),
        Option(
            "episode",
            "game",
            '`"game"` (to `target_score`) or `"deal"` (one deal)',
            "all",
            'what an episode is; auction views: `"deal"` by default',
        ),
        Option(
            "reward",
            "points",
            '`"points"`, `"win"` (with `episode="game"`); auction views also `"margin"`',
            "all",
            "what a seat is paid",
        ),
        Option(
            "illegal_action",
            "raise",
            '`"raise"` (`ValueError`, nothing changed) or `"terminate"` (the episode ends, the '
            "offender is paid `illegal_action_penalty`)",
            "all",
            "what an illegal action does; `terminate` lets a library's checker send unmasked "
            "random actions",
        ),
        Option(
            "illegal_action_penalty",
            -1.0,
            "a finite number",
            "all",
            'the offender\'s reward under `illegal_action="terminate"`',
        ),
        Option(
            "mask_in_observation",
            False,
            "a bool",
            "Gymnasium, vector",
            "the observation becomes `Dict(observations=Box, action_mask=Box(0, 1, [A], "
            "float32))` (RLlib's action-masking layout)",
        ),
        Option(
            "autoreset_mode",
            AutoresetMode.NEXT_STEP,
            '`AutoresetMode.NEXT_STEP` or `SAME_STEP`, or their values `"NextStep"`, `"SameStep"`',
            "vector",
            'Gymnasium\'s autoreset mode (an attribute and `metadata["autoreset_mode"]`)',
        ),
        Option(
            "policy_seed",
            None,
            "None or an int 0..2**64-1",
            "Gymnasium, vector, auction AEC",
            "seeds the policies built from spec strings",
        ),
    )
}

AEC = ("render_mode", "episode", "reward", "illegal_action", "illegal_action_penalty")
LEARNER = ("learner", "opponents", "mask_in_observation", "policy_seed")
KINDS = {  # door kind -> (its options, its defaults that differ from OPTIONS')
    "aec": (AEC, {}),
    "auction_aec": ((*AEC, "card_play", "policy_seed"), {"episode": "deal"}),
    "gym": ((*AEC, *LEARNER), {}),
    "gym_auction": ((*AEC, *LEARNER, "card_play"), {"episode": "deal", "opponents": "heuristic"}),
    "vector": ((*AEC, *LEARNER, "autoreset_mode"), {}),
    "vector_auction": (
        (*AEC, *LEARNER, "autoreset_mode", "card_play"),
        {"episode": "deal", "opponents": "heuristic"},
    ),
}
REWARDS = {False: ("points", "win"), True: ("points", "margin", "win")}  # by auction view


@dataclasses.dataclass(frozen=True)
class Door:
    """An env door: its ``name`` in messages (how it is called: ``"ghost_euchre_v0.env()"``,
    ``"gymnasium.make('GhostEuchre-v0')"``), its ``kind`` (a key of :data:`KINDS`), its
    variant's ``engine`` class (whose ``rules_type`` names the rules options) and ``agents``."""

    name: str
    kind: str
    engine: type
    agents: tuple[str, ...]

    @property
    def options(self) -> tuple[str, ...]:
        return KINDS[self.kind][0]

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(self.engine.rules_type))

    def default(self, name):
        return KINDS[self.kind][1].get(name, OPTIONS[name].default)


@dataclasses.dataclass(frozen=True)
class EnvOptions:
    """A door's options, checked (defaults filled in); ``rules``: the rules options given."""

    render_mode: str | None
    episode: str
    reward: str
    illegal_action: str
    illegal_action_penalty: float
    rules: dict
    learner: int = 0  # a seat
    opponents: Any = None  # as given, spec strings read (see :func:`check_opponents`)
    card_play: Any = DEFAULT_POLICY
    mask_in_observation: bool = False
    autoreset_mode: AutoresetMode = AutoresetMode.NEXT_STEP
    policy_seed: int | None = None


def parse(door: Door, given: dict) -> EnvOptions:
    """The checked options of ``door`` from the keywords ``given``; TypeError for a keyword the
    door does not take, ValueError (one line) for a bad value."""
    rules_names = door.rules
    for key in given:
        if key not in door.options and key not in rules_names:
            raise TypeError(
                f"{door.name} got an unexpected keyword argument {key!r}; it takes "
                f"{', '.join(door.options)} and the rules options {', '.join(rules_names)}"
            )
    value = {name: given.get(name, door.default(name)) for name in door.options}
    auction = door.kind.endswith("auction") or door.kind == "auction_aec"
    render_mode = value["render_mode"]
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(
            f"render_mode must be None or one of {list(RENDER_MODES)}, got {render_mode!r}"
        )
    check_choice("episode", value["episode"], EPISODES)
    check_choice("reward", value["reward"], REWARDS[auction])
    check_choice("illegal_action", value["illegal_action"], ILLEGAL_ACTION_MODES)
    penalty = value["illegal_action_penalty"]
    if (
        isinstance(penalty, (bool, np.bool_))
        or not isinstance(penalty, (int, float, np.integer, np.floating))
        or not math.isfinite(penalty)
    ):
        raise ValueError(f"illegal_action_penalty must be a finite number, got {penalty!r}")
    parsed: dict[str, Any] = {
        "render_mode": render_mode,
        "episode": value["episode"],
        "reward": value["reward"],
        "illegal_action": value["illegal_action"],
        "illegal_action_penalty": float(penalty),
        "rules": {key: given[key] for key in given if key in rules_names},
    }
    if "learner" in value:
        parsed["learner"] = seat_of(value["learner"], door.agents, "learner")
        parsed["opponents"] = check_opponents(value["opponents"], parsed["learner"], door.agents)
        mask = value["mask_in_observation"]
        if not isinstance(mask, (bool, np.bool_)):
            raise ValueError(f"mask_in_observation must be a bool, got {mask!r}")
        parsed["mask_in_observation"] = bool(mask)
    if "policy_seed" in value:
        parsed["policy_seed"] = check_seed(value["policy_seed"], "policy_seed")
    if "card_play" in value:
        parsed["card_play"] = check_policy("card_play", value["card_play"], batched=True)
    if "autoreset_mode" in value:
        parsed["autoreset_mode"] = autoreset_mode(value["autoreset_mode"])
    return EnvOptions(**parsed)


def check_seed(seed, what="seed"):
    """``seed`` (None or an int 0..2**64-1, not a bool) as an int or None; ValueError otherwise."""
    return None if seed is None else dealing.check_seed(seed, what)


def autoreset_mode(value) -> AutoresetMode:
    """An :class:`AutoresetMode` of :data:`AUTORESET_MODES` from a member or its value."""
    mode = value
    if isinstance(value, str):
        mode = next((m for m in AUTORESET_MODES if m.value == value), value)
    if mode not in AUTORESET_MODES:
        raise ValueError(
            f"autoreset_mode must be one of {[m.value for m in AUTORESET_MODES]} (or those "
            f"AutoresetMode members), got {value!r}"
        )
    return AutoresetMode(mode)


def seat_of(value, agents, what):
    """A seat from a seat number or an agent name of ``agents``; ValueError otherwise."""
    if isinstance(value, str) and value in agents:
        return agents.index(value)
    if (
        isinstance(value, (int, np.integer))
        and not isinstance(value, (bool, np.bool_))
        and 0 <= value < len(agents)
    ):
        return int(value)
    raise ValueError(
        f"{what} must be a seat 0..{len(agents) - 1} or one of {list(agents)}, got {value!r}"
    )


def check_policy(what, policy, batched=False):
    """``policy`` if it can play a seat: a spec string (returned read, as the spec reader's tree:
    :func:`read_spec`), a tree read already, an object with a batched ``act``, or (unless
    ``batched``) a callable ``(obs, mask) -> action``; never ``human``. ValueError otherwise (a
    spec string that does not parse is returned as it is: :func:`resolve_policy` says why)."""
    if isinstance(policy, str) or is_spec_tree(policy):
        tree = read_spec(policy)
        if tree is not None and spec_reader().uses_human(tree):
            raise ValueError(
                f"{what} cannot be {spec_text(policy)!r}: human plays at a terminal or on the web "
                "page (the evaluate command), not inside an env a library steps"
            )
        return policy if tree is None else tree
    if getattr(policy, "name", None) == "human":
        raise ValueError(
            f"{what} cannot be a human policy: an env is stepped by a library, not a person"
        )
    if callable(getattr(policy, "act", None)) or (not batched and callable(policy)):
        return policy
    takes = (
        "a spec string or a policy with a batched act(obs, mask) -> int[M] (an agents.Policy)"
        if batched
        else "None, a spec string, a policy with a batched act(obs, mask) (an agents.Policy) "
        "or a callable (obs, mask) -> action"
    )
    raise ValueError(f"{what} must be {takes}, got {policy!r}")


SPEC_READERS = "ghost_euchre_env.policies"  # the entry-point group of the spec reader


@functools.cache
def spec_reader():
    """The module that reads spec strings (``spec_tree(spec)``, ``uses_human(tree)``,
    ``make_policy(tree, game, seed)``...), loaded once: the entry point ``specs`` of
    :data:`SPEC_READERS` that an installed distribution declares, else the one the
    ``pyproject.toml`` beside this package declares (a clone run with ``PYTHONPATH=.`` before any
    install). ValueError (one line saying why) when neither does."""
    found = importlib.metadata.entry_points(group=SPEC_READERS, name="specs")
    if found:
        return next(iter(found)).load()
    return importlib.import_module(_declared_in_clone())


def _declared_in_clone():
    """The spec reader's module named by the entry point in the clone's ``pyproject.toml``."""
    pyproject = os.path.join(os.path.dirname(os.path.dirname(__file__)), "pyproject.toml")
    why = "no installed distribution declares one"
    if not os.path.isfile(pyproject):
        why += " and there is no pyproject.toml beside ghost_euchre_env (not a clone)"
    else:
        try:
            import tomllib  # Python 3.11+

            with open(pyproject, "rb") as handle:
                points = tomllib.load(handle)["project"]["entry-points"]
            return points[SPEC_READERS]["specs"]
        except ImportError:
            why += f", and reading {pyproject} needs Python 3.11 or newer (tomllib)"
        except KeyError:
            why += f" nor does {pyproject}"
    raise ValueError(
        f"a policy given as a spec string needs a spec reader (the entry point 'specs' of "
        f"{SPEC_READERS}): {why}; pip install ghost-euchre (pip install -e . in a clone), or "
        "pass a policy object"
    )


def read_spec(policy):
    """The spec reader's tree of a spec string, read once for the human check and the build
    (:func:`resolve_policy`); a tree read already as it is; None for a string that does not
    parse (its build says why)."""
    if not isinstance(policy, str):
        return policy
    try:
        return spec_reader().spec_tree(policy)
    except ValueError:
        return None


def is_spec_tree(policy):
    """Whether ``policy`` is a spec the spec reader read already (its ``SpecTree``)."""
    if policy is None or isinstance(policy, str) or callable(policy) or hasattr(policy, "act"):
        return False
    try:
        return isinstance(policy, spec_reader().SpecTree)
    except ValueError:  # no reader: nothing could have read it
        return False


def spec_text(policy):
    """A spec as written: the string, or a tree's (the reader's ``written``); None for a policy
    object."""
    if isinstance(policy, str):
        return policy
    return spec_reader().written(policy) if is_spec_tree(policy) else None


def check_opponents(opponents, learner, agents):
    """``opponents`` checked: None, one policy (see :func:`check_policy`) or a dict from seat or
    agent name (not the learner's) to one, each spec string read into its tree once (a string
    that plays several seats is one tree); ValueError otherwise."""
    if not isinstance(opponents, dict):
        return None if opponents is None else check_policy("opponents", opponents)
    checked, read = {}, {}
    for key, policy in opponents.items():
        seat = seat_of(key, agents, "opponents key")
        if seat == learner:
            raise ValueError(f"opponents names {agents[seat]}, the learner's seat")
        if isinstance(policy, str) and policy in read:
            checked[key] = read[policy]
        elif policy is not None:
            checked[key] = check_policy(f"opponent for {agents[seat]}", policy)
            if isinstance(policy, str):
                read[policy] = checked[key]
        else:
            checked[key] = None
    return checked


def resolve_policy(policy, rules, engine, seed=None):
    """A policy object: ``policy`` itself, or the spec (a string or its tree) built (with
    ``seed``) for an ``engine`` (the variant's engine class) with ``rules``."""
    if isinstance(policy, str) or is_spec_tree(policy):
        return spec_reader().make_policy(policy, engine(**rules), seed=seed)
    return policy


def resolve_opponents(options: EnvOptions, agents, engine, default=None) -> dict[int, Any]:
    """{seat: None (random legal play), a batched policy or a callable} for every seat but the
    learner's, spec strings built; ``default`` plays the seats an ``opponents`` dict does not
    name (None: random; the auction views: the heuristic)."""
    others = [seat for seat in range(len(agents)) if seat != options.learner]
    opponents = options.opponents
    if isinstance(opponents, dict):
        named = {seat_of(key, agents, "opponents key"): value for key, value in opponents.items()}
        chosen = {seat: named.get(seat, default) for seat in others}
    else:
        chosen = dict.fromkeys(others, opponents)
    built: dict[Any, Any] = {}  # one policy object per spec as written
    for seat, policy in chosen.items():
        text = spec_text(policy)
        if text is not None:
            if text not in built:
                built[text] = resolve_policy(policy, options.rules, engine, options.policy_seed)
            chosen[seat] = built[text]
    return chosen


def as_callable(policy) -> Callable[..., int]:
    """(obs float32[D], mask bool[A]) -> int: a batched policy's ``act`` on one observation, or
    ``policy`` itself if it is already such a callable."""
    act = getattr(policy, "act", None)
    if act is None:
        return policy
    return lambda obs, mask: int(act(obs[None], mask[None])[0])


class PerGame:
    """A callable ``(obs, mask) -> action`` as a batched policy: ``act`` asks it game by game."""

    def __init__(self, play):
        self.play = play
        self.name = getattr(play, "__name__", type(play).__name__)

    def act(self, obs, mask):
        return np.array([self.play(o, m) for o, m in zip(obs, mask, strict=True)], np.int64)


def as_batched(policy):
    """A batched policy: ``policy`` if it has ``act``, a :class:`PerGame` of a callable, None as is."""
    if policy is None or callable(getattr(policy, "act", None)):
        return policy
    return PerGame(policy)


def memory_bytes():
    """This machine's physical memory in bytes, or None where the system does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def check_num_envs(num_envs, bytes_per_game):
    """ValueError unless ``num_envs`` is an int >= 1 whose games (``bytes_per_game`` each: the
    state, observations and masks) fit in this machine's memory: checked before allocating."""
    if (
        isinstance(num_envs, (bool, np.bool_))
        or not isinstance(num_envs, (int, np.integer))
        or num_envs < 1
    ):
        raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
    total = memory_bytes()
    if total is not None and num_envs * bytes_per_game > total:
        raise ValueError(
            f"num_envs={num_envs} needs about {num_envs * bytes_per_game / 2**30:,.0f} GiB "
            f"({bytes_per_game:,} bytes a game: state, observations, masks), more than this "
            f"machine's {total / 2**30:,.0f} GiB of memory; at most {total // bytes_per_game:,} "
            "games fit"
        )


def options_table() -> str:
    """The Markdown table of :data:`OPTIONS` (the documentation's Options page holds it)."""
    rows = ["| option | default | takes | doors | what it does |", "|---|---|---|---|---|"]
    for option in OPTIONS.values():
        default = option.default
        shown = f"`{default.name}`" if isinstance(default, AutoresetMode) else f"`{default!r}`"
        rows.append(
            f"| `{option.name}` | {shown} | {option.takes} | {option.doors} | {option.meaning} |"
        )
    return "\n".join(rows) + "\n"
