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
import re

import numpy as np
import torch
from torch import nn

from ghost_euchre_env import classic, ghost
from ghost_euchre_env.cards import CARD_RANK, CARD_SUIT, CARDS, NUM_CARDS, NUM_SUITS, PARTNER_SUIT
from ghost_euchre_env.suits import COLOUR_KEEPING, permutation_tables

from .base import import_hint
from .checked import PlugInError, PolicyRaised, find_module, raised

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
    card_index: torch.Tensor
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
        # [observation value, suit]: a held card adds 64 to its suit's strength plus 2**rank (count first,
        # then ranks), trump adds TRUMP_FIRST; one product of the whole observation (exact integers)
        hand_start, hand_stop = variant.OBS_OFFSETS["hand"]
        trump_start, trump_stop = variant.OBS_OFFSETS["trump"]
        strength_weight = np.zeros((variant.OBS_SIZE, NUM_SUITS), np.float32)
        strength_weight[hand_start + CARDS, CARD_SUIT] = 64.0 + 2.0**CARD_RANK
        strength_weight[trump_start:trump_stop] = self.TRUMP_FIRST * np.eye(NUM_SUITS)
        self.register_buffer("obs_index", torch.from_numpy(obs_index), persistent=False)
        self.register_buffer("action_index", torch.from_numpy(action_index), persistent=False)
        card_index = obs_index[:, hand_start:hand_stop] - hand_start  # the hand block's, by card
        self.register_buffer("card_index", torch.from_numpy(card_index), persistent=False)
        self.register_buffer("perm_id", torch.from_numpy(perm_id), persistent=False)
        self.register_buffer("other_pair", torch.tensor(other_pair), persistent=False)
        self.register_buffer("strength_weight", torch.from_numpy(strength_weight), persistent=False)

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


# a network's (obs_size, num_actions) -> the variant module whose suits CanonicalSuits renames
CANONICAL_VARIANTS = {(v.OBS_SIZE, v.NUM_ACTIONS): v for v in (ghost, classic)}
assert len(CANONICAL_VARIANTS) == 2, "the variants' observation and action sizes tell them apart"


def canonical_suits_for(obs_size, num_actions):
    """The :class:`CanonicalSuits` of the variant with these sizes; ValueError for other sizes."""
    if (obs_size, num_actions) not in CANONICAL_VARIANTS:
        raise ValueError(
            f"canonical_suits works on Ghost Hand observations ({ghost.OBS_SIZE} values, "
            f"{ghost.NUM_ACTIONS} actions) or classic Euchre ones ({classic.OBS_SIZE} values, "
            f"{classic.NUM_ACTIONS} actions), got obs_size={obs_size}, num_actions={num_actions}"
        )
    return CanonicalSuits(CANONICAL_VARIANTS[obs_size, num_actions])


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
    mis-shaped entries, the first few of each) naming ``what``."""
    if not isinstance(weights, dict):
        raise ValueError(
            f"{what} does not fit the network: its weights are a {type(weights).__name__}, "
            "not a state dict"
        )
    own = module.state_dict()
    missing = [k for k in own if k not in weights]
    unexpected = [k for k in weights if k not in own]
    shapes = [
        f"{k} {tuple(weights[k].shape)} (expected {tuple(own[k].shape)})"
        for k in own
        if k in weights
        and (not isinstance(weights[k], torch.Tensor) or weights[k].shape != own[k].shape)
    ]
    problems = [
        f"{label} {', '.join(items[:3])}{f' and {len(items) - 3} more' if len(items) > 3 else ''}"
        for label, items in (
            ("missing", missing),
            ("unexpected", unexpected),
            ("mis-shaped", shapes),
        )
        if items
    ]
    if problems:
        raise ValueError(f"{what} does not fit the network: {'; '.join(problems)}")
    try:
        module.load_state_dict(weights)
    except RuntimeError as error:  # anything the checks above missed: its first line
        raise ValueError(f"{what} does not fit the network: {str(error).splitlines()[0]}") from None
