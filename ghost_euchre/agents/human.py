"""``human``: a person playing at the terminal, and the narration of a table for them.

Every seat has one label, used in every line printed: ``you`` for the only
human at the table, otherwise the player's name (``heuristic``,
``heuristic#2``); :func:`seat_labels` makes them. :class:`HumanPolicy` shows
what its seat sees (read from the observation only: hand, trump, contract,
current trick, tricks taken so far this deal, scores) and the legal moves,
numbered and by name, then reads a move: its number or its name (``JH``/``J♥``,
``pass``, ``bid 4``, ``moon``, ``swap``, ``hearts``, ``alone``, ...). ``help``
explains how; a move that is not allowed is refused with the reason (a card
not held, the suit that must be followed, a bid too low, ...) and asked
again; end of input or Ctrl-C raises :class:`HumanQuit`.
:class:`Narrator` prints every move and result at the table (public information
only), with a running count of tricks and, at the end, the winner.
"""

import numpy as np

from ghost_euchre_env import classic, ghost, render
from ghost_euchre_env.cards import NUM_CARDS, SUIT_SYMBOLS, card_name, effective_suit, parse_card
from ghost_euchre_env.core import trick_taker

from .base import Policy

SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")
HELP_WORDS = ("help", "?", "h")


class HumanQuit(Exception):
    """The person stopped playing: ``interrupted`` is True for Ctrl-C, False for end of input."""

    def __init__(self, interrupted=False):
        super().__init__("interrupted (Ctrl-C)" if interrupted else "end of input")
        self.interrupted = interrupted


def _says(label, verb):
    """'heuristic takes', 'you take': ``label`` and ``verb`` (its plain form) in agreement."""
    return f"{label} {verb}" if label == "you" else f"{label} {verb}s"


def _suit(suit):
    return f"{SUIT_SYMBOLS[suit]} ({SUIT_WORDS[suit]})"


def seat_labels(names, humans):
    """One label per seat: ``you`` for the only human seat (humans: bool per seat), else the name."""
    if sum(bool(h) for h in humans) != 1:
        return list(names)
    return ["you" if human else name for name, human in zip(names, humans, strict=True)]


def action_name(game, action):
    """A move as words: 'J♥', 'pass', 'bid 4', 'moon', 'swap', 'trump ♥ (hearts)', 'suit ♥ (hearts)', 'alone'."""
    actions = game.variant.actions
    name = actions.name(action)
    suits = actions.SUITS
    return f"{name} ({SUIT_WORDS[suits.index(action)]})" if action in suits else name


def _names(game, actions):
    """{text a person may type: action} for ``actions`` (names, short forms, suit words)."""
    names = {}
    for action in actions:
        full = action_name(game, action).lower()
        names[full] = action
        if action < NUM_CARDS:
            names[card_name(action, unicode=False).lower()] = action
        elif " (" in full:  # suits: 'trump ♥ (hearts)' -> 'hearts', 'h', '♥', 'trump hearts'
            symbol, word = full.split(" ")[1], full.split("(")[1].rstrip(")")
            for alias in (symbol, word, word[0], f"{full.split(' ')[0]} {word}"):
                names[alias] = action
        else:
            names[full.replace(" ", "")] = action
    return names


def parse_move(game, text, legal):
    """The legal action named by ``text`` (a menu number 1..len(legal), or a name), else None."""
    text = text.strip().lower()
    if text.isdigit():
        number = int(text)
        return legal[number - 1] if 1 <= number <= len(legal) else None
    names = _names(game, legal)
    if text in names:
        return names[text]
    try:
        card = parse_card(text)
    except ValueError:
        return None
    return card if card in legal else None


def _cards(bits):
    return " ".join(card_name(c) for c in np.flatnonzero(bits > 0.5)) or "-"


class HumanPolicy(Policy):
    """A person at the terminal (spec ``human``); one prompt per game to decide.

    read: a function like ``input`` (prompt -> str; default: ``input``); write:
    like ``print`` (default: ``print``). :meth:`take_seat` tells it its seat and
    the table's labels (without it, the others are named by where they sit).
    """

    name = "human"

    def __init__(self, game, seed=None, read=None, write=None):
        super().__init__(game, seed)
        self.read = read or (lambda prompt: input(prompt))  # noqa: PLW0108 (late-bound: sees a patched input)
        self.write = write or print
        self.seat = 0
        partner, last = self.variant.partner, game.num_players - 1
        self.labels = [
            "you",
            *(
                "partner" if r == partner else "left" if r == 1 else "right"
                for r in range(1, last + 1)
            ),
        ]

    def take_seat(self, seat, labels, write=None):
        """Sit at ``seat`` (absolute) at a table whose seats are named ``labels`` (one per seat).

        write: where to print from now on (the table's narration), if given.
        """
        self.seat, self.labels = seat, list(labels)
        self.write = write or self.write

    def _label(self, relative):
        """The label of the seat ``relative`` places clockwise from this one."""
        return self.labels[(self.seat + relative) % self.game.num_players]

    def act(self, obs, mask):
        return np.array([self._ask(o, m) for o, m in zip(obs, mask, strict=True)], np.int64)

    def _ask(self, obs, mask):
        self.write(self.describe(obs))
        legal = [int(a) for a in np.flatnonzero(mask)]
        self.write(f"Your move: {self._menu(legal)}   (help: type help)")
        while True:
            try:
                text = self.read("> ")
            except EOFError:
                raise HumanQuit(interrupted=False) from None
            except KeyboardInterrupt:
                raise HumanQuit(interrupted=True) from None
            if text.strip().lower() in HELP_WORDS:
                self.write(self.help(legal))
                continue
            action = parse_move(self.game, text, legal)
            if action is not None:
                return action
            self.write(self.why_not(obs, text, legal))

    def _menu(self, legal):
        return "  ".join(f"[{i + 1}] {action_name(self.game, a)}" for i, a in enumerate(legal))

    def help(self, legal):
        """How to enter a move, the rules in a few lines, and the moves allowed now."""
        if self.variant.has_partners:
            moves = "'pass', a suit ('hearts', 'h' or '♥') to order up or name trump, 'alone', 'partner'"
            rules = (
                "Partners sit across the table; 3 of 5 tricks score 1 for the makers, all 5 score 2 "
                "(4 alone); makers held to 2 or fewer: 2 to the defenders. First team to "
                f"{self.game.rules.target_score} wins."
            )
        else:
            moves = "'pass', 'bid 3', 'bid 4', 'bid 5', 'moon', 'swap' (take the ghost hand), a trump suit ('hearts', 'h' or '♥')"
            rules = (
                "Bid how many of the 6 tricks you will take (moon: all 6); the declarer names trump "
                "and leads; a declarer who falls short loses the bid, everyone else scores a point "
                f"per trick. First to {self.game.rules.target_score} alone wins."
            )
        return "\n".join(
            [
                (
                    "Enter a move by its number in the menu, or by its name: a card as 'JH', 'jh' "
                    f"or 'J♥' (ranks 9 T J Q K A, suits C D H S), {moves}."
                ),
                (
                    "You must follow the suit led if you can. The jack of trump (right bower) is "
                    "the highest card, the other jack of the same colour (left bower) the next, "
                    "and it counts as a trump, not as its printed suit."
                ),
                rules,
                "End of input (Ctrl-D) or Ctrl-C leaves the game.",
                f"Allowed now: {self._menu(legal)}",
            ]
        )

    def why_not(self, obs, text, legal):
        """One line saying why ``text`` is not a move now, and what is."""
        view = self.variant.view(obs[None])
        try:
            card = parse_card(text)
        except ValueError:
            card = None
        allowed = f"Allowed now: {self._menu(legal)}"
        if card is not None:
            hand = np.flatnonzero(view.hand[0])
            if not any(a < NUM_CARDS for a in legal):
                return f"Not now: no card is played at this point. {allowed}"
            if card not in hand:
                return f"You do not hold {card_name(card)}. {allowed}"
            if "upcard" in view.fields and view.upcard[0] == card:
                return f"The dealer may not discard the upcard it picked up. {allowed}"
            led = self._led_suit(view)
            if led is not None:
                cards = " ".join(card_name(a) for a in legal if a < NUM_CARDS)
                return f"You must follow the suit led, {_suit(led)}: play {cards}."
            return f"Not a legal move: {text.strip()!r}. {allowed}"
        named = _names(self.game, range(NUM_CARDS, self.game.num_actions)).get(text.strip().lower())
        if named is None:
            return (
                f"Not a legal move: {text.strip()!r}. Enter a number 1..{len(legal)} or a move's "
                "name (type help)."
            )
        if self.variant.has_partners:
            naming = any(a in self.variant.actions.SUITS for a in legal)
            if named == classic.PASS and naming:
                return f"Stick the dealer: the dealer must name trump. {allowed}"
        elif ghost.PASS in legal:  # the auction
            if named in (ghost.BID_3, ghost.BID_4, ghost.BID_5, ghost.MOON):
                high = render.bid_name(int(view.contract[0]))
                return f"A bid must be higher than the highest so far ({high}). {allowed}"
            if named == ghost.SWAP:
                return (
                    f"The ghost hand can be taken once per deal, before you bid or pass. {allowed}"
                )
        return f"{action_name(self.game, named)} is not allowed now. {allowed}"

    @staticmethod
    def _led_suit(view):
        """The suit to follow in the current trick (None when leading or when no trump is named)."""
        leader, trump = int(view.leader[0]), int(view.trump[0])
        if leader < 0 or trump < 0:
            return None
        first = view.current_trick[0, leader]
        if not first.any():
            return None
        return int(effective_suit(np.array([first.argmax()]), np.array([trump]))[0])

    def describe(self, obs):
        """What this seat sees, as a few lines of text (from the observation only).

        Seats are listed clockwise from seat 0, as the narrator lists them.
        """
        view = self.variant.view(obs[None])
        fields = view.fields
        num_players = self.game.num_players
        clockwise = [(seat - self.seat) % num_players for seat in range(num_players)]  # relative
        lines = [f"Your hand: {_cards(view.hand[0])}"]
        if "dead_hand" in fields and view.dead_hand[0].any():
            lines.append(f"Your dead hand (swapped away): {_cards(view.dead_hand[0])}")
        if "upcard" in fields:
            lines.append(f"Upcard: {_cards(view.card_flags('upcard')[0])}")
        lines.append(f"Dealer: {self._label(max(int(view.dealer[0]), 0))}")
        trump = int(view.trump[0])
        if trump >= 0:
            lines.append(f"Trump: {_suit(trump)}")
        if "contract" in fields and view.contract[0]:
            level = render.bid_name(int(view.contract[0]))
            lines.append(f"Contract: {level} by {self._label(max(int(view.maker[0]), 0))}")
        if "maker" in fields and view.maker[0] >= 0:
            lines.append(f"Maker: {self._label(int(view.maker[0]))}")
        trick = view.current_trick[0]
        if trick.any():
            leader = max(int(view.leader[0]), 0)
            in_order = [(leader + k) % num_players for k in range(num_players)]
            played = [
                f"{self._label(r)} {card_name(int(trick[r].argmax()))}"
                for r in in_order
                if trick[r].any()
            ]
            lines.append(f"Trick so far: {', '.join(played)}")
        if trump >= 0:
            tricks = view.tricks_won[0]
            lines.append(
                "Tricks this deal: " + ", ".join(f"{self._label(r)} {tricks[r]}" for r in clockwise)
            )
        scores = np.rint(view.scores[0] * self.game.rules.target_score).astype(int)
        if (
            self.variant.has_partners
        ):  # scores: own team, other team; listed team 0 (seats 0 & 2) first
            own = self.seat % 2
            teams = [
                f"{self.labels[team]} & {self.labels[team + 2]} {scores[0 if team == own else 1]}"
                for team in (0, 1)
            ]
            lines.append(f"Scores: {', '.join(teams)}")
        else:
            lines.append("Scores: " + ", ".join(f"{self._label(r)} {scores[r]}" for r in clockwise))
        return "\n".join(lines)


class Narrator:
    """Prints the public events of one game (N = 1) as it is stepped.

    labels: one per seat (:func:`seat_labels`). Call ``before(state)`` before
    choosing a move, ``action(state, a)`` with the chosen move, ``after(state,
    result)`` after stepping.
    """

    def __init__(self, game, labels, write=print):
        self.game, self.labels, self.write = game, list(labels), write
        self.deal = None
        self.tricks = None
        self.write(f"Players, clockwise: {', '.join(self.labels)}")
        self.variant = game.variant
        if self.variant.has_partners:
            self.write(f"Teams: {self._team(0)} against {self._team(1)}")

    def _team(self, team):
        return " & ".join(self.labels[seat] for seat in range(team, 4, 2))

    def _by_seat(self, values):
        return ", ".join(f"{self.labels[s]} {int(v)}" for s, v in enumerate(values))

    def _by_team(self, values):
        return ", ".join(f"{self._team(t)} {int(v)}" for t, v in enumerate(values))

    def before(self, state):
        deal = (int(state.episode[0]), int(state.deal_number[0]))
        if deal != self.deal:
            self.deal = deal
            upcard = getattr(state, "upcard", None)  # classic's card turned face up
            extra = "" if upcard is None else f"; upcard {card_name(int(upcard[0]))}"
            self.write(
                f"--- deal {deal[1]}: {_says(self.labels[int(state.dealer[0])], 'deal')}{extra} ---"
            )
        self.tricks = state.tricks_won[0].copy()

    def action(self, state, action):
        self.write(f"{self.labels[int(state.player[0])]}: {action_name(self.game, action)}")

    def after(self, state, result):
        deals = result.deals
        ended = len(deals.game) > 0
        tricks = deals.tricks[0] if ended else state.tricks_won[0]
        taker = trick_taker(self.tricks, state, result)
        if taker is not None:
            self.write(
                f"  {_says(self.labels[taker], 'take')} the trick; tricks: {self._by_seat(tricks)}"
            )
        if ended and deals.thrown_in[0]:
            self.write("  everybody passed: the deal is thrown in")
        elif ended:
            by = self._by_team if self.variant.has_partners else self._by_seat
            self.write(f"  deal over: points {by(deals.points[0])}; scores {by(deals.scores[0])}")
        if result.terminated[0] or result.truncated[0]:
            self.write(self._ending(deals.scores[0] if ended else state.scores[0], result))

    def _ending(self, scores, result):
        """The last line: who won (by the final scores), or that the game was cut off."""
        classic_game = self.variant.has_partners
        by = self._by_team if classic_game else self._by_seat
        if result.truncated[0]:
            return f"=== game cut at {self.game.rules.max_deals} deals, no winner: scores {by(scores)} ==="
        best = np.flatnonzero(scores == scores.max())
        names = [self._team(int(b)) if classic_game else self.labels[int(b)] for b in best]
        if len(names) > 1:
            return f"=== game over: a tie between {' and '.join(names)}; scores {by(scores)} ==="
        winner = f"{names[0]} win" if classic_game else _says(names[0], "win")  # a team: plural
        return f"=== game over: {winner}; scores {by(scores)} ==="
