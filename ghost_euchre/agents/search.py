"""``search``: determinized search that uses what the network has learned.

:mod:`ghost_euchre.agents.pimc` searches worlds drawn uniformly from those that fit the cards
seen and the voids shown. This bot adds three parts, each an option, so that
each part's worth can be measured on its own:

- **inference** (``infer``): ``pool`` times ``samples`` candidate worlds are
  drawn, each is weighted by the likelihood of the actions the other seats
  took this deal (``evidence``: ``all``, or ``auction``, those before the
  first card) under a model of them (:mod:`ghost_euchre.agents.inference`: ``heuristic``,
  ``network``, ``mix`` of the two, or ``none``), and ``samples`` worlds are
  resampled in proportion; the effective sample size of the candidates is
  kept (:attr:`SearchPolicy.mean_ess`);
- **pruning** (``top``): only the ``top`` legal actions the network finds most
  likely are searched (0: all);
- **prior** (``prior``): ``prior`` times the network's probability of an action
  is added to its searched value (points a deal).

Playouts are made by ``rollout``: by default the variant's shipped network
makes the auction and the heuristic plays the cards (as the spec
``composite[ppo:ghost | heuristic]`` would); any playout spec may be given
(``heuristic``, ``ppo:ghost``...). Every decision is searched this way,
the pre-play ones included (Ghost Hand: bid, moon, swap, trump; classic:
ordering up, naming trump, going alone, the discard).
``search:infer=none,rollout=heuristic`` is ``pimc`` with the same worlds and playouts.
"""

import numpy as np

from .base import end_match
from .composite import CompositePolicy
from .heuristic import heuristic_policy
from .inference import MixedModel, action_probabilities, log_likelihoods, resample
from .pimc import PIMCPolicy, built, check_fits
from .ppo import load_policy
from .pretrained import main_network
from .worlds import read_knowledge, sample_worlds

INFERENCE_MODELS = ("network", "heuristic", "mix", "none")
EVIDENCE = ("all", "auction")  # the actions weighed: every one, or those before the first card


class SearchPolicy(PIMCPolicy):
    """PIMC over worlds inferred from the deal's actions, guided by a network.

    game, seed, samples, objective, max_games, leaf: as :class:`PIMCPolicy`; rollout:
    as :class:`PIMCPolicy`'s, or None (default) for the shipped network's
    auction and the heuristic's card play;
    network: the spec of the network read for inference, pruning and the prior
    (default the variant's shipped network, ``ppo:ghost`` or ``ppo:classic``; any policy spec, read as
    one-hot on its action if it is not a network); infer: the model of the
    other seats, one of :data:`INFERENCE_MODELS`; evidence: the actions weighed,
    "all" or "auction" (those before the first card); pool: candidate worlds per
    searched world (int >= 1); floor: the likelihood floor in [0, 1) (see
    :mod:`ghost_euchre.agents.inference`); top: actions searched (int >= 0, 0: all legal);
    prior: weight of the network's probability added to the values (float >= 0); build: as
    :class:`PIMCPolicy`'s (for ``network`` too).
    """

    name = "search"

    def __init__(
        self,
        game,
        seed=None,
        samples=64,
        network=None,
        infer="heuristic",
        evidence="all",
        pool=4,
        floor=0.1,
        top=0,
        prior=0.0,
        rollout=None,
        objective="relative",
        max_games=32768,
        leaf="playout",
        build=None,
    ):
        given_rollout = "heuristic" if rollout is None else rollout
        super().__init__(game, seed, samples, given_rollout, objective, max_games, leaf, build)
        for key, value, choices in (
            ("infer", infer, INFERENCE_MODELS),
            ("evidence", evidence, EVIDENCE),
        ):
            if value not in choices:
                raise ValueError(f"search: {key} must be one of {list(choices)}, got {value!r}")
        if infer != "none" and getattr(game.rules, "auction", "single_round") != "single_round":
            raise ValueError(
                "search: inference reads the single-round auction's order, which an open "
                f"auction's observation does not hold (auction={game.rules.auction!r}); "
                "use infer=none there"
            )
        for key, value, least in (("pool", pool, 1), ("top", top, 0)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
                raise ValueError(f"search: {key} must be an int >= {least}, got {value!r}")
        check_fits(
            f"search: samples={samples}, pool={pool}",
            int(samples),
            int(pool) if infer != "none" else 0,
        )
        for key, value, high in (("floor", floor, 1.0), ("prior", prior, np.inf)):
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not 0 <= value < high
            ):
                bound = "in [0, 1)" if high == 1.0 else ">= 0"
                raise ValueError(f"search: {key} must be a number {bound}, got {value!r}")
        network_seed = int(self.rng.integers(2**63))
        shipped = main_network(game.variant).path
        if network is None:  # the package's own file: no spec for a server's gate to read
            self.network = load_policy(shipped, game, network_seed)[0]
        elif isinstance(network, str):
            try:
                self.network = built(build, network, game, network_seed)
            except ValueError as error:
                raise ValueError(f"search: network={network}: {error}") from None
        else:
            raise ValueError(f"search: network must be a policy spec, got {network!r}")
        if rollout is None:  # the shipped network's auction over the heuristic's card play
            bidder = load_policy(shipped, self.playout_game, network_seed)[0]
            self.rollout = CompositePolicy(self.playout_game, bidder, self.rollout)
        heuristic = heuristic_policy(self.playout_game)
        self.seat_model = {  # the model of the other seats
            "network": self.network,
            "heuristic": heuristic,
            "mix": MixedModel(self.network, heuristic),
            "none": None,
        }[infer]
        self.infer, self.evidence = infer, evidence
        self.pool, self.floor = int(pool), float(floor)
        self.top, self.prior = int(top), float(prior)
        self.ess_sum, self.ess_decisions = 0.0, 0
        played_out_by = getattr(self.rollout, "name", type(self.rollout).__name__)
        options = [f"samples={self.samples}", f"infer={infer}"]
        if infer != "none" and evidence != "all":
            options.append(f"evidence={evidence}")
        if self.top:
            options.append(f"top={self.top}")
        if self.prior:
            options.append(f"prior={self.prior:g}")
        options.append(f"rollout={played_out_by}")
        if leaf != "playout":
            options.append(f"leaf={leaf}")
        self.name = f"search({','.join(options)})"

    def end_match(self):
        """The match is over: passed on to the playout policy and the network."""
        super().end_match()
        end_match(self.network)

    @property
    def mean_ess(self):
        """Mean effective sample size of the candidate worlds over the decisions searched with
        inference (of ``pool * samples`` candidates), or None before any."""
        return self.ess_sum / self.ess_decisions if self.ess_decisions else None

    def search(self, obs, mask, keys, rng):
        """float64[N, A]: the searched values of N positions with a choice, the prior's share added
        (-inf: illegal, or pruned; see :meth:`PIMCPolicy.search`)."""
        knowledge = read_knowledge(obs, self.game)
        worlds = self._worlds(knowledge, rng)
        guided = self.top > 0 or self.prior > 0
        probabilities = (
            action_probabilities(self.network, obs, mask) if guided else np.zeros(mask.shape)
        )
        searched = mask
        if self.top > 0:
            rank = np.argsort(  # 0 for the network's most likely legal action
                np.argsort(-np.where(mask, probabilities, -1.0), axis=1, kind="stable"), axis=1
            )
            searched = mask & (rank < self.top)
        values = self.action_values(knowledge, worlds, searched, keys)
        if self.prior > 0:
            values = values + self.prior * probabilities
        return values

    def _worlds(self, knowledge, rng):
        """``samples`` worlds per position: uniform, or resampled by likelihood from a pool."""
        if self.seat_model is None:
            return sample_worlds(knowledge, self.samples, rng)
        candidates = sample_worlds(knowledge, self.samples * self.pool, rng)
        n, count = candidates[0].shape[:2]
        rows = np.repeat(np.arange(n), count)
        flat = [part.reshape(n * count, *part.shape[2:]) for part in candidates]
        log_weights = log_likelihoods(
            self.playout_game,
            knowledge,
            flat,
            self.seat_model,
            self.floor,
            rows,
            self.evidence == "all",
        ).reshape(n, count)
        chosen, ess = resample(log_weights, self.samples, rng)
        self.ess_sum += float(ess.sum())
        self.ess_decisions += n
        return tuple(
            np.take_along_axis(part, chosen.reshape(n, -1, *([1] * (part.ndim - 2))), axis=1)
            for part in candidates
        )
