"""The networks ``ppo:PATH`` plays and the trainer trains: the suit renaming every network can sit
behind, and the plug-in interface for a network class of your own.

**Plug-in interface.** A network class named ``package.module:ClassName`` (the
trainer's ``model`` field, with ``model_options``) is a ``torch.nn.Module``
built as ``ClassName(obs_size, num_actions, **model_options)`` (the variant's
observation size and action count: Ghost Hand 390 and 34, classic 464 and 31;
the layout is ``ghost_euchre_env.ghost.OBS_LAYOUT``, resp. ``classic``'s) whose
``forward(obs float32[B, obs_size])`` returns ``(logits float32[B, num_actions],
value float32[B])``. It sees raw observations; :class:`PluggedNetwork` puts it
behind the canonical suit renaming (``canonical_suits``), maps its logits back,
and records ``{"model": "package.module:ClassName", "model_options": {...}}``
in the network's config, which policy files and checkpoints store: ``ppo:PATH``
rebuilds it anywhere its module can be imported. ``ghost_euchre.agents.cardset:CardSetNet`` is
the worked example.
"""

import inspect
import os
import pickle
import re
import warnings

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from ghost_euchre_env import ghost
from ghost_euchre_env.cards import NUM_CARDS

from .base import import_hint
from .checked import PlugInError, PolicyRaised, find_module, raised
from .forward import (
    Forward,
    canonical_variant,
    check_weights,
    masked_argmax,
    mlp_shapes,
    suit_tables,
)
from .network_file import POLICY_FORMAT, checked_payload, file_error

_CLASS_SPEC = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*"
)


def layer(inputs, outputs, std):
    """nn.Linear(inputs, outputs) with orthogonal weights (gain ``std``) and zero bias, as in CleanRL."""
    layer = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(layer.weight, std)
    nn.init.zeros_(layer.bias)
    return layer


class CanonicalSuits(nn.Module):
    """Renames the suits of each observation of a variant into one canonical order (suit symmetry).

    variant: the engine module whose observations are renamed
    (``ghost_euchre_env.ghost`` or ``.classic``); the renaming is
    :func:`ghost_euchre.agents.forward.suit_tables`' (trump, or before trump the
    suit the own hand is strongest in, becomes suit 0), as torch buffers.
    forward(obs float32[B, OBS_SIZE]) -> (renamed obs float32[B, OBS_SIZE],
    int64[B, NUM_ACTIONS]: the renamed id of each original action, to gather logits back).
    """

    obs_index: torch.Tensor  # buffers (registered in __init__), declared for the type checker
    action_index: torch.Tensor
    card_index: torch.Tensor
    perm_id: torch.Tensor
    other_pair: torch.Tensor
    strength_weight: torch.Tensor

    def __init__(self, variant=ghost):
        super().__init__()
        tables = suit_tables(variant)
        for name, table in tables._asdict().items():
            self.register_buffer(name, torch.from_numpy(table), persistent=False)
        hand_start, hand_stop = variant.OBS_OFFSETS["hand"]
        card_index = (
            tables.obs_index[:, hand_start:hand_stop] - hand_start
        )  # the hand block's, by card
        self.register_buffer("card_index", torch.from_numpy(card_index), persistent=False)

    def renaming(self, obs):
        """int64[B]: which renaming (row of ``COLOUR_KEEPING``) each observation float32[B, OBS_SIZE] gets."""
        strength = obs @ self.strength_weight  # float32[B, 4]
        top = strength.argmax(1)  # ties: the lower suit
        pair_strength = strength.gather(1, self.other_pair[top])  # trump is never in the other pair
        return self.perm_id[top, (pair_strength[:, 0] < pair_strength[:, 1]).long()]

    def forward(self, obs):
        k = self.renaming(obs)
        return obs.gather(1, self.obs_index[k]), self.action_index[k]

    def rename_cards(self, cards, obs):
        """cards float32[B, 24 * K] (K blocks indexed by card) with the suits renamed as ``obs``'s are."""
        blocks = cards.shape[1] // NUM_CARDS
        index = self.card_index[self.renaming(obs)]  # int64[B, 24]
        index = index[:, None, :] + NUM_CARDS * torch.arange(blocks, device=cards.device)[:, None]
        return cards.gather(1, index.reshape(len(cards), -1))


def canonical_suits_for(obs_size, num_actions):
    """The :class:`CanonicalSuits` of the variant with these sizes; ValueError for other sizes."""
    return CanonicalSuits(canonical_variant(obs_size, num_actions))


class SuitedNetwork(nn.Module):
    """A network behind the optional suit renaming: subclasses set ``suits`` (a :class:`CanonicalSuits`
    or None) and ``config``, and define ``heads(seen) -> (logits, value)``."""

    suits: CanonicalSuits | None
    config: dict

    def forward(self, obs):
        """obs float32[B, obs_size] -> (logits float32[B, num_actions], value float32[B])."""
        return self.from_seen(*self.see(obs))

    def see(self, obs):
        """What the heads see of obs float32[B, obs_size]: (seen float32[B, obs_size], action_index).

        With ``canonical_suits`` ``seen`` is the observation in the canonical suit
        order and action_index int64[B, num_actions] the column of the heads'
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
        """(logits float32[B, num_actions] in the seen action order, value float32[B]) of ``seen``."""
        raise NotImplementedError

    def value(self, obs):
        """float32[B]: the value alone."""
        return self.heads(self.see(obs)[0])[1]

    def act_logits(self, obs):
        """float32[B, num_actions]: forward's logits alone, what a policy acts on (a subclass may skip the
        value head)."""
        return self(obs)[0]


def seen_rows(seen, rows):
    """The rows ``rows`` (int64[M]) of a batch as :meth:`ActorCritic.see` returned it: (seen, action_index)."""
    observations, action_index = seen
    return observations[rows], None if action_index is None else action_index[rows]


def actual_actions(logits, action_index):
    """The trunk's logits float32[B, A] in the actual actions' order (action_index from :meth:`ActorCritic.see`)."""
    return logits if action_index is None else logits.gather(1, action_index)


def network_class(spec):
    """The class named ``spec`` ('package.module:ClassName'); ValueError (one line) when it cannot be
    imported or is not a torch.nn.Module subclass."""
    if not isinstance(spec, str) or not _CLASS_SPEC.fullmatch(spec):
        raise ValueError(f"expected a network class as package.module:ClassName, got {spec!r}")
    module_name, _, name = spec.partition(":")
    module = find_module(module_name, f"network class {spec!r}")
    if module is None:
        raise ValueError(f"{spec!r}: no module named {module_name!r} ({import_hint(module_name)})")
    found = getattr(module, name, None)
    if found is None:
        raise ValueError(f"{spec!r}: module {module_name!r} has no {name!r}")
    if not (inspect.isclass(found) and issubclass(found, nn.Module)):
        raise ValueError(f"{spec!r} is not a class deriving from torch.nn.Module")
    return found


class PluggedNetwork(SuitedNetwork):
    """A network class of the plug-in interface (module docstring) behind the suit renaming.

    The class's outputs are checked on every call (:meth:`heads`), first on a
    batch of two zero observations when it is built (ValueError then).
    """

    def __init__(self, obs_size, num_actions, model, model_options=None, canonical_suits=False):
        super().__init__()
        options = dict(model_options or {})
        self.config = {
            "obs_size": int(obs_size),
            "num_actions": int(num_actions),
            "model": model,
            "model_options": options,
        }
        if canonical_suits:
            self.config["canonical_suits"] = True
        self.suits = canonical_suits_for(obs_size, num_actions) if canonical_suits else None
        cls = network_class(model)
        try:
            self.net = cls(int(obs_size), int(num_actions), **options)
        except Exception as error:  # noqa: BLE001 (any failure of the user's constructor: one line)
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            raise ValueError(
                f"{model!r}: cannot build it as {cls.__name__}(obs_size, num_actions"
                f"{''.join(f', {k}=...' for k in options)}): {type(error).__name__}: {first}"
            ) from None
        mode = self.net.training
        self.net.eval()
        try:
            with torch.no_grad():
                self.heads(torch.zeros(2, self.config["obs_size"]))
        except (PlugInError, PolicyRaised) as error:
            line = str(error).removeprefix("model ").removesuffix(" (its traceback follows)")
            raise ValueError(line) from None
        finally:
            self.net.train(mode)

    def heads(self, seen):
        """The class's (logits, value) of ``seen``, checked on every call (cheaply: types, shapes,
        finite values): :class:`ghost_euchre.agents.checked.PlugInError` or :class:`~ghost_euchre.agents.checked.PolicyRaised`
        naming the model otherwise."""
        model, batch = f"model {self.config['model']!r}", len(seen)
        try:
            out = self.net(seen)
        except Exception as error:  # the user's forward: named, its traceback kept
            raise raised(
                model, error, f"in forward(obs float32[{batch}, {seen.shape[1]}])"
            ) from error
        problem = output_problem(out, batch, self.config["num_actions"])
        if problem:
            mode = "training" if self.net.training else "eval"
            raise PlugInError(
                f"{model}: forward(obs float32[B, {self.config['obs_size']}]) must return (logits "
                f"float32[B, {self.config['num_actions']}], value float32[B]), finite; for B={batch} "
                f"it returned {problem} (in {mode} mode)"
            )
        return out


def output_problem(out, batch, num_actions):
    """What is wrong with a network's ``out`` for a batch of ``batch`` (a short phrase), or '' if it is
    (logits float32[batch, num_actions], value float32[batch]) of finite values."""
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        kinds = f" of {[type(t).__name__ for t in out]}" if isinstance(out, (tuple, list)) else ""
        return f"{type(out).__name__}{kinds}"
    if not all(isinstance(t, torch.Tensor) for t in out):
        return f"{type(out).__name__} of {[type(t).__name__ for t in out]}"
    shapes = [tuple(t.shape) for t in out]
    if shapes != [(batch, num_actions), (batch,)] or any(t.dtype != torch.float32 for t in out):
        return f"shapes {shapes} of {[str(t.dtype).removeprefix('torch.') for t in out]}"
    for name, tensor in zip(("logits", "value"), out, strict=True):
        finite = torch.isfinite(tensor)
        if not bool(finite.all()):
            bad = tensor[~finite]
            kinds = sorted(
                {"NaN" if v != v else ("inf" if v > 0 else "-inf") for v in bad.tolist()}
            )
            return f"{name} holding {' and '.join(kinds)} ({len(bad)} of {tensor.numel()} values)"
    return ""


def fit_weights(module, weights, what):
    """``module.load_state_dict(weights)``, or ValueError (one line: the missing, unexpected and
    mis-shaped entries, the first few of each) naming ``what`` (:func:`~ghost_euchre.agents.forward.check_weights`)."""
    own = {k: tuple(v.shape) for k, v in module.state_dict().items()}
    check_weights(own, weights, what, torch.Tensor)
    try:
        module.load_state_dict(weights)
    except RuntimeError as error:  # anything the checks above missed: its first line
        raise ValueError(f"{what} does not fit the network: {str(error).splitlines()[0]}") from None


ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh}
ACTIVATION_FUNCTIONS = {
    name: getattr(torch, name) for name in ACTIVATIONS
}  # the same, as functions


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
        sizes = {"obs_size": int(obs_size), "num_actions": int(num_actions)}
        mlp_shapes(
            {**sizes, "hidden_sizes": hidden_sizes, "activation": activation}
        )  # or ValueError
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


def mask_logits(logits, mask):
    """Logits with illegal actions (mask False) set to the dtype's minimum (probability 0)."""
    return logits.masked_fill(~mask, torch.finfo(logits.dtype).min)


def masked_log_probs(logits, mask):
    """float[B, A] log-probabilities of the masked distribution (illegal entries: huge negative)."""
    return torch.log_softmax(mask_logits(logits, mask), dim=-1)


def masked_entropy(log_probs, mask):
    """float[B]: entropy over the legal actions only (illegal entries contribute nothing)."""
    return -torch.where(mask, log_probs.exp() * log_probs, 0.0).sum(-1)


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
    except OSError as error:
        raise file_error(error, name, what) from None
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
    """The dict saved in a policy file or training checkpoint, as torch tensors (:func:`load_file`:
    no arbitrary unpickling)."""
    return checked_payload(load_file(path), os.fspath(path))


def numpy_payload(path):
    """:func:`read_payload` with the network's weights as NumPy arrays (what
    :class:`~ghost_euchre.agents.forward.Forward` plays): for a file only torch reads."""
    payload = read_payload(path)
    weights = payload["model"]
    if isinstance(weights, dict):
        payload["model"] = {
            k: v.numpy() if isinstance(v, torch.Tensor) else v for k, v in weights.items()
        }
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


class TorchForward:
    """A torch network as :class:`ghost_euchre.agents.ppo.PPOPolicy` plays it (``config``,
    ``logits``, ``greedy``): a network class of the user's, which only torch can run."""

    def __init__(self, model):
        self.model, self.config = model, model.config

    def logits(self, obs):
        """float32[N, num_actions] of obs float32[N, obs_size] (no gradient)."""
        with torch.no_grad():
            return self.model.act_logits(torch.from_numpy(np.asarray(obs, np.float32))).numpy()

    def greedy(self, obs, mask):
        """int64[N]: each row's legal action of highest logit (:func:`~ghost_euchre.agents.forward.masked_argmax`)."""
        actions = np.empty(len(mask), np.int64)
        masked_argmax(self.logits(obs), np.ascontiguousarray(mask, bool), actions)
        return actions


def torch_forward(model):
    """A network as :class:`~ghost_euchre.agents.ppo.PPOPolicy` plays it: the built-in MLP
    (:class:`ActorCritic`) by its weights without torch (:class:`Forward`, a copy of them now),
    any other by torch (:class:`TorchForward`)."""
    if isinstance(model, ActorCritic):
        weights = {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}
        return Forward(model.config, weights)
    return TorchForward(model)
