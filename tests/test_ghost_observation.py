"""The Ghost Hand observation against an independent encoder written from its table (OBS_LAYOUT).

The reference below knows the rules only as docs/RULES.md states them and the
observation only as the table in ``ghost_euchre_env/ghost.py`` documents it.
From each game's cards (dealt hands, ghost hand, dealer: read from the engine
when a deal starts) and the decisions taken so far, it replays every deal
(swaps, bids, passes, trump, tricks, reneges, points) and builds the 390
floats field by field. Random legal play of whole games, under both auctions
(with and without reneges allowed), is compared at every decision for every
seat, and once more after each game has ended (won or truncated).
"""

import numpy as np
import pytest
from engine_helpers import step_live_games

from ghost_euchre_env import GhostEuchre
from ghost_euchre_env.cards import mask_to_cards
from ghost_euchre_env.dealing import stream_keys
from ghost_euchre_env.ghost import OBS_LAYOUT, OBS_SIZE, OVER, PHASE_NAMES

PASS, TRUMP_CLUBS, BID_3, MOON, SWAP = 24, 25, 29, 32, 33
JACK = 2
SAME_COLOUR = {0: 3, 3: 0, 1: 2, 2: 1}  # clubs-spades, diamonds-hearts


def suit_of(card, trump):
    """The suit a card counts as: the left bower (jack of trump's colour mate) counts as trump."""
    if trump is not None and card // 4 == JACK and card % 4 == SAME_COLOUR[trump]:
        return trump
    return card % 4


def strength(card, trump, led):
    rank, suit = card // 4, suit_of(card, trump)
    if suit == trump:
        if rank == JACK:
            return 100 if card % 4 == trump else 99  # right bower, left bower
        return 50 + rank
    return 10 + rank if suit == led else 0


def replay(deal, rules):
    """What happened in one deal: its cards and decisions played through as the rules say."""
    hands = [set(hand) for hand in deal["hands"]]
    seen = {
        "hands": hands,
        "dead": set(),
        "swapper": None,
        "high": 0,
        "declarer": None,
        "bids": {},
        "passes": {},
        "trump": None,
        "tricks": [],
        "current": [],
        "won": [0, 0, 0],
        "leader": None,
    }
    reneges = [0, 0, 0]
    for seat, action in deal["decisions"]:
        if action == SWAP:
            seen["swapper"], seen["dead"], hands[seat] = seat, hands[seat], set(deal["ghost"])
        elif action == PASS:
            seen["passes"][seat] = {0: 0, 3: 1, 4: 2, 5: 3}[seen["high"]]
        elif BID_3 <= action <= MOON:
            level = action - BID_3 + 3 if action < MOON else 6
            seen["high"], seen["declarer"], seen["bids"][level] = level, seat, seat
        elif TRUMP_CLUBS <= action < TRUMP_CLUBS + 4:
            seen["trump"], seen["leader"] = action - TRUMP_CLUBS, seen["declarer"]
        else:
            trump, current = seen["trump"], seen["current"]
            if current:
                led = suit_of(current[0][1], trump)
                could = any(suit_of(card, trump) == led for card in hands[seat])
                reneges[seat] += could and suit_of(action, trump) != led
            hands[seat].remove(action)
            current.append((seat, action))
            if len(current) == 3:
                led = suit_of(current[0][1], trump)
                winner = max(current, key=lambda play: strength(play[1], trump, led))[0]
                seen["won"][winner] += 1
                seen["tricks"].append(current)
                seen["current"], seen["leader"] = [], winner
    points = [0, 0, 0]
    if len(seen["tricks"]) == 6:
        points = list(seen["won"])
        declarer, bid = seen["declarer"], seen["high"]
        taken = seen["won"][declarer]
        if bid == 6:
            points[declarer] = rules.moon_points if taken == 6 else -rules.moon_set_penalty
        else:
            points[declarer] = taken if taken >= bid else -bid
        points = [p - r * rules.renege_penalty for p, r in zip(points, reneges, strict=True)]
    seen["points"] = points
    return seen


def reference_observation(deals, observer, phase, rules):
    """float32[390] from the episode's deals so far (the last one current), built from OBS_LAYOUT."""
    obs = {name: np.zeros(size, np.float32) for name, size, _ in OBS_LAYOUT}
    rel = lambda seat: (seat - observer) % 3  # noqa: E731
    done = [replay(deal, rules) for deal in deals]
    now = done[-1]
    scored = done if phase == OVER else done[:-1]
    scores = [sum(d["points"][seat] for d in scored) for seat in range(3)]
    obs["hand"][sorted(now["hands"][observer])] = 1
    if now["swapper"] == observer:
        obs["dead_hand"][sorted(now["dead"])] = 1
    for k, trick in enumerate([*now["tricks"], now["current"]]):
        for seat, card in trick:
            obs["played_by"][rel(seat) * 24 + card] = 1
            obs["played_in_trick"][k * 24 + card] = 1
    for seat, card in now["current"]:
        obs["current_trick"][rel(seat) * 24 + card] = 1
    if now["swapper"] is not None:
        obs["swapper"][rel(now["swapper"])] = 1
    if now["declarer"] is not None:
        obs["maker"][rel(now["declarer"])] = 1
    obs["dealer"][rel(deals[-1]["dealer"])] = 1
    if PHASE_NAMES[phase] == "play":
        obs["leader"][rel(now["leader"])] = 1
    for level, seat in now["bids"].items():
        obs["bids"][(level - 3) * 3 + rel(seat)] = 1
    for seat, high in now["passes"].items():
        obs["passes"][rel(seat) * 4 + high] = 1
    if now["high"]:
        obs["contract"][now["high"] - 3] = 1
    if now["trump"] is not None:
        obs["trump"][now["trump"]] = 1
    if phase != OVER:
        obs["phase"][phase] = 1
    obs["tricks_won"][:] = [now["won"][(observer + r) % 3] / 6 for r in range(3)]
    obs["scores"][:] = [scores[(observer + r) % 3] / rules.target_score for r in range(3)]
    obs["deal_progress"][0] = len(deals) / rules.max_deals
    return np.concatenate([obs[name] for name, _, _ in OBS_LAYOUT])


def new_deal(state, g, previous=None):
    dealer = int(state.dealer[g])
    if previous is not None:
        assert dealer == (previous["dealer"] + 1) % 3  # the deal passes to the left
    return {
        "dealer": dealer,
        "hands": [mask_to_cards(hand) for hand in state.hands[g]],
        "ghost": mask_to_cards(state.ghost[g]),
        "decisions": [],
    }


@pytest.mark.parametrize(
    "rules",
    [
        {"auction": "single_round"},
        {"auction": "open", "allow_renege": True, "renege_penalty": 3, "moon_points": 20},
    ],
    ids=["single_round", "open_with_reneges"],
)
def test_observation_matches_the_reference_encoder(rules):
    num_games = 12
    game = GhostEuchre(episode="game", target_score=6, max_deals=6, **rules)
    state = game.init(stream_keys(33, num_games))
    deals = [[new_deal(state, g)] for g in range(num_games)]
    rng = np.random.default_rng(33)
    checked = 0
    while True:
        obs = [game.observe(state, np.full(num_games, seat)) for seat in range(3)]
        assert obs[0].shape == (num_games, OBS_SIZE)
        for g in range(num_games):
            for seat in range(3):
                expected = reference_observation(deals[g], seat, int(state.phase[g]), game.rules)
                np.testing.assert_array_equal(
                    obs[seat][g], expected, err_msg=f"game {g} seat {seat}"
                )
                checked += 1
        if (state.phase == OVER).all():
            break
        numbers = state.deal_number.copy()
        live, seats, _, actions, _ = step_live_games(game, state, rng)
        for row, g in enumerate(live):
            deals[g][-1]["decisions"].append((int(seats[row]), int(actions[row])))
            if state.phase[g] != OVER and state.deal_number[g] != numbers[g]:
                deals[g].append(new_deal(state, g, deals[g][-1]))
    assert checked > num_games * 3 * 60
    ended = [len(d) for d in deals]
    assert min(ended) >= 1 and max(ended) == game.rules.max_deals  # some games were truncated
    assert any(length < game.rules.max_deals for length in ended)  # and some were won
