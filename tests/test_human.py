"""Human play at the terminal: seat labels, help, reasons for refused moves, seeds, the winner."""

import itertools
import re

import numpy as np
import pytest

from ghost_euchre.agents.human import HumanPolicy, HumanQuit, seat_labels
from ghost_euchre.arena.interactive import play_interactive
from ghost_euchre_env import GhostEuchre
from ghost_euchre_env.cards import parse_card
from ghost_euchre_env.dealing import stream_keys
from ghost_euchre_env.ghost import BID_3, PASS, TRUMP_CLUBS

HEARTS = TRUMP_CLUBS + 2


def cards(text):
    return [parse_card(t) for t in text.split()]


DEAL = {
    "hands": [cards("AD KD QD TD 9D JS"), cards("JH JD AH KH QH AS"), cards("9H TH AC KC QC JC")],
    "ghost": cards("9C TC 9S TS QS KS"),
}


def seat_2_to_follow(lead):
    """Seat 1 bids 3, names hearts and leads ``lead``; seat 2 (9H TH AC KC QC JC) is to act."""
    game = GhostEuchre()
    state = game.init(stream_keys(0, 1), {"dealer": 0, "deals": [DEAL]})
    for action in (BID_3, PASS, PASS, HEARTS, parse_card(lead)):
        game.step(state, np.array([action]))
    assert state.player[0] == 2
    return game, game.observe(state, np.array([2])), game.legal_mask(state)


def ask(game, obs, mask, replies):
    shown = []
    human = HumanPolicy(game, read=lambda prompt: next(replies), write=shown.append)
    human.take_seat(2, ["heuristic", "heuristic#2", "you"])
    return human.act(obs, mask)[0], "\n".join(shown)


@pytest.mark.parametrize("lead", ["AH", "JD"])  # JD: the left bower, a heart when hearts are trump
def test_a_card_that_does_not_follow_suit_is_refused_naming_the_suit(lead):
    game, obs, mask = seat_2_to_follow(lead)
    action, shown = ask(game, obs, mask, iter(["AC", "AS", "9H"]))
    assert action == parse_card("9H")
    assert "You must follow the suit led, ♥ (hearts): play 9♥ T♥." in shown
    assert "You do not hold A♠." in shown
    assert f"Trick so far: heuristic#2 {'A♥' if lead == 'AH' else 'J♦'}" in shown
    assert "Tricks this deal: heuristic 0, heuristic#2 0, you 0" in shown


def test_help_explains_how_to_move_and_what_is_allowed_now():
    game, obs, mask = seat_2_to_follow("AH")
    _, shown = ask(game, obs, mask, iter(["help", "?", "2"]))
    assert shown.count("Enter a move by its number in the menu") == 2
    assert "Allowed now: [1] 9♥  [2] T♥" in shown and "left bower" in shown


def test_a_bid_too_low_is_refused_with_the_reason():
    game = GhostEuchre()
    state = game.init(stream_keys(0, 1), {"dealer": 0, "deals": [DEAL]})
    game.step(state, np.array([BID_3 + 1]))  # seat 1 bids 4
    _, shown = ask(
        game,
        game.observe(state, np.array([2])),
        game.legal_mask(state),
        iter(["bid 3", "moon"]),
    )
    assert "A bid must be higher than the highest so far (4)." in shown


def test_seat_labels_name_the_only_human_you():
    assert seat_labels(["heuristic", "human", "random"], [False, True, False]) == [
        "heuristic",
        "you",
        "random",
    ]
    assert seat_labels(["human", "human#2", "random"], [True, True, False]) == [
        "human",
        "human#2",
        "random",
    ]


def test_a_game_at_the_terminal_names_seats_one_way_counts_tricks_and_names_the_winner(
    monkeypatch,
):
    replies = itertools.chain(["help", "nonsense"], itertools.repeat("1"))
    monkeypatch.setattr("builtins.input", lambda prompt="": next(replies))
    lines = []
    (scores,) = play_interactive(["heuristic", "human", "heuristic"], seed=None, out=lines.append)
    text = "\n".join(lines)
    announced = re.match(r"seed (\d+) \(play these deals again with --seed \1\)", lines[0])
    assert announced is not None
    seed = int(announced[1])
    assert "Players, clockwise: heuristic, you, heuristic#2" in text
    assert not re.search(
        r"\bseat \d|\bleft\b|\bright\b|\[\d+, \d+", re.sub(r"(left|right) bower", "", text)
    )
    assert re.search(r"takes the trick; tricks: heuristic \d, you \d, heuristic#2 \d", text)
    winner = ["heuristic", "you", "heuristic#2"][int(np.argmax(scores))]
    assert lines[-1].startswith(f"=== game over: {winner} win")
    # The printed seed deals the same cards again.
    monkeypatch.setattr("builtins.input", lambda prompt="": "1")
    again = []
    play_interactive(["heuristic", "human", "heuristic"], seed=seed, out=again.append)
    first_hand = next(line for line in lines if line.startswith("Your hand:"))
    assert first_hand == next(line for line in again if line.startswith("Your hand:"))
    assert not again[0].startswith("seed")  # a given seed is not announced


def test_the_narration_says_you_take_and_you_deal(monkeypatch):
    monkeypatch.setattr("builtins.input", lambda prompt="": "1")
    lines = []
    play_interactive(["human", "heuristic", "heuristic"], seed=3, out=lines.append)
    text = "\n".join(lines)
    assert re.search(r"^--- deal \d+: you deal ---$", text, re.MULTILINE)
    assert re.search(r"^  you take the trick; tricks: you \d", text, re.MULTILINE)
    assert re.search(r"^--- deal \d+: heuristic deals ---$", text, re.MULTILINE)
    assert re.search(r"^  heuristic#2 takes the trick;", text, re.MULTILINE)
    assert not re.search(r"\byou (takes|deals|wins)\b", text)


@pytest.mark.parametrize(("error", "interrupted"), [(EOFError, False), (KeyboardInterrupt, True)])
def test_end_of_input_and_ctrl_c_are_told_apart(error, interrupted):
    game, obs, mask = seat_2_to_follow("AH")

    def stop(prompt):
        raise error

    human = HumanPolicy(game, read=stop, write=lambda line: None)
    with pytest.raises(HumanQuit) as raised:
        human.act(obs, mask)
    assert raised.value.interrupted is interrupted
