"""``ppo:PATH``: a network trained by ``ghost-euchre-train``, as a Policy; plays without torch.

One network plays every seat (observations are egocentric). A policy file holds
``model`` (the state dict) and ``model_config`` (the constructor's keyword
arguments: the MLP's, or a plugged network class and its options,
:mod:`ghost_euchre.agents.networks`); full training checkpoints hold the same two
keys. Both are read here without torch (:func:`ghost_euchre.agents.network_file.read_network`),
and the built-in MLP plays by the compiled forward pass of
:mod:`ghost_euchre.agents.forward`; only a network class of the user's (``model``
in the config) needs torch (the ``train`` extra), and says so in one line.

Spec options: ``ppo:PATH`` plays the most likely legal action (greedy; an
illegal action's logit is the dtype's minimum, as in training);
``ppo:PATH:sample=true`` samples from the masked distribution instead.
"""

import os

import numpy as np

from .base import Policy
from .composite import LEARN_MODES
from .extras import missing_extra
from .forward import Forward, is_mlp, probabilities, sampled_actions
from .network_file import NotAnArchive, fit_error, read_network
from .playouts import network_playout, network_replay
from .streams import draws


def learned_role(payload):
    """(learn, partner spec) of a policy file or training checkpoint; ("all", None) for older files."""
    if "learn" in payload:
        return payload["learn"], payload.get("partner")
    config = payload.get("config") or {}
    learn = config.get("learn", "all")
    return learn, {"auction": config.get("card_play"), "play": config.get("bidding")}.get(learn)


def playing_network(path, payload):
    """The network of ``payload`` (read from ``path``) ready to play: a :class:`Forward` for the
    built-in MLP (no torch), else the user's network class behind torch
    (:func:`ghost_euchre.agents.networks.torch_forward`; a missing torch is one line naming the
    extra)."""
    config = payload["model_config"]
    if not isinstance(config, dict):
        raise ValueError(f"PPO checkpoint {path!r}: model_config is not a dict, got {config!r}")
    if is_mlp(config):
        return Forward(config, payload["model"], f"PPO checkpoint {path!r}")
    why = f"its network class {config.get('model')!r} runs on torch"
    return _with_torch(
        path, why, lambda networks: networks.torch_forward(networks.load_model(path))
    )


class PPOPolicy(Policy):
    """A trained network playing greedily (default) or by sampling (``sample=True``).

    network: a :class:`ghost_euchre.agents.forward.Forward` (the built-in MLP, no torch) or
    anything with its ``config``, ``logits(obs)`` and ``greedy(obs, mask)`` (a network class of
    the user's behind torch, :func:`ghost_euchre.agents.networks.torch_forward`).
    act(obs float32[N, obs_size], mask bool[N, A]) -> int64[N] legal actions; batched.
    """

    name = "ppo"

    def __init__(self, game, network, seed=None, sample=False, name=None):
        super().__init__(game, seed)
        reason = fit_error(network.config["obs_size"], network.config["num_actions"], game)
        if reason:
            raise ValueError(reason)
        if not isinstance(sample, (bool, np.bool_)):
            raise ValueError(f"sample must be true or false, got {sample!r}")
        self.network = network
        self.sample = bool(sample)
        if name is not None:
            self.name = name

    def act(self, obs, mask, keys=None):
        """keys: uint64[N] decision keys: sampling draws one number per row from them
        (:mod:`ghost_euchre.agents.streams`), else from the policy's rng."""
        mask = np.asarray(mask, dtype=bool)
        if not self.sample:
            return self.network.greedy(obs, mask)
        return sampled_actions(
            probabilities(self.network.logits(obs), mask), draws(self, keys).random(len(mask))
        )

    def playout(self):
        """(kernel, arguments): the compiled playout of the greedy built-in network
        (:func:`ghost_euchre.agents.playouts.network_playout`), or None (sampling, or a network
        class of the user's)."""
        return network_playout(self)

    def replay(self, floor):
        """(kernel, arguments): the greedy built-in network as a compiled model of a seat in
        ``search``'s inference (:func:`ghost_euchre.agents.playouts.network_replay`), or None."""
        return network_replay(self, floor)


def load_policy(path, game, seed=None, sample=False):
    """The network of the training checkpoint or policy file at ``path`` as a PPOPolicy, and its role
    (:func:`policy_from` of what the file holds: read without torch, but for torch's legacy
    format, which only torch reads)."""
    try:
        payload = read_network(path)
    except NotAnArchive:  # torch's legacy format, or not torch's at all: torch tells
        why = "it is not a zip archive (torch's legacy format?), which only torch reads"
        payload = _with_torch(path, why, lambda networks: networks.numpy_payload(path))
    return policy_from(path, payload, game, seed, sample)


def _with_torch(path, why, use):
    """``use(ghost_euchre.agents.networks)``: the file at ``path`` needs torch (``why``); without
    it, ValueError (one line: ``why``, then the extra that installs torch)."""
    try:
        from . import networks  # torch's
    except ModuleNotFoundError as error:
        missing = missing_extra(error)
        if missing is None:
            raise
        raise ValueError(f"PPO checkpoint {path!r}: {why}; {missing}") from None
    return use(networks)


def policy_from(path, payload, game, seed=None, sample=False):
    """The network of ``payload``, the contents of the file at ``path`` (read by the caller: the
    file is not opened), as a PPOPolicy, and its role.

    Returns (PPOPolicy, learn, partner spec): a network trained with ``learn:
    auction`` (or ``play``) makes only those decisions, and ``partner`` is the
    spec recorded with it that makes the others (:func:`ghost_euchre.agents.specs.make_policy`
    pairs them into a full player); learn 'all' has partner None.
    """
    policy = PPOPolicy(game, playing_network(path, payload), seed=seed, sample=sample)
    policy.name = f"ppo:{os.path.basename(path)}" + (":sample" if policy.sample else "")
    learn, partner = learned_role(payload)
    if learn != "all" and (learn not in LEARN_MODES or not isinstance(partner, str)):
        raise ValueError(
            f"PPO checkpoint {path!r}: learn={learn!r} with partner spec {partner!r}; expected "
            f"learn in {list(LEARN_MODES)} and the spec of the policy making the other decisions"
        )
    return policy, learn, partner if learn != "all" else None
