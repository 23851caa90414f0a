"""Classic Euchre engine: hand-built deals for each rule, the scoring table, game end,
the observation against a reference encoder, and bad input.

Hands are written with card names ('JH' = J♥). Seats 0 & 2 play against 1 & 3.
"""

import gymnasium
import numpy as np
import pytest
from engine_helpers import step_live_games

from ghost_euchre_env import classic, classic_euchre_v0, dealing
from ghost_euchre_env.cards import CARD_BIT, mask_to_cards, parse_card
from ghost_euchre_env.classic import (
    ALONE,
    BIDDING,
    DISCARD,
    GO_ALONE,
    NUM_ACTIONS,
    OBS_OFFSETS,
    OBS_SIZE,
    OVER,
    PASS,
    PLAY,
    SUIT_CLUBS,
    WITH_PARTNER,
    ClassicEuchre,
    action_name,
)
from ghost_euchre_env.core import check_actions

CLUBS, DIAMONDS, HEARTS, SPADES = (SUIT_CLUBS + s for s in range(4))


def cards(text):
    """'9C TC JC' -> [0, 4, 8]."""
    return [parse_card(name) for name in text.split()]


# Seat 2 holds the five best hearts; nobody else has a heart above T.
LONE_MARCH = {
    "hands": [
        cards("9C TC JC QC KC"),
        cards("AC 9D TD QD KD"),
        cards("JH JD AH KH QH"),
        cards("AD 9H TH TS JS"),
    ],
    "upcard": parse_card("9S"),  # rest of the kitty: QS KS AS
}


def new_game(deal, dealer, **kwargs):
    """An engine (episode="deal" unless given) and a one-game state dealt ``deal``."""
    kwargs.setdefault("episode", "deal")
    game = ClassicEuchre(**kwargs)
    state = game.init(dealing.stream_keys(0, 1), {"dealer": dealer, "deals": [deal]})
    return game, state


def legal(game, state):
    return np.flatnonzero(game.legal_mask(state)[0]).tolist()


def act(game, state, *actions):
    """Apply actions one by one (each checked legal); returns the last StepResult."""
    results = []
    for action in actions:
        check_actions(np.array([action]), game.legal_mask(state))
        results.append(game.step(state, np.array([action])))
    return results[-1]


def play_lowest(game, state):
    """Play the lowest legal card until the deal ends; returns (seats in play order, last result)."""
    order, results = [], []
    while state.phase[0] == PLAY:
        order.append(int(state.player[0]))
        results.append(act(game, state, legal(game, state)[0]))
    return order, results[-1]


def hand(state, seat):
    return mask_to_cards(state.hands[0, seat])


# --------------------------------------------------------------- rules
def test_order_up_puts_the_upcard_in_the_dealers_hand_and_the_dealer_discards():
    game, state = new_game(LONE_MARCH, dealer=3)
    up = LONE_MARCH["upcard"]
    assert state.player[0] == 0 and legal(game, state) == [
        PASS,
        SPADES,
    ]  # round 1: pass or order up 9♠'s suit
    dealer_hand = hand(state, 3)
    act(game, state, SPADES)  # seat 0 orders the dealer up
    assert state.phase[0] == DISCARD and state.player[0] == 3
    assert state.maker[0] == 0 and state.trump[0] == 3
    assert hand(state, 3) == sorted([*dealer_hand, up])
    assert legal(game, state) == dealer_hand  # any card but the upcard
    act(game, state, parse_card("JS"))
    assert hand(state, 3) == sorted({*dealer_hand, up} - {parse_card("JS")})
    assert state.discard[0] == parse_card("JS")
    # Only the dealer sees its discard.
    start, stop = OBS_OFFSETS["discard"]
    obs = game.observe(state.take(np.zeros(4, int)), np.arange(4))
    assert obs[3, start:stop].nonzero()[0].tolist() == [parse_card("JS")]
    assert not obs[:3, start:stop].any()
    # Then the maker chooses alone or with partner, and the seat left of the dealer leads.
    assert state.phase[0] == ALONE and state.player[0] == 0
    assert legal(game, state) == [GO_ALONE, WITH_PARTNER]
    act(game, state, WITH_PARTNER)
    assert state.phase[0] == PLAY and state.player[0] == 0 and state.leader[0] == 0


def test_dealer_ordering_itself_up_discards_then_chooses():
    game, state = new_game(LONE_MARCH, dealer=1)
    act(game, state, PASS, PASS, PASS, SPADES)  # seats 2, 3, 0 pass; the dealer picks it up
    assert state.maker[0] == 1 and state.phase[0] == DISCARD and state.player[0] == 1
    act(game, state, parse_card("9D"))
    assert state.phase[0] == ALONE and state.player[0] == 1


def test_round_two_names_any_suit_but_the_upcards():
    game, state = new_game(LONE_MARCH, dealer=3)
    act(game, state, PASS, PASS, PASS, PASS)
    assert state.phase[0] == BIDDING and state.passes[0] == 4 and state.player[0] == 0
    assert legal(game, state) == [PASS, CLUBS, DIAMONDS, HEARTS]  # not spades, the upcard's suit
    act(game, state, PASS, DIAMONDS)
    assert state.maker[0] == 1 and state.trump[0] == 1
    assert state.phase[0] == ALONE and state.player[0] == 1  # no discard in round 2
    assert len(hand(state, 3)) == 5
    # Calls as seen by seat 0: round 1 all pass, round 2 seat 0 pass, seat 1 (relative 1) diamonds.
    start, stop = OBS_OFFSETS["calls"]
    calls = game.observe(state, np.array([0]))[0, start:stop].reshape(2, 4, 5)
    assert calls[0, :, 0].tolist() == [1, 1, 1, 1] and calls[0, :, 1:].sum() == 0
    assert calls[1, 0].tolist() == [1, 0, 0, 0, 0] and calls[1, 1].tolist() == [0, 0, 1, 0, 0]
    assert calls[1, 2:].sum() == 0


def test_stick_the_dealer_forbids_the_last_pass():
    game, state = new_game(LONE_MARCH, dealer=3)
    act(game, state, *[PASS] * 7)
    assert state.player[0] == 3 and legal(game, state) == [CLUBS, DIAMONDS, HEARTS]


def test_without_stick_the_dealer_eight_passes_throw_the_deal_in():
    game, state = new_game(LONE_MARCH, dealer=3, stick_the_dealer=False)
    act(game, state, *[PASS] * 7)
    assert legal(game, state) == [PASS, CLUBS, DIAMONDS, HEARTS]
    result = act(game, state, PASS)
    assert result.terminated[0] and state.phase[0] == OVER and state.player[0] == -1
    assert result.deals.thrown_in.tolist() == [True] and not result.rewards.any()
    # In a game the next dealer deals again; scores do not change.
    game, state = new_game(LONE_MARCH, dealer=3, stick_the_dealer=False, episode="game")
    result = act(game, state, *[PASS] * 8)
    assert not result.terminated[0] and result.deals.thrown_in.tolist() == [True]
    assert state.deal_number[0] == 2 and state.dealer[0] == 0 and state.player[0] == 1
    assert state.phase[0] == BIDDING and state.passes[0] == 0 and state.scores[0].tolist() == [0, 0]


def test_going_alone_sits_the_partner_out_and_the_lead_skips_it():
    game, state = new_game(LONE_MARCH, dealer=3)
    act(game, state, *[PASS] * 6, HEARTS)  # seat 2 names hearts in round 2
    assert state.maker[0] == 2 and state.player[0] == 2
    act(game, state, GO_ALONE)
    # Seat 0, left of the dealer, is the maker's partner: seat 1 leads; tricks have three cards.
    assert state.active[0] == 0b1110 and state.leader[0] == 1
    order, result = play_lowest(game, state)
    assert 0 not in order and len(order) == 15
    assert order[:3] == [1, 2, 3]
    assert result.deals.tricks[0].tolist() == [
        0,
        0,
        5,
        0,
    ] and result.deals.alone.tolist() == [True]
    assert result.rewards[0].tolist() == [4, 0, 4, 0]  # lone maker takes all five: 4 to the team


def test_lone_defender_when_allowed_and_two_seats_sitting_out():
    game, state = new_game(LONE_MARCH, dealer=3, allow_lone_defender=True)
    act(game, state, *[PASS] * 6, HEARTS, GO_ALONE)
    # Seat 0 (left of the dealer) is the maker's partner, so seat 1 is asked first, then seat 3.
    assert state.phase[0] == ALONE and state.player[0] == 1
    act(game, state, WITH_PARTNER)
    assert state.player[0] == 3
    act(game, state, GO_ALONE)
    assert state.lone_defender[0] == 3 and state.active[0] == 0b1100
    assert state.phase[0] == PLAY and state.leader[0] == 2  # seats 0 and 1 both sit out
    order, result = play_lowest(game, state)
    assert order == [2, 3] * 5
    assert result.deals.lone_defender.tolist() == [3] and result.rewards[0].tolist() == [4, 0, 4, 0]


def test_second_defender_not_asked_after_a_lone_defender():
    game, state = new_game(LONE_MARCH, dealer=0, allow_lone_defender=True)
    act(game, state, PASS, SPADES)  # seat 2 orders up; the dealer (seat 0) discards
    act(game, state, legal(game, state)[0], WITH_PARTNER)
    assert state.player[0] == 1  # first defender left of the dealer
    act(game, state, GO_ALONE)
    assert state.phase[0] == PLAY and state.lone_defender[0] == 1 and state.active[0] == 0b0111
    assert state.leader[0] == 1


def test_follow_suit_counts_the_left_bower_as_trump():
    game, state = new_game(LONE_MARCH, dealer=3)
    act(game, state, *[PASS] * 6, HEARTS, WITH_PARTNER)
    act(game, state, parse_card("9C"))  # seat 0 leads a club
    assert legal(game, state) == cards("AC")  # seat 1 must follow
    act(game, state, parse_card("AC"))
    assert legal(game, state) == sorted(cards("JD JH QH KH AH"))  # seat 2 has no club: any card
    act(game, state, parse_card("QH"))
    assert legal(game, state) == sorted(cards("AD 9H TH TS JS"))
    act(game, state, parse_card("TS"))
    assert state.tricks_won[0].tolist() == [0, 0, 1, 0] and state.player[0] == 2
    act(game, state, parse_card("JD"))  # the left bower led: trump (hearts) was led, not diamonds
    assert legal(game, state) == cards("9H TH")  # seat 3 must follow with hearts, not with A♦
    act(game, state, parse_card("9H"))
    assert legal(game, state) == cards("9C TC JC QC KC")[1:]  # seat 0: no trump, any card


# ------------------------------------------------------------ scoring
@pytest.mark.parametrize(
    ("maker_tricks", "partner_tricks", "maker_alone", "lone_defender", "makers", "defenders"),
    [
        (3, 0, False, False, 1, 0),
        (2, 2, False, False, 1, 0),
        (5, 0, False, False, 2, 0),
        (2, 3, False, False, 2, 0),
        (3, 0, True, False, 1, 0),
        (4, 0, True, False, 1, 0),
        (5, 0, True, False, 4, 0),
        (2, 0, False, False, 0, 2),
        (1, 1, False, False, 0, 2),
        (0, 0, True, False, 0, 2),
        (2, 0, False, True, 0, 4),
        (0, 0, True, True, 0, 4),
        (3, 0, False, True, 1, 0),
        (5, 0, True, True, 4, 0),
        (4, 1, False, True, 2, 0),
    ],
)
@pytest.mark.parametrize("maker", [0, 3])
def test_scoring_table(
    maker, maker_tricks, partner_tricks, maker_alone, lone_defender, makers, defenders
):
    game = ClassicEuchre(episode="deal", allow_lone_defender=True)
    state = game.init(dealing.stream_keys(0, 1))
    partner = (maker + 2) % 4
    state.maker[0] = maker
    state.alone[0, maker] = maker_alone
    state.lone_defender[0] = (maker + 1) % 4 if lone_defender else -1
    tricks = [0] * 4
    tricks[maker], tricks[partner] = maker_tricks, partner_tricks
    tricks[(maker + 1) % 4] = 5 - maker_tricks - partner_tricks
    state.tricks_won[0] = tricks
    expected = [0, 0]
    expected[maker % 2], expected[1 - maker % 2] = makers, defenders
    assert game.deal_points(state, np.array([0])).tolist() == [expected]


def test_euchre_pays_the_defenders_end_to_end():
    game, state = new_game(LONE_MARCH, dealer=3)
    act(
        game, state, *[PASS] * 5, HEARTS, WITH_PARTNER
    )  # seat 1 names hearts; seat 2 holds the top five
    _, result = play_lowest(game, state)
    assert result.deals.tricks[0].tolist() == [0, 0, 5, 0]
    assert result.rewards[0].tolist() == [2, 0, 2, 0] and result.deals.points[0].tolist() == [2, 0]


# ----------------------------------------------------------- game end
def test_game_ends_when_a_team_reaches_ten():
    game, state = new_game(LONE_MARCH, dealer=3, episode="game", reward="win")
    state.scores[0] = [6, 9]
    act(game, state, *[PASS] * 6, HEARTS, GO_ALONE)
    _, result = play_lowest(game, state)  # the lone march scores 4: team 0 reaches 10
    assert result.terminated[0] and not result.truncated[0] and state.phase[0] == OVER
    assert state.scores[0].tolist() == [10, 9]
    assert result.rewards[0].tolist() == [1, -1, 1, -1]


def test_game_goes_on_below_ten_with_the_next_dealer():
    game, state = new_game(LONE_MARCH, dealer=3, episode="game")
    state.scores[0] = [5, 9]
    act(game, state, *[PASS] * 6, HEARTS, GO_ALONE)
    _, result = play_lowest(game, state)
    assert not result.terminated[0] and result.rewards[0].tolist() == [4, 0, 4, 0]
    assert state.scores[0].tolist() == [9, 9] and result.deals.scores[0].tolist() == [9, 9]
    assert state.deal_number[0] == 2 and state.dealer[0] == 0 and state.phase[0] == BIDDING
    assert state.player[0] == 1 and len(hand(state, 1)) == 5


def test_target_score_option():
    game, state = new_game(LONE_MARCH, dealer=3, episode="game", target_score=4)
    act(game, state, *[PASS] * 6, HEARTS, GO_ALONE)
    _, result = play_lowest(game, state)
    assert result.terminated[0]


def test_random_games_end_with_one_team_at_ten():
    game = ClassicEuchre(reward="win")
    state = game.init(dealing.stream_keys(3, 200))
    rng = np.random.default_rng(3)
    rewards = np.zeros((200, 4))
    done = np.zeros(200, bool)
    while not done.all():
        live = np.flatnonzero(~done)
        sub = state.take(live)
        mask = game.legal_mask(sub)
        result = game.step(sub, (rng.random(mask.shape) * mask).argmax(axis=1))
        state.put(live, sub)
        rewards[live] += result.rewards
        done[live] |= result.terminated
        assert not result.truncated.any()
    winners = state.scores.max(axis=1)
    assert (winners >= 10).all() and (winners <= 13).all() and (state.scores.min(axis=1) < 10).all()
    team0_won = state.scores[:, 0] >= 10
    assert (rewards == np.where(team0_won[:, None], [1, -1, 1, -1], [-1, 1, -1, 1])).all()


# -------------------------------------------------------- observation
def reference_observation(log, observer, max_deals):
    """float32[464] built from a deal's history, field by field as documented in OBS_LAYOUT.

    log: dict with dealer, upcard, hands (4 lists dealt), and decisions: list of
    (phase, seat, action, next player) in order.
    """
    obs = {name: np.zeros(stop - start, np.float32) for name, (start, stop) in OBS_OFFSETS.items()}
    rel = lambda seat: (seat - observer) % 4  # noqa: E731
    dealer, hands = log["dealer"], [set(h) for h in log["hands"]]
    calls, alone, sitting_out, tricks, current = [], {}, set(), [], []
    maker = trump = discard = None
    tricks_won = [0] * 4
    phase, player = BIDDING, (dealer + 1) % 4
    for phase, seat, action, player in log["decisions"]:
        if phase == BIDDING:
            calls.append((seat, action))
            if action != PASS:
                maker, trump = seat, action - SUIT_CLUBS
                if len(calls) <= 4:
                    hands[dealer].add(log["upcard"])
        elif phase == DISCARD:
            hands[seat].remove(action)
            discard = action
        elif phase == ALONE:
            alone[seat] = action == GO_ALONE
            if action == GO_ALONE:
                sitting_out.add((seat + 2) % 4)
        else:
            hands[seat].remove(action)
            current.append((seat, action))
            if len(current) == 4 - len(sitting_out):
                tricks.append(current)
                tricks_won[player] += 1  # the winner leads next
                current = []
    phase = log["phase"]
    obs["hand"][sorted(hands[observer])] = 1
    obs["upcard"][log["upcard"]] = 1
    if discard is not None and observer == dealer:
        obs["discard"][discard] = 1
    for k, trick in enumerate(tricks + ([current] if current else [])):
        for seat, card in trick:
            obs["played_by"][rel(seat) * 24 + card] = 1
            obs["played_in_trick"][k * 24 + card] = 1
    for seat, card in current:
        obs["current_trick"][rel(seat) * 24 + card] = 1
    obs["dealer"][rel(dealer)] = 1
    if maker is not None:
        obs["maker"][rel(maker)] = 1
        obs["trump"][trump] = 1
    if phase == PLAY:
        obs["leader"][rel(current[0][0] if current else player)] = 1
    for k, (seat, action) in enumerate(calls):
        obs["calls"][(k // 4) * 20 + rel(seat) * 5 + (0 if action == PASS else action - PASS)] = 1
    for seat, went_alone in alone.items():
        obs["alone"][rel(seat) * 2 + (0 if went_alone else 1)] = 1
    for seat in sitting_out:
        obs["sitting_out"][rel(seat)] = 1
    if phase != OVER:
        obs["phase"][
            1 if phase == BIDDING and len(calls) >= 4 else 0 if phase == BIDDING else phase + 1
        ] = 1
    obs["tricks_won"][:] = [tricks_won[(observer + r) % 4] / 5 for r in range(4)]
    obs["deal_progress"][0] = 1 / max_deals
    return np.concatenate([obs[name] for name in OBS_OFFSETS])


@pytest.mark.parametrize("allow_lone_defender", [False, True])
def test_observation_matches_the_reference_encoder(allow_lone_defender):
    num_games = 60
    game = ClassicEuchre(episode="deal", allow_lone_defender=allow_lone_defender)
    state = game.init(dealing.stream_keys(21, num_games))
    logs = [
        {
            "dealer": int(state.dealer[g]),
            "upcard": int(state.upcard[g]),
            "hands": [mask_to_cards(h) for h in state.hands[g]],
            "decisions": [],
        }
        for g in range(num_games)
    ]
    rng = np.random.default_rng(21)
    checked = 0
    while (state.phase != OVER).any():
        for g in range(num_games):
            logs[g]["phase"] = int(state.phase[g])
        obs = [game.observe(state, np.full(num_games, seat)) for seat in range(4)]
        for g in np.flatnonzero(state.phase != OVER):
            for seat in range(4):
                expected = reference_observation(logs[g], seat, game.rules.max_deals)
                np.testing.assert_array_equal(
                    obs[seat][g], expected, err_msg=f"game {g} seat {seat}"
                )
                checked += 1
        live, seats, phases, actions, _ = step_live_games(game, state, rng)
        for row, g in enumerate(live):
            logs[g]["decisions"].append(
                (int(phases[row]), int(seats[row]), int(actions[row]), int(state.player[g]))
            )
    assert checked > num_games * 4 * 15
    final = game.observe(state, np.zeros(num_games, int))
    start, stop = OBS_OFFSETS["phase"]
    assert not final[:, start:stop].any()


def test_observation_is_finite_and_has_the_documented_size():
    game = ClassicEuchre()
    state = game.init(dealing.stream_keys(0, 8))
    obs = game.observe(state, np.arange(8) % 4)
    assert obs.shape == (8, OBS_SIZE) and obs.dtype == np.float32 and np.isfinite(obs).all()
    # The documented size: the module docstrings and the AEC observation space say 464.
    assert OBS_SIZE == 464 and "float32[464]" in (classic.__doc__ or "")
    space = classic_euchre_v0.raw_env().observation_space("player_0")
    assert isinstance(space, gymnasium.spaces.Dict) and space["observation"].shape == (464,)


# ---------------------------------------------------------- the batch
def test_batch_equals_games_played_one_by_one():
    game = ClassicEuchre()
    keys = dealing.stream_keys(5, 8)
    batch = game.init(keys)
    singles = [game.init(keys[i : i + 1]) for i in range(8)]
    rng = np.random.default_rng(5)
    for _ in range(80):
        mask = game.legal_mask(batch)
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        result = game.step(batch, actions)
        for i, single in enumerate(singles):
            one = game.step(single, actions[i : i + 1])
            assert (one.rewards[0] == result.rewards[i]).all()
            assert one.terminated[0] == result.terminated[i]
        done = np.flatnonzero(result.terminated)
        game.next_episodes(batch, done)
        for i in done:
            game.next_episodes(singles[i], np.array([0]))
        for i, single in enumerate(singles):
            one = batch.take([i])
            assert (
                game.observe(single, single.player.astype(int))
                == game.observe(one, one.player.astype(int))
            ).all()


def test_same_seed_same_games():
    game = ClassicEuchre()
    first, second = (game.init(dealing.stream_keys(9, 4)) for _ in range(2))
    for field in ("hands", "upcard", "dealer"):
        assert (getattr(first, field) == getattr(second, field)).all()
    assert len({tuple(h) for h in first.hands.tolist()}) == 4


def test_deals_are_partitions():
    game = ClassicEuchre()
    state = game.init(dealing.stream_keys(1, 500))
    union = np.bitwise_or.reduce(state.hands, axis=1) | CARD_BIT[state.upcard]
    assert (np.bitwise_count(state.hands) == 5).all()
    assert (np.bitwise_count(union) == 21).all()
    assert set(np.unique(state.dealer)) == {0, 1, 2, 3}


# ----------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"episode": "match"}, "episode"),
        ({"reward": "tricks"}, "reward"),
        ({"episode": "deal", "reward": "win"}, "needs episode='game'"),
        ({"stick_the_dealer": "yes"}, "stick_the_dealer must be a bool"),
        ({"allow_lone_defender": 1}, "allow_lone_defender must be a bool"),
        ({"target_score": 0}, "target_score must be an int >= 1"),
        ({"max_deals": 2.5}, "max_deals"),
        ({"moon_points": 24}, "unknown rules option"),
    ],
)
def test_bad_engine_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ClassicEuchre(**kwargs)


def _deal(**changes):
    deal = {"hands": [list(h) for h in LONE_MARCH["hands"]], "upcard": LONE_MARCH["upcard"]}
    deal.update(changes)
    return deal


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"dealer": 4}, "dealer must be a seat 0..3"),
        ({"dealer": True}, "dealer must be a seat 0..3"),
        ({"seed": 3}, "unknown option"),
        ({"deals": [{"hands": LONE_MARCH["hands"]}]}, "keys 'hands' and 'upcard'"),
        ({"deals": [_deal(hands=LONE_MARCH["hands"][:3])]}, "must hold 4 hands"),
        ({"deals": [_deal(hands=[1, 2, 3, 4])]}, "'hands' must be a list of 4 lists of 5 card ids"),
        ({"deals": [_deal(hands="9C TC")]}, "'hands' must be a list of 4 lists"),
        (
            {"deals": [_deal(hands=[cards("9C TC JC QC"), *LONE_MARCH["hands"][1:]])]},
            "seat 0 has 4 cards",
        ),
        (
            {"deals": [_deal(hands=[cards("9C TC JC QC AC"), *LONE_MARCH["hands"][1:]])]},
            "card 20 is dealt twice",
        ),
        (
            {"deals": [_deal(upcard=parse_card("JH"))]},
            "card 10 is dealt twice: to seat 2 and to upcard",
        ),
        ({"deals": [_deal(upcard=24)]}, "upcard holds 24"),
        ({"deals": [_deal(upcard="9S")]}, "upcard holds '9S'"),
        (
            {"deals": [_deal(hands=[[0, 4, 8, 12, 16.0], *LONE_MARCH["hands"][1:]])]},
            "seat 0 holds 16.0",
        ),
    ],
)
def test_bad_reset_options(options, message):
    game = ClassicEuchre()
    with pytest.raises(ValueError, match=message):
        game.init(dealing.stream_keys(0, 1), options)


def test_options_per_game_and_chosen_deals_in_order():
    game = ClassicEuchre(episode="game")
    second = _deal(upcard=parse_card("QS"))
    state = game.init(
        dealing.stream_keys(0, 2), [{"dealer": 3, "deals": [LONE_MARCH, second]}, None]
    )
    assert state.dealer[0] == 3 and state.upcard[0] == LONE_MARCH["upcard"]
    assert hand(state, 2) == sorted(LONE_MARCH["hands"][2])
    with pytest.raises(ValueError, match="options list has 1 entries; expected one per game"):
        game.init(dealing.stream_keys(0, 2), [{}])
    single = state.take([0])
    act(game, single, *[PASS] * 6, HEARTS, GO_ALONE)
    play_lowest(game, single)
    assert (
        single.deal_number[0] == 2
        and single.upcard[0] == parse_card("QS")
        and single.dealer[0] == 0
    )


def test_bad_observer_and_bad_actions():
    game = ClassicEuchre()
    state = game.init(dealing.stream_keys(0, 2))
    with pytest.raises(ValueError, match="seats must be int"):
        game.observe(state, np.array([0, 4]))
    with pytest.raises(ValueError, match="not legal"):
        check_actions(np.array([GO_ALONE, PASS]), game.legal_mask(state))


def test_action_names():
    assert [action_name(a) for a in (0, 11, 24, 27, 29, 30)] == [
        "9♣",
        "J♠",
        "pass",
        "suit ♥",
        "alone",
        "partner",
    ]
    with pytest.raises(ValueError, match=r"0\.\.30"):
        action_name(NUM_ACTIONS)
