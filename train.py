"""PPO self-play for Ghost Hand and classic Euchre, in one file you can read top to bottom.

Usage::

    python train.py                                   # configs/default.yaml
    python train.py --config configs/classic.yaml     # classic Euchre, partnerships
    python train.py --config configs/long.yaml --seed 3
    python train.py --total_steps 2_000_000 --num_envs 512 --rules "{auction: open}"
    python train.py --resume runs/NAME/checkpoints/update_000100.pt
    torchrun --standalone --nproc_per_node=2 train.py --torch_threads 1   # 2 ranks, data-parallel

Every field of :class:`TrainConfig` is a command-line option ``--FIELD VALUE``;
VALUE is read as YAML (``1000``, ``3e-4``, ``true``, ``[256, 256]``,
``{auction: open}``), then checked against the field's type. Command-line values
override the YAML file; an unknown key or a wrong type stops with a message that
names it. ``--resume`` continues a run from a checkpoint with the checkpoint's
config (command-line options still override it) and reproduces exactly the
run that was not interrupted.

How it trains. ``num_envs`` games run in one ``GhostEuchreVec`` (``variant:
classic``: ``ClassicEuchreVec``); each step, one seat per game decides. At the start of every game each seat gets a role: the
learner (the network being trained) or an opponent (a past snapshot of the
network from a pool, or the heuristic). Every seat the learner plays is its own
trajectory: a decision's successor is the same seat's next decision in the same
game, the rewards paid to that seat in between (by absolute seat, every step)
are added to the decision, and the end of the game closes all its seats'
trajectories. Advantages are GAE over those per-seat sequences; a trajectory
still open when the rollout ends is bootstrapped with the value of that seat's
current observation. Only learner decisions enter the PPO batch, with their
legal masks, which the update reuses.

Two choices keep the auction from collapsing into "always pass" (a random card
player loses whatever it bids, and a policy that stopped bidding never finds out
that bidding pays once it plays well): the default reward is the *margin*, a
seat's deal points minus the mean of the other two seats' (passing while an
opponent makes a contract costs points), and during ``bidding_warmup_steps`` the
heuristic bids and names trump for the learner while the network imitates it,
so PPO first learns card play under sensible contracts and then improves the
auction from the heuristic's instead of from random.

Classic Euchre (``variant: classic``): one network plays all four seats; a
seat's reward is its team's, and the margin is its team's points minus the
other team's. Partners are drawn like opponents (the learner, a snapshot or the
heuristic), so the learner plays with and against all of them. During the
warm-up the heuristic makes every learner decision before card play (ordering
up, naming trump, the dealer's discard, going alone). TensorBoard adds the
order-up rate, the maker's success rate, lone hands tried and made, and euchres
suffered; evaluations pit the network's team against a team of two opponents.

Data-parallel under torchrun (``torchrun --standalone --nproc_per_node=K
train.py ...``, or several nodes with ``--nnodes=M --rdzv_backend=c10d
--rdzv_endpoint=HOST:PORT``): the config describes the whole job and K only how
it is run. Rank r plays games r*N/K .. (r+1)*N/K - 1 of the seed's deal streams
(N = num_envs, a multiple of K), with its own seat roles and action sampling
(seeded from (seed, r)); the networks start identical (same seed). What is
guaranteed: every update is the single-process update on the union of the K
ranks' rollouts (rank 0's decisions, then rank 1's, ...): the same minibatches
of that global batch (their order drawn from one generator every rank holds),
advantages normalised over each whole minibatch, the gradient of its mean loss
(each rank's part summed over the ranks: all_reduce, gloo between CPUs, NCCL
between GPUs), equal up to the order of float sums; so the parameters, the
optimizer and the opponent pool are identical on every rank after every update.
Metrics are summed over the ranks (SPS counts all ranks' decisions); rank 0 alone
writes TensorBoard, checkpoints, evaluations and the progress bar. A checkpoint
holds every rank's games, roles and generators: ``--resume`` under the same
number of ranks continues exactly, under another is an error. A rank that stops,
or does not answer within ``collective_timeout`` seconds, makes the others stop
with a one-line message. With one rank (plain ``python train.py``) none of this
runs and the results are those of the single-process trainer.

Output under ``runs/NAME/``: ``config.yaml`` (the run's config, readable and
reusable with ``--config``), TensorBoard logs, ``checkpoints/update_*.pt``
(resumable), ``final.pt`` (resumable) and ``policy.pt`` (the network alone). Both
kinds load in evaluate.py as ``ppo:PATH``.
"""

import argparse
import ast
import collections
import copy
import dataclasses
import datetime
import itertools
import math
import os
import sys
import time
import types
import typing

import numpy as np
import torch
import torch.distributed as dist
import yaml

from agents import make_policy
from agents.composite import CompositePolicy
from agents.ppo import (
    LEARN_MODES,
    ActorCritic,
    PPOPolicy,
    load_model,
    mask_logits,
    masked_entropy,
    masked_log_probs,
    policy_payload,
    pool_logits,
    sample_actions,
    seen_rows,
)
from agents.specs import split_spec
from arena.files import write_atomic
from ghost_euchre_env import (
    ClassicEuchre,
    ClassicEuchreVec,
    GhostBiddingVec,
    GhostEuchre,
    GhostEuchreVec,
    classic,
)
from ghost_euchre_env.dealing import stream_keys
from ghost_euchre_env.ghost import BID_3, MOON, MOON_LEVEL, NUM_CARDS, PASS, SWAP
from ghost_euchre_env.vector import VectorEnv

HERE = os.path.dirname(os.path.abspath(__file__))
# config.variant -> (engine, vector env)
VARIANTS = {"ghost": (GhostEuchre, GhostEuchreVec), "classic": (ClassicEuchre, ClassicEuchreVec)}
DEFAULT_CONFIG = os.path.join(HERE, "configs", "default.yaml")
CHECKPOINT_FORMAT = "ghost-euchre-train-v1"
CHECKPOINT_KEYS = (  # what save_checkpoint writes and restore reads
    "config", "model", "model_config", "optimizer", "pool", "pool_added", "env_state", "roles", "rng",
    "update", "global_step", "learner_step",
)  # fmt: skip


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    name: str = ""
    """run name: logs and checkpoints go to runs_dir/name; empty = CONFIG__SEED__TIMESTAMP"""
    runs_dir: str = "runs"
    """folder that holds one sub-folder per run"""
    seed: int = 1
    """seeds the network, the dealing, the seat roles and the action sampling"""
    torch_threads: int = 2
    """torch threads for the PPO update (results depend on it, so it is part of the config)"""
    rollout_threads: int = 1
    """torch threads for rollouts and evaluation: small batches, where more threads mostly wait on each other"""
    device: str = "auto"
    """where the networks run (rollout inference and updates): 'cpu', 'cuda', or 'auto' (cuda when torch sees a
    GPU, else cpu). Under torchrun each rank takes the GPU of its LOCAL_RANK"""
    collective_timeout: float = 600.0
    """seconds a rank waits for the others at a collective (torchrun runs only) before it stops with an error"""

    # environment
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
    """the decisions the network makes: 'all'; 'auction' (the auction and trump decisions: games run in the auction
    view GhostBiddingVec, every card play made inside it by card_play); 'play' (the card play: the learner's auction
    and trump decisions are made by bidding)"""
    card_play: str = "heuristic"
    """policy spec that plays every card when learn='auction' (any spec: heuristic, pimc, ppo:PATH, a user class)"""
    bidding: str = "heuristic"
    """policy spec that makes the learner's auction and trump decisions when learn='play'"""

    # self-play opponents
    opponent_share: float = 0.5
    """chance that a seat is played by an opponent instead of the learner (each game keeps at least one learner seat)"""
    heuristic_share: float = 0.5
    """chance that an opponent seat is the heuristic rather than a past snapshot"""
    pool_size: int = 8
    """past snapshots kept as opponents (the oldest is replaced first)"""
    snapshot_every: int = 10
    """updates between snapshots added to the pool"""
    opponent_sample: bool = True
    """snapshots sample their actions (true) or play greedily (false)"""
    bidding_warmup_steps: int = 2_000_000
    """for the first this many decisions (total_steps' unit) the heuristic makes the learner's auction and trump
    decisions and the network imitates them (cross-entropy), while PPO learns the card play under sensible contracts.
    Without it the auction, learnt while the card play is still random, settles on always passing"""
    imitation_coef: float = 1.0
    """weight of that cross-entropy in the loss during the warm-up"""
    imitate_card_play: bool = False
    """learn='all': during the warm-up the network also imitates the heuristic's card play at its own card-play
    decisions (same cross-entropy), while still playing them itself, so PPO trains on them as usual: card play
    starts from the heuristic's instead of from random"""
    init_from: str = ""
    """policy file or checkpoint whose network starts the run (same network shape; empty = a fresh network)"""

    # PPO
    total_steps: int = 20_000_000
    """decisions to play in all (every seat of every game, learner and opponents)"""
    num_steps: int = 32
    """vector-env steps per rollout; a rollout holds num_envs * num_steps decisions"""
    learning_rate: float = 1e-3
    """Adam step size"""
    anneal_lr: bool = True
    """decay the learning rate linearly to 0 over the run"""
    gamma: float = 0.98
    """discount per decision of the same seat"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    minibatch_size: int = 2048
    """learner decisions per gradient step"""
    update_epochs: int = 2
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
    target_kl: float | None = None
    """stop an update's epochs early once approx_kl exceeds this (null = never)"""
    hidden_sizes: tuple[int, ...] = (256, 256)
    """widths of the network's shared hidden layers"""
    activation: str = "relu"
    """'relu' or 'tanh'"""
    canonical_suits: bool = True
    """the network sees each position (Ghost Hand or classic) with the suits renamed into one canonical
    order (trump, or the hand's strongest suit before trump, as clubs; agents/ppo.py: CanonicalSuits);
    false: the suits as dealt (networks trained before this field existed)"""

    # evaluation, logging, checkpoints
    eval_every: int = 50
    """updates between evaluations against heuristic and random (0 = only at the end)"""
    eval_games: int = 300
    """duplicate games per periodic evaluation"""
    final_eval_games: int = 1500
    """duplicate games per opponent in the final evaluation table (0 = skip it)"""
    eval_regret_decisions: int = 0
    """learn='auction': at each evaluation against the heuristic, the network's bid regret (points per auction
    decision against the rollout oracle of arena/regret.py, 16 worlds) over this many sampled decisions (0 = off)"""
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

        check("variant", self.variant in VARIANTS, "'ghost' or 'classic'")
        check("episode", self.episode in ("game", "deal"), "'game' or 'deal'")
        check("learn", self.learn in LEARN_MODES, "'all', 'auction' or 'play'")
        if self.variant == "classic" and self.learn != "all":
            raise ValueError(f"learn={self.learn!r} needs variant='ghost' (classic learns 'all')")
        check("reward", self.reward in ("margin", "points", "win"), "'margin', 'points' or 'win'")
        if self.reward == "win" and self.episode != "game":
            raise ValueError("reward='win' needs episode='game' (a single deal has no winner)")
        check("activation", self.activation in ("relu", "tanh"), "'relu' or 'tanh'")
        check("device", self.device in ("auto", "cpu", "cuda"), "'auto', 'cpu' or 'cuda'")
        for name in (
            "num_envs",
            "num_steps",
            "minibatch_size",
            "update_epochs",
            "pool_size",
            "snapshot_every",
            "torch_threads",
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
        ):
            check(name, getattr(self, name) >= 0, "at least 0")
        check("opponent_share", 0 <= self.opponent_share < 1, "in [0, 1)")
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
        check(
            "hidden_sizes",
            len(self.hidden_sizes) >= 1 and min(self.hidden_sizes) >= 1,
            "a non-empty list of positive ints",
        )
        check(
            "name", os.sep not in self.name and self.name not in (".", ".."), "a plain folder name"
        )
        try:  # the engine checks its own rules options
            VARIANTS[self.variant][0](**self.rules)
        except ValueError as error:
            raise ValueError(f"rules: {error}") from None
        for name in ("card_play", "bidding"):
            _check_spec(name, getattr(self, name))


def _check_spec(name, spec):
    """ValueError naming the field unless ``spec`` is written as a policy spec (built when the run starts)."""
    try:
        split_spec(spec)
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None


# ----------------------------------------------------------------------------- config loading
def field_docs():
    """{field: docstring} of TrainConfig, read from the string that follows each field in this file."""
    with open(__file__, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    (body,) = [
        node.body
        for node in tree.body
        if isinstance(node, ast.ClassDef) and node.name == "TrainConfig"
    ]
    return {
        node.target.id: after.value.value
        for node, after in itertools.pairwise(body)
        if isinstance(node, ast.AnnAssign)
        and isinstance(node.target, ast.Name)
        and isinstance(after, ast.Expr)
        and isinstance(after.value, ast.Constant)
        and isinstance(after.value.value, str)
    }


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


def read_yaml(path):
    """{field: value} from a YAML config file (an empty file is {})."""
    try:
        with open(path, encoding="utf-8") as handle:
            values = yaml.safe_load(handle)
    except FileNotFoundError:
        raise ValueError(f"config file {path!r} does not exist") from None
    except yaml.YAMLError as error:
        raise ValueError(f"config file {path!r} is not valid YAML: {error}") from None
    values = {} if values is None else values
    if not isinstance(values, dict):
        raise ValueError(f"config file {path!r} must hold a mapping of config fields")
    return values


RESUME_FIXED = (
    "variant", "num_envs", "episode", "reward", "rules", "learn", "card_play", "bidding", "pool_size",
    "hidden_sizes", "activation", "canonical_suits",
)  # fmt: skip


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (the usage of every field is ``--help``'s job)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def parse_args(argv=None):
    """-> (TrainConfig, resume path or None, config file stem for the run name)."""
    parser = OneLineParser(
        description=(__doc__ or "").split("\n\n")[0],
        allow_abbrev=False,
        usage="%(prog)s [--config FILE | --resume CHECKPOINT] [--FIELD VALUE ...]",
        epilog="Values are YAML: 1000, 3e-4, true, [256, 256], {auction: open}.",
    )
    parser.add_argument(
        "--config", help=f"YAML config file (default {os.path.relpath(DEFAULT_CONFIG)})"
    )
    parser.add_argument(
        "--resume", metavar="CHECKPOINT", help="continue the run saved in this checkpoint"
    )
    docs = field_docs()
    for field in dataclasses.fields(TrainConfig):
        parser.add_argument(
            f"--{field.name}", default=argparse.SUPPRESS, metavar="VALUE", help=docs[field.name]
        )
    args = vars(parser.parse_args(argv))
    config_path, resume = args.pop("config"), args.pop("resume")
    saved_ranks = 1  # ranks whose games a checkpoint holds
    try:
        overrides = {k: yaml.safe_load(v) for k, v in args.items()}
    except yaml.YAMLError as error:
        parser.error(f"a command-line value is not valid YAML: {' '.join(str(error).split())}")
    try:
        if resume is not None:
            if config_path is not None:
                parser.error(
                    "--resume uses the checkpoint's config; pass changes as --FIELD VALUE, not --config"
                )
            saved = read_checkpoint(resume)
            values, saved_ranks = saved["config"], saved.get("world_size", 1)
            # checkpoints older than the field hold networks that see the suits as dealt
            canonical = bool(saved["model_config"].get("canonical_suits"))
            values = {"canonical_suits": canonical, **values}
            stem, source = values.get("name", ""), str(resume)
        else:
            config_path = source = str(config_path or DEFAULT_CONFIG)
            values = read_yaml(config_path)
            stem = os.path.splitext(os.path.basename(config_path))[0]
        base = make_config(values, source)
        config = make_config({**values, **overrides}, "command line")
    except ValueError as error:
        parser.error(str(error))
    changed = [k for k in RESUME_FIXED if getattr(base, k) != getattr(config, k)]
    if resume is not None and changed:
        parser.error(
            f"--resume cannot change {changed}: the checkpoint's network, games and pool depend on them"
        )
    world_size = int(os.environ.get("WORLD_SIZE", "1"))  # set by torchrun
    if resume is not None and saved_ranks != world_size:
        parser.error(
            f"checkpoint {resume!r} holds the games of {saved_ranks} rank(s); resume it with "
            f"{saved_ranks} (torchrun --nproc_per_node={saved_ranks}), not {world_size}"
        )
    if config.num_envs % world_size:
        parser.error(
            f"num_envs must be a multiple of the number of ranks ({world_size}), got {config.num_envs}"
        )
    try:
        pick_device(config.device, 0, torch.cuda.is_available())
        if config.init_from and resume is None:
            load_model(config.init_from)  # readable, a network (its shape is checked in setup)
    except ValueError as error:
        parser.error(str(error))
    return config, resume, stem


# ----------------------------------------------------------------------------- checkpoints
def state_to_tensors(state):
    """The env's batch state as {field: (dtype, shape, uint8 tensor of the bytes)}: loads with weights_only."""
    out = {}
    for field in dataclasses.fields(state):
        array = np.ascontiguousarray(getattr(state, field.name))
        out[field.name] = (
            array.dtype.str,
            list(array.shape),
            torch.from_numpy(array.reshape(-1).view(np.uint8).copy()),
        )
    return out


def state_from_tensors(state_class, saved):
    """Inverse of :func:`state_to_tensors`."""
    return state_class(
        **{
            name: tensor.numpy().view(np.dtype(dtype)).reshape(shape).copy()
            for name, (dtype, shape, tensor) in saved.items()
        }
    )


def read_checkpoint(path):
    """The dict saved by :func:`save_checkpoint` (weights only: no arbitrary objects are unpickled)."""
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise ValueError(f"checkpoint {path!r} does not exist") from None
    except Exception as error:  # noqa: BLE001 (any failure to read: not a torch file, unsafe content)
        raise ValueError(
            f"cannot read checkpoint {path!r}: {' '.join(str(error).split())}"
        ) from None
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path!r} is not a train.py checkpoint (format {CHECKPOINT_FORMAT!r})")
    missing = [key for key in CHECKPOINT_KEYS if key not in payload]
    if missing:
        raise ValueError(f"checkpoint {path!r} is missing the key(s) {missing}")
    return payload


# ----------------------------------------------------------------------------- rollout pieces
LEARNER = 0  # seat role; 1..pool_size = snapshot slot + 1; pool_size + 1 = heuristic; pool_size + 2 = partner
PLAY_CARDS = slice(0, NUM_CARDS)  # action ids of the play phase


def assign_roles(roles, games, config, pool_filled, rng):
    """Draw the roles of the S seats of ``games`` (int[M]) for their new episode, in place.

    roles: int8[N, S]. Each seat is an opponent with probability opponent_share
    (one seat per game stays the learner); an opponent is the heuristic with
    probability heuristic_share, else a uniformly chosen snapshot of the pool.
    In classic Euchre a learner's partner is drawn like any other seat: the
    learner, a snapshot or the heuristic.
    """
    count, seats = len(games), roles.shape[1]
    opponent = rng.random((count, seats)) < config.opponent_share
    keep = rng.integers(seats, size=count)
    opponent[np.arange(count), keep] &= ~opponent.all(axis=1)
    heuristic = rng.random((count, seats)) < config.heuristic_share
    slot = rng.integers(pool_filled, size=(count, seats)) + 1
    roles[games] = np.where(opponent, np.where(heuristic, config.pool_size + 1, slot), LEARNER)


def margin_rewards(rewards, variant):
    """float32[N, S] rewards by seat -> each seat's reward minus its opponents' (zero-sum).

    ghost: minus the mean of the other two seats'; classic (rewards are the
    team's, at both seats of a team): minus the other team's.
    """
    if variant == "classic":
        return rewards - np.roll(rewards, -1, axis=1)  # seat s + 1 is on the other team
    return rewards - (rewards.sum(axis=1, keepdims=True) - rewards) / 2


def before_card_play(run, mask):
    """bool[N]: the decision every game waits for comes before the card play (what the warm-up teaches).

    ghost: the auction and trump (cards are legal only in card play); classic:
    ordering up, naming trump, the dealer's discard and going alone.
    """
    if run.config.variant == "classic":
        return run.venv.state.phase != classic.PLAY
    return ~mask[:, PLAY_CARDS].any(axis=1)


class LearnerCounts:
    """Counts over the deals and games that ended, seen from the learner's seats (for TensorBoard).

    A variant's subclass names its ``COUNTS``, adds its deals (``add_deals``), says
    which seats won a game (``seat_won``) and turns the counts into ``rates``.
    """

    COUNTS: tuple[str, ...] = ()

    def __init__(self):
        self.counts = dict.fromkeys(self.COUNTS, 0)

    def ratio(self, numerator, denominator):
        """counts[numerator] / counts[denominator], NaN when nothing was counted."""
        c = self.counts
        return c[numerator] / c[denominator] if c[denominator] else float("nan")

    @staticmethod
    def seat_won(scores):
        """bool[G, seats]: the seats that won each game (scores: the final scores by seat)."""
        raise NotImplementedError

    def add_game_ends(self, deals, roles, finished):
        """finished: bool[N] games that ended by the rules this step (not truncated)."""
        rows = finished[deals.game]
        games, scores = deals.game[rows], deals.scores[rows]
        learner = roles[games] == LEARNER
        self.counts["seat_games"] += int(learner.sum())
        self.counts["games_won"] += int((learner & self.seat_won(scores)).sum())


class DealStats(LearnerCounts):
    """Ghost Hand counts over the deals that ended, seen from the learner's seats (for TensorBoard)."""

    LEVELS = ((3, "3"), (4, "4"), (5, "5"), (MOON_LEVEL, "moon"))
    COUNTS = (
        "seat_deals",
        "declared",
        "made",
        "moons",
        "swaps",
        "points",
        "contract_points",
        "deals",
        "thrown_in",
        "seat_games",
        "games_won",
        *(f"declared_{name}" for _, name in LEVELS),
        *(f"made_{name}" for _, name in LEVELS),
    )

    def add_deals(self, deals, roles):
        learner = roles[deals.game] == LEARNER  # bool[M, 3]
        seats = np.arange(3)
        declarer = learner & (deals.declarer[:, None] == seats)
        moon = (
            deals.bid == MOON_LEVEL
        )  # bid is 6 for a moon, so "made" is tricks >= bid at every level
        c = self.counts
        c["deals"] += len(deals.game)
        c["thrown_in"] += int(deals.thrown_in.sum())
        c["seat_deals"] += int(learner.sum())
        c["declared"] += int(declarer.sum())
        c["made"] += int((declarer & (deals.tricks >= deals.bid[:, None])).sum())
        c["moons"] += int((declarer & moon[:, None]).sum())
        c["swaps"] += int((learner & (deals.swapper[:, None] == seats)).sum())
        c["points"] += int(deals.points[learner].sum())
        c["contract_points"] += int(deals.points[declarer].sum())
        made = (declarer & (deals.tricks >= deals.bid[:, None])).any(axis=1)
        declared = declarer.any(axis=1)
        for level, name in self.LEVELS:
            at_level = declared & (deals.bid == level)
            c[f"declared_{name}"] += int(at_level.sum())
            c[f"made_{name}"] += int((at_level & made).sum())

    @staticmethod
    def seat_won(scores):
        return scores.argmax(axis=1)[:, None] == np.arange(scores.shape[1])

    def rates(self):
        ratio = self.ratio
        return {
            "euchre/declarer_rate": ratio("declared", "seat_deals"),
            "euchre/bid_success_rate": ratio("made", "declared"),
            "euchre/moon_rate": ratio("moons", "seat_deals"),
            "euchre/swap_rate": ratio("swaps", "seat_deals"),
            "euchre/points_per_deal": ratio("points", "seat_deals"),
            "euchre/points_per_contract": ratio("contract_points", "declared"),
            **{
                f"euchre/bid_rate_{n}": ratio(f"declared_{n}", "seat_deals") for _, n in self.LEVELS
            },
            **{
                f"euchre/make_rate_{n}": ratio(f"made_{n}", f"declared_{n}") for _, n in self.LEVELS
            },
            "euchre/thrown_in_rate": ratio("thrown_in", "deals"),
            "charts/learner_game_win_rate": ratio("games_won", "seat_games"),
        }


class ClassicDealStats(LearnerCounts):
    """Classic counts over the deals that ended, seen from the learner's seats (for TensorBoard).

    A "seat-deal" is one deal at one learner seat (a team of two learners counts twice).
    """

    COUNTS = (
        "seat_deals",
        "ordered_up",
        "made_trump",
        "maker_made",
        "alone",
        "alone_made",
        "euchred",
        "points",
        "deals",
        "thrown_in",
        "seat_games",
        "games_won",
    )

    def add_deals(self, deals, roles):
        learner = roles[deals.game] == LEARNER  # bool[M, 4]
        maker = learner & (deals.maker[:, None] == classic.SEATS)  # the learner seat made trump
        ordered = deals.trump == (deals.upcard & 3)  # round 2 cannot name the upcard's suit
        team_tricks = deals.tricks + np.roll(deals.tricks, 2, axis=1)  # int[M, 4] by seat
        made = team_tricks >= 3
        makers_team = (
            learner & ((deals.maker[:, None] & 1) == classic.SEAT_TEAM) & ~deals.thrown_in[:, None]
        )
        c = self.counts
        c["deals"] += len(deals.game)
        c["thrown_in"] += int(deals.thrown_in.sum())
        c["seat_deals"] += int(learner.sum())
        c["ordered_up"] += int((maker & ordered[:, None]).sum())
        c["made_trump"] += int(maker.sum())
        c["maker_made"] += int((maker & made).sum())
        c["alone"] += int((maker & deals.maker_alone[:, None]).sum())
        c["alone_made"] += int((maker & deals.maker_alone[:, None] & made).sum())
        c["euchred"] += int((makers_team & ~made).sum())
        c["points"] += int(deals.points[:, classic.SEAT_TEAM][learner].sum())

    @staticmethod
    def seat_won(scores):
        return classic.SEAT_TEAM == scores.argmax(axis=1)[:, None]  # scores by team: int[G, 2]

    def rates(self):
        ratio = self.ratio
        return {
            "euchre/order_up_rate": ratio("ordered_up", "seat_deals"),
            "euchre/maker_rate": ratio("made_trump", "seat_deals"),
            "euchre/maker_success_rate": ratio("maker_made", "made_trump"),
            "euchre/lone_rate": ratio("alone", "seat_deals"),
            "euchre/lone_made_rate": ratio("alone_made", "alone"),
            "euchre/euchred_rate": ratio("euchred", "seat_deals"),
            "euchre/points_per_deal": ratio("points", "seat_deals"),
            "euchre/thrown_in_rate": ratio("thrown_in", "deals"),
            "charts/learner_game_win_rate": ratio("games_won", "seat_games"),
        }


DEAL_STATS = {"ghost": DealStats, "classic": ClassicDealStats}


def act_opponents(actions, roles_now, obs, mask, run):
    """Fill ``actions`` for the games whose acting seat is not the network (roles_now int[N] != LEARNER).

    The pool's snapshots decide in one batch (:func:`agents.ppo.pool_logits`).
    Role pool_size + 2 is the learner's seat when ``run.partner`` (the
    ``bidding`` policy of learn='play') makes its decision.
    """
    config = run.config
    pooled = np.flatnonzero((roles_now > LEARNER) & (roles_now <= config.pool_size))
    if len(pooled):
        mask_t = torch.from_numpy(mask[pooled]).to(run.device)
        logits = pool_logits(
            run.pool, roles_now[pooled] - 1, torch.from_numpy(obs[pooled]).to(run.device)
        )
        if config.opponent_sample:
            chosen = sample_actions(masked_log_probs(logits, mask_t), run.sample_gen)
        else:
            chosen = mask_logits(logits, mask_t).argmax(-1)
        actions[pooled] = chosen.cpu().numpy()
    for role, policy in (
        (config.pool_size + 1, run.heuristic),
        (config.pool_size + 2, run.partner),
    ):
        games = np.flatnonzero(roles_now == role)
        if len(games):
            assert policy is not None  # a role is drawn only for a policy that exists
            actions[games] = policy.act(obs[games], mask[games])


class RolloutBuffer:
    """The learner's decisions of one rollout, linked into one sequence per (game, seat).

    Rows are appended step by step (``add``); ``next[i]`` is the row of the same
    seat's next decision in the same game (-1: none yet), ``reward[i]`` sums what
    that seat was paid from decision i until its next one, ``done[i]`` says the
    game ended before it decided again. Sequences still open when the rollout
    ends are bootstrapped (``set_bootstrap``) with the value of that seat's state.
    """

    def __init__(self, capacity, obs_size, num_actions, num_envs, num_seats=3):
        self.obs = np.zeros((capacity, obs_size), np.float32)
        self.mask = np.zeros((capacity, num_actions), bool)
        self.action = np.zeros(capacity, np.int64)
        self.logprob = np.zeros(capacity, np.float32)
        self.value = np.zeros(capacity, np.float32)
        self.reward = np.zeros(capacity, np.float32)
        self.done = np.zeros(capacity, bool)
        self.next = np.zeros(capacity, np.int64)
        self.bootstrap = np.zeros(capacity, np.float32)
        self.last_row = np.zeros((num_envs, num_seats), np.int64)
        self.clear()

    def clear(self):
        self.count = 0
        self.step_starts = [0]  # rows of step t are step_starts[t]:step_starts[t + 1]
        self.reward[:] = 0.0
        self.done[:] = False
        self.next[:] = -1
        self.bootstrap[:] = 0.0
        self.last_row[:] = -1  # latest row of each (game, seat), -1 none

    def add(self, games, seats):
        """Append one row per learner decision of this step (games, seats: int[M]); returns their slice."""
        rows = np.arange(self.count, self.count + len(games))
        previous = self.last_row[games, seats]
        linked = previous >= 0
        self.next[previous[linked]] = rows[linked]
        self.last_row[games, seats] = rows
        self.count += len(games)
        self.step_starts.append(self.count)
        return slice(rows[0] if len(rows) else self.count, self.count)

    def add_rewards(self, rewards):
        """Credit rewards float[N, S] (by absolute seat) to each seat's latest decision."""
        open_rows = self.last_row >= 0
        self.reward[self.last_row[open_rows]] += rewards[open_rows]

    def end_games(self, games):
        """The games ``games`` (int[M]) ended: close the sequences of all their seats."""
        closed = self.last_row[games]
        self.done[closed[closed >= 0]] = True
        self.last_row[games] = -1

    def pending(self):
        """(games, seats) int[P] of the sequences still open (they need a bootstrap value)."""
        return np.nonzero(self.last_row >= 0)

    def set_bootstrap(self, games, seats, values):
        self.bootstrap[self.last_row[games, seats]] = values

    def advantages(self, gamma, gae_lambda):
        """GAE along each (game, seat) sequence -> (advantages, returns) float32[count].

        Steps are processed from the last, so a row's successor (always at a
        later step) is ready when the row is computed.
        """
        values, rewards = self.value[: self.count], self.reward[: self.count]
        advantages = np.zeros(self.count, np.float32)
        for t in range(len(self.step_starts) - 2, -1, -1):
            rows = np.arange(self.step_starts[t], self.step_starts[t + 1])
            nxt = self.next[rows]
            has_next = nxt >= 0
            follow = np.where(has_next, nxt, 0)
            alive = ~self.done[rows]
            next_value = np.where(has_next, values[follow], self.bootstrap[rows]) * alive
            next_advantage = np.where(has_next, advantages[follow], 0.0) * alive
            delta = rewards[rows] + gamma * next_value - values[rows]
            advantages[rows] = delta + gamma * gae_lambda * next_advantage
        return advantages, advantages + values


def evaluation_players(model, game, opponent, config):
    """The greedy network as a full player and two ``opponent`` seats (spec), as ``learn`` says.

    learn='auction': the network bids and every seat's card play is ``card_play``
    (a bidding match); learn='play': ``bidding`` bids for the network. Classic:
    the network's team (seats 0 and 2) against a team of two ``opponent`` seats.
    """
    policy = PPOPolicy(game, model, seed=config.eval_seed, name="ppo")
    if config.learn == "auction":
        card_play = make_policy(config.card_play, game, seed=config.eval_seed)
        opponent = f"composite[{opponent} | {config.card_play}]"
        return [CompositePolicy(game, policy, card_play, name="ppo"), opponent, opponent]
    if config.learn == "play":
        bidding = make_policy(config.bidding, game, seed=config.eval_seed)
        return [CompositePolicy(game, bidding, policy, name="ppo"), opponent, opponent]
    if config.variant == "classic":
        return [policy, opponent, policy, opponent]
    return [policy, opponent, opponent]


def evaluate_policy(model, game, opponent, games, config, regret_decisions=0):
    """The match row of the greedy network against two ``opponent`` seats on duplicate deals.

    With ``regret_decisions`` (learn='auction'), the row also holds ``bid_regret``
    (arena.regret.Regret.to_dict() of the network's auction decisions).
    """
    if regret_decisions:
        from arena.bidding import run_bidding_match  # lazily, as evaluate below

        policy = PPOPolicy(game, model, seed=config.eval_seed, name="ppo")
        result, regrets = run_bidding_match(
            [policy, opponent, opponent], config.card_play, regret_decisions, 16, games,
            config.eval_seed, "game", dict(config.rules) or None,
        )  # fmt: skip
        assert regrets is not None
        return {**result.players[0], "bid_regret": regrets[0].to_dict()}
    import evaluate  # lazily: evaluation is optional and has its own dependencies

    result = evaluate.run_match(
        evaluation_players(copy.deepcopy(model).cpu(), game, opponent, config),  # on the CPU
        variant=config.variant,
        games=games,
        seed=config.eval_seed,
        episode="game",
        rules=dict(config.rules) or None,
    )
    return result.players[0]


# ----------------------------------------------------------------------------- ranks (torchrun)
class RankFailure(RuntimeError):
    """A collective with the other ranks failed: one of them stopped, or did not answer in time."""


def pick_device(setting, local_rank, cuda_available):
    """The torch.device of the config's ``device`` ('auto', 'cpu' or 'cuda') for the rank on GPU ``local_rank``."""
    if setting == "cuda" and not cuda_available:
        raise ValueError(
            "device is 'cuda', but torch sees no GPU (torch.cuda.is_available() is False)"
        )
    if setting == "cpu" or not cuda_available:
        return torch.device("cpu")
    return torch.device("cuda", local_rank)


def backend_for(device):
    """The torch.distributed backend between ranks on ``device``: NCCL for GPUs, gloo for CPUs."""
    return "nccl" if device.type == "cuda" else "gloo"


@dataclasses.dataclass(frozen=True)
class Ranks:
    """This process's place in a torchrun job (a plain ``python train.py`` is rank 0 of 1) and its collectives.

    Each collective is the identity with one rank; with several, a failure or a
    wait longer than ``timeout`` seconds raises :class:`RankFailure`.
    """

    rank: int
    world_size: int
    device: torch.device
    timeout: float

    def _collective(self, what, call):
        try:
            return call()
        except RuntimeError as error:
            detail = (str(error).splitlines() or [type(error).__name__])[0]
            raise RankFailure(
                f"rank {self.rank} of {self.world_size}: stopping: {what} with the other ranks failed "
                f"(a rank stopped, or did not answer within collective_timeout={self.timeout:g} s): {detail}"
            ) from None

    def all_sum(self, values):
        """float64[M] summed over the ranks."""
        values = np.asarray(values, np.float64)
        if self.world_size == 1:
            return values
        tensor = torch.from_numpy(values).to(self.device)
        self._collective("summing metrics", lambda: dist.all_reduce(tensor))
        return tensor.cpu().numpy()

    def all_rows(self, counts):
        """int64[world_size, M]: every rank's ``counts`` (int[M]), by rank."""
        mine = torch.tensor(counts, dtype=torch.int64, device=self.device)
        if self.world_size == 1:
            return mine[None].cpu().numpy()
        every = [torch.zeros_like(mine) for _ in range(self.world_size)]
        self._collective("sharing batch sizes", lambda: dist.all_gather(every, mine))
        return torch.stack(every).cpu().numpy()

    def all_objects(self, value, what):
        """[value of rank 0, ..., value of rank world_size - 1] (picklable values)."""
        if self.world_size == 1:
            return [value]
        every = [None] * self.world_size
        self._collective(what, lambda: dist.all_gather_object(every, value))
        return every

    def sum_gradients(self, parameters, extra):
        """Replace each parameter's gradient by its sum over the ranks and return ``extra`` (float[M]) summed
        over the ranks too, all in one all-reduce (the gradients and a minibatch's statistics travel together).
        """
        if self.world_size == 1:
            return extra
        grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in parameters]
        sizes = [g.numel() for g in grads]
        flat = torch.cat([*(g.reshape(-1) for g in grads), extra.to(grads[0].dtype)])
        self._collective("averaging gradients", lambda: dist.all_reduce(flat))
        for parameter, piece in zip(parameters, flat.split([*sizes, len(extra)])[:-1], strict=True):
            parameter.grad = piece.view_as(parameter)
        return flat[-len(extra) :]


def start_ranks(config):
    """The :class:`Ranks` of this process; under torchrun (WORLD_SIZE > 1) it joins the job's process group."""
    rank, world_size = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
    device = pick_device(
        config.device, int(os.environ.get("LOCAL_RANK", "0")), torch.cuda.is_available()
    )
    if device.type == "cuda":
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # cuBLAS reproducible
        torch.cuda.set_device(device)
    if world_size > 1 and not dist.is_initialized():
        dist.init_process_group(
            backend_for(device),
            timeout=datetime.timedelta(seconds=config.collective_timeout),
            device_id=device if device.type == "cuda" else None,
        )
    return Ranks(rank, world_size, device, config.collective_timeout)


def same_config_on_every_rank(config, ranks):
    """``config`` with rank 0's run name; every rank must have been given the same config."""
    every = ranks.all_objects(dataclasses.asdict(config), "comparing configs")
    differ = sorted(
        k for values in every for k in values if k != "name" and values[k] != every[0][k]
    )
    if differ:
        raise ValueError(f"the ranks were given different configs: {differ} differ")
    return dataclasses.replace(config, name=every[0]["name"])


def rank_seed(seed, ranks):
    """The seed of this rank's games, roles and sampling: ``seed`` itself with one rank, else one drawn from
    (seed, rank), so the ranks' streams differ."""
    if ranks.world_size == 1:
        return seed
    return int(np.random.SeedSequence((seed, ranks.rank)).generate_state(1, np.uint64)[0] >> 1)


# ----------------------------------------------------------------------------- the run's state
@dataclasses.dataclass
class Run:
    """Everything one update hands to the next, and what a checkpoint saves."""

    config: TrainConfig
    ranks: Ranks
    venv: VectorEnv
    """GhostEuchreVec (ClassicEuchreVec for variant='classic'), or GhostBiddingVec for learn='auction':
    this rank's games, games rank * n .. (rank + 1) * n - 1 of the seed's deal streams, n = num_envs / world
    size"""
    model: ActorCritic
    optimizer: torch.optim.Optimizer
    pool: list
    """past snapshots (ActorCritic) played by the opponents; role s + 1 = slot s"""
    pool_added: int
    """snapshots taken so far (the next one goes to slot pool_added % pool_size)"""
    heuristic: typing.Any
    """the heuristic Policy (opponent and warm-up teacher), or None when neither is used"""
    roles: np.ndarray
    """int8[n, 3]: the role of each seat in each game's current episode (LEARNER, slot + 1, HEURISTIC)"""
    obs: np.ndarray
    mask: np.ndarray
    player: np.ndarray
    """the decision every game is waiting for: observation, legal mask and seat to act"""
    np_rng: np.random.Generator
    """seat roles (and, with one rank, the minibatch order)"""
    minibatch_rng: np.random.Generator
    """the minibatch order over all ranks' decisions: the same generator on every rank"""
    sample_gen: torch.Generator
    """action sampling"""
    update: int = 0
    global_step: int = 0
    """decisions played so far (every seat of every game of every rank)"""
    learner_step: int = 0
    """decisions made by the learner so far (all ranks)"""

    partner: typing.Any = None
    """learn='auction': the card_play Policy (inside the env); learn='play': the bidding Policy; else None"""
    deals: int = 0
    """deals played so far (redeals included)"""

    @property
    def game(self):
        """the env's game: the engine, or for learn='auction' the AuctionGame around it"""
        return self.venv.game

    @property
    def device(self):
        return self.ranks.device

    @property
    def num_envs(self):
        """this rank's games"""
        return self.venv.num_envs

    @property
    def engine(self):
        """the GhostEuchre engine (what policies are built for)"""
        return getattr(self.venv.game, "engine", self.venv.game)

    @property
    def batch_size(self):
        """decisions per rollout (all ranks)"""
        return self.config.num_envs * self.config.num_steps

    @property
    def num_updates(self):
        return max(1, self.config.total_steps // self.batch_size)

    @property
    def warming_up(self):
        """True while the network imitates the heuristic's auction decisions (never with learn='play')"""
        return self.global_step < self.config.bidding_warmup_steps and self.config.learn != "play"


def setup(config, ranks):
    """A new run: seeding, environment, network, optimizer, opponents, the first deal of every game."""
    # --- seeding: every random choice below draws from these generators
    seed = rank_seed(config.seed, ranks)
    np_rng = np.random.default_rng(seed)  # seat roles (and with one rank the minibatch order)
    minibatch_rng = np_rng if ranks.world_size == 1 else np.random.default_rng(config.seed)
    torch.manual_seed(config.seed)  # network initialisation: the same on every rank
    sample_gen = torch.Generator(ranks.device).manual_seed(seed)  # action sampling
    torch.set_num_threads(config.rollout_threads)  # switched to torch_threads for each update
    torch.use_deterministic_algorithms(True, warn_only=ranks.device.type == "cuda")

    engine_reward = "win" if config.reward == "win" else "points"
    num_envs = config.num_envs // ranks.world_size
    engine_class, vector_class = VARIANTS[config.variant]
    engine = engine_class(episode=config.episode, reward=engine_reward, **config.rules)
    partner = None
    if config.learn == "auction":
        partner = make_policy(config.card_play, engine, seed=seed + 1)
        venv = GhostBiddingVec(
            num_envs, partner, None, config.episode, engine_reward, **config.rules
        )
    else:
        venv = vector_class(num_envs, None, config.episode, engine_reward, **config.rules)
        if config.learn == "play":
            partner = make_policy(config.bidding, engine, seed=seed + 1)
    game = venv.game
    model = ActorCritic(
        game.obs_size,
        game.num_actions,
        config.hidden_sizes,
        config.activation,
        config.canonical_suits,
    )
    if config.init_from:
        start_from(model, config.init_from)
    model.to(ranks.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate, eps=1e-5, fused=True)
    pool = [
        copy.deepcopy(model) for _ in range(config.pool_size)
    ]  # slot 0 holds the initial network
    for slot in pool:
        slot.requires_grad_(False)
    heuristic = None
    if (
        config.heuristic_share > 0 and config.opponent_share > 0
    ) or config.bidding_warmup_steps > 0:
        heuristic = make_policy("heuristic", engine, seed=seed)
    keys = stream_keys(config.seed, config.num_envs)[
        ranks.rank * num_envs : (ranks.rank + 1) * num_envs
    ]
    obs, mask, player = start_games(venv, game.init(keys))
    roles = np.zeros((num_envs, game.num_players), np.int8)
    pool_added = 1
    assign_roles(roles, np.arange(num_envs), config, pool_added, np_rng)
    return Run(
        config, ranks, venv, model, optimizer, pool, pool_added, heuristic, roles, obs, mask, player,
        np_rng, minibatch_rng, sample_gen, partner=partner,
    )  # fmt: skip


def start_from(model, path):
    """Load the network of the policy file or checkpoint at ``path`` into ``model`` (init_from)."""
    stored = load_model(path)
    if stored.config != model.config:
        needed = bool(stored.config.get("canonical_suits"))
        hint = ""
        if needed != bool(model.config.get("canonical_suits")):
            hint = f" (set canonical_suits: {str(needed).lower()})"
        raise ValueError(
            f"init_from: {path!r} holds a network {stored.config}; this run's is {model.config}{hint}"
        )
    model.load_state_dict(stored.state_dict())


def start_games(venv, state):
    """Make ``state`` the games of ``venv``; returns their (obs, mask, player) as ``venv.reset`` does."""
    venv.state = state
    venv.mask = venv.game.legal_mask(state)
    player = state.player.astype(np.int64)
    return venv.game.observe(state, player), venv.mask, player


def rank_state(run):
    """What is this rank's own: its games, seat roles and random generators."""
    rng = {
        "numpy": run.np_rng.bit_generator.state,
        "sample": run.sample_gen.get_state(),
        "torch": torch.get_rng_state(),
    }
    if run.ranks.world_size > 1:
        rng["minibatch"] = run.minibatch_rng.bit_generator.state
    if run.heuristic is not None:
        rng["heuristic"] = run.heuristic.rng.bit_generator.state
    if run.partner is not None:
        rng["partner"] = run.partner.rng.bit_generator.state
    return {
        "env_state": state_to_tensors(run.venv.state),
        "roles": torch.from_numpy(run.roles.copy()),
        "rng": rng,
    }


def restore(run, checkpoint):
    """Continue ``run`` (set up from the checkpoint's config, same world size) where ``checkpoint`` left it."""
    run.model.load_state_dict(checkpoint["model"])
    run.optimizer.load_state_dict(checkpoint["optimizer"])
    for slot, weights in zip(run.pool, checkpoint["pool"], strict=True):
        slot.load_state_dict(weights)
    run.pool_added = checkpoint["pool_added"]
    mine = checkpoint["other_ranks"][run.ranks.rank - 1] if run.ranks.rank else checkpoint
    state = state_from_tensors(type(run.venv.state), mine["env_state"])
    run.obs, run.mask, run.player = start_games(run.venv, state)
    run.roles = mine["roles"].numpy().copy()
    run.np_rng.bit_generator.state = mine["rng"]["numpy"]
    if run.ranks.world_size > 1:
        run.minibatch_rng.bit_generator.state = mine["rng"]["minibatch"]
    run.sample_gen.set_state(mine["rng"]["sample"])
    torch.set_rng_state(mine["rng"]["torch"])
    if run.heuristic is not None and "heuristic" in mine["rng"]:
        run.heuristic.rng.bit_generator.state = mine["rng"]["heuristic"]
    if run.partner is not None and "partner" in mine["rng"]:
        run.partner.rng.bit_generator.state = mine["rng"]["partner"]
    run.deals = checkpoint.get("deals", 0)
    run.update = checkpoint["update"]
    run.global_step = checkpoint["global_step"]
    run.learner_step = checkpoint["learner_step"]


def save_torch(payload, path):
    """torch.save ``payload`` to ``path``, atomically."""
    write_atomic(path, lambda handle: torch.save(payload, handle), binary=True)


def write_config(config, path):
    """The run's config as YAML (``python train.py --config PATH`` runs it again), atomically."""
    values = {
        k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(config).items()
    }
    text = yaml.safe_dump(values, sort_keys=False, default_flow_style=None)
    header = "# the config of this run (fields: python train.py --help)\n"
    write_atomic(path, lambda handle: handle.write(header + text))


def save_checkpoint(run, path):
    """Write everything :func:`restore` needs to ``path``, atomically: rank 0 writes, every rank takes part.

    The top level holds rank 0's games, roles and generators (a single-process
    checkpoint has nothing else); ``other_ranks`` those of ranks 1, 2, ...
    """
    every = run.ranks.all_objects(rank_state(run), "gathering the ranks' states for a checkpoint")
    if run.ranks.rank:
        return
    payload = {
        "format": CHECKPOINT_FORMAT,
        "config": dataclasses.asdict(run.config),
        "model": run.model.state_dict(),
        "model_config": dict(run.model.config),
        "optimizer": run.optimizer.state_dict(),
        "pool": [slot.state_dict() for slot in run.pool],
        "pool_added": run.pool_added,
        **every[0],
        "update": run.update,
        "global_step": run.global_step,
        "learner_step": run.learner_step,
        "deals": run.deals,
    }
    if run.ranks.world_size > 1:
        payload["world_size"] = run.ranks.world_size
        payload["other_ranks"] = every[1:]
    save_torch(payload, path)


# ----------------------------------------------------------------------------- rollout
def collect_rollout(run, buf):
    """Play ``num_steps`` steps of every game: each game's acting seat decides once per step.

    The learner's decisions go to ``buf`` (cleared first). Returns the
    :class:`DealStats` of the deals that ended and the warm-up lessons: a list of
    (obs, mask, action) per step of the heuristic's choices in the learner's
    auction decisions (empty after the warm-up). learn='all': the heuristic makes
    those decisions and the network imitates them; learn='auction' (the card
    play is already sensible): the network makes them and also imitates the
    heuristic's choice; learn='play': ``bidding`` makes them, no warm-up.
    """
    config, device = run.config, run.device
    stats, lessons = DEAL_STATS[config.variant](), []
    buf.clear()
    game_index = np.arange(run.num_envs)
    for _ in range(config.num_steps):
        obs, mask, player = run.obs, run.mask, run.player
        role_now = run.roles[game_index, player]
        warming_up = run.warming_up
        own_auction = (role_now == LEARNER) & before_card_play(run, mask)
        taught = game_index[:0]
        if config.learn == "play":  # the bidding policy makes the learner's auction decisions
            role_now = np.where(own_auction, config.pool_size + 2, role_now)
        elif warming_up and config.learn == "all":  # the heuristic bids and names trump for it
            taught = np.flatnonzero(own_auction)
            role_now = np.where(own_auction, config.pool_size + 1, role_now)
        learners = np.flatnonzero(role_now == LEARNER)
        rows = buf.add(learners, player[learners])
        buf.obs[rows] = obs[learners]
        buf.mask[rows] = mask[learners]
        actions = np.zeros(run.num_envs, np.int64)
        with torch.no_grad():
            if len(learners):
                logits, value = run.model(torch.from_numpy(buf.obs[rows]).to(device))
                log_probs = masked_log_probs(logits, torch.from_numpy(buf.mask[rows]).to(device))
                chosen = sample_actions(log_probs, run.sample_gen)
                buf.logprob[rows] = log_probs.gather(1, chosen[:, None]).squeeze(1).cpu().numpy()
                buf.value[rows] = value.cpu().numpy()
                actions[learners] = chosen.cpu().numpy()
            act_opponents(actions, role_now, obs, mask, run)
        buf.action[rows] = actions[learners]
        if warming_up and config.learn == "auction":
            lessons.append(
                (obs[learners], mask[learners], run.heuristic.act(obs[learners], mask[learners]))
            )
        elif warming_up and config.imitate_card_play:  # and its choices in the network's card play
            both = np.concatenate([taught, learners])
            choice = np.concatenate(
                [actions[taught], run.heuristic.act(obs[learners], mask[learners])]
            )
            lessons.append((obs[both], mask[both], choice))
        elif warming_up:
            lessons.append((obs[taught], mask[taught], actions[taught]))

        run.obs, run.mask, run.player, rewards, done = run.venv.step(actions)
        run.global_step += config.num_envs  # all ranks' games
        if config.reward == "margin":
            rewards = margin_rewards(rewards, config.variant)
        buf.add_rewards(rewards * config.reward_scale)
        result = run.venv.last_result
        assert result is not None  # set by every step
        if len(result.deals.game):
            stats.add_deals(result.deals, run.roles)
        if done.any():
            stats.add_game_ends(result.deals, run.roles, done & ~run.venv.truncated)
            ended = np.flatnonzero(done)
            buf.end_games(ended)
            assign_roles(
                run.roles, ended, config, min(run.pool_added, config.pool_size), run.np_rng
            )
    return stats, lessons


def advantages_and_returns(run, buf):
    """GAE over the rollout in ``buf`` -> (advantages, returns) float32[count].

    The sequences still open are bootstrapped with the value of that seat's current observation.
    """
    pending_games, pending_seats = buf.pending()
    if len(pending_games):
        pending_obs = run.game.observe(run.venv.state.take(pending_games), pending_seats)
        with torch.no_grad():
            values = run.model.value(torch.from_numpy(pending_obs).to(run.device)).cpu().numpy()
        buf.set_bootstrap(pending_games, pending_seats, values)
    return buf.advantages(run.config.gamma, run.config.gae_lambda)


# ----------------------------------------------------------------------------- update
def batch_shares(run, buf, lessons, stats):
    """int64[world_size, 3]: every rank's learner decisions, warm-up lessons and deals played in this
    rollout (by rank); the run's counts of learner decisions and deals take all ranks' in."""
    lesson_count = sum(len(actions) for _, _, actions in lessons)
    shares = run.ranks.all_rows([buf.count, lesson_count, stats.counts["deals"]])
    run.learner_step += int(shares[:, 0].sum())
    run.deals += int(shares[:, 2].sum())
    return shares


def own_rows(positions, first, count, device):
    """This rank's rows among ``positions`` (int[M] in the batch of all ranks, where this rank's ``count``
    rows start at ``first``), as its own row numbers, in the order of ``positions``."""
    local = positions - first
    return torch.from_numpy(local[(local >= 0) & (local < count)]).to(device)


def share_mean(values, total):
    """This rank's part of the mean of ``total`` values over all ranks (the parts of all ranks sum to it)."""
    return values.mean() if len(values) == total else values.sum() / total


def advantage_statistics(run, advantages, order, first, count):
    """float64[minibatches, 2]: mean and std of each minibatch's advantages over all ranks in one epoch.

    ``order`` (int[total]) is the epoch's order of all ranks' decisions, this rank's
    ``count`` rows starting at ``first``; one collective for the whole epoch.
    """
    size = run.config.minibatch_size
    starts = range(0, len(order), size)
    parts = []
    for start in starts:
        mine = advantages[own_rows(order[start : start + size], first, count, advantages.device)]
        parts.append(torch.stack([mine.double().sum(), (mine.double() ** 2).sum()]))
    sums = run.ranks.all_sum(torch.stack(parts).cpu().numpy().reshape(-1)).reshape(-1, 2)
    total = np.minimum(size, len(order) - np.array(starts))
    mean = sums[:, 0] / total
    variance = np.maximum(sums[:, 1] - total * mean**2, 0.0) / np.maximum(total - 1, 1)
    return np.stack([mean, np.sqrt(variance)], axis=1)


def ppo_update(run, buf, advantages, returns, lessons, shares):
    """``update_epochs`` passes of clipped PPO over the learner's decisions of all ranks.

    The minibatches are drawn over the decisions of all ranks (rank 0's rows, then
    rank 1's, ...: ``shares`` from :func:`batch_shares`) by ``minibatch_rng``, the
    same on every rank; each rank computes its part of each minibatch's mean loss
    (advantages normalised over the whole minibatch) and the gradients are summed
    over the ranks before the step, so every rank takes the same step. During the
    warm-up each minibatch also takes its share of the lessons (imitation of the
    heuristic's auction decisions, cross-entropy). Returns the last minibatch's
    losses (this rank's parts with several ranks) and the update's clip fraction.
    """
    config, model, optimizer, device = run.config, run.model, run.optimizer, run.device
    rank = run.ranks.rank
    count, total = buf.count, int(shares[:, 0].sum())
    first = int(shares[:rank, 0].sum())
    lesson_count, lesson_total = int(shares[rank, 1]), int(shares[:, 1].sum())
    lesson_first = int(shares[:rank, 1].sum())
    # the suits are renamed once for all epochs (no parameters involved)
    b_seen = model.see(torch.from_numpy(buf.obs[:count]).to(device))
    b_mask = torch.from_numpy(buf.mask[:count]).to(device)
    b_actions = torch.from_numpy(buf.action[:count]).to(device)
    b_logprobs = torch.from_numpy(buf.logprob[:count]).to(device)
    b_values = torch.from_numpy(buf.value[:count]).to(device)
    b_advantages = torch.from_numpy(advantages).to(device)
    b_returns = torch.from_numpy(returns).to(device)
    lesson_obs, lesson_mask, lesson_actions = (
        torch.from_numpy(np.concatenate(x)).to(device) for x in zip(*lessons, strict=True)
    ) if lessons else (None, None, None)  # fmt: skip
    lesson_seen = model.see(lesson_obs) if lesson_obs is not None else None
    lesson_size = -(
        -lesson_total * config.minibatch_size // max(total, 1)
    )  # same share per minibatch
    zero = torch.zeros((), device=device)
    pg_loss, v_loss, entropy_loss, approx_kl, imitation_loss = zero, zero, zero, zero, zero
    clipfracs = []
    for _epoch in range(config.update_epochs):
        order = run.minibatch_rng.permutation(total)
        lesson_order = run.minibatch_rng.permutation(lesson_total) if lesson_total else None
        adv_stats = (
            advantage_statistics(run, b_advantages, order, first, count)
            if config.norm_adv and run.ranks.world_size > 1
            else None
        )
        for number, start in enumerate(range(0, total, config.minibatch_size)):
            positions = order[start : start + config.minibatch_size]
            mb = own_rows(positions, first, count, device)
            logits, new_value = model.from_seen(*seen_rows(b_seen, mb))
            log_probs = masked_log_probs(logits, b_mask[mb])
            new_logprob = log_probs.gather(1, b_actions[mb][:, None]).squeeze(1)
            entropy = masked_entropy(log_probs, b_mask[mb])
            logratio = new_logprob - b_logprobs[mb]
            ratio = logratio.exp()
            with torch.no_grad():  # sums of the approximate KL and of the clipped ratios
                kl_and_clipped = torch.stack(
                    [
                        ((ratio - 1) - logratio).sum(),
                        ((ratio - 1.0).abs() > config.clip_coef).to(ratio.dtype).sum(),
                    ]
                )
            mb_adv = b_advantages[mb]
            if config.norm_adv and len(positions) > 1:
                if adv_stats is None:  # one rank holds the whole minibatch
                    mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                else:
                    mean, std = adv_stats[number]
                    mb_adv = (mb_adv - float(mean)) / float(std + 1e-8)
            pg_loss = share_mean(
                torch.max(
                    -mb_adv * ratio,
                    -mb_adv * ratio.clamp(1 - config.clip_coef, 1 + config.clip_coef),
                ),
                len(positions),
            )
            if config.clip_vloss:
                clipped = b_values[mb] + (new_value - b_values[mb]).clamp(
                    -config.clip_coef, config.clip_coef
                )
                squares = torch.max(
                    (new_value - b_returns[mb]) ** 2, (clipped - b_returns[mb]) ** 2
                )
            else:
                squares = (new_value - b_returns[mb]) ** 2
            v_loss = 0.5 * share_mean(squares, len(positions))
            entropy_loss = share_mean(entropy, len(positions))
            loss = pg_loss - config.ent_coef * entropy_loss + config.vf_coef * v_loss
            if lesson_order is not None:
                lesson_positions = lesson_order[number * lesson_size : (number + 1) * lesson_size]
                if len(lesson_positions):
                    assert lesson_seen is not None and lesson_mask is not None
                    assert lesson_actions is not None
                    lb = own_rows(lesson_positions, lesson_first, lesson_count, device)
                    lesson_logits, _ = model.from_seen(*seen_rows(lesson_seen, lb))
                    imitation_loss = share_mean(
                        torch.nn.functional.cross_entropy(
                            mask_logits(lesson_logits, lesson_mask[lb]),
                            lesson_actions[lb],
                            reduction="none",
                        ),
                        len(lesson_positions),
                    )
                    loss = loss + config.imitation_coef * imitation_loss
            optimizer.zero_grad()
            loss.backward()
            kl_and_clipped = run.ranks.sum_gradients(list(model.parameters()), kl_and_clipped)
            approx_kl = kl_and_clipped[0] / len(positions)
            clipfracs.append(kl_and_clipped[1].item() / len(positions))
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
            optimizer.step()
        if config.target_kl is not None and approx_kl > config.target_kl:
            break
    return {
        "losses/policy_loss": pg_loss.item(),
        "losses/value_loss": v_loss.item(),
        "losses/entropy": entropy_loss.item(),
        "losses/approx_kl": approx_kl.item(),
        "losses/clipfrac": float(np.mean(clipfracs)) if clipfracs else float("nan"),
        "losses/imitation_loss": imitation_loss.item(),
    }


def take_snapshot(run):
    """Every ``snapshot_every`` updates the network joins the opponent pool (oldest slot replaced)."""
    if run.update % run.config.snapshot_every == 0:
        run.pool[run.pool_added % run.config.pool_size].load_state_dict(run.model.state_dict())
        run.pool_added += 1


# ----------------------------------------------------------------------------- log and checkpoint
def auction_counts(masks, actions, variant):
    """(auction decisions, bids) among decisions masks bool[M, A], actions int[M].

    ghost: decisions with PASS legal (the auction) other than SWAP, and those that
    bid 3, 4, 5 or MOON; classic: decisions with PASS legal, and those that order
    up or name a suit.
    """
    auction = masks[:, PASS] & (actions != SWAP)  # PASS is legal only in the auction
    if variant == "classic":
        bids = (actions >= classic.SUIT_CLUBS) & (actions < classic.SUIT_CLUBS + 4)
    else:
        bids = (actions >= BID_3) & (actions <= MOON)
    return int(auction.sum()), int((auction & bids).sum())


SHARED_LOSSES = (
    "losses/policy_loss",
    "losses/value_loss",
    "losses/entropy",
    "losses/imitation_loss",
)
"""losses that ppo_update returns as each rank's part of the mean (summed over the ranks here)"""


def update_scalars(run, buf, returns, stats, lessons, losses):
    """TensorBoard scalars of one update, over all ranks: losses, learner share, explained variance, Euchre
    rates. The bid rate counts the learner's seats' auction decisions: the network's, and during the warm-up
    the heuristic's for it."""
    count = buf.count
    # the learner's seats' auction decisions: the network's, and the heuristic's for it during the
    # warm-up of learn='all' (with learn='auction' the lessons are choices that were not played)
    played = lessons if run.config.learn == "all" else []
    masks = np.concatenate([buf.mask[:count], *(mask for _, mask, _ in played)])
    actions = np.concatenate([buf.action[:count], *(action for _, _, action in played)])
    auction, bids = auction_counts(masks, actions, run.config.variant)
    returns = returns.astype(np.float64)
    residual = returns - buf.value[:count]
    sums = {
        **stats.counts,
        **{key: losses[key] for key in SHARED_LOSSES},
        "learner": count,
        "auction": auction,
        "bids": bids,
        "returns": returns.sum(),
        "returns_squared": (returns**2).sum(),
        "residual": residual.sum(),
        "residual_squared": (residual**2).sum(),
    }
    summed = dict(zip(sums, run.ranks.all_sum(list(sums.values())), strict=True))
    stats.counts = {key: summed[key] for key in stats.counts}
    n = summed["learner"]
    variance = lambda key: summed[f"{key}_squared"] / n - (summed[key] / n) ** 2  # noqa: E731
    explained_var = (
        1 - variance("residual") / variance("returns")
        if n and variance("returns") > 0
        else float("nan")
    )
    return {
        **losses,
        **{key: summed[key] for key in SHARED_LOSSES},
        "charts/learner_share": n / run.batch_size,
        "losses/explained_variance": float(explained_var),
        "euchre/bid_rate": summed["bids"] / summed["auction"]
        if summed["auction"]
        else float("nan"),
        **stats.rates(),
    }


class Log:
    """Where a run reports: TensorBoard, the progress bar or printed lines, config.yaml, the SPS clocks.

    Rank 0 alone writes and prints (``active``); every rank keeps the clocks.
    """

    RECENT = 10  # updates in the progress bar's recent decisions/s

    def __init__(self, run_dir, run, resumed):
        self.train_time, self.start_step, self.start_deals = 0.0, run.global_step, run.deals
        self.start_time = time.perf_counter()
        self.recent = collections.deque(maxlen=self.RECENT)  # (decisions, seconds) per update
        self.bar = None
        self.active = run.ranks.rank == 0
        if not self.active:
            return
        from torch.utils.tensorboard import SummaryWriter

        config = run.config
        os.makedirs(run_dir, exist_ok=True)
        write_config(config, os.path.join(run_dir, "config.yaml"))
        self.writer = SummaryWriter(run_dir)
        self.writer.add_text(
            "hyperparameters",
            "|param|value|\n|-|-|\n"
            + "\n".join(f"|{k}|{v}|" for k, v in dataclasses.asdict(config).items()),
            run.global_step,
        )
        ranks = run.ranks
        print(
            f"run {run_dir}: {run.num_updates} updates of {run.batch_size} decisions"
            + (f" on {ranks.world_size} ranks" if ranks.world_size > 1 else "")
            + f" ({ranks.device})"
            + (f", resuming after update {run.update}" if resumed else ""),
            flush=True,
        )
        if config.progress:
            from tqdm import tqdm

            self.bar = tqdm(
                total=run.num_updates,
                initial=run.update,
                unit="update",
                dynamic_ncols=True,
                file=sys.stdout,
            )

    def timed(self, decisions, seconds):
        """Count one update's rollout and update time."""
        self.train_time += seconds
        self.recent.append((decisions, seconds))

    def sps(self, run):
        """decisions per second of rollouts and updates since this process started"""
        return int((run.global_step - self.start_step) / self.train_time)

    def recent_sps(self):
        """decisions per second over the last RECENT updates"""
        decisions, seconds = map(sum, zip(*self.recent, strict=True))
        return int(decisions / seconds)

    def write(self, line):
        """Print a line without breaking the progress bar."""
        if self.bar is not None:
            self.bar.write(line, file=sys.stdout)
        else:
            print(line, flush=True)

    def update(self, run, scalars, evaluated):
        """Record one update's scalars; move the bar (or print every 10th update and evaluations)."""
        if not self.active:
            return
        scalars = {
            "charts/learning_rate": run.optimizer.param_groups[0]["lr"],
            "charts/SPS": self.sps(run),
            "charts/deals_per_s": int((run.deals - self.start_deals) / self.train_time),
            "charts/SPS_wall": int(
                (run.global_step - self.start_step) / (time.perf_counter() - self.start_time)
            ),
            **scalars,
        }
        for key, value in scalars.items():
            self.writer.add_scalar(key, value, run.global_step)
        progress = {
            "SPS": self.recent_sps(),
            "pts/deal": f"{scalars['euchre/points_per_deal']:.2f}",
        }
        if evaluated:
            progress["win_vs_heuristic"] = f"{scalars['eval/win_rate_vs_heuristic']:.3f}"
            progress["win_vs_random"] = f"{scalars['eval/win_rate_vs_random']:.3f}"
        if self.bar is not None:
            self.bar.set_postfix(progress, refresh=False)
            self.bar.update(1)
        elif evaluated or run.update % 10 == 0:
            print(
                f"update {run.update}/{run.num_updates}, {run.global_step} decisions: "
                + ", ".join(f"{k} {v}" for k, v in progress.items()),
                flush=True,
            )

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def periodic_evaluation(run, log):
    """Every ``eval_every`` updates (not the last): win rates against heuristic and random, printed.

    Returns their scalars ({} when it is not time).
    """
    config = run.config
    if not (
        log.active
        and config.eval_every
        and run.update % config.eval_every == 0
        and run.update < run.num_updates
    ):
        return {}
    torch.set_num_threads(config.rollout_threads)
    scalars, parts = {}, []
    for opponent in ("heuristic", "random"):
        regret = config.eval_regret_decisions if opponent == "heuristic" else 0
        if config.learn != "auction":
            regret = 0
        row = evaluate_policy(run.model, run.engine, opponent, config.eval_games, config, regret)
        scalars[f"eval/win_rate_vs_{opponent}"] = row["win_rate"]
        scalars[f"eval/points_per_deal_vs_{opponent}"] = row["mean_points_per_deal"]
        low, high = row["win_rate_ci95"]
        parts.append(f"vs {opponent} {row['win_rate']:.3f} [{low:.3f}, {high:.3f}]")
        if "bid_regret" in row:
            mean, (low, high) = (
                row["bid_regret"]["mean_regret"],
                row["bid_regret"]["mean_regret_ci95"],
            )
            scalars["eval/bid_regret"] = mean
            scalars["eval/bid_regret_ci95_low"], scalars["eval/bid_regret_ci95_high"] = low, high
            parts.append(f"bid regret {mean:.3f} [{low:.3f}, {high:.3f}] points/decision")
    log.write(
        f"evaluation after update {run.update} ({run.global_step} decisions, {row['games']} games): "
        f"win rate {', '.join(parts)}"
    )
    return scalars


def periodic_checkpoint(run, run_dir):
    """Every ``checkpoint_every`` updates (not the last): checkpoints/update_NNNNNN.pt, old ones pruned
    (every rank takes part, rank 0 writes)."""
    config = run.config
    if not (
        config.checkpoint_every
        and run.update % config.checkpoint_every == 0
        and run.update < run.num_updates
    ):
        return
    folder = os.path.join(run_dir, "checkpoints")
    save_checkpoint(run, os.path.join(folder, f"update_{run.update:06d}.pt"))
    if run.ranks.rank:
        return
    saved = sorted(os.listdir(folder))
    for old in saved[: -config.keep_checkpoints] if config.keep_checkpoints else []:
        os.remove(os.path.join(folder, old))


def final_evaluation(run, log):
    """The table of the greedy network against two heuristics and two random players."""
    config = run.config
    torch.set_num_threads(config.rollout_threads)
    print(
        f"\nevaluation: greedy policy vs two copies of each opponent, {config.final_eval_games} duplicate games"
    )
    print(
        f"{'opponents':<12} {'games':>6} {'win rate':>9} {'95% interval':>17} {'points/deal':>12}"
    )
    for opponent in ("heuristic", "random"):
        row = evaluate_policy(run.model, run.engine, opponent, config.final_eval_games, config)
        low, high = row["win_rate_ci95"]
        print(
            f"{opponent:<12} {row['games']:>6} {row['win_rate']:>9.3f} {f'[{low:.3f}, {high:.3f}]':>17} "
            f"{row['mean_points_per_deal']:>12.2f}"
        )
        log.writer.add_scalar(
            f"eval/final_win_rate_vs_{opponent}", row["win_rate"], run.global_step
        )


def finish(run, log, run_dir):
    """The final checkpoint, then on rank 0: the policy file, the summary line and the evaluation table."""
    save_checkpoint(run, os.path.join(run_dir, "final.pt"))
    if not log.active:
        return
    config = run.config
    partner_spec = {"auction": config.card_play, "play": config.bidding}.get(config.learn)
    save_torch(
        policy_payload(run.model, config.learn, partner_spec), os.path.join(run_dir, "policy.pt")
    )
    decisions, deals = run.global_step - log.start_step, run.deals - log.start_deals
    seconds = max(log.train_time, 1e-9)
    print(
        f"{run.global_step} decisions ({run.learner_step} by the learner) in {log.train_time:.0f} s of "
        f"rollouts and updates: {decisions / seconds:,.0f} decisions/s; {deals} deals, "
        f"{deals / seconds:,.0f} deals/s; saved {run_dir}/final.pt and policy.pt"
    )
    if run.config.final_eval_games:
        final_evaluation(run, log)
    log.writer.close()


# ----------------------------------------------------------------------------- main
def main(argv=None):
    """Train as the command line says (one process, or one rank of a torchrun job); returns the run's folder."""
    config, resume, config_stem = parse_args(argv)
    checkpoint = read_checkpoint(resume) if resume else None
    if not config.name:
        config = dataclasses.replace(
            config, name=f"{config_stem}__{config.seed}__{time.strftime('%Y%m%d-%H%M%S')}"
        )

    # --- setup or resume
    ranks = start_ranks(config)
    config = same_config_on_every_rank(config, ranks)
    run_dir = os.path.join(config.runs_dir, config.name)
    try:
        run = setup(config, ranks)
    except ValueError as error:  # a policy spec that cannot be built, a network that does not fit
        print(f"train.py: error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    if checkpoint is not None:
        restore(run, checkpoint)
    log = Log(run_dir, run, resumed=checkpoint is not None)
    game = run.game
    buf = RolloutBuffer(
        run.num_envs * config.num_steps,
        game.obs_size,
        game.num_actions,
        run.num_envs,
        game.num_players,
    )

    while run.update < run.num_updates:
        tick, step_before = time.perf_counter(), run.global_step
        if config.anneal_lr:
            run.optimizer.param_groups[0]["lr"] = config.learning_rate * (
                1.0 - run.update / run.num_updates
            )
        # --- rollout (each rank plays its own games)
        torch.set_num_threads(config.rollout_threads)
        stats, lessons = collect_rollout(run, buf)
        advantages, returns = advantages_and_returns(run, buf)
        # --- update (minibatches over all ranks' decisions, gradients summed over the ranks)
        torch.set_num_threads(config.torch_threads)
        shares = batch_shares(run, buf, lessons, stats)
        losses = ppo_update(run, buf, advantages, returns, lessons, shares)
        run.update += 1
        log.timed(run.global_step - step_before, time.perf_counter() - tick)
        take_snapshot(run)
        # --- log and checkpoint
        scalars = update_scalars(run, buf, returns, stats, lessons, losses)
        evaluation = periodic_evaluation(run, log)
        log.update(run, {**scalars, **evaluation}, evaluated=bool(evaluation))
        periodic_checkpoint(run, run_dir)
    log.close()
    finish(run, log, run_dir)
    if ranks.world_size > 1:
        dist.destroy_process_group()
    return run_dir


if __name__ == "__main__":
    try:
        main()
    except RankFailure as failure:  # another rank stopped: one line, not a traceback
        print(failure, file=sys.stderr, flush=True)
        # Leave without interpreter teardown: destroying a process group whose collective
        # timed out while a peer is still connected can abort the process (SIGABRT) in gloo.
        os._exit(1)
