"""One game (N = 1) played move by move, and what a page shows of it.

The web page's play and watch modes both drive a :class:`Table`: ``apply``
checks a move against the engine's legal mask and steps the engine; the table
keeps the moves, the tricks and the deal summaries the engine reported, and
``view`` turns the engine state into a JSON-ready dict of what the given seats
may see. No rule lives here: legality is the engine's mask, every value shown
is read from the engine's state or deal summaries, names come from the
engine's and ``ghost_euchre_env.render``'s helpers. A replay's frames (never a
live game's view) also carry the exact solver's best card(s) at each card
decision (``ghost_euchre_env.solver`` through ``ghost_euchre.arena.analysis``).
"""

import dataclasses
import typing

import numpy as np

from ghost_euchre_env import dealing, solver, variants
from ghost_euchre_env.cards import SUIT_SYMBOLS
from ghost_euchre_env.core import DealSummary, trick_taker

from ..analysis import solve_decision
from ..match import make_game
from .shows import card, cards, seat_or_none, table_shows


def solver_marks(seat, values, best):
    """A replay frame's ``solver``: {"seat": the seat to play, "best": [the card ids of the
    highest value], "values": [{"id", "value"} of every legal card, in the deal's points]}, from
    :meth:`Table.solved`."""
    return {
        "seat": seat,
        "best": list(best),
        "values": [{"id": c, "value": v} for c, v in values],
    }


def seed_key(seed):
    """The dealing stream key of the game seeded ``seed`` (game 0 of ``dealing.stream_keys``)."""
    return int(dealing.stream_keys(seed, 1)[0])


class Table:
    """One game of ``variant`` (a name of :mod:`ghost_euchre_env.variants`) stepped one move at a time.

    key: the dealing stream key (int, 0 <= key < 2**64; every deal of the game
    is a pure function of it; seed s plays ``dealing.stream_keys(s, 1)[0]`` as
    everywhere else, see :func:`seed_key`); episode: "game" or "deal"; rules:
    the engine's rules options (dict); names: one name per seat. The engine
    checks every option and raises ValueError with a one-line message for a bad one.
    """

    def __init__(self, variant="ghost", key=None, episode="game", rules=None, names=None):
        self.game = make_game(variant, episode, rules)
        self.variant = variant
        self.descriptor = variants.make(variant)  # its action names and phases
        self.key = seed_key(0) if key is None else int(key)
        self.state = self.game.init(np.array([self.key], np.uint64))
        seats = range(self.game.num_players)
        self.names = list(names) if names else [f"seat {s}" for s in seats]
        self.moves = []  # every move: {"step", "deal", "seat", "action", "name", "phase"}
        self.tricks = []  # completed tricks of the deal in progress (see _trick)
        self.deals = []  # one summary per ended deal (see _deal_summary)
        self.shows = table_shows(self.descriptor)  # what the page shows of this variant
        self.over = False
        self.truncated = False

    # ------------------------------------------------------------------ moves
    @property
    def to_act(self):
        """The seat to act, or None when the game is over."""
        return seat_or_none(self.state.player[0])

    def legal(self):
        """The legal action ids of the seat to act (the engine's mask), ascending."""
        return [int(a) for a in np.flatnonzero(self.game.legal_mask(self.state)[0])]

    def action_name(self, action):
        """The engine's name of an action id: 'J♥', 'pass', 'bid 4', 'trump ♥', 'suit ♥', 'alone'."""
        return self.descriptor.actions.name(action)

    def observation(self, seat):
        """(obs float32[1, D], mask bool[1, A]) of ``seat``: what a policy is given."""
        return self.game.observe(self.state, np.array([seat])), self.game.legal_mask(self.state)

    def apply(self, action):
        """Play ``action`` (an int) for the seat to act; ValueError (nothing changed) unless legal."""
        if self.over:
            raise ValueError("the game is over; no move can be made")
        legal = self.legal()
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise TypeError(f"action must be an int action id, got {action!r}")
        if action not in legal:
            named = ", ".join(f"{a} ({self.action_name(a)})" for a in legal)
            what = self.action_name(action) if 0 <= action < self.game.num_actions else "unknown"
            raise ValueError(f"action {action} ({what}) is not legal now; legal: {named}")
        s = self.state
        seat, phase, leader = int(s.player[0]), int(s.phase[0]), int(s.leader[0])
        trick, tricks_won = s.trick[0].copy(), s.tricks_won[0].copy()
        deal = int(s.deal_number[0])
        self.shows.before_move(s, action)
        result = self.game.step(s, np.array([action]))
        deals = typing.cast("DealSummary", result.deals)  # a variant's, with its own fields
        self.moves.append(
            {
                "step": len(self.moves) + 1,
                "deal": deal,
                "seat": seat,
                "action": int(action),
                "name": self.action_name(action),
                "phase": self.descriptor.state_phases[phase],
            }
        )
        ended = len(deals.game) > 0
        if phase == self.descriptor.play_phase:
            trick[seat] = action
            winner = trick_taker(tricks_won, s, result)
            if winner is not None:
                self.tricks.append(self._trick(trick, leader, winner))
        over = bool(result.terminated[0] or result.truncated[0])
        if ended:
            self.deals.append(self._deal_summary(deals, deal))
            if not over:  # a new deal starts; the last one stays on the table, as in the engine
                self.tricks = []
                self.shows.new_deal()
        if over:
            self.over, self.truncated = True, bool(result.truncated[0])

    def moves_seen(self, visible, since=0):
        """The moves from number ``since`` on as ``visible`` (a set of seats) saw them.

        Every move is public but the classic dealer's discard, which shows as
        'discard' without its card to the other seats.
        """
        seen = []
        for move in self.moves[since:]:
            if move["phase"] == "discard" and move["seat"] not in visible:
                move = dict(move, action=None, name="discard")
            seen.append(move)
        return seen

    def _trick(self, trick, leader, winner):
        """A trick as {"leader", "winner", "cards": [{"seat", "card"}] in play order}."""
        num = self.game.num_players
        order = [(leader + k) % num for k in range(num)]
        return {
            "leader": leader,
            "winner": winner,
            "cards": [{"seat": t, "card": card(int(trick[t]))} for t in order if trick[t] >= 0],
        }

    def _deal_summary(self, deals, deal):
        """The engine's summary of the deal that just ended (row 0) as a JSON-ready dict."""
        summary = {
            f.name: getattr(deals, f.name)[0].tolist()
            for f in dataclasses.fields(deals)
            if f.name != "game"
        }
        summary["deal"] = deal
        summary["tricks_played"] = self.tricks
        summary["trump"] = SUIT_SYMBOLS[summary["trump"]] if summary["trump"] >= 0 else None
        self.shows.deal(summary)
        return summary

    def replay(self, actions, first=0, count=None, solved=None):
        """Play ``actions`` (int ids) from the start and return positions, all hands shown.

        Position k is the table before move k (position len(actions): the end).
        Returns {"variant", "episode", "rules", "names", "frames": [a view of
        each position first .. first + count - 1 (count None: to the end),
        without the play-only "buttons" and the constant fields], "first",
        "positions": len(actions) + 1, "moves", "deals"}. A frame where a card is
        to be played carries the exact solver's best card(s) and every legal card's
        value too (its ``solver``: :func:`solver_marks`); solved: a dict {position:
        :meth:`solved`} consulted and filled (a replay's cache), or None. A move
        that is not legal raises ValueError naming it (the table then holds the
        positions before it).
        """
        everyone = set(self._seats)
        constant = ("variant", "episode", "rules", "buttons")
        last = len(actions) if count is None else min(len(actions), first + count - 1)
        solved = {} if solved is None else solved
        start = len(self.moves)  # the position of the table now: 0, or a page's mark

        def frame(position):
            shown = {k: v for k, v in self.view(everyone).items() if k not in constant}
            if position not in solved:
                solved[position] = self.solved()
            if solved[position] is not None:
                shown["solver"] = solver_marks(*solved[position])
            return shown

        frames = [frame(start)] if first == 0 else []
        for position, action in enumerate(actions, 1):
            self.apply(int(action))
            if first <= position <= last:
                frames.append(frame(start + position))
        return {
            "variant": self.variant,
            "episode": self.game.episode,
            "rules": dataclasses.asdict(self.game.rules),
            "names": self.names,
            "frames": frames,
            "first": first,
            "positions": len(actions) + 1,
            "moves": self.moves,
            "deals": self.deals,
        }

    def solved(self):
        """(seat, values, best) of ``analysis.solve_decision`` where a card is to be played,
        every hand seen, else None. For replays of finished games only (:meth:`replay`): it
        reads every hand, so a live game's views never carry it."""
        if self.over or self.to_act is None or not solver.in_play(self.game, self.state)[0]:
            return None
        return (self.to_act, *solve_decision(self.game, self.state))

    # ------------------------------------------------------------------- views
    def view(self, visible=()):
        """What the seats ``visible`` (iterable of seats) see, as a JSON-ready dict.

        Hands, the ghost or dead hand and the dealer's discard are shown only to
        the seats entitled to them (every seat for a replay); ``legal`` lists the
        legal actions when a visible seat is to act, else it is empty.
        """
        visible = {int(v) for v in visible}
        s = self.state
        to_act = self.to_act
        legal = self.legal() if to_act in visible else []
        hand_cards = [cards(s.hands[0, seat]) if seat in visible else None for seat in self._seats]
        leader = seat_or_none(s.leader[0])
        view = {
            "variant": self.variant,
            "episode": self.game.episode,
            "rules": dataclasses.asdict(self.game.rules),
            "step": len(self.moves),
            "deal": int(s.deal_number[0]),
            "phase": self.descriptor.state_phases[int(s.phase[0])],
            "dealer": seat_or_none(s.dealer[0]),
            "to_act": to_act,
            "over": self.over,
            "truncated": self.truncated,
            "legal": legal,
            "buttons": [
                {"action": a, "name": self.action_name(a), "legal": a in legal}
                for a in self.shows.buttons
            ],
            "trick": {
                "number": int(s.trick_number[0]) + 1,
                "leader": leader,
                "cards": [] if leader is None else self._trick(s.trick[0], leader, None)["cards"],
            },
            "tricks": list(self.tricks),  # the tricks completed so far, not the list that grows
            "deals_ended": len(self.deals),
        }
        seats = []
        for seat in self._seats:
            hand = hand_cards[seat]
            if hand is not None:
                for c in hand:
                    c["legal"] = c["id"] in legal
            seats.append(
                {
                    "seat": seat,
                    "name": self.names[seat],
                    "tricks": int(s.tricks_won[0, seat]),
                    "held": int(s.hands[0, seat]).bit_count(),
                    "hand": hand,
                }
            )
        view["seats"] = seats
        self.shows.view(s, view, visible)
        return view

    @property
    def _seats(self):
        return range(self.game.num_players)
