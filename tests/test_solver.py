"""The exact solver against brute force by the engine itself.

The brute force copies the state, steps every legal card with the engine's own
``step``, recurses, and scores with the engine's own deal outcome
(``StepResult.deals.points``): the solver's tables, search and scoring are
checked against the rules as the engine plays them, in both variants, with
lone hands, lone defenders and ``allow_renege``, under each of Ghost Hand's
solution concepts (paranoid, relative, max-n).
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from ghost_euchre_env import solver
from ghost_euchre_env.cards import EFFECTIVE_SUIT, STRENGTH
from ghost_euchre_env.classic import GO_ALONE, WITH_PARTNER, ClassicEuchre
from ghost_euchre_env.classic import PLAY as CLASSIC_PLAY
from ghost_euchre_env.ghost import PLAY as GHOST_PLAY
from ghost_euchre_env.ghost import GhostEuchre

ENGINES = {
    "ghost": lambda: GhostEuchre(episode="deal"),
    "ghost_renege": lambda: GhostEuchre(episode="deal", allow_renege=True, renege_penalty=3),
    "ghost_moon": lambda: GhostEuchre(episode="deal", moon_points=10, moon_set_penalty=7),
    "classic": lambda: ClassicEuchre(episode="deal"),
    "classic_lone": lambda: ClassicEuchre(episode="deal", allow_lone_defender=True),
}


def _play_phase(engine):
    return GHOST_PLAY if engine.num_players == 3 else CLASSIC_PLAY


def seats_in_play(engine, state):
    return engine.num_players if engine.num_players == 3 else bin(int(state.active[0])).count("1")


def plays_left(engine, state):
    """Cards still to be played in game 0 (the seats that sit out hold cards they never play)."""
    active = (1 << engine.num_players) - 1 if engine.num_players == 3 else int(state.active[0])
    return sum(
        bin(int(state.hands[0, seat])).count("1")
        for seat in range(engine.num_players)
        if active >> seat & 1
    )


def random_position(engine, key, rng, tricks, into_trick=0):
    """Game 0 of a deal dealt with ``key``, played at random until ``tricks`` tricks are left,
    ``into_trick`` cards into the first of them. Classic: with an even key the seats asked
    go alone (lone hands, and lone defenders where the rules allow them), with an odd key
    they play with their partners."""
    play = _play_phase(engine)
    while True:
        state = engine.init([key])
        while state.player[0] >= 0 and (
            state.phase[0] != play
            or plays_left(engine, state) > tricks * seats_in_play(engine, state) - into_trick
        ):
            legal = np.flatnonzero(engine.legal_mask(state)[0])
            if engine.num_players == 4 and GO_ALONE in legal:
                engine.step(state, [GO_ALONE if key % 2 == 0 else WITH_PARTNER])
            else:
                engine.step(state, [rng.choice(legal)])
        if state.player[0] >= 0:
            return state
        key += 10_000  # thrown in: another deal (the same parity)


def _maximizes(engine, seat, root):
    if engine.num_players == 3:
        return seat == root
    return (seat & 1) == (root & 1)


def _value_of(engine, points, root, concept="paranoid"):
    """The root's value of a deal's points (Ghost Hand: by seat; classic: by team)."""
    if engine.num_players == 3:
        if concept == "relative":  # own points minus the mean of the others'
            return int(points[root]) - (int(points.sum()) - int(points[root])) / 2
        return int(points[root])
    return int(points[root & 1]) - int(points[1 - (root & 1)])


def brute_paranoid(engine, state, root, concept="paranoid"):
    """{card: value} for the player to move in game 0: the root's paranoid / zero-sum value
    (Ghost Hand's "relative": of its points minus the mean of the others')."""
    values = {}
    for card in np.flatnonzero(engine.legal_mask(state)[0]):
        child = state.copy()
        result = engine.step(child, [card])
        if len(result.deals.game):
            values[int(card)] = _value_of(engine, result.deals.points[0], root, concept)
        else:
            below = brute_paranoid(engine, child, root, concept).values()
            maximize = _maximizes(engine, int(child.player[0]), root)
            values[int(card)] = max(below) if maximize else min(below)
    return values


def _maxn_order(state, cards):
    """Max-n's tie-break: by the suit a card counts as (C, D, H, S), then strongest first."""
    trump = int(state.trump[0])
    suit = EFFECTIVE_SUIT[trump]
    return sorted(cards, key=lambda c: (suit[c], -int(STRENGTH[trump, suit[c], c])))


def brute_maxn(engine, state):
    """{card: points by seat} for the player to move in game 0, each seat maximizing its own."""
    lines = {}
    for card in _maxn_order(state, np.flatnonzero(engine.legal_mask(state)[0])):
        child = state.copy()
        result = engine.step(child, [card])
        if len(result.deals.game):
            lines[int(card)] = tuple(int(p) for p in result.deals.points[0])
        else:
            mover = int(child.player[0])
            below = brute_maxn(engine, child)
            lines[int(card)] = max(below.values(), key=lambda line: line[mover])  # first of ties
    return lines


def solved(engine, state, concept="paranoid", seat=None):
    values = solver.solve(engine, state, concept=concept, seat=seat)[0]
    return {int(c): float(values[c]) for c in np.flatnonzero(values != solver.NO_VALUE)}


@pytest.mark.parametrize("name", sorted(ENGINES))
@pytest.mark.parametrize("tricks", [2, 3])
def test_paranoid_and_zero_sum_values_match_the_engines_brute_force(name, tricks):
    engine = ENGINES[name]()
    rng = np.random.default_rng(tricks * 100 + len(name))
    seats = engine.num_players if engine.num_players == 3 else 4
    lone = 0
    for key in range(6 if tricks == 3 else 10):
        # from a trick's lead, or its second or third card
        state = random_position(engine, key, rng, tricks, key % 3)
        mover = int(state.player[0])
        assert solved(engine, state) == brute_paranoid(engine, state, mover), key
        other = (mover + 1) % engine.num_players  # valued for a seat that is not to move
        assert solved(engine, state, seat=other) == brute_paranoid(engine, state, other), key
        if seats == 4:
            lone += int(state.active[0]) != 0b1111
    if seats == 4:
        assert 0 < lone < (6 if tricks == 3 else 10), "lone hands and full tables both"


@pytest.mark.parametrize("name", ["ghost", "classic_lone"])
def test_a_positions_value_is_the_minimax_of_its_cards(name):
    engine = ENGINES[name]()
    rng = np.random.default_rng(13)
    for key in range(6):
        state = random_position(engine, key, rng, 2, key % 3)
        mover = int(state.player[0])
        for seat in range(engine.num_players):
            cards = brute_paranoid(engine, state, seat, "relative").values()
            want = max(cards) if _maximizes(engine, mover, seat) else min(cards)
            assert solver.position_value(engine, state, seat=seat)[0] == want
    with pytest.raises(ValueError, match="maxn"):
        solver.position_value(engine, random_position(engine, 0, rng, 2), concept="maxn")


@pytest.mark.parametrize("name", ["ghost", "ghost_renege", "ghost_moon"])
def test_relative_values_match_the_engines_brute_force(name):
    engine = ENGINES[name]()
    rng = np.random.default_rng(9)
    for key in range(6):
        state = random_position(engine, key, rng, 2 + key % 2, key % 3)
        mover = int(state.player[0])
        want = brute_paranoid(engine, state, mover, "relative")
        assert solved(engine, state, "relative") == want, key
        other = (mover + 2) % 3
        want = brute_paranoid(engine, state, other, "relative")
        assert solved(engine, state, "relative", seat=other) == want, key


@pytest.mark.parametrize("name", ["ghost", "ghost_renege"])
def test_maxn_values_match_the_engines_brute_force(name):
    engine = ENGINES[name]()
    rng = np.random.default_rng(7)
    for key in range(6):
        state = random_position(engine, key, rng, 3 - key % 2, key % 3)
        mover = int(state.player[0])
        want = {card: line[mover] for card, line in brute_maxn(engine, state).items()}
        assert solved(engine, state, "maxn") == want, key


def test_renege_positions_include_reneges_that_pay():
    # With allow_renege every held card is legal; a card that breaks the rule carries the
    # penalty, so the solver's values must differ from the no-renege engine's somewhere.
    engine = ENGINES["ghost_renege"]()
    rng = np.random.default_rng(3)
    differs = 0
    for key in range(12):
        state = random_position(engine, key, rng, 2, 1 + key % 2)  # a trick's second or third card
        strict = GhostEuchre(episode="deal")
        if int(engine.legal_mask(state)[0].sum()) > int(strict.legal_mask(state)[0].sum()):
            differs += 1
            assert solved(engine, state) == brute_paranoid(engine, state, int(state.player[0]))
    assert differs


def _principal_line(engine, state, seat, concept="paranoid"):
    """Play game 0 to its end by the solver, every seat choosing by ``seat``'s values (max on
    its side, min against it); check the value holds along the line; return it and the points."""
    value = None
    while True:
        values = solver.solve(engine, state, concept=concept, seat=seat)[0]
        legal = values != solver.NO_VALUE
        assert np.array_equal(legal, engine.legal_mask(state)[0, :24])
        mover = int(state.player[0])
        pick = values.max(initial=-99, where=legal) if _maximizes(engine, mover, seat) else None
        if pick is None:
            pick = values.min(initial=99, where=legal)
        assert value is None or pick == value
        value = int(pick)
        card = int(np.flatnonzero(legal & (values == pick))[0])
        result = engine.step(state, [card])
        if len(result.deals.game):
            return value, result.deals.points[0]


@pytest.mark.parametrize(
    ("name", "concept"), [(name, "paranoid") for name in sorted(ENGINES)] + [("ghost", "relative")]
)
def test_whole_deals_keep_their_value_to_the_engines_score(name, concept):
    engine = ENGINES[name]()
    rng = np.random.default_rng(11)
    for key in range(3):
        state = random_position(engine, key, rng, 6)  # from the first lead
        seat = int(state.player[0])
        value, points = _principal_line(engine, state, seat, concept)
        assert value == _value_of(engine, points, seat, concept)


def test_equivalent_cards_share_a_value_and_the_state_is_unchanged():
    engine = ENGINES["ghost"]()
    state = random_position(engine, 4, np.random.default_rng(4), 6)
    before = state.copy()
    values = solver.solve(engine, state)
    for field in ("hands", "trick", "tricks_won", "player", "leader"):
        assert np.array_equal(getattr(state, field), getattr(before, field))
    assert (values[0] != solver.NO_VALUE).sum() == engine.legal_mask(state)[0].sum()
    best = solver.best_cards(values)
    assert best[0].any() and values[0][best[0]].min() == values[0].max()


def test_a_batch_is_solved_game_by_game():
    engine = ENGINES["classic"]()
    rng = np.random.default_rng(5)
    states = [random_position(engine, key, rng, 3, key) for key in range(3)]
    batch = states[0].take([0, 0, 0])
    for g, state in enumerate(states):
        batch.put([g], state)
    together = solver.solve(engine, batch)
    for g, state in enumerate(states):
        assert np.array_equal(together[g], solver.solve(engine, state)[0])
    assert np.array_equal(solver.solve(engine, batch, games=[2]), together[2:])


def test_bad_input_is_refused():
    engine = ENGINES["ghost"]()
    state = engine.init([1])  # the auction: trump is not set yet
    with pytest.raises(ValueError, match="play phase"):
        solver.solve(engine, state)
    state = random_position(engine, 1, np.random.default_rng(1), 3)
    with pytest.raises(ValueError, match="concept"):
        solver.solve(engine, state, concept="best")


_PLAIN_PYTHON = """
import json, sys
import numpy as np
sys.path.insert(0, {tests!r})
from test_solver import ENGINES, random_position, solved
out = {{}}
for name in ("ghost_renege", "classic_lone"):
    engine = ENGINES[name]()
    state = random_position(engine, 2, np.random.default_rng(2), 2, 1)
    out[name] = [solved(engine, state, "relative"), solved(engine, state, "maxn")]
print(json.dumps(out))
"""


@pytest.mark.slow  # starts a process
def test_the_kernels_run_as_plain_python():
    code = _PLAIN_PYTHON.format(tests=os.path.dirname(__file__))
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    plain = json.loads(out.stdout)
    for name, (paranoid, maxn) in plain.items():
        engine = ENGINES[name]()
        state = random_position(engine, 2, np.random.default_rng(2), 2, 1)
        assert {int(c): v for c, v in paranoid.items()} == solved(engine, state, "relative")
        assert {int(c): v for c, v in maxn.items()} == solved(engine, state, "maxn")
        assert paranoid


def test_the_oracle_plays_the_solvers_best_card():
    from ghost_euchre.agents.oracle import OraclePolicy

    for name in ("ghost", "classic_lone"):
        engine = ENGINES[name]()
        state = random_position(engine, 3, np.random.default_rng(3), 4, 1)
        oracle = OraclePolicy(engine, seed=0, cards="solver")
        oracle.show_deal(np.array([0]), state)
        obs = engine.observe(state, state.player.astype(np.int64))
        action = oracle.act(obs, engine.legal_mask(state), games=np.array([0]))
        values = solver.solve(engine, state)[0]
        assert values[action[0]] == values.max()
        assert "cards=solver" in oracle.name
    with pytest.raises(ValueError, match="cards"):
        OraclePolicy(ENGINES["ghost"](), cards="playouts")


def test_the_docs_recipe_for_sampled_worlds_averages_the_worlds():
    from docs_snippets import doc_snippet

    engine = ENGINES["ghost"]()
    state = random_position(engine, 5, np.random.default_rng(5), 4, 1)
    worlds = state.take([0, 0, 0])  # three copies of one world: the mean is its values
    namespace = {"solver": solver, "playout_game": engine, "world_states": worlds}
    namespace.update(positions=1, worlds=3)
    exec(doc_snippet("solver_worlds"), namespace)
    seat0 = solver.solve(engine, state, seat=0)
    assert np.array_equal(namespace["card_values"], seat0)


def test_values_stay_exact_when_the_table_starts_afresh():
    # Every root searched starts a new generation of the transposition table; after
    # solver._GENERATIONS of them the table is cleared. Many roots in one call cross that.
    engine = ENGINES["ghost"]()
    rng = np.random.default_rng(8)
    states = [random_position(engine, key, rng, 6) for key in range(4)]
    once = [solver.solve(engine, state)[0] for state in states]
    copies = solver._GENERATIONS // 4 + 3
    batch = states[0].take(np.zeros(4 * copies, np.intp))
    for g in range(4 * copies):
        batch.put([g], states[g % 4])
    values = solver.solve(engine, batch)
    for g in range(4 * copies):
        assert np.array_equal(values[g], once[g % 4])
