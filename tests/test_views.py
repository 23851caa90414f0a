"""ghost_euchre_env.variants and .views: the descriptors, and named views whose inverse is exact."""

import pathlib
import runpy

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ghost_euchre_env import classic, ghost, variants
from ghost_euchre_env.cards import (
    CARD_BIT,
    EFFECTIVE_SUIT,
    STRENGTH,
    mask_to_bool,
    parse_card,
    trick_winner,
)

RULES = {
    "ghost": st.fixed_dictionaries(
        {"auction": st.sampled_from(["single_round", "open"]), "allow_renege": st.booleans()}
    ),
    "classic": st.fixed_dictionaries(
        {"stick_the_dealer": st.booleans(), "allow_lone_defender": st.booleans()}
    ),
}


def reachable_observations(variant, rules, seed, num_envs=64, steps=60):
    """Observations of every seat to act along random games: float32[M, D], and the states' seats."""
    env = variant.vector_env(num_envs, seed=seed, max_deals=6, **rules)
    obs, mask, _ = env.reset()
    rng = np.random.default_rng(seed)
    seen = [obs]
    for _ in range(steps):
        obs, mask, _, _, _ = env.step((rng.random(mask.shape) * mask).argmax(axis=1))
        seen.append(obs)
    return np.concatenate(seen)


@pytest.mark.parametrize("name", variants.available())
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_encoding_a_view_gives_the_observation_back(name, data, seed):
    variant = variants.make(name)
    obs = reachable_observations(variant, data.draw(RULES[name]), seed)
    view = variant.view(obs)
    back = variant.encode(view)
    assert back.dtype == np.float32 and back.tobytes() == obs.tobytes()
    fields = {f.name: getattr(variant.view(obs), f.name) for f in variant.fields}  # as a mapping
    assert variant.encode(fields).tobytes() == obs.tobytes()


@pytest.mark.parametrize("name", variants.available())
def test_every_field_is_decoded_to_its_documented_shape(name):
    variant = variants.make(name)
    obs = reachable_observations(variant, {}, 3, num_envs=8, steps=10)
    view = variant.view(obs)
    for field in variant.fields:
        value = getattr(view, field.name)
        dtype, shape = field.decoded.rstrip("]").split("[")
        assert value.dtype == np.dtype(dtype), field.name
        assert value.shape == tuple(len(obs) if s == "N" else int(s) for s in shape.split(", "))
        assert getattr(view, field.name) is value  # decoded once


def test_ghost_view_reads_the_engine_state():
    variant = variants.make("ghost")
    game = variant.make_game()
    state = game.init(np.arange(4, dtype=np.uint64))
    a = variant.actions
    rng = np.random.default_rng(0)
    for _ in range(5):  # into the play phase of some games
        mask = game.legal_mask(state)
        game.step(state, (rng.random(mask.shape) * mask).argmax(axis=1))
    seats = state.player.astype(np.int64)
    view = variant.view(game.observe(state, seats))
    hands = state.hands[np.arange(4), seats]
    assert (view.hand == mask_to_bool(hands)).all()
    assert (view.mask("hand") == hands).all()
    assert view.mask("played_by").shape == (4, 3)
    assert (view.phase == state.phase).all()
    assert (view.dealer == (state.dealer - seats) % 3).all()
    assert (view.trump == state.trump).all()
    assert a.bid(4) == ghost.BID_4 and a.bid("moon") == a.MOON == ghost.MOON
    assert a.trump("♥") == a.trump("H") == ghost.TRUMP_CLUBS + 2
    assert a.card("JH") == parse_card("JH") and CARD_BIT[a.card("JH")]
    assert a.name(a.SWAP) == "swap"


def test_descriptors_hold_the_engines_numbers():
    g, c = variants.make("ghost"), variants.make("classic")
    assert (g.num_players, g.num_actions, g.obs_size) == (3, ghost.NUM_ACTIONS, ghost.OBS_SIZE)
    assert (c.num_players, c.num_actions, c.obs_size) == (4, classic.NUM_ACTIONS, classic.OBS_SIZE)
    assert g.teams.tolist() == [0, 1, 2] and c.teams.tolist() == [0, 1, 0, 1]
    assert (g.fair_share, c.fair_share) == (1 / 3, 1 / 2)
    assert (g.opponents, c.opponents, g.partner, c.partner) == ([1, 2], [1, 3], None, 2)
    assert c.team_members.tolist() == [[0, 2], [1, 3]]
    assert len(g.seatings()) == 6 and len(c.seatings()) == 4
    assert variants.of(g.make_game()) is g and variants.of(c.make_game()) is c
    assert variants.make(g) is g
    assert c.actions.suit("spades") == classic.SUIT_CLUBS + 3
    assert (
        c.layout_table() == (classic.__doc__ or "").split("Layout (``OBS_LAYOUT``):\n\n")[1].strip()
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: variants.make("bridge"), "variant must be one of"),
        (
            lambda: variants.of(object()),
            "no variant plays a object; expected a GhostEuchre or ClassicEuchre",
        ),
        (lambda: variants.make("ghost").actions.bid(2), "not a bid: 2"),
        (lambda: variants.make("ghost").actions.trump("X"), "not a suit: 'X'"),
        (lambda: variants.make("ghost").actions.card("ZZ"), "not a card"),
        (lambda: variants.make("ghost").view(np.zeros((2, 5), np.float32)), r"float32\[N, 390\]"),
        (
            lambda: variants.make("ghost").view(np.zeros((2, 390), np.float32)).bowers,
            "no field 'bowers'",
        ),
    ],
)
def test_bad_input_gets_a_clear_error(call, message):
    with pytest.raises((ValueError, TypeError, AttributeError), match=message):
        call()


def test_the_observation_page_is_the_generators_output():
    root = pathlib.Path(__file__).resolve().parent.parent
    generator = runpy.run_path(str(root / "docs" / "observations_page.py"))
    committed = (root / "docs" / "observations.md").read_text(encoding="utf-8")
    assert committed == generator["page"](), "run python docs/observations_page.py"


@pytest.mark.parametrize("name", variants.available())
def test_the_entry_points_build_the_variants_envs(name):
    import pickle

    import gymnasium

    variant = variants.make(name)
    aec = variant.aec()
    aec.reset(seed=0)
    assert len(aec.possible_agents) == variant.num_players
    assert aec.observation_space(aec.agents[0])["observation"].shape == (variant.obs_size,)
    assert variant.vector_env(2, seed=0).reset()[0].shape == (2, variant.obs_size)
    if variant.gym_id is not None:
        assert gymnasium.make(variant.gym_id).observation_space.shape == (variant.obs_size,)
    assert pickle.loads(pickle.dumps(variant)) is variant  # policies carry it to worker processes


@pytest.mark.parametrize("name", variants.available())
def test_the_trick_read_by_name_is_the_engines(name):
    """led_suit, winning_card and winning_seat against the engine's own state at every decision of
    random games; strength, is_trump, takes_trick and best_left against the card tables."""
    variant = variants.make(name)
    env = variant.vector_env(64, seed=11, max_deals=4)
    obs, mask, player = env.reset()
    rng = np.random.default_rng(11)
    seats, checked = variant.num_players, 0
    for _ in range(150):
        state, table = env.state, variant.view(obs)
        assert (table.led_suit == state.led_suit).all()
        trick = state.trick  # int8[N, S]: each absolute seat's card, -1 for none
        started = (trick >= 0).any(axis=1)
        winner = trick_winner(trick, state.trump, state.led_suit).astype(np.int64)
        card = np.where(started, trick[np.arange(len(trick)), winner], -1)
        assert (table.winning_card == card).all()
        assert (table.winning_seat == np.where(started, (winner - player) % seats, -1)).all()
        named = state.trump >= 0
        for row in np.flatnonzero(named)[:4]:  # a few positions in full, card by card
            trump, led = int(state.trump[row]), int(state.led_suit[row])
            for c in range(24):
                suit = int(EFFECTIVE_SUIT[trump, c])
                expected = STRENGTH[trump, led if led >= 0 else suit, c]
                assert table.strength[row, c] == expected
                assert table.is_trump[row, c] == (suit == trump)
                if card[row] >= 0:
                    beaten = STRENGTH[trump, led, card[row]]
                    assert table.takes_trick[row, c] == (expected > beaten)
                unplayed = [
                    d
                    for d in range(24)
                    if EFFECTIVE_SUIT[trump, d] == suit and not table.played_by[row, :, d].any()
                ]
                best = max(unplayed, key=lambda d: STRENGTH[trump, suit, d], default=None)
                assert table.best_left[row, c] == (best == c)
            checked += 1
        assert (table.strength[~named] == -1).all() and not table.best_left[~named].any()
        obs, mask, player, _, _ = env.step((rng.random(mask.shape) * mask).argmax(axis=1))
    assert checked > 100


def test_a_field_renamed_since_reads_by_its_old_name():
    """Ghost Hand's ``declarer`` (0.2) is ``maker`` today; a bot written against 0.2 still reads it."""
    game = ghost.GhostEuchre()
    state = game.init(np.arange(3, dtype=np.uint64))
    view = variants.GHOST.view(game.observe(state, state.player))
    assert np.array_equal(view.declarer, view.maker)
