"""Differential test: classic Euchre against OpenSpiel's ``euchre``.

Random deals are dealt identically in both engines (``ghost_euchre_env.openspiel``),
then the same uniformly random
legal actions are applied to both. At every decision the seat to act and the
legal action set must be equal, and at the end OpenSpiel's zero-sum return of
each seat must equal our deal reward of that seat minus the reward of the seat on
its left (our reward is the team's points, 0 for the other team).
"""

import numpy as np
import pytest

from ghost_euchre_env import dealing
from ghost_euchre_env.classic import NUM_PLAYERS, PASS, ClassicEuchre
from ghost_euchre_env.openspiel import openspiel_game, openspiel_state

pyspiel = pytest.importorskip("pyspiel")

NUM_DEALS = 2000


def random_legal(mask, rng, pass_rate):
    """int64[N]: PASS with probability pass_rate where legal, else a uniformly random legal action."""
    counts = mask.sum(axis=1)
    pick = (rng.random(len(mask)) * counts).astype(np.int64)
    actions = (mask.cumsum(axis=1) > pick[:, None]).argmax(axis=1)
    return np.where(mask[:, PASS] & (rng.random(len(mask)) < pass_rate), PASS, actions)


def play_both(allow_lone_defender, stick_the_dealer, seed, pass_rate=0.0, num_deals=NUM_DEALS):
    """Play num_deals random deals in both engines; returns (decisions, counts of what happened)."""
    params = {"allow_lone_defender": allow_lone_defender, "stick_the_dealer": stick_the_dealer}
    ours = ClassicEuchre(episode="deal", **params)
    theirs = openspiel_game(ours.rules)
    state = ours.init(dealing.stream_keys(seed, num_deals))
    spiel = [
        openspiel_state(theirs, state.dealer[i], state.hands[i], state.upcard[i])
        for i in range(num_deals)
    ]
    history = [[] for _ in range(num_deals)]
    rewards = np.zeros((num_deals, NUM_PLAYERS))
    games = np.arange(num_deals)  # game index of each row of ``state``
    rng = np.random.default_rng(seed)
    decisions = 0
    seen = {"thrown_in": 0, "maker_alone": 0, "lone_defender": 0, "euchred": 0, "march": 0}
    while len(games):
        mask = ours.legal_mask(state)
        actions = random_legal(mask, rng, pass_rate)
        for row, game in enumerate(games):
            spiel_state = spiel[game]
            where = f"game {game}, history {history[game]}"
            assert spiel_state.current_player() == state.player[row], where
            assert spiel_state.legal_actions() == np.flatnonzero(mask[row]).tolist(), where
            spiel_state.apply_action(int(actions[row]))
            history[game].append(int(actions[row]))
        decisions += len(games)
        result = ours.step(state, actions)
        rewards[games] += result.rewards
        deals = result.deals
        seen["thrown_in"] += int(deals.thrown_in.sum())
        seen["maker_alone"] += int(deals.alone.sum())
        seen["lone_defender"] += int((deals.lone_defender >= 0).sum())
        made = deals.points[np.arange(len(deals.game)), deals.maker % 2]
        seen["euchred"] += int(((made == 0) & ~deals.thrown_in).sum())
        seen["march"] += int((made >= 2).sum())
        done = result.terminated
        for row in np.flatnonzero(~done):
            assert not spiel[games[row]].is_terminal(), (
                f"game {games[row]}, history {history[games[row]]}"
            )
        for game in games[done]:
            assert spiel[game].is_terminal(), f"game {game}, history {history[game]}"
            expected = np.array(spiel[game].returns())
            got = rewards[game] - np.roll(rewards[game], -1)
            assert np.array_equal(got, expected), (
                f"game {game}, history {history[game]}: {got} != {expected}"
            )
        state = state.take(~done)
        games = games[~done]
    return decisions, seen


@pytest.mark.parametrize("allow_lone_defender", [False, True])
def test_same_decisions_and_returns_as_openspiel(allow_lone_defender):
    decisions, seen = play_both(
        allow_lone_defender, stick_the_dealer=True, seed=11 + allow_lone_defender
    )
    assert decisions > 15 * NUM_DEALS
    assert seen["thrown_in"] == 0
    assert min(seen["maker_alone"], seen["euchred"], seen["march"]) > 50
    assert (seen["lone_defender"] > 50) == allow_lone_defender


@pytest.mark.parametrize("allow_lone_defender", [False, True])
def test_same_as_openspiel_without_stick_the_dealer(allow_lone_defender):
    # Passing 70% of the time throws about 6% of the deals in (eight passes).
    _decisions, seen = play_both(allow_lone_defender, stick_the_dealer=False, seed=5, pass_rate=0.7)
    assert seen["thrown_in"] > 50
    assert (seen["lone_defender"] > 50) == allow_lone_defender
