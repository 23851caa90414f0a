"""``ppo:PATH``: the actor-critic network trained by ``train.py``, as a Policy.

One network plays every seat (observations are egocentric). Illegal actions get
the dtype's minimum logit, so their probability is exactly zero, and they are
left out of the entropy. A policy file holds ``model`` (the state dict) and
``model_config`` (the constructor's keyword arguments); full training
checkpoints hold the same two keys, so both load here with
``torch.load(weights_only=True)``.

Spec options: ``ppo:PATH`` plays the most likely legal action (greedy);
``ppo:PATH:sample=true`` samples from the masked distribution instead.
"""

import os
import pickle
import warnings

import numpy as np
import torch
from torch import nn

from ghost_euchre_env import classic, ghost
from ghost_euchre_env.cards import CARD_RANK, CARD_SUIT, CARDS, NUM_CARDS, NUM_SUITS, PARTNER_SUIT
from ghost_euchre_env.suits import COLOUR_KEEPING, permutation_tables

from .base import Policy
from .composite import LEARN_MODES
from .network_file import fit_error

ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh}
POLICY_FORMAT = "ghost-euchre-ppo-v1"


def _layer(inputs, outputs, std):
    layer = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(layer.weight, std)
    nn.init.zeros_(layer.bias)
    return layer


class CanonicalSuits(nn.Module):
    """Renames the suits of each observation of a variant into one canonical order (suit symmetry).

    variant: the engine module whose observations are renamed
    (``ghost_euchre_env.ghost`` or ``.classic``). Trump, or before trump is
    named the suit the own hand is strongest in (most cards, then highest
    ranks), becomes suit 0 (clubs), its same-colour suit 3, and of the other
    two the stronger in hand suit 1 (ties: the lower suit). Equivalent positions
    in differently named suits then look the same to the network.
    forward(obs float32[B, OBS_SIZE]) -> (renamed obs float32[B, OBS_SIZE],
    int64[B, NUM_ACTIONS]: the renamed id of each original action, to gather logits back).
    """

    obs_index: torch.Tensor  # buffers (registered in __init__), declared for the type checker
    action_index: torch.Tensor
    perm_id: torch.Tensor
    other_pair: torch.Tensor
    strength_weight: torch.Tensor

    TRUMP_FIRST = 4096.0  # added to trump's strength: more than any hand's (at most 6 * 96)

    def __init__(self, variant=ghost):
        super().__init__()
        obs_index, action_index = permutation_tables(COLOUR_KEEPING, variant)
        other_pair = [
            [s for s in range(NUM_SUITS) if s not in (t, PARTNER_SUIT[t])] for t in range(NUM_SUITS)
        ]
        # [top suit, b] -> the row of COLOUR_KEEPING renaming top to 0 and other_pair[top][b] to 1
        perm_id = np.zeros((NUM_SUITS, 2), np.int64)
        for k, perm in enumerate(COLOUR_KEEPING):
            top, second = list(perm).index(0), list(perm).index(1)
            perm_id[top, other_pair[top].index(second)] = k
        # [card, suit]: a held card adds 64 to its suit's strength plus 2**rank (count first, then ranks)
        strength_weight = np.zeros((NUM_CARDS, NUM_SUITS), np.float32)
        strength_weight[CARDS, CARD_SUIT] = 64.0 + 2.0**CARD_RANK
        self.register_buffer("obs_index", torch.from_numpy(obs_index), persistent=False)
        self.register_buffer("action_index", torch.from_numpy(action_index), persistent=False)
        self.register_buffer("perm_id", torch.from_numpy(perm_id), persistent=False)
        self.register_buffer("other_pair", torch.tensor(other_pair), persistent=False)
        self.register_buffer("strength_weight", torch.from_numpy(strength_weight), persistent=False)
        self.hand = slice(*variant.OBS_OFFSETS["hand"])
        self.trump = slice(*variant.OBS_OFFSETS["trump"])

    def forward(self, obs):
        strength = obs[:, self.hand] @ self.strength_weight  # float32[B, 4], exact integers
        top = (strength + self.TRUMP_FIRST * obs[:, self.trump]).argmax(1)  # ties: the lower suit
        pair_strength = strength.gather(1, self.other_pair[top])
        k = self.perm_id[top, (pair_strength[:, 0] < pair_strength[:, 1]).long()]
        return obs.gather(1, self.obs_index[k]), self.action_index[k]


# a network's (obs_size, num_actions) -> the variant module whose suits CanonicalSuits renames
CANONICAL_VARIANTS = {(v.OBS_SIZE, v.NUM_ACTIONS): v for v in (ghost, classic)}
assert len(CANONICAL_VARIANTS) == 2, "the variants' observation and action sizes tell them apart"


class ActorCritic(nn.Module):
    """MLP trunk shared by a policy head (logits over actions) and a value head.

    obs_size, num_actions: the engine's; hidden_sizes: widths of the trunk's
    layers; activation: "relu" or "tanh"; canonical_suits: the network sees
    every position in a canonical suit order (:class:`CanonicalSuits` of the
    Ghost Hand or classic variant, told apart by obs_size and num_actions; its
    logits are mapped back to the actual actions). Orthogonal initialisation
    (gain sqrt(2) in the trunk, 0.01 for the logits, 1 for the value), as in CleanRL.
    """

    def __init__(
        self,
        obs_size,
        num_actions,
        hidden_sizes=(256, 256),
        activation="relu",
        canonical_suits=False,
    ):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
        if not hidden_sizes or any(not isinstance(h, int) or h < 1 for h in hidden_sizes):
            raise ValueError(
                f"hidden_sizes must be a non-empty list of positive ints, got {hidden_sizes!r}"
            )
        if canonical_suits and (obs_size, num_actions) not in CANONICAL_VARIANTS:
            raise ValueError(
                f"canonical_suits works on Ghost Hand observations ({ghost.OBS_SIZE} values, "
                f"{ghost.NUM_ACTIONS} actions) or classic Euchre ones ({classic.OBS_SIZE} values, "
                f"{classic.NUM_ACTIONS} actions), got obs_size={obs_size}, num_actions={num_actions}"
            )
        self.config = {
            "obs_size": int(obs_size),
            "num_actions": int(num_actions),
            "hidden_sizes": [int(h) for h in hidden_sizes],
            "activation": activation,
        }
        if canonical_suits:  # older files have no such key: same network as before
            self.config["canonical_suits"] = True
        self.suits = (
            CanonicalSuits(CANONICAL_VARIANTS[obs_size, num_actions]) if canonical_suits else None
        )
        layers, width = [], obs_size
        for size in hidden_sizes:
            layers += [_layer(width, size, np.sqrt(2)), ACTIVATIONS[activation]()]
            width = size
        self.trunk = nn.Sequential(*layers)
        self.actor = _layer(width, num_actions, 0.01)
        self.critic = _layer(width, 1, 1.0)

    def forward(self, obs):
        """obs float32[B, obs_size] -> (logits float32[B, num_actions], value float32[B])."""
        return self.from_seen(*self.see(obs))

    def see(self, obs):
        """What the trunk sees of obs float32[B, obs_size]: (seen float32[B, obs_size], action_index).

        With ``canonical_suits`` ``seen`` is the observation in the canonical suit
        order and action_index int64[B, num_actions] the column of the trunk's
        logits that holds each actual action's; without, ``seen`` is ``obs`` and
        action_index None. No parameters are involved: a batch can be seen once
        and used for several passes.
        """
        return self.suits(obs) if self.suits is not None else (obs, None)

    def from_seen(self, seen, action_index):
        """(logits float32[B, num_actions] of the actual actions, value float32[B]) from :meth:`see`'s output."""
        logits, value = self.heads(seen)
        return actual_actions(logits, action_index), value

    def heads(self, seen):
        """The trunk and both heads on ``seen`` (float32[B, obs_size], from :meth:`see`) -> (logits
        float32[B, num_actions] in the trunk's action order, value float32[B])."""
        hidden = self.trunk(seen)
        return self.actor(hidden), self.critic(hidden).squeeze(-1)

    def value(self, obs):
        """float32[B]: the value head alone."""
        return self.critic(self.trunk(self.see(obs)[0])).squeeze(-1)


def pool_logits(networks, members, obs):
    """float32[B, A]: row i is the logits of ``networks[members[i]]`` (members int[B]) for obs[i] (float32[B, O]).

    The networks share one architecture (snapshots of one network), so the batch
    is seen once (:meth:`ActorCritic.see`) and each network runs on its own rows only.
    """
    seen, action_index = networks[0].see(obs)
    logits = obs.new_empty((len(obs), networks[0].config["num_actions"]))
    for member in np.unique(members):
        rows = torch.from_numpy(np.flatnonzero(members == member)).to(obs.device)
        logits[rows] = networks[member].heads(seen[rows])[0]
    return actual_actions(logits, action_index)


def seen_rows(seen, rows):
    """The rows ``rows`` (int64[M]) of a batch as :meth:`ActorCritic.see` returned it: (seen, action_index)."""
    observations, action_index = seen
    return observations[rows], None if action_index is None else action_index[rows]


def actual_actions(logits, action_index):
    """The trunk's logits float32[B, A] in the actual actions' order (action_index from :meth:`ActorCritic.see`)."""
    return logits if action_index is None else logits.gather(1, action_index)


def mask_logits(logits, mask):
    """Logits with illegal actions (mask False) set to the dtype's minimum (probability 0)."""
    return logits.masked_fill(~mask, torch.finfo(logits.dtype).min)


def masked_log_probs(logits, mask):
    """float[B, A] log-probabilities of the masked distribution (illegal entries: huge negative)."""
    return torch.log_softmax(mask_logits(logits, mask), dim=-1)


def masked_entropy(log_probs, mask):
    """float[B]: entropy over the legal actions only (illegal entries contribute nothing)."""
    return -torch.where(mask, log_probs.exp() * log_probs, 0.0).sum(-1)


def sample_actions(log_probs, generator=None):
    """int64[B]: one action per row drawn from exp(log_probs); zero-probability entries are never drawn."""
    return torch.multinomial(log_probs.exp(), 1, generator=generator).squeeze(-1)


def policy_payload(model, learn="all", partner=None):
    """The contents of a policy file, for ``torch.save``: the network (state dict and config) and its role.

    learn: the decisions the network was trained to make ("all", "auction" or
    "play"); partner: the policy spec that makes the others (the card play for
    "auction", the auction for "play"; None for "all").
    """
    return {
        "format": POLICY_FORMAT,
        "model": model.state_dict(),
        "model_config": dict(model.config),
        "learn": learn,
        "partner": partner,
    }


def learned_role(payload):
    """(learn, partner spec) of a policy file or train.py checkpoint; ("all", None) for older files."""
    if "learn" in payload:
        return payload["learn"], payload.get("partner")
    config = payload.get("config") or {}
    learn = config.get("learn", "all")
    return learn, {"auction": config.get("card_play"), "play": config.get("bidding")}.get(learn)


def read_payload(path):
    """The dict saved in a policy file or training checkpoint (no arbitrary unpickling)."""
    try:
        with warnings.catch_warnings():  # torch warns about pickle protocols of foreign files
            warnings.simplefilter("ignore", UserWarning)
            payload = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise ValueError(f"PPO checkpoint {path!r} does not exist") from None
    except pickle.UnpicklingError:  # torch's message is many lines of advice about weights_only
        raise ValueError(
            f"{path!r} is not a PPO checkpoint of train.py: it holds objects other than tensors "
            "and plain containers, which are not loaded (torch.load(weights_only=True))"
        ) from None
    except Exception as error:  # noqa: BLE001 (any failure to read: corrupt file, not a torch file)
        reason = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise ValueError(
            f"{path!r} is not a PPO checkpoint of train.py: torch.load cannot read it "
            f"({type(error).__name__}{': ' + reason if reason else ''})"
        ) from None
    if not isinstance(payload, dict) or "model" not in payload or "model_config" not in payload:
        raise ValueError(
            f"{path!r} is not a PPO checkpoint of train.py (expected keys 'model' and 'model_config')"
        )
    return payload


def load_model(path, payload=None):
    """The ActorCritic stored in a policy file or training checkpoint (``payload``: its contents, if read)."""
    payload = read_payload(path) if payload is None else payload
    try:
        model = ActorCritic(**payload["model_config"])
        model.load_state_dict(payload["model"])
    except (TypeError, RuntimeError) as error:  # config or weights that do not fit this network
        raise ValueError(
            f"PPO checkpoint {path!r} does not fit agents.ppo.ActorCritic: {error}"
        ) from None
    model.eval()
    return model


class PPOPolicy(Policy):
    """A trained ActorCritic playing greedily (default) or by sampling (``sample=True``).

    act(obs float32[N, obs_size], mask bool[N, A]) -> int64[N] legal actions;
    batched, no gradient. Sampling uses a torch generator seeded from ``seed``.
    """

    name = "ppo"

    def __init__(self, game, model, seed=None, sample=False, name=None):
        super().__init__(game, seed)
        reason = fit_error(model.config["obs_size"], model.config["num_actions"], game)
        if reason:
            raise ValueError(reason)
        if not isinstance(sample, (bool, np.bool_)):
            raise ValueError(f"sample must be true or false, got {sample!r}")
        self.model = model
        self.sample = bool(sample)
        self.generator = torch.Generator().manual_seed(int(self.rng.integers(1 << 62)))
        if name is not None:
            self.name = name

    @torch.no_grad()
    def act(self, obs, mask):
        mask = torch.from_numpy(np.asarray(mask, dtype=bool))
        logits, _ = self.model(torch.from_numpy(np.asarray(obs, dtype=np.float32)))
        if self.sample:
            return sample_actions(masked_log_probs(logits, mask), self.generator).numpy()
        return mask_logits(logits, mask).argmax(-1).numpy()


def load_policy(path, game, seed=None, sample=False):
    """The network of the train.py checkpoint or policy file at ``path`` as a PPOPolicy, and its role.

    Returns (PPOPolicy, learn, partner spec): a network trained with ``learn:
    auction`` (or ``play``) makes only those decisions, and ``partner`` is the
    spec recorded with it that makes the others (:func:`agents.specs.make_policy`
    pairs them into a full player); learn 'all' has partner None.
    """
    payload = read_payload(path)
    policy = PPOPolicy(game, load_model(path, payload), seed=seed, sample=sample)
    policy.name = f"ppo:{os.path.basename(path)}" + (":sample" if policy.sample else "")
    learn, partner = learned_role(payload)
    if learn != "all" and (learn not in LEARN_MODES or not isinstance(partner, str)):
        raise ValueError(
            f"PPO checkpoint {path!r}: learn={learn!r} with partner spec {partner!r}; expected "
            f"learn in {list(LEARN_MODES)} and the spec of the policy making the other decisions"
        )
    return policy, learn, partner if learn != "all" else None
