"""PIMC search bot: reading observations, sampling hidden worlds, choosing actions.

Cards are written 'JH' (jack of hearts). Seats in the hand-built deals are
absolute; the dealer is seat 2, so seat 0 acts first in the auction and, as the
declarer, leads the first trick. Seen from seat 0, relative seats equal absolute.
"""

import itertools
import os

import numpy as np
import pytest

from ghost_euchre.agents.pimc import PIMCPolicy
from ghost_euchre.agents.worlds import OUT_OF_PLAY, read_knowledge, sample_worlds, world_states
from ghost_euchre_env import GhostEuchre
from ghost_euchre_env.cards import EFFECTIVE_SUIT, mask_to_bool, mask_to_cards, parse_card
from ghost_euchre_env.core import check_actions
from ghost_euchre_env.dealing import stream_keys
from ghost_euchre_env.ghost import BID_3, BID_4, PASS, SWAP, TRUMP_CLUBS, GhostState
from ghost_euchre_env.vector import GhostEuchreVec

C, D, H, S = 0, 1, 2, 3
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cards(text):
    return [parse_card(t) for t in text.split()]


def play(deal, actions, **rules):
    """Engine, state and seat-to-act observation after ``actions`` from ``deal`` (dealer 2)."""
    game = GhostEuchre(episode="deal", **rules)
    state = game.init(stream_keys(0, 1), {"dealer": 2, "deals": [deal]})
    for action in actions:
        action = parse_card(action) if isinstance(action, str) else action
        game.step(state, check_actions([action], game.legal_mask(state)))
    obs = game.observe(state, state.player.astype(np.int64))
    return game, state, obs


# Spades trump. Trick 0: seat 1 shows void in clubs; trick 1: seat 2 in diamonds.
#   seat 0: AC AD TH QH KH 9S      seat 1: 9D TD JD QD KD TS
#   seat 2: TC 9H JH AH QS KS      ghost : 9C JC QC KC JS AS
VOID_DEAL = {
    "hands": [cards("AC AD TH QH KH 9S"), cards("9D TD JD QD KD TS"), cards("TC 9H JH AH QS KS")],
    "ghost": cards("9C JC QC KC JS AS"),
}
VOID_ACTIONS = [BID_3, PASS, PASS, TRUMP_CLUBS + S, "AC", "9D", "TC", "AD", "TD", "9H"]

# Hearts trump, seat 0 bid 4 and has 3 tricks. Trick 3 went to seat 1 (KC), who
# leads KS; seat 2 follows QS; seat 0 has no spade and holds 9H and QD. Ruffing
# with 9H makes the contract in every world; throwing QD loses whenever seat 1 or
# 2 holds a trump (6 of the 8 unseen cards are trumps, none shown void).
#   seat 0: AC AD AS 9C 9H QD      seat 1: TC 9D 9S KC KS JS
#   seat 2: JC TD TS QC QS KD      ghost : JH JD AH KH QH TH
RUFF_DEAL = {
    "hands": [cards("AC AD AS 9C 9H QD"), cards("TC 9D 9S KC KS JS"), cards("JC TD TS QC QS KD")],
    "ghost": cards("JH JD AH KH QH TH"),
}
RUFF_ACTIONS = [
    BID_4,
    PASS,
    PASS,
    TRUMP_CLUBS + H,
    "AC",
    "TC",
    "JC",
    "AD",
    "9D",
    "TD",
    "AS",
    "9S",
    "TS",
    "9C",
    "KC",
    "QC",
    "KS",
    "QS",
]


def place_sets(hands, out_of_play):
    """For sampled worlds (hands uint32[W, 3], out uint32[W]): card -> set of places it reached."""
    places = {}
    for place, masks in enumerate([hands[:, 0], hands[:, 1], hands[:, 2], out_of_play]):
        for card in np.flatnonzero(mask_to_bool(masks).any(axis=0)):
            places.setdefault(int(card), set()).add(place)
    return places


def check_partition(knowledge, hands, out_of_play):
    """Every world deals each card exactly once, with the right sizes and known cards fixed."""
    n, w = out_of_play.shape
    all_masks = np.concatenate(
        [
            hands,
            out_of_play[..., None],
            np.broadcast_to(
                np.bitwise_or.reduce(knowledge.played, axis=1)[:, None, None], (n, w, 1)
            ),
        ],
        axis=2,
    )
    held = mask_to_bool(all_masks).sum(axis=2)
    assert (held == 1).all()
    assert (hands[:, :, 0] == knowledge.hand[:, None]).all()
    counts = np.bitwise_count(hands)
    assert (counts[:, :, 1:] == knowledge.sizes[:, None, 1:3]).all()
    assert (out_of_play & knowledge.dead_hand[:, None] == knowledge.dead_hand[:, None]).all()


def exact_marginals(unseen, allowed, sizes):
    """P(card in place) over all consistent worlds, by brute force.

    unseen: card ids; allowed: card -> set of places (1, 2, 3); sizes: (n1, n2).
    """
    counts = {(c, p): 0 for c in unseen for p in (1, 2, OUT_OF_PLAY)}
    total = 0
    may_1 = [c for c in unseen if 1 in allowed[c]]
    for first in itertools.combinations(may_1, sizes[0]):
        rest = [c for c in unseen if c not in first]
        may_2 = [c for c in rest if 2 in allowed[c]]
        for second in itertools.combinations(may_2, sizes[1]):
            out = [c for c in rest if c not in second]
            if all(OUT_OF_PLAY in allowed[c] for c in out):
                total += 1
                for place, group in ((1, first), (2, second), (OUT_OF_PLAY, out)):
                    for c in group:
                        counts[c, place] += 1
    return {key: value / total for key, value in counts.items()}


def test_shown_voids_are_read_and_respected():
    game, _state, obs = play(VOID_DEAL, VOID_ACTIONS)
    knowledge = read_knowledge(obs, game)
    assert knowledge.voids[0].tolist() == [
        [False] * 4,
        [True, False, False, False],
        [False, True, False, False],
    ]
    assert knowledge.sizes[0].tolist() == [0, 4, 4, 6]
    hands, out = sample_worlds(knowledge, 4000, np.random.default_rng(0))
    check_partition(knowledge, hands, out)
    places = place_sets(hands[0], out[0])
    # Clubs (not JC: with spades trump it is the left bower, a spade) never reach seat 1.
    for card in cards("9C QC KC"):
        assert places[card] == {2, OUT_OF_PLAY}
    for card in cards("JD QD KD"):
        assert places[card] == {1, OUT_OF_PLAY}
    for card in cards("JC TS JH AH QS KS JS AS"):
        assert places[card] == {1, 2, OUT_OF_PLAY}
    assert set(places) == set(mask_to_cards(knowledge.unseen[0])) | set(cards("TH QH KH 9S"))


def test_a_void_shown_in_the_trick_in_progress_is_respected():
    """Seat 1 has just failed to follow AC (9D on it), and seat 2 is to play to that trick:
    seat 2 knows seat 1 holds no club, though the trick is not complete. Seen from seat 2,
    seat 1 is relative seat 2 and seat 0 relative seat 1. Unseen clubs: 9C QC KC (JC is a
    spade, the left bower): never in seat 1's hand, in any world."""
    game, state, obs = play(VOID_DEAL, VOID_ACTIONS[:6])
    assert int(state.player[0]) == 2 and int(state.trick_number[0]) == 0
    knowledge = read_knowledge(obs, game)
    assert knowledge.voids[0].tolist() == [[False] * 4, [False] * 4, [True, False, False, False]]
    hands, out = sample_worlds(knowledge, 2000, np.random.default_rng(0))
    check_partition(knowledge, hands, out)
    places = place_sets(hands[0], out[0])
    for card in cards("9C QC KC"):
        assert places[card] == {1, OUT_OF_PLAY}
    assert places[parse_card("JC")] == {1, 2, OUT_OF_PLAY}


def test_sampling_is_uniform_over_consistent_worlds():
    game, _state, obs = play(VOID_DEAL, VOID_ACTIONS)
    knowledge = read_knowledge(obs, game)
    unseen = mask_to_cards(knowledge.unseen[0])
    suit = EFFECTIVE_SUIT[S]
    allowed = {
        c: {p for p in (1, 2) if not knowledge.voids[0, p, suit[c]]} | {OUT_OF_PLAY} for c in unseen
    }
    exact = exact_marginals(unseen, allowed, (4, 4))
    worlds = 20000
    hands, out = sample_worlds(knowledge, worlds, np.random.default_rng(1))
    where = {1: hands[0, :, 1], 2: hands[0, :, 2], OUT_OF_PLAY: out[0]}
    for (card, place), probability in exact.items():
        seen = (mask_to_bool(where[place])[:, card]).mean()
        assert abs(seen - probability) < 0.02, (card, place, seen, probability)


def test_auction_worlds_fix_the_ghost_hand():
    deal = VOID_DEAL
    game, _state, obs = play(deal, [])
    knowledge = read_knowledge(obs, game)
    assert knowledge.sizes[0].tolist() == [0, 6, 6, 6]
    hands, out = sample_worlds(knowledge, 500, np.random.default_rng(2))
    check_partition(knowledge, hands, out)
    places = place_sets(hands[0], out[0])
    for card in mask_to_cards(knowledge.unseen[0]):
        assert places[card] == {1, 2, OUT_OF_PLAY}


def test_swapper_knows_its_dead_hand():
    game, state, obs = play(VOID_DEAL, [SWAP])  # seat 0 takes the ghost hand and acts again
    knowledge = read_knowledge(obs, game)
    assert knowledge.sizes[0].tolist() == [0, 6, 6, 0]
    hands, out = sample_worlds(knowledge, 500, np.random.default_rng(3))
    check_partition(knowledge, hands, out)
    assert (out[0] == state.ghost[0]).all()  # the dead hand, exactly
    places = place_sets(hands[0], out[0])
    for card in mask_to_cards(knowledge.unseen[0]):
        assert places[card] == {1, 2}


def test_another_swapper_hides_its_dead_hand():
    game, _state, obs = play(
        VOID_DEAL, [PASS, SWAP, PASS]
    )  # seat 1 swaps, then passes; seat 2 to act
    knowledge = read_knowledge(obs, game)
    assert knowledge.swapper[0] == 2  # seat 1, seen from seat 2
    assert knowledge.sizes[0].tolist() == [0, 6, 6, 6]
    hands, out = sample_worlds(knowledge, 500, np.random.default_rng(4))
    check_partition(knowledge, hands, out)
    places = place_sets(hands[0], out[0])
    for card in mask_to_cards(knowledge.unseen[0]):
        assert places[card] == {1, 2, OUT_OF_PLAY}


def test_renege_rules_infer_no_voids():
    game, _state, obs = play(VOID_DEAL, VOID_ACTIONS, allow_renege=True)
    assert not read_knowledge(obs, game).voids.any()


@pytest.mark.parametrize(
    ("seed", "episode", "rules"),
    [
        (0, "deal", {}),
        (1, "game", {"auction": "open"}),
        (2, "game", {"allow_renege": True, "target_score": 10}),
    ],
)
def test_world_with_the_true_cards_is_the_true_game(seed, episode, rules):
    """Rebuilding the true world from an observation reproduces the game; voids read are true; samples fit them."""
    venv = GhostEuchreVec(16, seed=seed, episode=episode, **rules)
    game = venv.game
    assert isinstance(game, GhostEuchre)
    obs, mask, player = venv.reset()
    rng = np.random.default_rng(seed)
    for _ in range(60):
        state = venv.state
        assert isinstance(state, GhostState)
        knowledge = read_knowledge(obs, game)
        rel = (player[:, None] + np.arange(3)) % 3
        true_hands = np.take_along_axis(state.hands, rel, axis=1)
        world = world_states(venv.game, knowledge, true_hands, state.ghost)
        assert np.array_equal(venv.game.observe(world, np.zeros(16, np.int64)), obs)
        assert np.array_equal(venv.game.legal_mask(world), mask)
        suit_of_card = EFFECTIVE_SUIT[np.maximum(knowledge.trump, 0)]  # int8[N, 24]
        void_cards = np.take_along_axis(
            knowledge.voids, suit_of_card[:, None, :].astype(np.int64), axis=2
        )
        assert not (mask_to_bool(true_hands) & void_cards).any()
        hands, out = sample_worlds(knowledge, 16, rng)
        check_partition(knowledge, hands, out)
        assert not (mask_to_bool(hands) & void_cards[:, None]).any()
        # Both play on identically: step each with the same random legal action.
        actions = np.where(mask, rng.random(mask.shape), -1).argmax(axis=1)
        true_copy = state.copy()
        true_rewards = venv.game.step(true_copy, actions).rewards
        world_rewards = venv.game.step(world, actions).rewards
        no_reneges = (state.reneges == 0).all(
            axis=1
        )  # past reneges are hidden: worlds set them to 0
        assert np.array_equal(
            np.take_along_axis(true_rewards, rel, axis=1)[no_reneges], world_rewards[no_reneges]
        )
        obs, mask, player, _, _ = venv.step(actions)


def test_finds_the_only_winning_card():
    game, state, obs = play(RUFF_DEAL, RUFF_ACTIONS)
    mask = game.legal_mask(state)
    assert np.flatnonzero(mask[0]).tolist() == sorted(cards("9H QD"))
    policy = PIMCPolicy(game, seed=0, samples=32)
    knowledge = read_knowledge(obs, game)
    values = policy.action_values(
        knowledge, sample_worlds(knowledge, 32, np.random.default_rng(0)), mask
    )
    assert values[0, parse_card("9H")] > values[0, parse_card("QD")]
    assert policy.act(obs, mask)[0] == parse_card("9H")


def test_same_seed_same_actions():
    venv = GhostEuchreVec(12, seed=5, episode="deal")
    obs, mask, _ = venv.reset()
    for _ in range(10):  # reach a mix of auction and play decisions
        obs, mask, _, _, _ = venv.step(mask.argmax(axis=1))
    first = PIMCPolicy(venv.game, seed=11, samples=8).act(obs, mask)
    second = PIMCPolicy(venv.game, seed=11, samples=8).act(obs, mask)
    assert np.array_equal(first, second)
    assert mask[np.arange(12), first].all()


def test_searched_values_are_what_it_plays_and_skip_the_forced_moves():
    venv = GhostEuchreVec(4, seed=5, episode="deal")
    obs, mask, _ = venv.reset()
    seen, rng = [], np.random.default_rng(0)
    for _ in range(40):  # random play: auction, play and forced decisions
        seen.append((obs, mask))
        obs, mask, _, _, _ = venv.step((rng.random(mask.shape) * mask).argmax(axis=1))
    obs, mask = (np.concatenate(part)[::5] for part in zip(*seen, strict=True))
    keys = np.arange(len(obs), dtype=np.uint64)
    policy = PIMCPolicy(venv.game, seed=3, samples=8)
    values = policy.searched_values(obs, mask, keys)
    assert np.array_equal(np.isfinite(values), mask)  # a value for every legal action
    forced = mask.sum(axis=1) == 1
    assert forced.any() and (values[forced][mask[forced]] == 0).all()
    assert np.array_equal(policy.act(obs, mask, keys), values.argmax(axis=1))


@pytest.mark.parametrize("variant", ["ghost", "classic"])
def test_compiled_playout_is_the_step_by_step_playout(variant):
    """The engine's play_until_deal_ends with the heuristic's playout kernel leaves every game where
    stepping with the heuristic's act (forced moves: the lowest legal id) leaves it, with the same
    result, at the first step in which a deal ends."""
    from ghost_euchre.agents import make_policy
    from ghost_euchre_env import variants

    game = variants.make(variant).make_game("deal")
    heuristic = make_policy("heuristic", game, seed=0)
    rng = np.random.default_rng(4)
    for seed in range(3):
        fast = game.init(stream_keys(seed, 64))
        mask = game.legal_mask(fast)
        for _ in range(int(rng.integers(2, 9))):  # some games into the auction or the play
            game.step(fast, (rng.random(mask.shape) * mask).argmax(axis=1))
            fast = fast.take(fast.player >= 0)  # the live games (a deal thrown in is over)
            mask = game.legal_mask(fast)
        first = (rng.random(mask.shape) * mask).argmax(axis=1)
        slow = fast.copy()
        result = game.play_until_deal_ends(fast, first, *heuristic.playout())
        actions = first
        while True:
            expected = game.step(slow, actions)
            if len(expected.deals.game):
                break
            mask = game.legal_mask(slow)
            actions = mask.argmax(axis=1)
            choice = mask.sum(axis=1) > 1
            obs = game.observe(slow, slow.player.astype(np.int64))
            actions[choice] = heuristic.act(obs[choice], mask[choice])
        for name, array in slow.arrays().items():
            assert np.array_equal(getattr(fast, name), array), name
        assert np.array_equal(result.rewards, expected.rewards)
        assert np.array_equal(result.terminated, expected.terminated)
        assert np.array_equal(result.deals.game, expected.deals.game)
        with pytest.raises(ValueError, match="is over"):  # the deals that ended are over
            game.play_until_deal_ends(fast, first, *heuristic.playout())


@pytest.mark.parametrize(
    ("variant", "spec"),
    [
        ("ghost", "pimc:samples=8"),
        ("classic", "pimc:samples=8"),
        ("ghost", "search:samples=8,pool=2"),  # the network's auction, the heuristic's cards
        ("classic", "search:samples=8,pool=2"),
        ("classic", "search:samples=8,pool=2,leaf=cards"),
        ("ghost", "pimc:samples=8,rollout=ppo:ghost"),  # the network alone
        ("classic", "pimc:samples=8,rollout=ppo:classic"),
    ],
)
def test_compiled_playouts_value_as_the_python_playouts(variant, spec, monkeypatch):
    """pimc's and search's playouts in one compiled loop (the heuristic's, the network's, or the
    network's auction over the heuristic's cards: agents/playouts/) give every action the value
    the step-by-step playouts give."""
    from ghost_euchre.agents.specs import make_policy
    from ghost_euchre_env import variants

    venv = variants.make(variant).vector_env(6, seed=2, episode="deal")
    obs, mask, _ = venv.reset()
    seen, rng = [], np.random.default_rng(1)
    for _ in range(24):  # auction and play decisions
        seen.append((obs, mask))
        obs, mask, _, _, _ = venv.step((rng.random(mask.shape) * mask).argmax(axis=1))
    obs, mask = (np.concatenate(part)[::3] for part in zip(*seen, strict=True))
    keys = np.arange(len(obs), dtype=np.uint64)
    bot = make_policy(spec, venv.game, seed=3)
    assert bot._compiled_rollout()[0] is not None
    compiled = bot.searched_values(obs, mask, keys)
    monkeypatch.setattr(PIMCPolicy, "_compiled_rollout", lambda self: (None, False))
    stepped = make_policy(spec, venv.game, seed=3).searched_values(obs, mask, keys)
    assert np.array_equal(compiled, stepped)


def test_bad_options_raise():
    game = GhostEuchre()
    with pytest.raises(ValueError, match="samples"):
        PIMCPolicy(game, samples=0)
    with pytest.raises(ValueError, match="objective"):
        PIMCPolicy(game, objective="win")
    with pytest.raises(
        ValueError, match=r"leaf must be one of \['playout', 'solver', 'cards'\], got 'exact'"
    ):
        PIMCPolicy(game, leaf="exact")


def test_learned_playouts_are_one_batch_per_step_and_named(monkeypatch):
    from ghost_euchre.agents import make_policy
    from ghost_euchre.agents.ppo import PPOPolicy

    shipped = os.path.join(ROOT, "ghost_euchre", "agents", "pretrained", "ghost_ppo.pt")
    venv = GhostEuchreVec(12, seed=5, episode="deal")
    obs, mask, _ = venv.reset()
    for _ in range(10):  # a mix of auction and play decisions
        obs, mask, _, _, _ = venv.step(mask.argmax(axis=1))
    policy = make_policy(f"pimc:rollout=ppo:{shipped},samples=4", venv.game, seed=0)
    assert isinstance(policy, PIMCPolicy) and isinstance(policy.rollout, PPOPolicy)
    assert policy.name == "pimc(samples=4, rollout=ppo:ghost_ppo.pt)"
    batches = []
    network_act = PPOPolicy.act
    monkeypatch.setattr(
        PPOPolicy, "act", lambda self, o, m: batches.append(len(o)) or network_act(self, o, m)
    )
    actions = policy.act(obs, mask)
    assert mask[np.arange(12), actions].all()
    searched = (mask.sum(axis=1) > 1).sum()
    assert batches[0] > 4 * searched  # every searched decision's worlds and actions in one call
    assert len(batches) <= 40  # one call per playout step, not per decision or world


@pytest.mark.parametrize("variant", ["ghost", "classic"])
def test_solved_worlds_value_each_action_by_its_worlds_solved(variant):
    """leaf=solver: a card's value is the mean of its worlds' solved values; an auction action's
    is the mean over its worlds of the position at the first lead (the playout policy playing
    up to it), solved, for the searcher (a deal thrown in: 0)."""
    from ghost_euchre.agents.specs import make_policy
    from ghost_euchre_env import solver, variants

    venv = variants.make(variant).vector_env(6, seed=7, episode="deal")
    obs, mask, _ = venv.reset()
    seen, rng = [], np.random.default_rng(1)
    for _ in range(24):  # random play: auction and card decisions
        seen.append((obs, mask))
        obs, mask, _, _, _ = venv.step((rng.random(mask.shape) * mask).argmax(axis=1))
    obs, mask = (np.concatenate(part)[::7] for part in zip(*seen, strict=True))
    policy = PIMCPolicy(venv.game, seed=0, samples=3, leaf="solver")
    game = policy.playout_game
    knowledge = read_knowledge(obs, venv.game)
    worlds = sample_worlds(knowledge, 3, np.random.default_rng(2))
    values = policy.action_values(knowledge, worlds, mask)
    heuristic = make_policy("heuristic", game)
    kinds = set()
    for row, action in zip(*np.nonzero(mask), strict=True):
        solved = []
        for world in range(3):
            state = world_states(
                game, knowledge, *(part[row, [world]] for part in worlds), rows=[row]
            )
            if solver.in_play(game, state)[0]:
                kinds.add("card")
                solved.append(solver.solve(game, state, seat=0)[0, action])
                continue
            kinds.add("auction")
            next_action = np.array([action])
            while True:
                game.step(state, next_action)
                if state.phase[0] == game.over_phase:
                    solved.append(0.0)
                    break
                if solver.in_play(game, state)[0]:
                    solved.append(solver.position_value(game, state, seat=0)[0])
                    break
                legal = game.legal_mask(state)
                next_action = heuristic.act(
                    game.observe(state, state.player.astype(np.int64)), legal
                )
        assert values[row, action] == pytest.approx(np.mean(solved)), (row, action)
    assert kinds == {"card", "auction"}
    assert np.array_equal(np.isfinite(values), mask)
    # leaf=cards: the card decisions as leaf=solver values them, the others as leaf=playout does
    cards_only = PIMCPolicy(venv.game, seed=0, samples=3, leaf="cards")
    played_out = PIMCPolicy(venv.game, seed=0, samples=3).action_values(knowledge, worlds, mask)
    playing = solver.in_play(game, world_states(game, knowledge, *(p[:, 0] for p in worlds)))
    want = np.where(playing[:, None], values, played_out)
    assert np.array_equal(cards_only.action_values(knowledge, worlds, mask), want)
