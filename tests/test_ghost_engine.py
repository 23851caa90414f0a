"""Ghost Hand engine: hand-built deals for every rule, traced by hand in comments.

Cards are written 'JH' (jack of hearts); seats are absolute. The deal used by most
tests (``DEAL``), dealer 0, so the auction goes seat 1, seat 2, seat 0:

    seat 0: AD KD QD TD 9D JS
    seat 1: JH JD AH KH QH AS
    seat 2: 9H TH AC KC QC JC
    ghost : 9C TC 9S TS QS KS
"""

import dataclasses

import numpy as np
import pytest

from ghost_euchre_env import GhostEuchre
from ghost_euchre_env.cards import (
    EFFECTIVE_SUIT,
    STRENGTH,
    cards_to_mask,
    effective_suit,
    mask_to_cards,
    parse_card,
    playable_cards,
    trick_winner,
)
from ghost_euchre_env.core import trick_taker
from ghost_euchre_env.dealing import stream_keys
from ghost_euchre_env.ghost import (
    AUCTION,
    BID_3,
    BID_4,
    BID_5,
    MOON,
    OBS_OFFSETS,
    OVER,
    PASS,
    PLAY,
    SWAP,
    TRUMP,
    TRUMP_CLUBS,
)

C, D, H, S = 0, 1, 2, 3


def cards(text):
    return [parse_card(t) for t in text.split()]


DEAL = {
    "hands": [cards("AD KD QD TD 9D JS"), cards("JH JD AH KH QH AS"), cards("9H TH AC KC QC JC")],
    "ghost": cards("9C TC 9S TS QS KS"),
}


def new_game(deals=(DEAL,), dealer=0, **kwargs):
    game = GhostEuchre(**kwargs)
    state = game.init(stream_keys(0, 1), {"dealer": dealer, "deals": list(deals)})
    return game, state


def legal(game, state):
    return set(np.flatnonzero(game.legal_mask(state)[0]).tolist())


def act(game, state, action, seat=None):
    """Step one legal action (checking who is on move), return the StepResult."""
    if seat is not None:
        assert state.player[0] == seat
    assert action in legal(game, state), (action, legal(game, state))
    return game.step(state, np.array([action]))


def names(text):
    return set(cards(text))


# ---------------------------------------------------------------- card tables
def test_bower_ranking_with_hearts_trump():
    # Right bower JH > left bower JD > AH > KH > QH > TH > 9H, all above any plain card.
    order = cards("JH JD AH KH QH TH 9H")
    strength = [STRENGTH[H, C, c] for c in order]
    assert strength == sorted(strength, reverse=True) and len(set(strength)) == 7
    assert min(strength) > STRENGTH[H, C, parse_card("AC")]
    # Non-trump suit: A K Q J T 9; JC is a plain club when hearts are trump.
    clubs = [STRENGTH[H, C, c] for c in cards("AC KC QC JC TC 9C")]
    assert clubs == sorted(clubs, reverse=True) and len(set(clubs)) == 6
    # A card that neither follows nor trumps cannot win.
    assert STRENGTH[H, C, parse_card("AD")] == 0


def test_left_bower_is_trump_not_its_printed_suit():
    assert EFFECTIVE_SUIT[H, parse_card("JD")] == H
    assert EFFECTIVE_SUIT[C, parse_card("JS")] == C
    assert EFFECTIVE_SUIT[H, parse_card("JS")] == S
    # Diamonds led, hearts trump: holding JD and 9D you must play 9D (JD is a heart now).
    hand = np.array([cards_to_mask(cards("JD 9D AC"))], np.uint32)
    assert mask_to_cards(playable_cards(hand, np.array([D]), np.array([H]))[0]) == cards("9D")
    # Hearts led: JD follows suit.
    assert mask_to_cards(playable_cards(hand, np.array([H]), np.array([H]))[0]) == cards("JD")
    # Spades led, no spade: any card.
    assert mask_to_cards(playable_cards(hand, np.array([S]), np.array([H]))[0]) == sorted(
        cards("JD 9D AC")
    )


def test_trick_winner_left_bower_led_means_trump_led():
    # Hearts trump: JD led (trump), AH follows trump, AD would be off-suit. Left bower beats AH.
    trick = np.array([cards("JD AH AD")], np.int8)
    assert trick_winner(trick, np.array([H]), np.array([H]))[0] == 0
    # Clubs led, nobody trumps: highest club wins; a seat sitting out (-1) never wins.
    trick = np.array([[parse_card("9C"), -1, parse_card("KC")]], np.int8)
    assert trick_winner(trick, np.array([H]), np.array([C]))[0] == 2
    # A low trump beats the led ace.
    trick = np.array([cards("AC 9H KC")], np.int8)
    assert trick_winner(trick, np.array([H]), np.array([C]))[0] == 1


def test_trick_winner_and_effective_suit_agree_with_the_tables_everywhere():
    # Random tricks (three distinct cards, any seat leads): the highest STRENGTH wins;
    # -1 trump/led in unused games is harmless.
    rng = np.random.default_rng(0)
    trump, leader = rng.integers(0, 4, 5000), rng.integers(0, 3, 5000)
    trick = np.stack([rng.permutation(24)[:3] for _ in range(5000)]).astype(np.int8)
    led = EFFECTIVE_SUIT[trump, trick[np.arange(5000), leader]]
    want = STRENGTH[trump[:, None], led[:, None], trick].argmax(axis=1)
    assert np.array_equal(trick_winner(trick, trump.astype(np.int8), led.astype(np.int8)), want)
    assert trick_winner(
        trick[:2], np.array([-1, -1], np.int8), np.array([-1, -1], np.int8)
    ).shape == (2,)
    card = rng.integers(0, 24, 5000).astype(np.int8)
    assert np.array_equal(effective_suit(card, trump.astype(np.int8)), EFFECTIVE_SUIT[trump, card])


def test_trick_taker_names_every_trick_of_every_game_in_a_batch():
    # Random play in 4 games with auto_reset: the takers counted per seat add up to the
    # deal's tricks when it ends (a deal's last trick is read from the deal summary).
    game = GhostEuchre()
    state = game.init(stream_keys(5, 4))
    rng = np.random.default_rng(1)
    taken = np.zeros((4, 3), np.int64)
    deals_checked = 0
    for _ in range(400):
        before = state.tricks_won.copy()
        actions = (rng.random((4, game.num_actions)) * game.legal_mask(state)).argmax(axis=1)
        result = game.step(state, actions, auto_reset=True)
        for g in range(4):
            taker = trick_taker(before[g], state, result, g)
            if taker is not None:
                taken[g, taker] += 1
        for row, g in enumerate(result.deals.game):
            assert taken[g].tolist() == result.deals.tricks[row].tolist()
            assert taken[g].sum() == (0 if result.deals.thrown_in[row] else 6)
            taken[g] = 0
            deals_checked += 1
    assert deals_checked >= 8


# ---------------------------------------------------------------- a full deal
def test_moon_deal_follow_suit_and_left_bower_play_out():
    game, state = new_game(target_score=100)
    assert state.player[0] == 1 and state.phase[0] == AUCTION
    assert legal(game, state) == {PASS, BID_3, BID_4, BID_5, MOON, SWAP}
    act(game, state, MOON, seat=1)  # a moon ends the auction at once: seats 2 and 0 never bid
    assert state.phase[0] == TRUMP and state.player[0] == 1
    assert legal(game, state) == {25, 26, 27, 28}
    act(game, state, TRUMP_CLUBS + H, seat=1)
    assert state.phase[0] == PLAY and state.player[0] == 1  # the declarer leads
    # Trick 1: JH led; seat 2 must follow trump (9H, TH); seat 0 has no heart: anything.
    act(game, state, parse_card("JH"), seat=1)
    assert legal(game, state) == names("9H TH")
    act(game, state, parse_card("9H"), seat=2)
    assert legal(game, state) == names("AD KD QD TD 9D JS")
    act(game, state, parse_card("9D"), seat=0)
    assert state.tricks_won[0].tolist() == [0, 1, 0] and state.player[0] == 1
    # Trick 2: the left bower JD led is a trump lead: seat 2 must play TH.
    act(game, state, parse_card("JD"), seat=1)
    assert legal(game, state) == names("TH")
    act(game, state, parse_card("TH"))
    act(game, state, parse_card("TD"))
    # Tricks 3-5: AH, KH, QH; nobody has a heart left.
    for lead, second, third in [("AH", "JC", "QD"), ("KH", "QC", "KD"), ("QH", "KC", "AD")]:
        act(game, state, parse_card(lead), seat=1)
        act(game, state, parse_card(second), seat=2)
        act(game, state, parse_card(third), seat=0)
    # Trick 6: AS led; seat 2 has only AC; seat 0 must follow with JS (a plain spade here).
    act(game, state, parse_card("AS"), seat=1)
    act(game, state, parse_card("AC"), seat=2)
    assert legal(game, state) == names("JS")
    result = act(game, state, parse_card("JS"), seat=0)
    # Moon made: +24 to seat 1, the others took no trick.
    assert result.rewards[0].tolist() == [0, 24, 0]
    assert state.scores[0].tolist() == [0, 24, 0]
    deal = result.deals
    assert (
        deal.game.tolist() == [0] and deal.bid[0] == 6 and deal.maker[0] == 1 and deal.trump[0] == H
    )
    assert deal.tricks[0].tolist() == [0, 6, 0] and not deal.thrown_in[0]
    # The game goes on: next deal dealt by seat 1, seat 2 to act.
    assert state.deal_number[0] == 2 and state.dealer[0] == 1 and state.player[0] == 2
    assert not result.terminated[0]


# ---------------------------------------------------------------- auction
def test_swap_once_per_deal_before_bidding_then_bid_or_pass():
    game, state = new_game()
    act(game, state, SWAP, seat=1)
    # Seat 1 now holds the ghost hand; its old hand is the dead hand.
    assert mask_to_cards(state.hands[0, 1]) == sorted(cards("9C TC 9S TS QS KS"))
    assert mask_to_cards(state.ghost[0]) == sorted(cards("JH JD AH KH QH AS"))
    assert state.player[0] == 1 and legal(game, state) == {PASS, BID_3, BID_4, BID_5, MOON}
    obs = game.observe(state, np.array([1]))
    start, stop = OBS_OFFSETS["dead_hand"]
    assert np.flatnonzero(obs[0, start:stop]).tolist() == sorted(cards("JH JD AH KH QH AS"))
    for seat in (0, 2):  # nobody else sees the dead hand
        assert not game.observe(state, np.array([seat]))[0, start:stop].any()
    act(game, state, PASS, seat=1)
    assert SWAP not in legal(game, state)  # nobody may swap after a swap
    act(game, state, BID_3, seat=2)
    assert legal(game, state) == {PASS, BID_4, BID_5, MOON}


def test_no_swap_after_own_bid_in_open_auction():
    game, state = new_game(auction="open")
    assert SWAP in legal(game, state)  # seat 1's first turn
    act(game, state, BID_3, seat=1)
    assert SWAP in legal(game, state)  # seat 2 has neither bid nor passed yet
    act(game, state, BID_4, seat=2)
    act(game, state, PASS, seat=0)
    # Seat 1 speaks again and nobody has swapped, but it has bid: it may overbid or pass, not swap.
    assert state.player[0] == 1 and state.swapper[0] == -1
    assert legal(game, state) == {PASS, BID_5, MOON}
    act(game, state, PASS, seat=1)
    assert state.phase[0] == TRUMP and state.maker[0] == 2 and state.high_bid[0] == 4


def test_overbidding_and_single_round():
    game, state = new_game()
    act(game, state, BID_4, seat=1)
    assert legal(game, state) == {PASS, BID_5, MOON, SWAP}
    act(game, state, BID_5, seat=2)
    assert legal(game, state) == {PASS, MOON, SWAP}
    act(game, state, PASS, seat=0)
    # The dealer acted last: the auction is over, seat 2 names trump.
    assert state.phase[0] == TRUMP and state.player[0] == 2 and state.high_bid[0] == 5


def test_open_auction_goes_round_until_others_pass():
    game, state = new_game(auction="open")
    act(game, state, BID_3, seat=1)
    act(game, state, BID_4, seat=2)
    act(game, state, PASS, seat=0)  # seat 0 is out of the auction
    assert state.player[0] == 1 and legal(game, state) == {PASS, BID_5, MOON}
    act(game, state, BID_5, seat=1)
    assert state.player[0] == 2  # seat 0 is skipped
    act(game, state, PASS, seat=2)
    assert state.phase[0] == TRUMP and state.maker[0] == 1 and state.high_bid[0] == 5


def test_all_pass_redeals_with_the_next_dealer():
    game, state = new_game()
    first_hands = state.hands.copy()
    for seat in (1, 2):
        act(game, state, PASS, seat=seat)
    result = act(game, state, PASS, seat=0)
    assert result.deals.thrown_in.tolist() == [True]
    assert state.scores[0].tolist() == [0, 0, 0] and result.rewards[0].tolist() == [0, 0, 0]
    assert state.deal_number[0] == 2 and state.dealer[0] == 1 and state.player[0] == 2
    assert state.phase[0] == AUCTION and not (state.hands == first_hands).all()
    assert not result.terminated[0]


def test_the_next_deal_starts_every_field_of_the_deal_afresh():
    # Seat 1 swaps (its hand becomes the ghost's, the ghost hand its dead hand), then all
    # three pass: the deal is thrown in, seat 1 dealing the second chosen deal. The deal's end
    # kernel fills the summary and starts the deal: the state must be the one a new game
    # dealing that deal holds, but for the episode's count of deals.
    game, state = new_game(deals=[DEAL, DEAL])
    act(game, state, SWAP, seat=1)
    for seat in (1, 2):
        act(game, state, PASS, seat=seat)
    result = act(game, state, PASS, seat=0)
    deals = result.deals
    assert deals.game.tolist() == [0] and deals.thrown_in.tolist() == [True]
    assert (deals.dealer[0], deals.swapper[0], deals.maker[0], deals.contract[0]) == (0, 1, -1, -1)
    assert not deals.made[0] and not deals.alone[0] and deals.points.tolist() == [[0, 0, 0]]
    _, fresh = new_game(deals=[DEAL], dealer=1)
    for name in ("hands", "ghost", "swapper", "acted", "passed_at", "bids", "high_bid"):
        assert (getattr(state, name) == getattr(fresh, name)).all(), name
    for name in ("maker", "trump", "leader", "led_suit", "trick", "trick_number"):
        assert (getattr(state, name) == getattr(fresh, name)).all(), name
    for name in ("played_cards", "trick_cards", "tricks_won", "reneges", "phase", "player"):
        assert (getattr(state, name) == getattr(fresh, name)).all(), name
    assert state.deal_number[0] == 2 and fresh.deal_number[0] == 1
    # A summary holds the arrays its dataclass declares, with deals ended or none.
    plain = act(game, state, PASS, seat=2).deals
    for field in dataclasses.fields(deals):
        ended, none = getattr(deals, field.name), getattr(plain, field.name)
        assert ended.dtype == none.dtype == np.dtype(field.metadata["dtype"]), field.name
        assert ended.shape[1:] == none.shape[1:] and (len(ended), len(none)) == (1, 0)


def test_all_pass_ends_a_deal_episode_with_zero_points():
    game, state = new_game(episode="deal")
    for seat in (1, 2, 0):
        result = act(game, state, PASS, seat=seat)
    assert (
        result.terminated[0] and result.rewards[0].tolist() == [0, 0, 0] and state.phase[0] == OVER
    )
    assert not game.legal_mask(state).any()


# ---------------------------------------------------------------- scoring
def scored(tricks, declarer, bid, reneges=(0, 0, 0), **rules):
    game, state = new_game(**rules)
    state.tricks_won[0] = tricks
    state.maker[0] = declarer
    state.high_bid[0] = bid
    state.reneges[0] = reneges
    return game.deal_points(state, np.array([0]))[0].tolist()


def test_scoring_table():
    assert scored([1, 4, 1], declarer=1, bid=3) == [1, 4, 1]  # made: +1 per trick taken
    assert scored([1, 3, 2], declarer=1, bid=3) == [1, 3, 2]
    assert scored([2, 2, 2], declarer=1, bid=3) == [2, -3, 2]  # set: minus the bid
    assert scored([3, 1, 2], declarer=0, bid=4) == [-4, 1, 2]
    assert scored([0, 6, 0], declarer=1, bid=5) == [0, 6, 0]
    assert scored([1, 0, 5], declarer=2, bid=5) == [1, 0, 5]
    assert scored([2, 0, 4], declarer=2, bid=5) == [2, 0, -5]
    assert scored([0, 6, 0], declarer=1, bid=6) == [0, 24, 0]  # moon made
    assert scored([1, 5, 0], declarer=1, bid=6) == [1, -6, 0]  # moon missed
    assert scored([0, 6, 0], declarer=1, bid=6, moon_points=12) == [0, 12, 0]
    assert scored([1, 5, 0], declarer=1, bid=6, moon_set_penalty=9) == [1, -9, 0]
    assert scored([1, 4, 1], declarer=1, bid=3, reneges=(2, 0, 1)) == [-3, 4, -1]
    assert scored([1, 4, 1], declarer=1, bid=3, reneges=(1, 0, 0), renege_penalty=5) == [-4, 4, 1]


def play_moon_deal(game, state, renege=False):
    """Seat 1 moons in hearts and takes every trick (seat 0 reneges in trick 1 if asked).

    Trick 1: AS led; seat 2 throws JC; seat 0 holds JS and must follow, unless reneging
    with 9D. AS wins either way. Then JH, JD, AH, KH, QH win the rest.
    """
    act(game, state, MOON, seat=1)
    act(game, state, TRUMP_CLUBS + H)
    act(game, state, parse_card("AS"), seat=1)
    act(game, state, parse_card("JC"), seat=2)
    result = act(game, state, parse_card("9D" if renege else "JS"), seat=0)
    plays = [
        ("JH", "9H", "AD"),
        ("JD", "TH", "KD"),
        ("AH", "AC", "QD"),
        ("KH", "KC", "TD"),
        ("QH", "QC", "9D" if not renege else "JS"),
    ]
    for lead, second, third in plays:
        act(game, state, parse_card(lead), seat=1)
        act(game, state, parse_card(second), seat=2)
        result = act(game, state, parse_card(third), seat=0)
    return result


def test_renege_is_illegal_by_default():
    game, state = new_game()
    act(game, state, MOON)
    act(game, state, TRUMP_CLUBS + H)
    act(game, state, parse_card("AS"))
    act(game, state, parse_card("JC"))
    assert legal(game, state) == names("JS")


def test_renege_option_charges_the_penalty_at_scoring():
    game, state = new_game(allow_renege=True, target_score=100)
    act(game, state, MOON)
    act(game, state, TRUMP_CLUBS + H)
    act(game, state, parse_card("AS"))
    act(game, state, parse_card("JC"))
    assert legal(game, state) == names("AD KD QD TD 9D JS")  # any card in hand
    game, state = new_game(allow_renege=True, target_score=100)
    result = play_moon_deal(game, state, renege=True)
    assert result.deals.reneges[0].tolist() == [1, 0, 0]
    assert result.rewards[0].tolist() == [-2, 24, 0]


# ---------------------------------------------------------------- game end
def test_game_ends_at_target_with_a_single_leader():
    game, state = new_game(reward="win")
    state.scores[0] = [30, 8, 0]
    result = play_moon_deal(game, state)
    assert state.scores[0].tolist() == [30, 32, 0]
    assert result.terminated[0] and not result.truncated[0] and state.phase[0] == OVER
    assert result.rewards[0].tolist() == [-0.5, 1.0, -0.5]


def test_tie_at_target_plays_a_tie_break_deal():
    second = {
        "hands": [DEAL["hands"][0], DEAL["hands"][2], DEAL["hands"][1]],
        "ghost": DEAL["ghost"],
    }
    game, state = new_game(deals=[DEAL, second], reward="win")
    state.scores[0] = [32, 8, 0]
    result = play_moon_deal(game, state)
    assert state.scores[0].tolist() == [32, 32, 0]
    assert not result.terminated[0] and result.rewards[0].tolist() == [0, 0, 0]
    # Tie-break deal: dealer 1, seat 2 first; seat 2 now holds the moon hand and takes 6.
    assert state.dealer[0] == 1 and state.player[0] == 2
    act(game, state, MOON, seat=2)
    act(game, state, TRUMP_CLUBS + H)
    for lead in ("JH", "JD", "AH", "KH", "QH", "AS"):
        act(game, state, parse_card(lead), seat=2)
        for _ in range(2):
            result = act(game, state, min(legal(game, state)))
    assert state.scores[0].tolist() == [32, 32, 24]
    assert not result.terminated[0]  # still tied at 32: another deal
    assert state.deal_number[0] == 3


def test_truncation_at_max_deals():
    game, state = new_game(max_deals=2, reward="win")
    result = [act(game, state, PASS) for _ in range(6)][-1]  # two deals thrown in
    assert result.truncated[0] and not result.terminated[0]
    assert result.rewards[0].tolist() == [0, 0, 0] and state.phase[0] == OVER


# ---------------------------------------------------------------- options and errors
@pytest.mark.parametrize(
    ("deal", "message"),
    [
        ({"hands": [DEAL["hands"][0]] * 3, "ghost": DEAL["ghost"]}, "dealt twice"),
        ({"hands": DEAL["hands"], "ghost": DEAL["ghost"][:5]}, "ghost has 5 cards"),
        ({"hands": DEAL["hands"], "ghost": [*DEAL["ghost"][:5], 24]}, "card ids are ints 0..23"),
        ({"hands": DEAL["hands"][:2], "ghost": DEAL["ghost"]}, "must hold 3 hands"),
        ({"hands": DEAL["hands"]}, "keys 'hands' and 'ghost'"),
    ],
)
def test_bad_deals_are_rejected(deal, message):
    with pytest.raises(ValueError, match=message):
        new_game(deals=[deal])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"auction": "twice"}, "auction must be one of"),
        ({"target_score": 0}, "target_score must be an int >= 1"),
        ({"moon_points": "24"}, "moon_points must be an int"),
        ({"allow_renege": 1}, "allow_renege must be a bool"),
        ({"episode": "hand"}, "episode must be one of"),
        ({"reward": "win", "episode": "deal"}, "needs episode='game'"),
        ({"jokers": True}, "unknown rules option"),
    ],
)
def test_bad_rules_are_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GhostEuchre(**kwargs)


def test_bad_options_are_rejected():
    with pytest.raises(ValueError, match=r"dealer must be a seat 0\.\.2"):
        new_game(dealer=3)
    game = GhostEuchre()
    with pytest.raises(ValueError, match="unknown option"):
        game.init(stream_keys(0, 1), {"dealr": 1})
    with pytest.raises(ValueError, match="one per game"):
        game.init(stream_keys(0, 2), [{"dealer": 1}])


@pytest.mark.parametrize(
    ("games", "message"),
    [
        ([2], r"games must be int\[M\] with values 0\.\.1, got"),
        ([-1], r"values 0\.\.1"),
        ([[0]], r"games must be int\[M\]"),
        ([0.5], r"games must be int\[M\]"),
        ([1, 1], "name each game once"),
    ],
)
@pytest.mark.parametrize("start", ["start_episodes", "next_episodes"])
def test_bad_games_to_start_are_rejected_and_nothing_changes(start, games, message):
    game = GhostEuchre()
    state = game.init(stream_keys(0, 2))
    before = state.copy()
    with pytest.raises(ValueError, match=message):
        getattr(game, start)(state, games)
    for name, array in state.arrays().items():
        assert np.array_equal(array, getattr(before, name)), name


def test_chosen_deals_then_random_deals():
    game, state = new_game(deals=[DEAL], dealer=2)
    assert state.dealer[0] == 2
    assert [mask_to_cards(h) for h in state.hands[0]] == [sorted(h) for h in DEAL["hands"]]
    for _ in range(3):
        act(game, state, PASS)
    # The list is used up: the redeal is random but still a partition of the deck.
    held = np.concatenate([state.hands[0], [state.ghost[0]]])
    assert (
        np.bitwise_or.reduce(held) == (1 << 24) - 1
        and sum(bin(int(h)).count("1") for h in held) == 24
    )
