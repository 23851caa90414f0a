"""The search bot (agents/search.py) and its inference (agents/inference.py)."""

import numpy as np
import pytest

from ghost_euchre.agents.inference import (
    action_probabilities,
    deal_actions,
    log_likelihoods,
    resample,
)
from ghost_euchre.agents.pimc import PIMCPolicy
from ghost_euchre.agents.search import SearchPolicy
from ghost_euchre.agents.specs import make_policy
from ghost_euchre.agents.worlds import read_knowledge, sample_worlds
from ghost_euchre.arena.match import run_match
from ghost_euchre_env import ClassicEuchre, GhostEuchre, ghost

RULES = [
    (GhostEuchre, {}),
    (GhostEuchre, {"allow_renege": True}),
    (ClassicEuchre, {}),
    (ClassicEuchre, {"allow_lone_defender": True, "stick_the_dealer": False}),
]


def _true_worlds(game, state, seat):
    """The real hidden cards of each position, as seen from ``seat`` (relative seats)."""
    relative = (seat[:, None] + np.arange(game.num_players)) % game.num_players
    hands = np.take_along_axis(state.hands, relative, axis=1)
    if isinstance(game, GhostEuchre):
        return hands, state.ghost.copy()
    return hands, np.zeros(len(seat), np.uint32), state.discard.copy()


def _positions(game, policy, games=200, seed=0):
    """Yield (state of the live games, obs, mask) at every step of ``policy`` self-play deals."""
    state = game.init(np.arange(seed, seed + games, dtype=np.uint64))
    while True:
        live = state.phase != game.over_phase
        if not live.any():
            return
        state = state.take(live)
        seat = state.player.astype(np.int64)
        obs, mask = game.observe(state, seat), game.legal_mask(state)
        yield state, obs, mask
        game.step(state, policy.act(obs, mask))


@pytest.mark.parametrize(("game_type", "rules"), RULES)
def test_the_true_world_replays_exactly_with_the_heuristic_as_model(game_type, rules):
    """Every seat plays the heuristic: replaying the true world through the actions read from
    the observation, every other seat's action is the heuristic's (likelihood 1, floor 0), so
    the actions are read in the order they were taken and the deal's start is rebuilt right."""
    game = game_type(episode="deal", **rules)
    heuristic = make_policy("heuristic", game)
    positions = 0
    for state, obs, _ in _positions(game, heuristic):
        seat = state.player.astype(np.int64)
        knowledge = read_knowledge(obs, game)
        worlds = _true_worlds(game, state, seat)
        rows = np.arange(len(seat))
        assert (log_likelihoods(game, knowledge, worlds, heuristic, 0.0, rows) == 0).all()
        positions += len(seat)
    assert positions > 2000


@pytest.mark.parametrize(("game_type", "rules"), RULES)
def test_the_compiled_replay_weighs_as_the_replay_step_by_step(game_type, rules):
    """The heuristic as a model replays and weighs every world in one kernel call
    (``replay(floor)``); the same heuristic without it, step by step in Python, gives every world
    the same log-likelihood, bit for bit: uniform worlds, the true ones, and worlds whose
    other seats' hands are exchanged, where a seat that showed out holds the suit led (-inf)."""
    game = game_type(episode="deal", **rules)
    heuristic = make_policy("heuristic", game)

    class StepByStep:  # the heuristic's choices, no compiled replay
        act = heuristic.act

    stepped = 0
    for i, (state, obs, _) in enumerate(_positions(game, heuristic, games=40, seed=3)):
        if i % 3:
            continue
        seat = state.player.astype(np.int64)
        knowledge = read_knowledge(obs, game)
        uniform = [w[:, 0] for w in sample_worlds(knowledge, 1, np.random.default_rng(i))]
        true = _true_worlds(game, state, seat)
        exchanged = (true[0][:, [0, *range(game.num_players - 1, 0, -1)]], *true[1:])
        rows = np.arange(len(seat))
        for worlds in (uniform, true, exchanged):
            for floor, cards in ((0.1, True), (0.25, False)):
                compiled = log_likelihoods(game, knowledge, worlds, heuristic, floor, rows, cards)
                slow = log_likelihoods(game, knowledge, worlds, StepByStep(), floor, rows, cards)
                assert np.array_equal(compiled, slow)
                stepped += np.isneginf(compiled).sum()
    if not rules.get("allow_renege"):  # a revoke in some exchanged worlds: illegal there
        assert stepped > 0


def test_replay_and_weigh_rejects_bad_actions_before_changing_anything():
    game = GhostEuchre(episode="deal")
    state = game.init(np.arange(3, dtype=np.uint64))
    before = state.copy()
    kernel, weigh_args = make_policy("heuristic", game).replay(0.1)
    bad = [
        (np.zeros((2, 4), np.int64), r"shape \(3, T\).*\(2, 4\)"),
        (np.zeros(3, np.int64), r"shape \(3, T\)"),
        (np.zeros((3, 4)), "float64"),
        (np.full((3, 4), game.num_actions), r"-1 \(the row has ended\) or 0\.\.33"),
        (np.full((3, 4), -2), "got -2..-2"),
    ]
    for actions, message in bad:
        with pytest.raises(ValueError, match=message):
            game.replay_and_weigh(state, actions, kernel, weigh_args)
    for name, array in state.arrays().items():
        assert np.array_equal(array, getattr(before, name)), name
    assert (game.replay_and_weigh(state, np.full((3, 4), -1), kernel, weigh_args) == 0).all()


@pytest.mark.parametrize("infer", ["network", "mix"])
@pytest.mark.parametrize(("game_type", "rules"), [RULES[0], RULES[2]])
def test_a_network_model_replays_compiled_as_step_by_step(game_type, rules, infer):
    """infer=network and infer=mix weigh in one kernel call (agents/playouts/) what the step by
    step replay weighs (the softmax in float64, summed in another order: equal to 1e-9), and
    search's resampled worlds are the same."""
    from ghost_euchre.agents.inference import MixedModel

    game = game_type(episode="deal", **rules)
    heuristic = make_policy("heuristic", game)
    network = make_policy(f"ppo:{game.variant.name}", game)
    act, forward_pass = network.act, network.network

    class StepByStep:  # the network's probabilities, no compiled replay
        def __init__(self):
            self.act, self.network = act, forward_pass

    models = {  # (compiled, step by step)
        "network": (network, StepByStep()),
        "mix": (MixedModel(network, heuristic), MixedModel(StepByStep(), heuristic)),
    }
    compiled_model, stepped_model = models[infer]
    assert compiled_model.replay(0.1) is not None
    assert getattr(stepped_model, "replay", lambda floor: None)(0.1) is None
    checked = 0
    for i, (_state, obs, _) in enumerate(_positions(game, heuristic, games=24, seed=5)):
        if i % 4:
            continue
        knowledge = read_knowledge(obs, game)
        worlds = [w[:, 0] for w in sample_worlds(knowledge, 1, np.random.default_rng(i))]
        rows = np.arange(len(obs))
        for floor, cards in ((0.1, True), (0.25, False)):
            compiled = log_likelihoods(game, knowledge, worlds, compiled_model, floor, rows, cards)
            stepped = log_likelihoods(game, knowledge, worlds, stepped_model, floor, rows, cards)
            np.testing.assert_allclose(compiled, stepped, rtol=1e-9, atol=0)
            checked += np.isfinite(compiled).sum()
    assert checked > 200
    obs = next(_positions(game, heuristic, games=6, seed=9))[1]
    spec = f"search:samples=8,pool=2,infer={infer}"
    bots = [make_policy(spec, game, seed=4) for _ in range(2)]
    bots[1].seat_model = stepped_model
    knowledge = read_knowledge(obs, game)
    worlds = [bot._worlds(knowledge, np.random.default_rng(0)) for bot in bots]
    for compiled, stepped in zip(*worlds, strict=True):
        assert np.array_equal(compiled, stepped)


def test_a_world_that_contradicts_the_bidding_is_less_likely():
    """Ghost Hand, heuristic seats: the true world outweighs worlds drawn uniformly, by the
    likelihood of the bids under the heuristic (the floor keeps every world possible)."""
    game = GhostEuchre(episode="deal")
    heuristic = make_policy("heuristic", game)
    state, obs, _ = next(  # the auction is over in every deal
        p for p in _positions(game, heuristic, games=300) if (p[0].phase == ghost.PLAY).all()
    )
    seat = state.player.astype(np.int64)
    knowledge = read_knowledge(obs, game)
    rows = np.arange(len(seat))
    true = log_likelihoods(game, knowledge, _true_worlds(game, state, seat), heuristic, 0.1, rows)
    uniform = sample_worlds(knowledge, 1, np.random.default_rng(0))
    drawn = log_likelihoods(game, knowledge, [w[:, 0] for w in uniform], heuristic, 0.1, rows)
    assert np.isfinite(drawn).all()
    assert (true >= drawn - 1e-12).all() and (true > drawn).mean() > 0.3


def test_the_actions_are_read_in_order():
    """A Ghost Hand deal: dealer 2 (relative), seat 0 swaps then bids 4, seat 1 passes,
    the dealer passes; trump hearts; the first card."""
    game = GhostEuchre(episode="deal")
    state = game.init(np.zeros(1, np.uint64), {"dealer": 2})
    for action in (33, 30, 24, 24, 27):
        game.step(state, np.array([action]))
    card = int(game.legal_mask(state)[0].argmax())
    game.step(state, np.array([card]))
    obs = game.observe(state, np.array([1]))  # seat 1's view: seat 0 is its relative seat 2
    actions = deal_actions(read_knowledge(obs, game), game)[0]
    assert actions[actions >= 0].tolist() == [33, 30, 24, 24, 27, card]


def test_the_open_auction_is_refused_by_name():
    game = GhostEuchre(episode="deal", auction="open")
    state = game.init(np.zeros(1, np.uint64))
    obs = game.observe(state, state.player.astype(np.int64))
    with pytest.raises(ValueError, match="auction='open'"):
        deal_actions(read_knowledge(obs, game), game)


def test_search_refuses_inference_in_the_open_auction_at_once():
    game = GhostEuchre(auction="open")
    with pytest.raises(ValueError, match="use infer=none"):
        make_policy("search", game)
    assert make_policy("search:infer=none,samples=2", game).name.startswith("search(")


def test_resampling_follows_the_weights():
    rng = np.random.default_rng(0)
    weights = np.array([[1.0, 1.0, 1.0, 1.0], [8.0, 0.0, 0.0, 0.0], [3.0, 1.0, 0.0, 0.0]])
    log_weights = np.where(weights > 0, np.log(np.maximum(weights, 1e-300)), -np.inf)
    chosen, ess = resample(log_weights, 8, rng)
    assert np.bincount(chosen[0], minlength=4).tolist() == [2, 2, 2, 2]
    assert (chosen[1] == 0).all()
    assert np.bincount(chosen[2], minlength=4).tolist() == [6, 2, 0, 0]
    assert ess == pytest.approx([4.0, 1.0, 1.6])
    everything_impossible = np.full((1, 3), -np.inf)
    chosen, ess = resample(everything_impossible, 6, rng)
    assert np.bincount(chosen[0]).tolist() == [2, 2, 2] and ess[0] == pytest.approx(3.0)


def test_network_probabilities_are_a_distribution_over_the_legal_actions():
    game = GhostEuchre()
    network = make_policy("ppo:ghost", game)
    state = game.init(np.arange(8, dtype=np.uint64))
    obs, mask = game.observe(state, state.player.astype(np.int64)), game.legal_mask(state)
    p = action_probabilities(network, obs, mask)
    assert np.allclose(p.sum(axis=1), 1) and (p[~mask] == 0).all()
    assert (p.argmax(axis=1) == network.act(obs, mask)).all()


@pytest.mark.parametrize("game_type", [GhostEuchre, ClassicEuchre])
def test_without_inference_search_is_pimc(game_type):
    """Keyed by game, ``search:infer=none,rollout=heuristic`` searches pimc's worlds with its playouts."""
    game = game_type()
    state = game.init(np.arange(12, dtype=np.uint64))
    obs, mask = game.observe(state, state.player.astype(np.int64)), game.legal_mask(state)
    keys = np.arange(12, dtype=np.uint64) * 7919
    pimc = PIMCPolicy(game, seed=3, samples=6)
    search = SearchPolicy(game, seed=3, samples=6, infer="none", rollout="heuristic")
    assert (pimc.act(obs, mask, keys) == search.act(obs, mask, keys)).all()


def test_search_is_keyed_by_game_and_keeps_its_ess():
    game = GhostEuchre()
    heuristic = make_policy("heuristic", game)
    batches = [(obs, mask) for _, obs, mask in _positions(game, heuristic, games=6)][:8]
    obs = np.concatenate([o for o, _ in batches])
    mask = np.concatenate([m for _, m in batches])
    keys = np.arange(len(obs), dtype=np.uint64) + 11
    bot = SearchPolicy(game, seed=1, samples=4, pool=2, infer="mix", top=2, prior=0.5)
    together = bot.act(obs, mask, keys)
    alone = np.concatenate(
        [bot.act(obs[i : i + 1], mask[i : i + 1], keys[i : i + 1]) for i in range(len(obs))]
    )
    assert (together == alone).all() and mask[np.arange(len(obs)), together].all()
    assert bot.mean_ess is not None and 1.0 <= bot.mean_ess <= 8.0


def test_pruning_searches_only_the_networks_top_actions():
    game = GhostEuchre()
    state = game.init(np.arange(16, dtype=np.uint64))
    obs, mask = game.observe(state, state.player.astype(np.int64)), game.legal_mask(state)
    bot = SearchPolicy(game, seed=0, samples=2, infer="none", top=1)
    assert (bot.act(obs, mask, np.arange(16, dtype=np.uint64)) == bot.network.act(obs, mask)).all()


def test_pruned_actions_have_no_searched_value():
    game = GhostEuchre()
    state = game.init(np.arange(16, dtype=np.uint64))
    obs, mask = game.observe(state, state.player.astype(np.int64)), game.legal_mask(state)
    bot = SearchPolicy(game, seed=0, samples=2, infer="none", top=2)
    values = bot.searched_values(obs, mask, np.arange(16, dtype=np.uint64))
    probabilities = action_probabilities(bot.network, obs, mask)
    for row in range(16):
        valued = np.flatnonzero(np.isfinite(values[row]))
        likely = np.argsort(-np.where(mask[row], probabilities[row], -1.0), kind="stable")[:2]
        assert sorted(valued) == sorted(likely)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("infer=bayes", "infer must be one of"),
        ("evidence=cards", "evidence must be one of"),
        ("pool=0", "pool must be an int >= 1"),
        ("top=-1", "top must be an int >= 0"),
        ("floor=1", r"floor must be a number in \[0, 1\)"),
        ("prior=-2", "prior must be a number >= 0"),
        ("network=ppo:nowhere", "does not exist"),
        ("leaf=card", r"^search: leaf must be one of \['playout', 'solver', 'cards'\], got 'card'"),
        ("objective=win", "^search: objective must be one of"),
        ("samples=0", "^search: samples must be an int >= 1, got 0"),
    ],
)
def test_bad_options_are_named(option, message):
    """Each refusal names the bot the user typed (search, not pimc, whose checks it shares)."""
    with pytest.raises(ValueError, match=message):
        make_policy(f"search:{option}", GhostEuchre())


@pytest.mark.parametrize("variant", ["ghost", "classic"])
def test_search_plays_a_match_of_each_variant(variant):
    seats = 3 if variant == "ghost" else 4
    result = run_match(
        ["search:samples=2,pool=2", *["heuristic"] * (seats - 1)], variant, games=seats * 2, seed=5
    )
    assert result.players[0]["games"] == seats * 2
