"""The run's config: :class:`TrainConfig`, read from YAML and the command line, configs by name.

Every field is a command-line option ``--FIELD VALUE`` (:mod:`ghost_euchre.trainer.cli`);
VALUE is read as YAML, then checked against the field's type; an unknown key, a
wrong type or a value out of range raises ValueError naming it. This module
imports neither torch nor the trainer, so a bad command line fails fast.
"""

import ast
import contextlib
import contextvars
import dataclasses
import itertools
import math
import os
import types
import typing

import numpy as np
import yaml

from ghost_euchre.agents.composite import LEARN_MODES
from ghost_euchre.agents.pretrained import network_path
from ghost_euchre.agents.specs import HUMAN_SEAT, spec_tree, split_spec, uses_human
from ghost_euchre.plumbing.files import check_writable
from ghost_euchre_env import variants

DISTILL_PHASES = ("auction", "play", "all")  # the decisions distillation samples (distill_phase)
CRITICS = ("shared", "oracle", "solver")  # what PPO's value estimate sees (critic)
# configs by name: the package's folder (a clone's top-level configs/ is a link to it)
CONFIG_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs")
DEFAULT_CONFIG = os.path.join(CONFIG_DIR, "default.yaml")
MAX_THREADS = 1024
"""torch_threads and rollout_threads: at most this (torch crashed with SIGSEGV at 100,000 threads)"""


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """Every setting of a run; each field's docstring is its ``--help`` line, each ``# comment`` a group."""

    # run
    name: str = ""
    """run name: logs and checkpoints go to runs_dir/name; empty = CONFIG__SEED__TIMESTAMP"""
    runs_dir: str = "runs"
    """folder that holds one sub-folder per run"""
    seed: int = 1
    """seeds the network, the dealing, the seat roles and the action sampling"""
    torch_threads: int = 0
    """torch threads for the PPO update; 0 = the machine's cores divided by the ranks on it (torchrun's
    LOCAL_WORLD_SIZE), at least 1. The number used is written into the run's config (results depend on it).
    The command line makes idle threads sleep (OMP_WAIT_POLICY=PASSIVE unless set): spinning ones collapse
    when other work shares the machine (docs/speed.md)"""
    rollout_threads: int = 1
    """torch threads for rollouts and evaluation: small batches, where more threads mostly wait on each other"""
    update_precision: str = "float32"
    """the PPO update's network passes: 'float32', or 'bfloat16' (torch.autocast: the matrix products in
    bfloat16, the losses in float32; a minibatch in 0.54x the time on one thread of an AVX512-BF16 CPU, not
    yet faster inside a two-thread run: docs/speed.md). Rollouts and evaluations stay float32"""
    device: str = "auto"
    """where the networks run (rollout inference and updates): 'cpu', 'cuda', or 'auto' (cuda when torch sees a
    GPU, else cpu). Under torchrun each rank takes the GPU of its LOCAL_RANK"""
    collective_timeout: float = 600.0
    """seconds a rank waits for the others at a collective (torchrun runs only) before it stops with an error"""

    # games
    variant: str = "ghost"
    """'ghost' (Ghost Hand, 3 players) or 'classic' (4 players in two partnerships: a seat's rewards are its team's)"""
    num_envs: int = 1024
    """games played in parallel (one vector env; under torchrun, num_envs / world size games per rank)"""
    episode: str = "game"
    """'game' (deals until someone reaches target_score) or 'deal' (one deal per episode)"""
    reward: str = "margin"
    """per scored deal, times reward_scale: 'margin' = the seat's points minus the mean of the other two seats'
    points (classic: its team's points minus the other team's; zero-sum: what winning the game needs); 'points' =
    the seat's (team's) own points; 'win' = at the game's end, +1 for the winner and -1/2 for the others (classic:
    +1 for the winning team, -1 for the other)"""
    reward_scale: float = 0.1
    """factor applied to the rewards"""
    rules: dict = dataclasses.field(default_factory=dict)
    """rules options passed to the engine, e.g. {auction: open}; empty = the defaults of docs/RULES.md"""
    learn: str = "all"
    """the decisions the network makes: 'all'; 'auction' (every decision before the first card, classic's dealer
    discard included: games run in the variant's auction view, GhostBiddingVec or ClassicBiddingVec, every card
    play made inside it by card_play); 'play' (the card play: the learner's auction decisions are made by bidding)"""
    card_play: str = "heuristic"
    """policy spec that plays every card when learn='auction' (any spec: heuristic, pimc, ppo:PATH, a user class)"""
    bidding: str = "heuristic"
    """policy spec that makes the learner's auction and trump decisions when learn='play'"""

    # opponents: who sits at the other seats
    opponent_share: float = 1.0
    """chance that a seat is played by an opponent instead of the learner (each game keeps at least one learner
    seat; 1 = that seat alone, every other seat an opponent)"""
    opponents: dict = dataclasses.field(default_factory=dict)
    """the opponents as a weighted mix {spec: weight}: 'pool' (a past snapshot of the network) and any policy
    spec (heuristic, pimc:samples=8, ppo:PATH, package.module:ClassName, composite[...]), each batched; classic:
    partners are drawn like opponents. Weights are > 0 and normalised. Empty = {heuristic: heuristic_share,
    pool: 1 - heuristic_share}. Without 'pool' the learner trains against fixed bots (and copies of itself)"""
    opponent_seats: str = "any"
    """'any': each seat drawn as opponent_share says; 'other_team' (classic): the learner's partner is the
    learner, both seats of the other team opponents (a best response to a team of the mix)"""
    heuristic_share: float = 1.0
    """with opponents empty: chance that an opponent seat is the heuristic rather than a past snapshot"""
    pool_size: int = 8
    """past snapshots kept as opponents (the oldest is replaced first)"""
    snapshot_every: int = 10
    """updates between snapshots added to the pool"""
    opponent_sample: bool = True
    """snapshots sample their actions (true) or play greedily (false)"""

    # warm-up
    bidding_warmup_steps: int = 2_000_000
    """for the first this many decisions (total_steps' unit) the heuristic makes the learner's auction and trump
    decisions and the network imitates them (cross-entropy), while PPO learns the card play under sensible contracts.
    Without it the auction, learnt while the card play is still random, settles on always passing"""
    imitation_coef: float = 1.0
    """weight of that cross-entropy in the loss (the warm-up's lessons, and distillation's)"""
    imitate_card_play: bool = False
    """learn='all': during the warm-up the network also imitates the heuristic's card play at its own card-play
    decisions (same cross-entropy), while still playing them itself, so PPO trains on them as usual: card play
    starts from the heuristic's instead of from random"""
    distill_decisions: int = 0
    """per update, this many of the learner's decisions (of distill_phase, with a choice) get distill_teacher's
    action and the network also imitates it (ghost_euchre.trainer.distill); 0 = none"""
    distill_teacher: str = "oracle"
    """who distillation imitates: 'oracle' (the auction: the bid regret's rollout oracle, distill_worlds
    worlds, card_play playing out every seat; its best action; about 5 ms a decision on one core) or a policy spec
    (pimc:samples=16, ppo:PATH, package.module:ClassName, ...): its action, keyed by the run's generator"""
    distill_phase: str = "auction"
    """the decisions distillation samples: 'auction' (before the card play: the auction and trump; classic ordering
    up, naming trump, going alone, the dealer's discard), 'play' (the card play) or 'all'; the oracle values
    'auction' decisions only"""
    distill_worlds: int = 32
    """hidden deals the distillation's oracle samples per decision"""
    distill_temperature: float = 0.0
    """0: the network imitates the teacher's action; above 0 (points a deal): the teacher's values made a
    distribution, softmax(values / distill_temperature) over the actions it valued (expert iteration's
    targets; a teacher that values its actions: the oracle, pimc, search)"""

    # PPO
    total_steps: int = 41_943_040
    """decisions to play in all (every seat of every game, learner and opponents); rounded up to whole rollouts
    (num_envs * num_steps decisions), with a line saying so. The default: 1,280 rollouts of 32,768 (42M)"""
    num_steps: int = 32
    """vector-env steps per rollout; a rollout holds num_envs * num_steps decisions"""
    learning_rate: float = 2e-3
    """Adam step size (the default chosen on a validation seed: docs/results.md, "The default run")"""
    anneal_lr: bool = True
    """decay the learning rate linearly to 0 over the run"""
    gamma: float = 0.98
    """discount per decision of the same seat"""
    return_horizon: str = "deal"
    """how far a decision's return reaches: 'game' (every later reward of the seat's game, discounted by gamma);
    'deal' (the rewards of its own deal only: a seat's sequence for GAE closes at each deal's end)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    minibatch_size: int = 2048
    """learner decisions per gradient step"""
    update_epochs: int = 3
    """passes over each rollout"""
    norm_adv: bool = True
    """normalise advantages in each minibatch"""
    clip_coef: float = 0.2
    """PPO ratio clip"""
    clip_vloss: bool = False
    """clip the value loss around the rollout's values as well"""
    ent_coef: float = 0.01
    """entropy bonus weight"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient norm clip"""
    skip_forced: bool = True
    """a learner decision with one legal action is played without the network and stays out of the batch (it
    holds no choice; the rewards until the seat's next decision go to its previous one); false: in the batch"""
    target_kl: float | None = None
    """stop an update's epochs early once approx_kl exceeds this (null = never)"""

    # network
    hidden_sizes: tuple[int, ...] = (256, 256)
    """widths of the MLP's shared hidden layers"""
    activation: str = "relu"
    """the MLP's: 'relu' or 'tanh'"""
    canonical_suits: bool = True
    """the network sees each position (Ghost Hand or classic) with the suits renamed into one canonical
    order (trump, or the hand's strongest suit before trump, as clubs; ghost_euchre.agents.networks.CanonicalSuits);
    false: the suits as dealt (networks trained before this field existed)"""
    critic: str = "shared"
    """what PPO's value estimate sees: 'shared' = the network's own value head (what the policy sees); 'oracle' =
    a separate MLP of hidden_sizes that also sees every card hidden from the seat (the other hands, the ghost
    hand): perfect information in training only, as PerfectDou; the policy file holds the policy network alone;
    'solver' = the oracle that also sees the exact solver's value of the position for the deciding seat at each
    card decision (deal points, the seat's margin; a flag says it is undefined in the auction)"""
    model: str = ""
    """a network class of your own, package.module:ClassName (ghost_euchre.agents.networks: built as ClassName(obs_size,
    num_actions) with model_options as keywords, forward(obs) -> (logits, value)); e.g. ghost_euchre.agents.cardset:CardSetNet, which sees
    the cards as a set; empty = the MLP of hidden_sizes and activation"""
    model_options: dict = dataclasses.field(default_factory=dict)
    """keyword arguments of the model class, e.g. {embed_size: 32, pooling: attention}"""
    init_from: str = ""
    """policy file or checkpoint whose network starts the run, or a shipped network's name (ghost-180m: see
    ghost_euchre.agents.pretrained); same network, or the same relu MLP with more hidden layers of its last width (each
    starting as the identity); empty = a fresh network"""

    # evaluation, logging, checkpoints
    eval_every: int = 100
    """updates between evaluations against heuristic and random (0 = only at the end)"""
    eval_games: int = 300
    """duplicate games per periodic evaluation"""
    final_eval_games: int = 1500
    """duplicate games per opponent in the final evaluation table (heuristic, random and every entry of
    opponents; 0 = skip it)"""
    eval_regret_decisions: int = 0
    """learn='auction': at each evaluation against the heuristic, the network's bid regret (points per auction
    decision against the rollout oracle of ghost_euchre/arena/regret.py, 16 worlds) over this many sampled decisions (0 = off)"""
    eval_seed: int = 12345
    """seed of the evaluation deals (kept apart from training)"""
    checkpoint_every: int = 50
    """updates between checkpoints (0 = only the final one)"""
    keep_checkpoints: int = 3
    """numbered checkpoints kept on disk, newest first (0 = all)"""
    progress: bool = True
    """show a progress bar"""

    def __post_init__(self):
        def check(name, ok, expected):
            if not ok:
                raise ValueError(f"{name} must be {expected}, got {getattr(self, name)!r}")

        names = variants.available()  # config.variant: a name of ghost_euchre_env.variants
        check("variant", self.variant in names, one_of(names))
        check("episode", self.episode in ("game", "deal"), "'game' or 'deal'")
        check("return_horizon", self.return_horizon in ("game", "deal"), "'game' or 'deal'")
        check("learn", self.learn in LEARN_MODES, "'all', 'auction' or 'play'")
        check("reward", self.reward in ("margin", "points", "win"), "'margin', 'points' or 'win'")
        if self.reward == "win" and self.episode != "game":
            raise ValueError("reward='win' needs episode='game' (a single deal has no winner)")
        if self.reward == "win" and self.return_horizon != "game":
            raise ValueError(
                "reward='win' needs return_horizon='game' (it is paid at the game's end; 'deal', "
                "the default, closes each decision's return at the end of its deal)"
            )
        check("activation", self.activation in ("relu", "tanh"), "'relu' or 'tanh'")
        check("device", self.device in ("auto", "cpu", "cuda"), "'auto', 'cpu' or 'cuda'")
        check(
            "update_precision",
            self.update_precision in ("float32", "bfloat16"),
            "'float32' or 'bfloat16'",
        )
        for name in (
            "num_envs",
            "num_steps",
            "minibatch_size",
            "update_epochs",
            "pool_size",
            "snapshot_every",
            "rollout_threads",
            "total_steps",
        ):
            check(name, getattr(self, name) >= 1, "at least 1")
        for name in (
            "eval_every",
            "eval_games",
            "eval_regret_decisions",
            "final_eval_games",
            "checkpoint_every",
            "keep_checkpoints",
            "seed",
            "eval_seed",
            "bidding_warmup_steps",
            "distill_decisions",
            "torch_threads",
        ):
            check(name, getattr(self, name) >= 0, "at least 0")
        for name in ("torch_threads", "rollout_threads"):
            check(
                name,
                getattr(self, name) <= MAX_THREADS,
                f"at most {MAX_THREADS} (threads per rank)",
            )
        check("opponent_share", 0 <= self.opponent_share <= 1, "in [0, 1]")
        check(
            "opponent_seats", self.opponent_seats in ("any", "other_team"), "'any' or 'other_team'"
        )
        if self.opponent_seats == "other_team" and not variants.make(self.variant).has_partners:
            teams = [name for name in names if variants.make(name).has_partners]
            raise ValueError(f"opponent_seats='other_team' needs variant={one_of(teams)} (teams)")
        check("heuristic_share", 0 <= self.heuristic_share <= 1, "in [0, 1]")
        check("gamma", 0 <= self.gamma <= 1, "in [0, 1]")
        check("gae_lambda", 0 <= self.gae_lambda <= 1, "in [0, 1]")
        for name in (
            "learning_rate",
            "clip_coef",
            "max_grad_norm",
            "reward_scale",
            "collective_timeout",
        ):
            check(name, 0 < getattr(self, name) < math.inf, "a finite positive number")
        for name in ("ent_coef", "vf_coef", "imitation_coef"):
            check(name, 0 <= getattr(self, name) < math.inf, "a finite number >= 0")
        check(
            "target_kl",
            self.target_kl is None or 0 < self.target_kl < math.inf,
            "null or a finite positive number",
        )
        check("critic", self.critic in CRITICS, "'shared', 'oracle' or 'solver'")
        check("distill_worlds", self.distill_worlds >= 1, "at least 1")
        check(
            "distill_temperature",
            0 <= self.distill_temperature < math.inf,
            "a finite number >= 0 (0: the teacher's action)",
        )
        check("distill_phase", self.distill_phase in DISTILL_PHASES, "'auction', 'play' or 'all'")
        check(
            "distill_teacher",
            isinstance(self.distill_teacher, str) and self.distill_teacher.strip() != "",
            "'oracle' or a policy spec",
        )
        if self.distill_teacher != "oracle":
            _check_spec("distill_teacher", self.distill_teacher)
        if self.distill_decisions:  # a teacher and phase that go with the variant and learn mode
            oracle = self.distill_teacher == "oracle"
            if oracle and self.distill_phase != "auction":
                raise ValueError(
                    f"distill_teacher='oracle' values auction decisions only; distill_phase is "
                    f"{self.distill_phase!r} (use a policy spec as teacher for card play)"
                )
            if self.learn == "play" and self.distill_phase == "auction":
                raise ValueError(
                    "distill_phase='auction' with learn='play': the learner makes no auction decisions"
                )
            if self.learn == "auction" and self.distill_phase == "play":
                raise ValueError(
                    "distill_phase='play' with learn='auction': the learner plays no cards"
                )
        check(
            "hidden_sizes",
            len(self.hidden_sizes) >= 1 and min(self.hidden_sizes) >= 1,
            "a non-empty list of positive ints",
        )
        check(
            "name", os.sep not in self.name and self.name not in (".", ".."), "a plain folder name"
        )
        try:  # the engine checks its own rules options
            variants.make(self.variant).engine(**self.rules)
        except ValueError as error:
            raise ValueError(f"rules: {error}") from None
        for name in ("card_play", "bidding"):
            _check_spec(name, getattr(self, name))
        for spec, weight in self.opponents.items():
            if spec != POOL:
                _check_spec("opponents", spec)
            if isinstance(weight, bool) or not isinstance(weight, (int, float)):
                raise ValueError(
                    f"opponents: the weight of {spec!r} must be a number, got {weight!r}"
                )
            if not 0 < weight < math.inf:
                raise ValueError(f"opponents: the weight of {spec!r} must be > 0, got {weight!r}")
        if self.model:
            try:
                kind, _, options = split_spec(self.model)
            except ValueError:
                kind, options = None, None
            if kind != "class" or options:
                raise ValueError(
                    f"model must be a class as package.module:ClassName (options go in "
                    f"model_options), got {self.model!r}"
                )
        if self.pool_size + len(self.opponents) + 2 > np.iinfo(np.int8).max:
            raise ValueError(
                "pool_size plus the opponents' entries must stay under 126 (seat roles)"
            )
        if self.model_options and not self.model:
            raise ValueError(
                "model_options needs model (the MLP takes hidden_sizes and activation)"
            )

    def opponent_mix(self):
        """[(spec, weight)] of the opponents, 'pool' last; the default mix (opponents empty) keeps its
        heuristic entry even at weight 0."""
        mix = dict(self.opponents) or {
            "heuristic": self.heuristic_share,
            POOL: 1 - self.heuristic_share,
        }
        # a stable sort: the other entries keep their order
        return sorted(mix.items(), key=lambda entry: entry[0] == POOL)


POOL = "pool"  # the opponents' entry for the snapshots of the network


def one_of(names):
    """The quoted names as a message lists the choices: "'a'", "'a' or 'b'", "'a', 'b' or 'c'"."""
    quoted = [repr(name) for name in names]
    return " or ".join([", ".join(quoted[:-1]), quoted[-1]] if len(quoted) > 1 else quoted)


def _check_spec(name, spec):
    """ValueError naming the field unless ``spec`` is written as a policy spec (built when the run starts)
    of bots only (``human`` is refused: nobody sits at a terminal during training); the spec is read
    once (:func:`read_spec`)."""
    try:
        tree = read_spec(spec)
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None
    if uses_human(tree):  # it would wait for keyboard input mid-run
        raise ValueError(f"{name}: {spec!r} cannot play in training: {HUMAN_SEAT}")


_READ: contextvars.ContextVar[dict | None] = contextvars.ContextVar(
    "train_config_specs_read", default=None
)  # {spec string: its tree} within specs_read_once


@contextlib.contextmanager
def specs_read_once():
    """Within it, a spec string is read into its :class:`ghost_euchre.agents.specs.SpecTree` once
    (:func:`read_spec`), however many configs check it: the train command makes three of one
    command line (the defaults its ``--help`` shows, the config file's, the file's with the
    command line's values), ``exploit`` checks its SPEC, then the config that plays against it;
    the run builds its bots from the same trees. Nested, it reads into the outer one's trees."""
    if _READ.get() is not None:
        yield
        return
    token = _READ.set({})
    try:
        yield
    finally:
        _READ.reset(token)


def read_spec(spec):
    """The :class:`ghost_euchre.agents.specs.SpecTree` of ``spec`` (a spec string), read once within
    :func:`specs_read_once`; the ValueError of :func:`ghost_euchre.agents.specs.spec_tree`."""
    read = _READ.get()
    if read is None or not isinstance(spec, str):
        return spec_tree(spec)
    if spec not in read:
        read[spec] = spec_tree(spec)
    return read[spec]


# ----------------------------------------------------------------------------- config loading
def _class_body():
    """(source lines of this file, the TrainConfig body's AST nodes)."""
    with open(__file__, encoding="utf-8") as handle:
        source = handle.read()
    (body,) = [
        node.body
        for node in ast.parse(source).body
        if isinstance(node, ast.ClassDef) and node.name == "TrainConfig"
    ]
    return source.splitlines(), body


def field_docs():
    """{field: docstring} of TrainConfig, read from the string that follows each field in this file."""
    _, body = _class_body()
    return {
        node.target.id: after.value.value
        for node, after in itertools.pairwise(body)
        if isinstance(node, ast.AnnAssign)
        and isinstance(node.target, ast.Name)
        and isinstance(after, ast.Expr)
        and isinstance(after.value, ast.Constant)
        and isinstance(after.value.value, str)
    }


def field_groups():
    """{group: [field, ...]} of TrainConfig in order: a field's group is the ``# group`` comment line
    above it in this file (the text before a colon)."""
    lines, body = _class_body()
    groups = {}
    for node in body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            above = (line.strip() for line in reversed(lines[: node.lineno - 1]))
            comment = next(line for line in above if line.startswith("# "))
            groups.setdefault(comment[2:].split(":")[0], []).append(node.target.id)
    return groups


def find_config(name):
    """The path of the config ``name``: a file, or a config of the package by name ('classic' for
    configs/classic.yaml); ValueError naming the configs there when it is neither."""
    if os.path.isfile(name):
        return name
    shipped = os.path.join(CONFIG_DIR, f"{name}.yaml")
    if os.sep not in name and os.path.isfile(shipped):
        return shipped
    names = sorted(f[:-5] for f in os.listdir(CONFIG_DIR) if f.endswith(".yaml"))
    raise ValueError(f"config file {name!r} does not exist (configs by name: {', '.join(names)})")


def _check_type(name, value, kind, source):
    """value converted to the field type ``kind``, or ValueError naming the field and the expected type."""

    def fail(expected):
        raise ValueError(
            f"{source}: {name} must be {expected}, got {value!r} ({type(value).__name__})"
        )

    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        if value is None:
            return None
        (kind,) = [k for k in typing.get_args(kind) if k is not type(None)]
    if kind is bool:
        return value if isinstance(value, bool) else fail("true or false")
    if kind is int:
        return (
            value if isinstance(value, int) and not isinstance(value, bool) else fail("an integer")
        )
    if kind is float:
        if isinstance(value, str):  # YAML 1.1 reads 3e-4 (no dot) as a string
            try:
                return float(value)
            except ValueError:
                fail("a number")
        return (
            float(value)
            if isinstance(value, (int, float)) and not isinstance(value, bool)
            else fail("a number")
        )
    if kind is str:
        return value if isinstance(value, str) else fail("a string")
    if kind is dict:
        ok = isinstance(value, dict) and all(isinstance(k, str) for k in value)
        return dict(value) if ok else fail("a mapping such as {auction: open}")
    if typing.get_origin(kind) is tuple:
        ok = isinstance(value, (list, tuple)) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        )
        return tuple(value) if ok else fail("a list of integers such as [256, 256]")
    raise TypeError(f"field {name}: unsupported annotation {kind!r}")


def make_config(values, source="config"):
    """A checked TrainConfig from {field: value}; unknown keys and wrong types raise ValueError."""
    if not isinstance(values, dict):
        raise ValueError(
            f"{source}: expected a mapping of config fields, got {type(values).__name__}"
        )
    hints = typing.get_type_hints(TrainConfig)
    unknown = sorted(set(values) - set(hints))
    if unknown:
        raise ValueError(
            f"{source}: unknown config key(s) {unknown}; valid keys are {sorted(hints)}"
        )
    checked: dict[str, typing.Any] = {
        k: _check_type(k, v, hints[k], source) for k, v in values.items()
    }
    return TrainConfig(**checked)


def yaml_problem(error):
    """A YAMLError as one line: what is wrong and where (PyYAML's message spans several lines)."""
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or " ".join(str(error).split())
    return problem + (f" (line {mark.line + 1}, column {mark.column + 1})" if mark else "")


def init_from_file(init_from):
    """The file ``init_from`` names: a shipped network's name (``ghost-180m``) resolved, else as written."""
    return network_path(init_from) or init_from


def check_runs_dir(path, what="runs_dir"):
    """ValueError (one line naming ``what``) unless a run folder can be made in ``path`` now: a folder
    (missing ones are made) where this process may create files; nothing is left behind."""
    try:
        check_writable(os.path.join(path, "RUN"), "a run folder")
    except ValueError as error:
        raise ValueError(f"{what} {path!r}: {error} (expected a folder for the runs)") from None


def read_yaml(path):
    """{field: value} from a YAML config file (an empty file is {})."""
    try:
        with open(path, encoding="utf-8") as handle:
            values = yaml.safe_load(handle)
    except FileNotFoundError:
        raise ValueError(f"config file {path!r} does not exist") from None
    except IsADirectoryError:
        raise ValueError(f"config file {path!r} is a directory") from None
    except UnicodeDecodeError as error:
        raise ValueError(
            f"config file {path!r} is not UTF-8 text: {error.reason} at byte {error.start}"
        ) from None
    except yaml.YAMLError as error:
        raise ValueError(f"config file {path!r} is not valid YAML: {yaml_problem(error)}") from None
    values = {} if values is None else values
    if not isinstance(values, dict):
        raise ValueError(f"config file {path!r} must hold a mapping of config fields")
    return values


RESUME_FIXED = (
    "variant", "num_envs", "episode", "reward", "rules", "learn", "card_play", "bidding", "pool_size",
    "hidden_sizes", "activation", "canonical_suits", "critic", "model", "model_options", "opponents", "opponent_seats",
)  # fmt: skip
