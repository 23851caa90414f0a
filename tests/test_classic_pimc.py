"""PIMC for classic Euchre: reading observations, sampling hidden worlds, choosing actions.

Cards are written 'JH' (jack of hearts); seats in the deals are absolute. The
positions are late in a deal, so that every deal of the unseen cards can be
enumerated: the brute force replays each candidate deal through the engine and
keeps those where every action of the history is legal and the observer sees
exactly what it saw (the definition of "consistent", independent of the sampler).
"""

import itertools

import numpy as np
import pytest

from ghost_euchre.agents.pimc import PIMCPolicy
from ghost_euchre.agents.worlds import read_knowledge, sample_worlds, world_states
from ghost_euchre_env.cards import (
    CARD_BIT,
    EFFECTIVE_SUIT,
    mask_to_bool,
    mask_to_cards,
    parse_card,
)
from ghost_euchre_env.classic import (
    ALONE,
    BIDDING,
    DISCARD,
    GO_ALONE,
    PASS,
    PLAY,
    SUIT_CLUBS,
    WITH_PARTNER,
    ClassicEuchre,
    ClassicState,
)
from ghost_euchre_env.core import check_actions
from ghost_euchre_env.dealing import stream_keys
from ghost_euchre_env.vector import ClassicEuchreVec

C, D, H, S = 0, 1, 2, 3


def cards(text):
    return [parse_card(t) for t in text.split()]


def actions_of(text):
    """'pass suit-H alone partner 9C ...' -> action ids."""
    named = {"pass": PASS, "alone": GO_ALONE, "partner": WITH_PARTNER}
    named |= {f"suit-{s}": SUIT_CLUBS + i for i, s in enumerate("CDHS")}
    return [named[t] if t in named else parse_card(t) for t in text.split()]


def deal_of(hands, upcard):
    return {"hands": [cards(h) for h in hands], "upcard": parse_card(upcard)}


# Seat 3 orders up hearts (TH); dealer seat 1 picks it up and discards 9C. Seat 0
# to act in trick 4 (0-based 3): it has seen voids, the TH is still in the
# dealer's hand, and it did not see the discard.
HIDDEN_DISCARD = (
    1,
    deal_of(["TC QC QD KC AC", "9C 9D JD JS KD", "TS QH QS KS AH", "9H 9S TD JH KH"], "TH"),
    actions_of("pass suit-H 9C partner TS 9S TC JS 9D QH TD QD QS JH QC KD 9H"),
)
# Seat 1 orders up spades (QS); seat 0 deals, picks it up and discards TC: the
# dealer's own view, four plays into trick 4.
DEALER_VIEW = (
    0,
    deal_of(["TC QC KC KS AC", "9H JC JS KD KH", "9C TD JH AH AS", "9D TH TS JD QH"], "QS"),
    actions_of("suit-S TC partner JS AS TS QS JC 9C 9D KS 9H AH TH QC TD JD"),
)
# Dealer seat 2 orders up its own KD, discards QC and goes alone: seat 0 sits out
# with five cards nobody sees; seat 1 to act.
LONE_HAND = (
    2,
    deal_of(["9C QH KC AH AS", "TS JC JS QS AC", "TD JD JH QC KS", "9D 9S TH QD AD"], "KD"),
    actions_of("pass pass pass suit-D QC alone 9S TS KS JD 9D JC JH QD JS TD AD"),
)
# Dealer seat 3 orders up its own JD, discards TC and goes alone; its own view.
LONE_DEALER = (
    3,
    deal_of(["TH JC KC KD KS", "9C TS JS AD AS", "9H QH QS KH AH", "9D TC TD JH QC"], "JD"),
    actions_of("pass pass pass suit-D TC alone TH 9H JH JD KD QS QC KC QH JC KH"),
)
POSITIONS = {
    "hidden discard": HIDDEN_DISCARD,
    "dealer view": DEALER_VIEW,
    "lone hand": LONE_HAND,
    "lone dealer": LONE_DEALER,
}


def play(dealer, deal, actions, **rules):
    """Engine, state and seat-to-act observation after ``actions`` from ``deal``."""
    game = ClassicEuchre(episode="deal", **rules)
    state = game.init(stream_keys(0, 1), {"dealer": dealer, "deals": [deal]})
    for action in actions:
        game.step(state, check_actions([action], game.legal_mask(state)))
    obs = game.observe(state, state.player.astype(np.int64))
    return game, state, obs


def consistent_worlds(game, dealer, deal, actions, state, obs):
    """Every world (hands of relative seats 1..3, discard) that the observer cannot tell from the truth.

    Enumerates every way to put the cards the observer has not seen into the
    other hands (their current sizes), the dealer's discard (if it was made and
    the observer is not the dealer) and the rest of the kitty; replays each as a
    deal with the same history (the hidden discard replaced by the world's);
    keeps those where every action was legal and the final observation is the
    true one.
    """
    me = int(state.player[0])
    upcard = deal["upcard"]
    hands, held = state.hands[0], state.held[0]
    played = held & ~hands
    discard = int(state.discard[0])
    ordered = discard >= 0
    seen = hands[me] | np.bitwise_or.reduce(played) | CARD_BIT[upcard]
    if ordered and me == dealer:
        seen |= CARD_BIT[discard]
    unseen = mask_to_cards(~seen & 0xFFFFFF)
    others = [(me + r) % 4 for r in (1, 2, 3)]
    sizes = [int(np.bitwise_count(hands[s])) for s in others]
    # The upcard picked up and not played is in the dealer's hand, seen by all.
    upcard_held = ordered and bool(hands[dealer] & CARD_BIT[upcard]) and dealer != me
    if upcard_held:
        sizes[others.index(dealer)] -= 1
    hidden_discard = ordered and me != dealer

    candidates = []

    def split(rest, k):
        if k == len(others):
            candidates.extend(
                (chosen[:], discards[0] if discards else discard)
                for discards in itertools.combinations(rest, 1 if hidden_discard else 0)
            )
            return
        for group in itertools.combinations(rest, sizes[k]):
            chosen.append(sum(int(CARD_BIT[c]) for c in group))
            split([c for c in rest if c not in group], k + 1)
            chosen.pop()

    chosen = []
    split(unseen, 0)
    deals, worlds = [], []
    for assigned, world_discard in candidates:
        now = {me: int(hands[me])}
        now.update(zip(others, assigned, strict=False))
        if upcard_held:
            now[dealer] |= int(CARD_BIT[upcard])
        dealt = [now[s] | int(played[s]) for s in range(4)]
        if ordered:  # the dealer's dealt hand: without the upcard, with the discard
            dealt[dealer] = dealt[dealer] & ~int(CARD_BIT[upcard]) | int(CARD_BIT[world_discard])
        deals.append({"hands": [mask_to_cards(h) for h in dealt], "upcard": upcard})
        worlds.append((tuple(now[s] for s in others), world_discard if hidden_discard else -1))
    replay = game.init(
        stream_keys(0, len(deals)), [{"dealer": dealer, "deals": [d]} for d in deals]
    )
    alive = np.arange(len(deals))
    world_discards = np.array([d for _, d in candidates])
    for action in actions:
        taken = np.full(len(alive), action)
        if hidden_discard and replay.phase[0] == DISCARD:  # the discard the observer did not see
            taken = world_discards[alive]
        legal = game.legal_mask(replay)[np.arange(len(alive)), taken]
        replay, alive = replay.take(legal), alive[legal]
        game.step(replay, taken[legal])
    same = (game.observe(replay, np.full(len(alive), me)) == obs[0]).all(axis=1)
    return {worlds[i] for i in alive[same]}


def sampled_worlds(knowledge, count, seed):
    hands, out_of_play, discard = sample_worlds(knowledge, count, np.random.default_rng(seed))
    return hands[0], out_of_play[0], discard[0]


@pytest.mark.parametrize("name", list(POSITIONS))
def test_sampling_is_uniform_over_consistent_worlds(name):
    dealer, deal, actions = POSITIONS[name]
    game, state, obs = play(dealer, deal, actions)
    knowledge = read_knowledge(obs, game)
    exact = consistent_worlds(game, dealer, deal, actions, state, obs)
    assert 20 <= len(exact) <= 6000
    count = 25 * len(exact)
    hands, out_of_play, discard = sampled_worlds(knowledge, count, seed=1)
    # Every world deals each card once: hands, out of play, played, and the upcard if turned down.
    me = int(state.player[0])
    played = np.bitwise_or.reduce(state.held[0] & ~state.hands[0])
    places = np.concatenate([hands, out_of_play[:, None], np.full((count, 1), played)], axis=1)
    held = mask_to_bool(places).sum(axis=1)
    assert (held == 1).all()
    assert (hands[:, 0] == state.hands[0, me]).all()
    assert (out_of_play & CARD_BIT[discard] == CARD_BIT[discard]).all()
    hidden = np.where(knowledge.discard_hidden[0], discard, -1)
    rows, counts = np.unique(
        np.column_stack([hands[:, 1:].astype(np.int64), hidden]), axis=0, return_counts=True
    )
    seen = {(tuple(int(h) for h in row[:3]), int(row[3])) for row in rows}
    assert seen == exact  # no unseen card fixed, no inconsistent world
    # Chi-square of the world counts against uniform, far inside 5 sigma.
    expected = count / len(exact)
    chi2 = ((counts - expected) ** 2 / expected).sum()
    dof = len(exact) - 1
    assert chi2 < dof + 5 * np.sqrt(2 * dof), (chi2, dof)


def test_knowledge_of_the_positions():
    game, _, obs = play(*HIDDEN_DISCARD)
    kn = read_knowledge(obs, game)
    assert kn.ordered[0] and kn.discard_hidden[0] and kn.own_discard[0] == -1
    assert kn.dealer[0] == 1 and kn.maker[0] == 3 and kn.trump[0] == H
    assert kn.fixed[0].tolist() == [0, int(CARD_BIT[parse_card("TH")]), 0, 0]
    assert kn.voids[0].any()
    game, _, obs = play(*DEALER_VIEW)
    kn = read_knowledge(obs, game)
    assert kn.own_discard[0] == parse_card("TC") and not kn.discard_hidden[0]
    assert not kn.fixed[0].any()
    game, _, obs = play(*LONE_HAND)
    kn = read_knowledge(obs, game)
    assert kn.active[0] == 0b0111  # relative seat 3 (absolute seat 0) sits out
    # The dealer (relative seat 1) holds the KD and nothing unseen; seat 3 its five cards.
    assert kn.sizes[0].tolist() == [0, 0, 1, 5, 4]
    assert kn.fixed[0].tolist() == [0, int(CARD_BIT[parse_card("KD")]), 0, 0]
    assert not kn.voids[0, 3].any()


def test_discard_decision_worlds():
    """The dealer about to discard holds six cards; others hold five; the kitty three."""
    game, state, obs = play(*HIDDEN_DISCARD[:2], HIDDEN_DISCARD[2][:2])
    assert state.phase[0] == DISCARD and state.player[0] == 1
    kn = read_knowledge(obs, game)
    assert kn.sizes[0].tolist() == [0, 5, 5, 5, 3]
    assert not kn.discard_hidden[0] and not kn.fixed[0].any()
    hands, out_of_play, discard = sampled_worlds(kn, 200, seed=2)
    assert (np.bitwise_count(hands[:, 0]) == 6).all() and (discard == -1).all()
    assert (np.bitwise_count(out_of_play) == 3).all()


@pytest.mark.parametrize(
    ("seed", "episode", "rules"),
    [
        (0, "deal", {}),
        (1, "game", {"stick_the_dealer": False}),
        (2, "game", {"allow_lone_defender": True, "target_score": 5}),
    ],
)
def test_world_with_the_true_cards_is_the_true_game(seed, episode, rules):
    """Rebuilding the true world from an observation reproduces the game; voids read are true; samples fit them."""
    venv = ClassicEuchreVec(16, seed=seed, episode=episode, **rules)
    obs, mask, player = venv.reset()
    rng = np.random.default_rng(seed)
    phases = set()
    for _ in range(60):
        state = venv.state
        assert isinstance(state, ClassicState)
        phases |= set(state.phase.tolist())
        knowledge = read_knowledge(obs, venv.game)
        rel = (player[:, None] + np.arange(4)) % 4
        true_hands = np.take_along_axis(state.hands, rel, axis=1)
        world = world_states(
            venv.game, knowledge, true_hands, np.zeros(16, np.uint32), state.discard
        )
        assert np.array_equal(venv.game.observe(world, np.zeros(16, np.int64)), obs)
        assert np.array_equal(venv.game.legal_mask(world), mask)
        suit_of_card = EFFECTIVE_SUIT[np.maximum(knowledge.trump, 0)]  # int8[N, 24]
        void_cards = np.take_along_axis(
            knowledge.voids, suit_of_card[:, None, :].astype(np.int64), axis=2
        )
        assert not (mask_to_bool(true_hands) & void_cards).any()
        hands, _, _ = sample_worlds(knowledge, 16, rng)
        assert not (mask_to_bool(hands) & void_cards[:, None]).any()
        assert (np.bitwise_count(hands) == np.bitwise_count(true_hands)[:, None]).all()
        actions = np.where(mask, rng.random(mask.shape), -1).argmax(axis=1)
        true_rewards = venv.game.step(state.copy(), actions).rewards
        world_rewards = venv.game.step(world, actions).rewards
        assert np.array_equal(np.take_along_axis(true_rewards, rel, axis=1), world_rewards)
        obs, mask, player, _, _ = venv.step(actions)
    assert {BIDDING, DISCARD, ALONE, PLAY} <= phases


@pytest.mark.parametrize(
    ("decisions", "worst"),
    [
        (1, "pass"),  # seat 3 holds JH KH 9H: order up the TH (its partner deals)
        (2, "JD"),  # the dealer never discards the left bower
        (3, "alone"),  # the maker's hand is no lone hand
    ],
)
def test_clear_decisions(decisions, worst):
    """Order up, discard and alone choice in HIDDEN_DISCARD's deal: one action is clearly worst."""
    dealer, deal, actions = HIDDEN_DISCARD
    game, state, obs = play(dealer, deal, actions[:decisions])
    mask = game.legal_mask(state)
    knowledge = read_knowledge(obs, game)
    policy = PIMCPolicy(game, seed=0, samples=64)
    values = policy.action_values(
        knowledge, sample_worlds(knowledge, 64, np.random.default_rng(0)), mask
    )[0]
    (worst,) = actions_of(worst)
    others = np.flatnonzero(mask[0] & (np.arange(len(mask[0])) != worst))
    assert values[worst] < values[others].min()
    assert policy.act(obs, mask)[0] != worst


def test_same_seed_same_actions_in_every_phase():
    venv = ClassicEuchreVec(16, seed=5, episode="deal")
    obs, mask, _ = venv.reset()
    phases = set()
    for _ in range(8):  # bidding, discards, alone choices and play across the 16 games
        first = PIMCPolicy(venv.game, seed=11, samples=8).act(obs, mask)
        second = PIMCPolicy(venv.game, seed=11, samples=8).act(obs, mask)
        assert np.array_equal(first, second)
        assert mask[np.arange(16), first].all()
        assert isinstance(venv.state, ClassicState)
        phases |= set(venv.state.phase.tolist())
        obs, mask, _, _, _ = venv.step(first)
    assert {BIDDING, DISCARD, ALONE} <= phases


def test_bad_game_raises():
    with pytest.raises(TypeError, match="GhostEuchre or ClassicEuchre"):
        PIMCPolicy(object())
