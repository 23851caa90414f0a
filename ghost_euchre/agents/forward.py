"""A trained network's forward pass without torch: NumPy weights, one Numba kernel.

The shipped networks and every policy file of the built-in MLP (``ActorCritic``
of :mod:`ghost_euchre.agents.networks`) play from here: the weights are read from
the file without torch (:func:`ghost_euchre.agents.network_file.read_network`),
and one compiled kernel renames the suits (``canonical_suits``), runs the trunk
and the policy head, and picks the action. A playout kernel calls the same
kernel (:mod:`ghost_euchre.agents.playouts`), so a network's moves in ``search``'s
worlds never leave the compiled core.

The sums are float32 as torch's, taken in a fixed order (input by input, each
row alone): a row's logits do not depend on the other rows of its batch. They
may differ from torch's in the last bits, so a decision between two actions
whose logits tie to about 1e-6 may fall the other way; docs/speed.md counts
them. Zero inputs are skipped (most of an observation is 0; a relu layer's
output is half 0), which is what makes one row cost microseconds.
"""

import typing

import numpy as np
from numba import njit

from ghost_euchre_env import classic, ghost
from ghost_euchre_env.cards import CARD_RANK, CARD_SUIT, CARDS, NUM_SUITS, PARTNER_SUIT
from ghost_euchre_env.suits import COLOUR_KEEPING, permutation_tables

ACTIVATION_CODES = {"relu": 0, "tanh": 1}
TRUMP_FIRST = 4096.0
"""added to trump's strength in the suit renaming: more than any hand's (at most 6 * 96)"""
LOWEST_LOGIT = np.finfo(np.float32).min
"""an illegal action's logit when the greedy action is picked (as torch's ``mask_logits``)"""
CANONICAL_VARIANTS = {(v.OBS_SIZE, v.NUM_ACTIONS): v for v in (ghost, classic)}
"""a network's (obs_size, num_actions) -> the variant module whose suits the renaming renames"""
assert len(CANONICAL_VARIANTS) == 2, "the variants' observation and action sizes tell them apart"


class SuitTables(typing.NamedTuple):
    """The canonical suit renaming of one variant's observations, as index tables.

    strength_weight float32[D, 4]: one product of an observation gives each suit's
    strength in hand (a held card adds 64 plus 2**rank, trump adds
    :data:`TRUMP_FIRST`: exact integers); perm_id int64[4, 2]: [strongest suit, which
    of the other pair is stronger] -> the renaming (row of ``COLOUR_KEEPING``);
    other_pair int64[4, 2]: the two suits of the other colour than each suit;
    obs_index int64[K, D], action_index int64[K, A]: ``permutation_tables`` of the
    renamings (the renamed observation is ``obs[obs_index[k]]``; an action's logit
    is the renamed logits' ``[action_index[k]]``).
    """

    strength_weight: np.ndarray
    perm_id: np.ndarray
    other_pair: np.ndarray
    obs_index: np.ndarray
    action_index: np.ndarray


def suit_tables(variant):
    """The :class:`SuitTables` of ``variant`` (``ghost_euchre_env.ghost`` or ``.classic``): trump, or
    before trump the suit the own hand is strongest in (most cards, then highest ranks), becomes
    suit 0, its same-colour suit 3, and of the other two the stronger in hand suit 1 (ties: the
    lower suit)."""
    obs_index, action_index = permutation_tables(COLOUR_KEEPING, variant)
    other_pair = np.array(
        [[s for s in range(NUM_SUITS) if s not in (t, PARTNER_SUIT[t])] for t in range(NUM_SUITS)],
        np.int64,
    )
    perm_id = np.zeros((NUM_SUITS, 2), np.int64)
    for k, perm in enumerate(COLOUR_KEEPING):
        top, second = list(perm).index(0), list(perm).index(1)
        perm_id[top, list(other_pair[top]).index(second)] = k
    hand_start, _ = variant.OBS_OFFSETS["hand"]
    trump_start, trump_stop = variant.OBS_OFFSETS["trump"]
    strength_weight = np.zeros((variant.OBS_SIZE, NUM_SUITS), np.float32)
    strength_weight[hand_start + CARDS, CARD_SUIT] = 64.0 + 2.0**CARD_RANK
    strength_weight[trump_start:trump_stop] = TRUMP_FIRST * np.eye(NUM_SUITS)
    return SuitTables(strength_weight, perm_id, other_pair, obs_index, action_index)


def canonical_variant(obs_size, num_actions):
    """The variant module of a network of these sizes, for its suit renaming; ValueError otherwise."""
    if (obs_size, num_actions) not in CANONICAL_VARIANTS:
        raise ValueError(
            f"canonical_suits works on Ghost Hand observations ({ghost.OBS_SIZE} values, "
            f"{ghost.NUM_ACTIONS} actions) or classic Euchre ones ({classic.OBS_SIZE} values, "
            f"{classic.NUM_ACTIONS} actions), got obs_size={obs_size}, num_actions={num_actions}"
        )
    return CANONICAL_VARIANTS[obs_size, num_actions]


MLP_KEYS = frozenset({"obs_size", "num_actions", "hidden_sizes", "activation", "canonical_suits"})
"""the keys of the built-in MLP's ``model_config`` (any other key: a network class of the user's)"""


MLP_DEFAULTS = {"hidden_sizes": [256, 256], "activation": "relu"}
"""the MLP's constructor defaults (``ActorCritic``), for a config that leaves them out"""


def is_mlp(config):
    """Whether a ``model_config`` is the built-in MLP's (which this module plays without torch)."""
    return isinstance(config, dict) and "model" not in config and set(config) <= MLP_KEYS


def mlp_shapes(config):
    """{name: shape} of the state dict of the built-in MLP of ``config`` (trunk, actor, critic);
    ValueError (one line) for a config that builds no such network."""
    config = {**MLP_DEFAULTS, **config}
    hidden_sizes, activation = config["hidden_sizes"], config["activation"]
    if activation not in ACTIVATION_CODES:
        raise ValueError(
            f"activation must be one of {sorted(ACTIVATION_CODES)}, got {activation!r}"
        )
    sizes = [config["obs_size"], config["num_actions"]]
    if not isinstance(hidden_sizes, (list, tuple)) or not hidden_sizes:
        raise ValueError(
            f"hidden_sizes must be a non-empty list of positive ints, got {hidden_sizes!r}"
        )
    if any(isinstance(h, bool) or not isinstance(h, int) or h < 1 for h in [*hidden_sizes, *sizes]):
        raise ValueError(
            f"hidden_sizes must be a non-empty list of positive ints, got {hidden_sizes!r} "
            f"(obs_size {sizes[0]!r}, num_actions {sizes[1]!r})"
        )
    widths = [sizes[0], *hidden_sizes]
    names = [f"trunk.{2 * k}" for k in range(len(hidden_sizes))] + ["actor", "critic"]
    shapes = {}
    for name, out, inp in zip(
        names, [*hidden_sizes, sizes[1], 1], [*widths, widths[-1]], strict=True
    ):
        shapes[f"{name}.weight"], shapes[f"{name}.bias"] = (out, inp), (out,)
    return shapes


def check_weights(shapes, weights, what, kind: type = np.ndarray):
    """ValueError (one line naming ``what``: the missing, unexpected and mis-shaped entries, the
    first few of each) unless ``weights`` is a dict of ``kind`` arrays of exactly ``shapes``
    ({name: shape})."""
    if not isinstance(weights, dict):
        raise ValueError(
            f"{what} does not fit the network: its weights are a {type(weights).__name__}, "
            "not a state dict"
        )
    missing = [k for k in shapes if k not in weights]
    unexpected = [k for k in weights if k not in shapes]
    mis_shaped = [
        f"{k} {tuple(getattr(weights[k], 'shape', ()))} (expected {shape})"
        for k, shape in shapes.items()
        if k in weights and (not isinstance(weights[k], kind) or tuple(weights[k].shape) != shape)
    ]
    problems = [
        f"{label} {', '.join(items[:3])}{f' and {len(items) - 3} more' if len(items) > 3 else ''}"
        for label, items in (
            ("missing", missing),
            ("unexpected", unexpected),
            ("mis-shaped", mis_shaped),
        )
        if items
    ]
    if problems:
        raise ValueError(f"{what} does not fit the network: {'; '.join(problems)}")


class Forward:
    """The built-in MLP of a ``model_config`` with its weights, played without torch.

    config: the MLP's ``model_config`` (obs_size, num_actions, hidden_sizes, activation,
    canonical_suits); weights: its state dict as NumPy arrays (``trunk.K.weight`` float32[out,
    in], ``...bias``, ``actor.*``, ``critic.*``; the value head is not used); what: the file's
    name for messages. ValueError (one line) when the config is not the MLP's or the weights do
    not fit it.
    """

    def __init__(self, config, weights, what="the network"):
        if not is_mlp(config):
            raise ValueError(f"{what}: not the built-in network's config: {config!r}")
        config = {**MLP_DEFAULTS, **config}
        try:
            shapes = mlp_shapes(config)
        except (KeyError, ValueError) as error:
            raise ValueError(f"{what}: model_config {config!r}: {error}") from None
        activation = ACTIVATION_CODES[config["activation"]]
        check_weights(shapes, weights, what)
        self.config = config
        layers = [n.removesuffix(".weight") for n in shapes if n.endswith(".weight")][:-1]
        if config.get("canonical_suits"):
            tables = suit_tables(canonical_variant(config["obs_size"], config["num_actions"]))
        else:  # unused tables of the right types: one kernel for both
            tables = SuitTables(
                np.zeros((0, NUM_SUITS), np.float32),
                *(np.zeros((0, 0), np.int64) for _ in range(4)),
            )
        self.args = (
            tuple(np.ascontiguousarray(weights[f"{n}.weight"].T, np.float32) for n in layers),
            tuple(np.ascontiguousarray(weights[f"{n}.bias"], np.float32) for n in layers),
            activation,
            bool(config.get("canonical_suits")),
            tuple(tables),
        )

    @property
    def num_actions(self):
        return int(self.config["num_actions"])

    def logits(self, obs):
        """float32[N, num_actions]: the policy head's logits of obs float32[N, obs_size], by actual action."""
        obs = np.ascontiguousarray(obs, np.float32)
        out = np.empty((len(obs), self.num_actions), np.float32)
        network_logits(obs, self.args, out)
        return out

    def greedy(self, obs, mask):
        """int64[N]: the legal action of highest logit (the first of equal ones) of each row."""
        obs = np.ascontiguousarray(obs, np.float32)
        actions = np.empty(len(obs), np.int64)
        network_actions(obs, np.ascontiguousarray(mask, bool), self.args, actions)
        return actions

    def kernel_args(self):
        """The arguments of :func:`network_actions` between the mask and the actions."""
        return (self.args,)


@njit(cache=True, inline="always")
def _renaming(obs, g, tables):
    """The renaming (row of COLOUR_KEEPING) of observation ``obs[g]`` (:func:`suit_tables`)."""
    strength_weight, perm_id, other_pair = tables[0], tables[1], tables[2]
    strength = np.zeros(NUM_SUITS, np.float32)
    for i in range(strength_weight.shape[0]):
        x = obs[g, i]
        if x != 0:
            for s in range(NUM_SUITS):
                strength[s] += x * strength_weight[i, s]
    top = 0
    for s in range(1, NUM_SUITS):
        if strength[s] > strength[top]:
            top = s
    return perm_id[top, int(strength[other_pair[top, 0]] < strength[other_pair[top, 1]])]


@njit(cache=True, inline="always")
def _layer(inputs, weight, bias, activation, out):
    """out float32[O] = activation(inputs float32[I] @ weight float32[I, O] + bias), zero inputs
    skipped; activation -1: none, else an ACTIVATION_CODES value."""
    for j in range(len(out)):
        out[j] = 0
    for i in range(len(inputs)):
        x = inputs[i]
        if x != 0:
            for j in range(len(out)):
                out[j] += x * weight[i, j]
    for j in range(len(out)):
        value = out[j] + bias[j]
        if activation == 0:
            value = max(value, np.float32(0))
        elif activation == 1:
            value = np.tanh(value)
        out[j] = value


@njit(cache=True)
def network_logits(obs, net, out):
    """out float32[N, A] = the logits of each row of obs float32[N, D] by actual action.

    net: :meth:`Forward.kernel_args`' one value (layers float32[in, out] tuple, biases, activation
    code, canonical_suits, the suit tables)."""
    layers, biases, activation, renamed, tables = net
    obs_index, action_index = tables[3], tables[4]
    width = 1
    for layer in layers:
        width = max(width, layer.shape[1])
    seen = np.empty(obs.shape[1], np.float32)
    hidden = np.empty((2, width), np.float32)
    for g in range(len(obs)):
        k = _renaming(obs, g, tables) if renamed else 0
        for i in range(obs.shape[1]):
            seen[i] = obs[g, obs_index[k, i]] if renamed else obs[g, i]
        inputs = seen
        last = len(layers) - 1
        for n in range(len(layers)):
            outputs = hidden[n % 2, : layers[n].shape[1]]
            _layer(inputs, layers[n], biases[n], -1 if n == last else activation, outputs)
            inputs = outputs
        for a in range(out.shape[1]):
            out[g, a] = inputs[action_index[k, a]] if renamed else inputs[a]


@njit(cache=True)
def network_actions(obs, mask, net, actions):
    """actions int64[N] = each row's legal action of highest logit (the first of equal ones), as
    torch's ``mask_logits(...).argmax``; obs float32[N, D], mask bool[N, A], net as
    :func:`network_logits`. The policy kernel of a network (``policy(obs, mask, *args, out)``)."""
    logits = np.empty(mask.shape, np.float32)
    network_logits(obs, net, logits)
    masked_argmax(logits, mask, actions)


@njit(cache=True)
def masked_argmax(logits, mask, actions):
    """actions int64[N] = each row's legal action of highest logit (float32[N, A]; the first of
    equal ones; an illegal one counts as :data:`LOWEST_LOGIT`, as torch's ``mask_logits``)."""
    for g in range(len(logits)):
        best, top = 0, LOWEST_LOGIT
        for a in range(mask.shape[1]):
            value = logits[g, a] if mask[g, a] else LOWEST_LOGIT
            if value > top:
                best, top = a, value
        actions[g] = best


def sampled_actions(probabilities, uniforms):
    """int64[N]: each row's action drawn from ``probabilities`` (float64[N, A], 0 where illegal,
    :func:`probabilities`) by ``uniforms`` (float64[N] in [0, 1)): the first action whose
    cumulative probability passes the draw (never one of probability 0)."""
    cdf = np.cumsum(probabilities, axis=1)
    chosen = (cdf <= (uniforms * cdf[:, -1])[:, None]).sum(axis=1)
    last_possible = probabilities.shape[1] - 1 - (probabilities[:, ::-1] > 0).argmax(axis=1)
    return np.minimum(chosen, last_possible).astype(np.int64)


def probabilities(logits, mask):
    """float64[N, A]: the softmax of the legal logits (float32[N, A]) in float64, 0 where illegal."""
    logits = np.where(mask, np.asarray(logits, np.float64), -np.inf)
    top = logits.max(axis=1, keepdims=True)
    weights = np.exp(logits - np.where(np.isfinite(top), top, 0.0))
    return weights / weights.sum(axis=1, keepdims=True)
