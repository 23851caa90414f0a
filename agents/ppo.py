"""``ppo:PATH``: the actor-critic network trained by ``ghost-euchre-train``, as a Policy.

One network plays every seat (observations are egocentric). Illegal actions get
the dtype's minimum logit, so their probability is exactly zero, and they are
left out of the entropy. A policy file holds ``model`` (the state dict) and
``model_config`` (the constructor's keyword arguments: the MLP's, or a plugged
network class and its options, :mod:`ghost_euchre.agents.networks`); full training
checkpoints hold the same two keys, so both load here with
``torch.load(weights_only=True)``.

Spec options: ``ppo:PATH`` plays the most likely legal action (greedy);
``ppo:PATH:sample=true`` samples from the masked distribution instead.
"""

import os
import pickle
import re
import warnings

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from .base import Policy
from .composite import LEARN_MODES
from .network_file import fit_error
from .networks import (
    PluggedNetwork,
    SuitedNetwork,
    actual_actions,
    canonical_suits_for,
    fit_weights,
    layer,
)
from .streams import draws

ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh}
ACTIVATION_FUNCTIONS = {
    name: getattr(torch, name) for name in ACTIVATIONS
}  # the same, as functions
POLICY_FORMAT = "ghost-euchre-ppo-v1"


def mlp(inputs, hidden_sizes, activation):
    """(nn.Sequential of a layer and an activation per width of ``hidden_sizes``, its output width)."""
    layers, width = [], inputs
    for size in hidden_sizes:
        layers += [layer(width, size, np.sqrt(2)), ACTIVATIONS[activation]()]
        width = size
    return nn.Sequential(*layers), width


def linear_layers(trunk):
    """[nn.Linear]: the layers of an :func:`mlp` trunk that hold weights, in order."""
    return [module for module in trunk if isinstance(module, nn.Linear)]


def deepens(config, stored_config):
    """Whether MLP ``config`` is ``stored_config`` (both ``ActorCritic.config``) with more hidden
    layers of the stored last width, relu: a network :meth:`ActorCritic.start_deeper` can start."""
    if not isinstance(stored_config, dict) or "hidden_sizes" not in stored_config:
        return False
    sizes, stored_sizes = config["hidden_sizes"], stored_config["hidden_sizes"]
    extra = sizes[len(stored_sizes) :]
    return (
        {**stored_config, "hidden_sizes": sizes} == config
        and config["activation"] == "relu"
        and sizes[: len(stored_sizes)] == stored_sizes
        and bool(extra)
        and all(size == stored_sizes[-1] for size in extra)
    )


class ActorCritic(SuitedNetwork):
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
        self.config = {
            "obs_size": int(obs_size),
            "num_actions": int(num_actions),
            "hidden_sizes": [int(h) for h in hidden_sizes],
            "activation": activation,
        }
        if canonical_suits:  # older files have no such key: same network as before
            self.config["canonical_suits"] = True
        self.suits = canonical_suits_for(obs_size, num_actions) if canonical_suits else None
        self.trunk, width = mlp(obs_size, hidden_sizes, activation)
        # its Linear layers, for act_logits (a plain list: not registered twice)
        self.trunk_layers = linear_layers(self.trunk)
        self.actor = layer(width, num_actions, 0.01)
        self.critic = layer(width, 1, 1.0)

    def heads(self, seen):
        """The trunk and both heads on ``seen`` (float32[B, obs_size], from :meth:`see`) -> (logits
        float32[B, num_actions] in the trunk's action order, value float32[B])."""
        hidden = self.trunk(seen)
        return self.actor(hidden), self.critic(hidden).squeeze(-1)

    def start_deeper(self, stored):
        """Start as ``stored``, an ActorCritic that this one deepens (:func:`deepens`).

        The stored layers and heads are copied; each extra layer starts as the identity with zero
        bias, exact because a relu layer's input is never negative: every logit and value is the
        stored network's. ValueError, naming both configs, for any other pair.
        """
        stored_config = getattr(stored, "config", None)
        if not (isinstance(stored, ActorCritic) and deepens(self.config, stored_config)):
            raise ValueError(
                f"cannot start {self.config} deeper from {stored_config}: needs the same "
                "network (relu) with more hidden layers of its last width"
            )
        with torch.no_grad():
            for linear in self.trunk_layers[len(stored.trunk_layers) :]:
                linear.weight.copy_(torch.eye(linear.out_features))
                linear.bias.zero_()
        self.load_state_dict({**self.state_dict(), **stored.state_dict()})  # the heads: same names

    def act_logits(self, obs):
        """forward's logits float32[B, num_actions] alone, computed with torch's functions rather than
        by calling each layer (a module call costs microseconds: most of a single decision's time)."""
        hidden, action_index = self.see(obs)
        activation = ACTIVATION_FUNCTIONS[self.config["activation"]]
        for linear in self.trunk_layers:
            hidden = activation(F.linear(hidden, linear.weight, linear.bias))
        return actual_actions(F.linear(hidden, self.actor.weight, self.actor.bias), action_index)


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
    """(learn, partner spec) of a policy file or training checkpoint; ("all", None) for older files."""
    if "learn" in payload:
        return payload["learn"], payload.get("partner")
    config = payload.get("config") or {}
    learn = config.get("learn", "all")
    return learn, {"auction": config.get("card_play"), "play": config.get("bidding")}.get(learn)


def load_file(path, what="policy file or training checkpoint"):
    """The object ``torch.save`` wrote at ``path``, read with ``weights_only=True`` (tensors and
    plain containers only: nothing else in a file is unpickled).

    ValueError, one line naming ``path`` and ``what`` the file should be, when it
    cannot be read so: missing, a directory, not a file torch.save wrote, or one
    holding other objects. (torch's own text is many lines and advises
    ``weights_only=False``, which runs any code a file holds: never for a file from
    elsewhere.) For every reader of policy files and checkpoints. ``path`` may also be an open
    binary file (named in messages by its ``name``), read from where it stands.
    """
    name = os.fspath(getattr(path, "name", path))
    try:
        with warnings.catch_warnings():  # torch warns about pickle protocols of foreign files
            warnings.simplefilter("ignore", UserWarning)
            return torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise ValueError(f"{what} {name!r} does not exist") from None
    except IsADirectoryError:
        raise ValueError(f"{what} {name!r} is a directory, not a file") from None
    except OSError as error:
        raise ValueError(f"cannot read {what} {name!r}: {error.strerror}") from None
    except pickle.UnpicklingError as error:
        raise ValueError(f"{name!r} is not a {what}: {_unpickling(error)}") from None
    except Exception as error:  # noqa: BLE001 (any failure to read: corrupt file, not a torch file)
        reason = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise ValueError(
            f"{name!r} is not a {what}: torch.load cannot read it "
            f"({type(error).__name__}{': ' + reason if reason else ''})"
        ) from None


def _unpickling(error):
    """What torch's weights-only unpickler refused, in a few words (its message: many lines)."""
    text = " ".join(str(error).split())
    found = re.search(r"Unsupported global: GLOBAL (\S+)", text)
    if found:
        return (
            f"it holds objects other than tensors and plain containers ({found.group(1)}), "
            "which are not loaded (torch.load(weights_only=True))"
        )
    found = re.search(r"WeightsUnpickler error: (.+?)\.? Check the documentation", text)
    detail = f" ({found.group(1).strip()})" if found else ""
    return f"not a file torch.save wrote, or it holds objects other than tensors{detail}"


def read_payload(path):
    """The dict saved in a policy file or training checkpoint (:func:`load_file`: no arbitrary unpickling)."""
    payload = load_file(path)
    if not isinstance(payload, dict) or "model" not in payload or "model_config" not in payload:
        raise ValueError(
            f"{path!r} is not a policy file or training checkpoint (expected keys 'model' and "
            "'model_config')"
        )
    return payload


def build_network(model_config):
    """A fresh network from a ``model_config``: a :class:`PluggedNetwork` when it names a ``model``
    class, else the MLP :class:`ActorCritic`."""
    if "model" in model_config:
        return PluggedNetwork(**model_config)
    return ActorCritic(**model_config)


def load_model(path, payload=None):
    """The network stored in a policy file or training checkpoint (``payload``: its contents, if read)."""
    payload = read_payload(path) if payload is None else payload
    config = payload["model_config"]
    if not isinstance(config, dict):
        raise ValueError(f"PPO checkpoint {path!r}: model_config is not a dict, got {config!r}")
    try:
        model = build_network(config)
    except TypeError as error:  # a config that is no network's
        raise ValueError(f"PPO checkpoint {path!r}: model_config {config!r}: {error}") from None
    except ValueError as error:
        raise ValueError(f"PPO checkpoint {path!r}: {error}") from None
    fit_weights(model, payload["model"], f"PPO checkpoint {path!r}")
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
    def act(self, obs, mask, keys=None):
        """keys: uint64[N] decision keys: sampling draws one number per row from them
        (:mod:`ghost_euchre.agents.streams`), else from the torch generator."""
        mask = torch.from_numpy(np.asarray(mask, dtype=bool))
        logits = self.model.act_logits(torch.from_numpy(np.asarray(obs, dtype=np.float32)))
        if not self.sample:
            return mask_logits(logits, mask).argmax(-1).numpy()
        log_probs = masked_log_probs(logits, mask)
        if keys is None:
            return sample_actions(log_probs, self.generator).numpy()
        cdf = np.cumsum(log_probs.exp().double().numpy(), axis=1)
        draw = draws(self, keys).random(len(cdf)) * cdf[:, -1]
        chosen = (cdf <= draw[:, None]).sum(axis=1)  # the first action whose cdf passes the draw
        legal = mask.numpy()
        last_legal = legal.shape[1] - 1 - legal[:, ::-1].argmax(axis=1)
        return np.minimum(chosen, last_legal).astype(np.int64)


def load_policy(path, game, seed=None, sample=False):
    """The network of the training checkpoint or policy file at ``path`` as a PPOPolicy, and its role
    (:func:`policy_from` of what the file holds)."""
    return policy_from(path, read_payload(path), game, seed, sample)


def policy_from(path, payload, game, seed=None, sample=False):
    """The network of ``payload``, the contents of the file at ``path`` (read by the caller: the
    file is not opened), as a PPOPolicy, and its role.

    Returns (PPOPolicy, learn, partner spec): a network trained with ``learn:
    auction`` (or ``play``) makes only those decisions, and ``partner`` is the
    spec recorded with it that makes the others (:func:`ghost_euchre.agents.specs.make_policy`
    pairs them into a full player); learn 'all' has partner None.
    """
    policy = PPOPolicy(game, load_model(path, payload), seed=seed, sample=sample)
    policy.name = f"ppo:{os.path.basename(path)}" + (":sample" if policy.sample else "")
    learn, partner = learned_role(payload)
    if learn != "all" and (learn not in LEARN_MODES or not isinstance(partner, str)):
        raise ValueError(
            f"PPO checkpoint {path!r}: learn={learn!r} with partner spec {partner!r}; expected "
            f"learn in {list(LEARN_MODES)} and the spec of the policy making the other decisions"
        )
    return policy, learn, partner if learn != "all" else None
