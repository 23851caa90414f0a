"""The run's state (:class:`Run`: what one update hands to the next) and :func:`setup` of a new run."""

import copy
import dataclasses
import typing

import numpy as np
import torch

from ghost_euchre.agents import make_policy
from ghost_euchre.agents.checked import CheckedPolicy
from ghost_euchre.agents.networks import (
    ActorCritic,
    SuitedNetwork,
    build_network,
    deepens,
    load_model,
    torch_forward,
)
from ghost_euchre.trainer.config import TrainConfig, init_from_file, read_spec
from ghost_euchre.trainer.critic import OracleCritic
from ghost_euchre.trainer.distill import build_teacher
from ghost_euchre.trainer.opponents import assign_roles, build_opponents
from ghost_euchre.trainer.ranks import Ranks, rank_seed
from ghost_euchre_env import variants
from ghost_euchre_env.dealing import stream_keys
from ghost_euchre_env.vector import VectorEnv


@dataclasses.dataclass
class Run:
    """Everything one update hands to the next, and what a checkpoint saves."""

    config: TrainConfig
    ranks: Ranks
    venv: VectorEnv
    """the variant's vector env (GhostEuchreVec, ClassicEuchreVec), or its auction view for learn='auction'
    (GhostBiddingVec, ClassicBiddingVec):
    this rank's games, games rank * n .. (rank + 1) * n - 1 of the seed's deal streams, n = num_envs / world
    size"""
    model: SuitedNetwork
    optimizer: torch.optim.Optimizer
    pool: list
    """past snapshots (ActorCritic) played by the opponents; role s + 1 = slot s"""
    pool_players: list
    """each slot's snapshot as the opponents play it: its forward pass without torch (the built-in MLP,
    :func:`ghost_euchre.agents.networks.torch_forward`), refreshed with every snapshot"""
    pool_added: int
    """snapshots taken so far (the next one goes to slot pool_added % pool_size)"""
    heuristic: typing.Any
    """the heuristic Policy (opponent and warm-up teacher), or None when neither is used"""
    roles: np.ndarray
    """int8[n, seats]: the role of each seat in each game's current episode (ghost_euchre.trainer.opponents)"""
    obs: np.ndarray
    mask: np.ndarray
    player: np.ndarray
    """the decision every game is waiting for: observation, legal mask and seat to act"""
    np_rng: np.random.Generator
    """seat roles (and, with one rank, the minibatch order)"""
    minibatch_rng: np.random.Generator
    """the minibatch order over all ranks' decisions: the same generator on every rank"""
    sample_rng: np.random.Generator
    """action sampling (the learner's and the pool's)"""
    update: int = 0
    global_step: int = 0
    """decisions played so far (every seat of every game of every rank)"""
    learner_step: int = 0
    """decisions made by the learner so far (all ranks)"""

    opponents: list = dataclasses.field(default_factory=list)
    """the Policy of each fixed opponent of the opponents' mix (None: never drawn), role pool_size + 1 + k"""
    partner: typing.Any = None
    """learn='auction': the card_play Policy (inside the env); learn='play': the bidding Policy; else None"""
    deals: int = 0
    """deals played so far (redeals included)"""
    critic: OracleCritic | None = None
    """critic='oracle' / 'solver': the value network that also sees the hidden cards (and the solved value); None:
    the model's value head"""
    teacher: typing.Any = None
    """the distill_teacher Policy (ghost_euchre.trainer.distill); None: the oracle, or no distillation"""

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

    def trained_parameters(self):
        return trained_parameters(self.model, self.critic)

    @property
    def batch_size(self):
        """decisions per rollout (all ranks)"""
        return self.config.num_envs * self.config.num_steps

    @property
    def num_updates(self):
        return max(1, self.config.total_steps // self.batch_size)

    @property
    def variant(self):
        """The game's :class:`ghost_euchre_env.variants.Variant` (the config names it)."""
        return variants.make(self.config.variant)

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
    sample_rng = np.random.default_rng([seed, 1])  # action sampling
    torch.set_num_threads(config.rollout_threads)  # switched to torch_threads for each update
    torch.use_deterministic_algorithms(True, warn_only=ranks.device.type == "cuda")

    engine_reward = "win" if config.reward == "win" else "points"
    num_envs = config.num_envs // ranks.world_size
    variant = variants.make(config.variant)
    engine = variant.make_game(config.episode, engine_reward, config.rules)
    partner = None
    if config.learn == "auction":
        partner = CheckedPolicy(
            make_policy(read_spec(config.card_play), engine, seed=seed + 1),
            f"card_play {config.card_play!r}",
        )
        venv = variant.bidding_vec(
            num_envs, partner, None, config.episode, engine_reward, **config.rules
        )
    else:
        venv = variant.vector_env(num_envs, None, config.episode, engine_reward, **config.rules)
        if config.learn == "play":
            partner = CheckedPolicy(
                make_policy(read_spec(config.bidding), engine, seed=seed + 1),
                f"bidding {config.bidding!r}",
            )
    game = venv.game
    model = build_model(config, game)
    if config.init_from:
        start_from(model, init_from_file(config.init_from))
    model.to(ranks.device)
    critic = None
    if config.critic in ("oracle", "solver"):
        critic = OracleCritic(
            game.obs_size, engine.hidden_size, config.hidden_sizes, config.activation, model.suits,
            solved=config.critic == "solver",
        )  # fmt: skip
        if config.init_from and isinstance(model, ActorCritic):  # the MLP of the same sizes
            critic.start_from(model)
        critic.to(ranks.device)
    optimizer = torch.optim.Adam(
        trained_parameters(model, critic), lr=config.learning_rate, eps=1e-5, fused=True
    )
    pool = [
        copy.deepcopy(model) for _ in range(config.pool_size)
    ]  # slot 0 holds the initial network
    for slot in pool:
        slot.requires_grad_(False)
    heuristic = None  # the warm-up's teacher, and the opponents' 'heuristic'
    heuristic_weight = dict(config.opponent_mix()).get("heuristic", 0)
    if (heuristic_weight > 0 and config.opponent_share > 0) or config.bidding_warmup_steps > 0:
        heuristic = make_policy(read_spec("heuristic"), engine, seed=seed)
    opponents = build_opponents(config, engine, heuristic, seed)
    teacher = build_teacher(config, engine, seed + 2 + len(opponents))
    keys = stream_keys(config.seed, config.num_envs)[
        ranks.rank * num_envs : (ranks.rank + 1) * num_envs
    ]
    obs, mask, player = start_games(venv, game.init(keys))
    roles = np.zeros((num_envs, game.num_players), np.int8)
    pool_added = 1
    assign_roles(roles, np.arange(num_envs), config, pool_added, np_rng)
    return Run(
        config, ranks, venv, model, optimizer, pool, [torch_forward(slot) for slot in pool],
        pool_added, heuristic, roles, obs, mask, player,
        np_rng, minibatch_rng, sample_rng, partner=partner, opponents=opponents, critic=critic,
        teacher=teacher,
    )  # fmt: skip


def trained_parameters(model, critic):
    """[torch.nn.Parameter]: what the optimizer steps: the network's, then the oracle critic's (if any)."""
    return [*model.parameters(), *(critic.parameters() if critic is not None else ())]


def build_model(config, game):
    """A fresh network for ``game``: the ``model`` class of the config (ghost_euchre.agents.networks), else the MLP."""
    network = {"obs_size": game.obs_size, "num_actions": game.num_actions}
    if config.model:
        network.update(model=config.model, model_options=dict(config.model_options))
    else:
        network.update(hidden_sizes=config.hidden_sizes, activation=config.activation)
    try:
        return build_network({**network, "canonical_suits": config.canonical_suits})
    except ValueError as error:
        raise ValueError(f"model: {error}") from None


def start_from(model, path):
    """Load the network of the policy file or checkpoint at ``path`` into ``model`` (init_from): the
    same network, or an MLP that deepens it (:func:`ghost_euchre.agents.networks.deepens`: more relu layers of its
    last width, each starting as the identity, so the run starts from the stored function)."""
    stored = load_model(path)
    if isinstance(model, ActorCritic) and deepens(model.config, stored.config):
        model.start_deeper(stored)
        return
    if stored.config != model.config:
        needed = bool(stored.config.get("canonical_suits"))
        hint = ""
        if needed != bool(model.config.get("canonical_suits")):
            hint = f" (set canonical_suits: {str(needed).lower()})"
        raise ValueError(
            f"init_from: {path!r} holds a network {stored.config}; this run's is {model.config}"
            f"{hint or ' (or the same with more relu layers of its last width)'}"
        )
    model.load_state_dict(stored.state_dict())


def start_games(venv, state):
    """Make ``state`` the games of ``venv``; returns their (obs, mask, player) as ``venv.reset`` does."""
    venv.state = state
    venv.mask = venv.game.legal_mask(state)
    player = state.player.astype(np.int64)
    return venv.game.observe(state, player), venv.mask, player
