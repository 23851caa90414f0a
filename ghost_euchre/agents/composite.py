"""Composite players: one policy makes the auction decisions, another the card play.

Spec: ``composite[AUCTION | PLAY]`` where AUCTION and PLAY are any two policy
specs, composites included (``composite[composite[pimc | random] | heuristic]``);
the ``|`` that separates them is the one outside any brackets. Examples::

    composite[pimc | heuristic]                 # pimc bids, the heuristic plays the cards
    composite[ppo:runs/a/final.pt | pimc:samples=16]

A decision is *card play* when the observation's phase is the play
(``variant.card_play(obs)``); every other decision (swap, pass, bids, moon,
naming trump; classic: ordering up, calling, going alone and the dealer's
discard, a card action made with trump known before the first card) is the
auction policy's. Each part is called once per ``act`` with its rows only.
"""

import numpy as np

from .base import Policy, end_match, game_over, show_deal
from .playouts import bid_playout
from .streams import act_keyed

LEARN_MODES = ("all", "auction", "play")
"""the decisions a trained network makes: all, the auction's (the card play another spec's), or the card play"""
PREFIX = "composite["


def is_composite(spec):
    """True if ``spec`` is written as a composite (``composite[...]``)."""
    return isinstance(spec, str) and spec.strip().startswith(PREFIX)


def split_composite(spec):
    """'composite[A | B]' -> ('A', 'B'); ValueError (one line) when it is not written that way."""
    text = spec.strip()
    expected = "expected composite[AUCTION_SPEC | PLAY_SPEC]"
    if not (text.startswith(PREFIX) and text.endswith("]")):
        raise ValueError(f"policy spec {spec!r}: {expected}")
    inner = text[len(PREFIX) : -1]
    depth, bars = 0, []
    for i, char in enumerate(inner):
        depth += (char == "[") - (char == "]")
        if depth < 0:
            raise ValueError(f"policy spec {spec!r}: unbalanced brackets; {expected}")
        if char == "|" and depth == 0:
            bars.append(i)
    if depth != 0:
        raise ValueError(f"policy spec {spec!r}: unbalanced brackets; {expected}")
    if len(bars) != 1:
        raise ValueError(f"policy spec {spec!r}: {len(bars)} top-level '|' separators; {expected}")
    auction, play = inner[: bars[0]].strip(), inner[bars[0] + 1 :].strip()
    if not auction or not play:
        raise ValueError(f"policy spec {spec!r}: an empty part; {expected}")
    return auction, play


def composite_spec(auction, play):
    """The spec string of the composite of two specs."""
    return f"{PREFIX}{auction} | {play}]"


def card_player(policy):
    """The policy that plays ``policy``'s cards: a composite's card part, or None."""
    return policy.play if isinstance(policy, CompositePolicy) else None


class CompositePolicy(Policy):
    """``auction`` makes every decision that is not a card play, ``play`` every card play.

    auction, play: two policies with the Policy interface (any variant, the same game).
    """

    def __init__(self, game, auction, play, name=None):
        super().__init__(game)
        self.auction = auction
        self.play = play
        self.name = name or composite_spec(auction.name, play.name)

    def act(self, obs, mask, keys=None, games=None):
        """obs float32[N, D], mask bool[N, A] -> int64[N]: each row from the part whose decision it is.

        keys: uint64[N] decision keys, games: int[N] game ids, each passed on to the parts that
        take them (:mod:`ghost_euchre.agents.streams`).
        """
        mask = np.asarray(mask, dtype=bool)
        cards = self.variant.card_play(np.asarray(obs))
        actions = np.zeros(len(mask), np.int64)
        for part, rows in (
            (self.play, np.flatnonzero(cards)),
            (self.auction, np.flatnonzero(~cards)),
        ):
            if len(rows) == len(mask):
                return np.asarray(act_keyed(part, obs, mask, keys, games), dtype=np.int64)
            if len(rows):
                part_keys = None if keys is None else np.asarray(keys)[rows]
                part_games = None if games is None else np.asarray(games)[rows]
                part_obs = np.take(obs, rows, axis=0)
                actions[rows] = act_keyed(part, part_obs, mask[rows], part_keys, part_games)
        return actions

    def playout(self):
        """(kernel, arguments) of the compiled playout of a greedy network's auction over the
        heuristic's cards (:func:`ghost_euchre.agents.playouts.bid_playout`), or None."""
        return bid_playout(self.auction, self.play)

    def reset(self, games):
        self.auction.reset(games)
        self.play.reset(games)

    def game_over(self, *ended):
        """Passed on to the parts that take it (:func:`ghost_euchre.agents.base.game_over`)."""
        for part in (self.auction, self.play):
            game_over(part, *ended)

    def show_deal(self, games, state):
        """Passed on to the parts that take it (:func:`ghost_euchre.agents.base.show_deal`)."""
        for part in (self.auction, self.play):
            show_deal(part, games, state)

    def end_match(self):
        """Passed on to the parts that take it (:func:`ghost_euchre.agents.base.end_match`)."""
        for part in (self.auction, self.play):
            end_match(part)
