"""The auction view of both games: only the decisions made before the first card are asked for.

Bridge bidding research isolates the auction and scores contracts with a fixed
card-play oracle; this module does the same for both games.
:class:`AuctionGame` wraps the engine :class:`~ghost_euchre_env.ghost.GhostEuchre`
so that every decision it asks for is SWAP, PASS, a bid, MOON or the declarer's
naming of trump; :class:`ClassicAuctionGame` wraps
:class:`~ghost_euchre_env.classic.ClassicEuchre` so that every decision is
ordering up or passing, naming trump in the second round, going alone or with
the partner, or the dealer's discard (made with trump known, before the first
card, and part of the contract's value: it belongs to the auction here). The
card play of a deal happens inside ``step``, made by a *card-play policy* given
to the constructor (any object with the batched ``act(obs, mask) -> int[M]``
of ``agents.Policy``; this package never imports ``agents``).
:class:`GhostBiddingVec` and :class:`ClassicBiddingVec` are the vector API over
them, with the contract of :class:`~ghost_euchre_env.GhostEuchreVec`.

No rule is written here: the engine steps every action, plays included. A step
applies the auction actions to the whole batch, then plays the deals whose
trump was just named to their end (all of them start their first trick
together, so the 18 plays run as whole-batch steps of those games; forced plays
(one legal card) are made without asking the policy). Rewards, deal summaries
and episode ends of those plays are reported by the step that caused them, so
one step of this view is one auction decision per game.
"""

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

from . import variants
from .core import EVERY_GAME, DealSummary, StepResult, check_actions, check_choice
from .vector import VectorEnv

REWARDS = ("points", "margin", "win")


def policy_name(policy):
    """The name a policy is shown by in errors: its ``name`` attribute, else its class name."""
    name = getattr(policy, "name", None)
    return name if isinstance(name, str) else type(policy).__name__


def margin(points):
    """float32[N, 3]: each seat's points minus the mean of the other two seats' (points: [N, 3])."""
    points = np.asarray(points, np.float32)
    return points - (points.sum(axis=1, keepdims=True) - points) / 2


def team_margin(points):
    """float32[N, 4]: each seat's team points minus the other team's (points: [N, 4], the team's
    points at both seats of a team; seat s + 1 is on the other team)."""
    points = np.asarray(points, np.float32)
    return points - np.roll(points, -1, axis=1)


def opponents_margin(points, opponent_seats):
    """float32[N, S]: each seat's points minus the mean of its opponents' (points: [N, S], a
    seat's points its team's; opponent_seats: bool[S, S], a variant's ``opponent_seats``):
    :func:`margin` with every seat its own team, :func:`team_margin` with two partnerships."""
    points = np.asarray(points, np.float32)
    against = np.asarray(opponent_seats, np.float32)
    return points - points @ against.T / against.sum(axis=1)


class AuctionView:
    """A variant's engine whose decisions are the ones made before a deal's first card.

    ``AuctionView(card_play, episode="deal", reward="points", **rules)``: card_play makes
    every card play (see the module docstring); episode as the engine's ("deal" by default);
    reward "points" (each seat's deal points), "margin" (:func:`opponents_margin`) or "win"
    (the engine's, with episode="game"); rules: the engine's. A variant's class
    (:func:`auction_game_class`, its ``AuctionGame``) sets ``ENGINE`` (the engine class),
    ``PLAY`` (its card-play phase) and ``margin`` (its zero-sum reward). It has the engine's
    interface (``init``, ``start_episodes``, ``next_episodes``, ``legal_bits``,
    ``legal_mask``, ``observe``, ``step``, and the doors' ``_observe_rows``,
    ``_step_observe_live``, ``_observed_arrays`` and ``_step_into``), so the adapters of the
    engine run on it unchanged. ``engine`` is the wrapped engine; ``last_plays`` lists the card plays of the
    latest step as (games int[M], seats int8[M], cards int64[M]) per play round.
    """

    ENGINE: Any
    PLAY: int
    margin: Any  # (points float32[N, S]) -> float32[N, S]

    def __init__(self, card_play, episode="deal", reward="points", **rules):
        if not callable(getattr(card_play, "act", None)):
            raise ValueError(
                f"card_play must have a batched act(obs, mask) -> int[N] (an agents.Policy), "
                f"got {card_play!r}"
            )
        check_choice("reward", reward, REWARDS)
        self.engine = self.ENGINE(
            episode=episode, reward="win" if reward == "win" else "points", **rules
        )
        self.card_play = card_play
        self.reward = reward
        self.episode = episode
        self.rules = self.engine.rules
        self.num_players = self.engine.num_players
        self.num_actions = self.engine.num_actions
        self.obs_size = self.engine.obs_size
        self.over_phase = self.engine.over_phase
        self.last_plays = []

    def init(self, keys, options=None):
        """As the engine's ``init``: the first decision of a deal is always an auction one."""
        return self.engine.init(keys, options)

    def start_episodes(self, state, games, options=None):
        self.engine.start_episodes(state, games, options)

    def next_episodes(self, state, games):
        self.engine.next_episodes(state, games)

    def legal_bits(self, state):
        return self.engine.legal_bits(state)

    def legal_mask(self, state):
        return self.engine.legal_mask(state)

    def observe(self, state, seats, games=None):
        return self.engine.observe(state, seats, games)

    def _observe_rows(self, state, games, seats):
        return self.engine._observe_rows(state, games, seats)

    def _observed_arrays(self, num_games):
        return self.engine._observed_arrays(num_games)

    def _step_into(self, state, actions, legal, out, auto_reset):
        """As the engine's (``out`` is never written: the card play follows the step)."""
        return self.step(state, check_actions(actions, legal), auto_reset), False

    def _step_observe_live(self, state, actions, legal):
        result = self.step(state, check_actions(actions, legal), auto_reset=True)
        player = state.player.astype(np.int64)
        return result, self._observe_rows(state, EVERY_GAME, player), self.legal_mask(state), player

    def step(self, state, actions, auto_reset=False):
        """Apply one auction or trump action per game (int[N]), then play every deal it opened to its end.

        Actions are not checked (adapters check them, as for the engine). The
        card-play policy's actions are checked: a bad one raises ValueError
        naming the policy, and ``state`` and ``last_plays`` are left as they were
        before the call.
        Returns a StepResult holding everything that happened in the call
        (rewards summed, every deal that ended).
        """
        backup, plays = state.copy(), self.last_plays
        self.last_plays = []
        try:
            result = self.engine.step(state, actions, auto_reset)
            playing = np.flatnonzero(state.phase == self.PLAY)
            if len(playing):
                result = _merge(result, self._play_out(state, playing, auto_reset))
        except BaseException:
            state.put(np.arange(state.num_games), backup)
            self.last_plays = plays
            raise
        if self.reward == "margin":
            result.rewards = self.margin(result.rewards)
        return result

    def _play_out(self, state, games, auto_reset):
        """Play the deals of ``games`` (int[M], all in the play phase) to their end; their StepResult on N games."""
        sub = state.take(games)
        engine = self.engine
        n = state.num_games
        rewards = np.zeros((n, self.num_players), np.float32)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        deals = []
        plays = self.last_plays
        alive = np.arange(len(games))  # rows of ``sub`` still playing
        while len(alive):
            bits = engine.legal_bits(sub)
            player = sub.player.astype(np.int64)
            if not (bits & (bits - np.uint64(1))).any():  # every play is forced: no policy call
                actions = np.log2(bits.astype(np.float64)).astype(np.int64)
            else:
                actions = self._ask(sub, player)
            rows = games[alive]
            plays.append((rows, player.astype(np.int8), actions))
            result = engine.step(sub, actions, auto_reset)
            rewards[rows] += result.rewards
            terminated[rows] |= result.terminated
            truncated[rows] |= result.truncated
            ended = result.deals
            assert isinstance(ended, DealSummary)
            if len(ended.game):
                deals.append(dataclasses.replace(ended, game=rows[ended.game]))
            still = sub.phase == self.PLAY
            if not still.all():
                state.put(rows[~still], sub.take(~still))
                sub, alive = sub.take(still), alive[still]
        return StepResult(rewards, terminated, truncated, _concat(deals))

    def _ask(self, sub, player):
        """The card-play policy's actions for the games of ``sub``, checked (ValueError names the policy)."""
        mask = self.engine.legal_mask(sub)
        obs = self.engine.observe(sub, player)
        chosen = self.card_play.act(obs, mask)
        try:
            return check_actions(chosen, mask)
        except ValueError as error:
            raise ValueError(
                f"card-play policy {policy_name(self.card_play)!r} returned a bad action: {error}"
            ) from None


def _concat(deals):
    """One deal summary holding every row of the summaries ``deals`` (a non-empty list)."""
    if len(deals) == 1:
        return deals[0]
    return type(deals[0])(
        **{
            f.name: np.concatenate([getattr(d, f.name) for d in deals])
            for f in dataclasses.fields(deals[0])
        }
    )


def _merge(first, second):
    """The StepResult of two consecutive parts of one step (rewards added, deals in order)."""
    deals = [d for d in (first.deals, second.deals) if len(d.game)]
    return StepResult(
        first.rewards + second.rewards,
        first.terminated | second.terminated,
        first.truncated | second.truncated,
        _concat(deals) if deals else first.deals,
    )


class AuctionVec(VectorEnv):
    """N games of a variant seen from the auction: the vector API over its auction view.

    ``AuctionVec(num_envs, card_play, seed=None, episode="deal", reward="points", **rules)``;
    a variant's class (:func:`auction_vector_class`) sets ``auction_game``. The contract of the
    variant's vector env (``reset``, ``step`` with automatic resets, chosen deals,
    ``truncated``, ``last_result.deals``); every decision returned is made before a deal's
    first card, the card play in between by ``card_play``. Same seed, same cards.
    """

    auction_game: Any  # the variant's auction view (an AuctionView class)

    def __init__(self, num_envs, card_play, seed=None, episode="deal", reward="points", **rules):
        super().__init__(self.auction_game(card_play, episode, reward, **rules), num_envs, seed)


def auction_game_class(variant) -> type[AuctionView]:
    """The variant's auction view of its engine (``AuctionGame``, ``ClassicAuctionGame``)."""
    name = variant.door_name("auction_game")[1]
    written = f"""A {variant.title} engine whose decisions are the ones made before a deal's first card.

``{name}(card_play, episode="deal", reward="points", **rules)``: as :class:`AuctionView`;
rules: :class:`{variant.rules_type.__module__}.{variant.rules_type.__name__}`.
"""
    opponent_seats = variant.opponent_seats

    def margin(points):
        return opponents_margin(points, opponent_seats)

    return variant.door_class(
        "auction_game",
        (AuctionView,),
        written,
        ENGINE=variant.engine,
        PLAY=variant.play_phase,
        margin=staticmethod(margin),
    )


def auction_vector_class(variant) -> type[AuctionVec]:
    """The variant's vector env over its auction view (``GhostBiddingVec``, ``ClassicBiddingVec``)."""
    name = variant.door_name("auction_vector")[1]
    auction_game = variant.door("auction_game")
    written = f"""N {variant.title} games seen from the auction: the vector API over :class:`{auction_game.__name__}`.

``{name}(num_envs, card_play, seed=None, episode="deal", reward="points", **rules)``; as
:class:`AuctionVec`.
"""
    return variant.door_class("auction_vector", (AuctionVec,), written, auction_game=auction_game)


__getattr__, __dir__ = variants.published(__name__)  # the doors the declarations publish here
if TYPE_CHECKING:  # the shipped variants' ones, as ghost.py and classic.py declare them
    AuctionGame: type[AuctionView]
    ClassicAuctionGame: type[AuctionView]
    GhostBiddingVec: type[AuctionVec]
    ClassicBiddingVec: type[AuctionVec]
