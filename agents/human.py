"""``human``: a person playing at the terminal, and the narration of a table for them.

:class:`HumanPolicy` shows what its seat sees (read from the observation only:
hand, trump, contract, current trick, scores) and the legal moves, numbered and
by name, then reads a move: its number or its name (``JH``/``J♥``, ``pass``,
``bid 4``, ``moon``, ``swap``, ``hearts``, ``alone``, ...). Anything else is
asked again; end of input or Ctrl-C raises :class:`HumanQuit`.
:class:`Narrator` prints every move and result at the table (public information only).
"""

import numpy as np

from ghost_euchre_env import ghost
from ghost_euchre_env.cards import NUM_CARDS, card_name, parse_card

from .base import Policy

SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")
GHOST_RELATIVE = ("you", "left", "right")
CLASSIC_RELATIVE = ("you", "left", "partner", "right")


class HumanQuit(Exception):
    """The person stopped playing (end of input or Ctrl-C)."""


def _is_classic(game):
    return game.num_players == 4


def action_name(game, action):
    """A move as words: 'J♥', 'pass', 'bid 4', 'moon', 'swap', 'trump ♥', 'order/name ♥', 'alone'."""
    if action < NUM_CARDS:
        return card_name(action)
    if action == ghost.PASS:
        return "pass"
    if _is_classic(game):
        from ghost_euchre_env import classic

        if action == classic.GO_ALONE:
            return "alone"
        if action == classic.WITH_PARTNER:
            return "partner"
        return f"suit {card_name(action - classic.SUIT_CLUBS)[1]} ({SUIT_WORDS[action - classic.SUIT_CLUBS]})"
    if ghost.TRUMP_CLUBS <= action < ghost.TRUMP_CLUBS + 4:
        return f"trump {card_name(action - ghost.TRUMP_CLUBS)[1]} ({SUIT_WORDS[action - ghost.TRUMP_CLUBS]})"
    return {
        ghost.BID_3: "bid 3",
        ghost.BID_4: "bid 4",
        ghost.BID_5: "bid 5",
        ghost.MOON: "moon",
        ghost.SWAP: "swap",
    }[action]


def parse_move(game, text, legal):
    """The legal action named by ``text`` (a menu number 1..len(legal), or a name), else None."""
    text = text.strip().lower()
    if text.isdigit():
        number = int(text)
        return legal[number - 1] if 1 <= number <= len(legal) else None
    names = {}
    for action in legal:
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
    like ``print`` (default: ``print``).
    """

    name = "human"

    def __init__(self, game, seed=None, read=None, write=None):
        super().__init__(game, seed)
        self.read = read or (lambda prompt: input(prompt))  # noqa: PLW0108 (late-bound: sees a patched input)
        self.write = write or print

    def act(self, obs, mask):
        return np.array([self._ask(o, m) for o, m in zip(obs, mask, strict=True)], np.int64)

    def _ask(self, obs, mask):
        self.write(self.describe(obs))
        legal = [int(a) for a in np.flatnonzero(mask)]
        menu = "  ".join(f"[{i + 1}] {action_name(self.game, a)}" for i, a in enumerate(legal))
        self.write(f"Your move: {menu}")
        while True:
            try:
                text = self.read("> ")
            except (EOFError, KeyboardInterrupt):
                raise HumanQuit from None
            action = parse_move(self.game, text, legal)
            if action is not None:
                return action
            self.write(
                f"Not a legal move: {text.strip()!r}. Enter a number 1..{len(legal)} or a move's name."
            )

    def describe(self, obs):
        """What this seat sees, as a few lines of text (from the observation only)."""
        if _is_classic(self.game):
            from ghost_euchre_env.classic import OBS_OFFSETS

            relative = CLASSIC_RELATIVE
        else:
            OBS_OFFSETS = ghost.OBS_OFFSETS
            relative = GHOST_RELATIVE

        def field(name):
            start, stop = OBS_OFFSETS[name]
            return obs[start:stop]

        lines = [f"Your hand: {_cards(field('hand'))}"]
        if "dead_hand" in OBS_OFFSETS and field("dead_hand").any():
            lines.append(f"Your dead hand (swapped away): {_cards(field('dead_hand'))}")
        if "upcard" in OBS_OFFSETS and field("upcard").any():
            lines.append(f"Upcard: {_cards(field('upcard'))}")
        if field("trump").any():
            lines.append(f"Trump: {SUIT_WORDS[int(field('trump').argmax())]}")
        if "contract" in OBS_OFFSETS and field("contract").any():
            level = ("3", "4", "5", "moon")[int(field("contract").argmax())]
            lines.append(f"Contract: {level} by {relative[int(field('declarer').argmax())]}")
        if "maker" in OBS_OFFSETS and field("maker").any():
            lines.append(f"Maker: {relative[int(field('maker').argmax())]}")
        trick = field("current_trick").reshape(len(relative), NUM_CARDS)
        if trick.any():
            played = [
                f"{relative[r]} {card_name(int(trick[r].argmax()))}"
                for r in range(len(relative))
                if trick[r].any()
            ]
            lines.append(f"Trick so far: {', '.join(played)}")
        scale = self.game.rules.target_score
        if _is_classic(self.game):
            scores = np.rint(field("scores") * scale).astype(int)
            lines.append(f"Scores: your team {scores[0]}, other team {scores[1]}")
        else:
            scores = np.rint(field("scores") * scale).astype(int)
            lines.append(
                "Scores: " + ", ".join(f"{relative[r]} {scores[r]}" for r in range(len(relative)))
            )
        return "\n".join(lines)


class Narrator:
    """Prints the public events of one game (N = 1) as it is stepped.

    Call ``before(state)`` before choosing a move, ``action(state, a)`` with the
    chosen move, ``after(state, result)`` after stepping.
    """

    def __init__(self, game, names, write=print):
        self.game, self.names, self.write = game, names, write
        self.deal = None
        self.tricks = None
        seats = ", ".join(f"seat {s} {n}" for s, n in enumerate(names))
        self.write(f"Seats, clockwise: {seats}")

    def _seat(self, seat):
        return f"seat {seat} ({self.names[seat]})"

    def before(self, state):
        deal = (int(state.episode[0]), int(state.deal_number[0]))
        if deal != self.deal:
            self.deal = deal
            extra = ""
            if _is_classic(self.game):
                extra = f"; upcard {card_name(int(state.upcard[0]))}"
            self.write(f"--- deal {deal[1]}: dealer {self._seat(int(state.dealer[0]))}{extra} ---")
        self.tricks = state.tricks_won[0].copy()

    def action(self, state, action):
        self.write(f"{self._seat(int(state.player[0]))}: {action_name(self.game, action)}")

    def after(self, state, result):
        deals = result.deals
        if len(deals.game):
            tricks = deals.tricks[0]
            won = np.flatnonzero(tricks - self.tricks)
            if len(won) and not deals.thrown_in[0]:
                self.write(f"  trick won by {self._seat(int(won[0]))}")
            if deals.thrown_in[0]:
                self.write("  everybody passed: the deal is thrown in")
            else:
                points = ", ".join(str(int(p)) for p in deals.points[0])
                scores = ", ".join(str(int(s)) for s in deals.scores[0])
                self.write(
                    f"  deal over: tricks {tricks.tolist()}, points {points}; scores {scores}"
                )
        elif (state.tricks_won[0] != self.tricks).any():
            self.write(
                f"  trick won by {self._seat(int(np.flatnonzero(state.tricks_won[0] - self.tricks)[0]))}"
            )
        if result.terminated[0] or result.truncated[0]:
            scores = deals.scores[0] if len(deals.game) else state.scores[0]
            how = (
                "game over"
                if result.terminated[0]
                else f"game cut at {self.game.rules.max_deals} deals"
            )
            self.write(f"=== {how}: final scores {', '.join(str(int(s)) for s in scores)} ===")
