"""Suit symmetry: the renaming tables against the engine itself, and the canonical-suit network."""

import os
import types

import numpy as np
import pytest
import torch
from test_train import TINY

from ghost_euchre.agents import make_policy
from ghost_euchre.agents.networks import (
    ActorCritic,
    CanonicalSuits,
    load_model,
    mask_logits,
    policy_payload,
    torch_forward,
)
from ghost_euchre.agents.ppo import PPOPolicy
from ghost_euchre.trainer import cli
from ghost_euchre.trainer.opponents import act_opponents
from ghost_euchre_env import ClassicEuchre, ClassicEuchreVec, GhostEuchre, classic, ghost
from ghost_euchre_env.cards import PARTNER_SUIT, parse_card
from ghost_euchre_env.suits import COLOUR_KEEPING, card_permutation, permutation_tables

OBS_INDEX, ACTION_INDEX = permutation_tables(COLOUR_KEEPING)
GAMES = 64
ENGINES = {ghost: GhostEuchre, classic: ClassicEuchre}  # variant module -> its engine
VARIANTS = pytest.mark.parametrize("variant", list(ENGINES), ids=lambda module: module.__name__)


@VARIANTS
def test_the_eight_colour_keeping_renamings_are_tables_of_permutations(variant):
    obs_tables, action_tables = permutation_tables(COLOUR_KEEPING, variant)
    assert len(COLOUR_KEEPING) == 8 and len({tuple(p) for p in COLOUR_KEEPING}) == 8
    for perm, obs_index, action_index in zip(
        COLOUR_KEEPING, obs_tables, action_tables, strict=True
    ):
        assert all(PARTNER_SUIT[perm[s]] == perm[PARTNER_SUIT[s]] for s in range(4))
        assert sorted(obs_index) == list(range(len(obs_index)))
        assert sorted(action_index) == list(range(len(action_index)))
        inverse = np.argsort(perm)  # renaming back: the tables compose to the identity
        back_obs, back_action = permutation_tables([inverse], variant)
        assert np.array_equal(obs_index[back_obs[0]], np.arange(len(obs_index)))
        assert np.array_equal(back_action[0][action_index], np.arange(len(action_index)))
    assert np.array_equal(obs_tables[0], np.arange(obs_tables.shape[1]))  # the identity renaming
    assert obs_tables.shape[1] == variant.OBS_SIZE
    assert action_tables.shape[1] == variant.NUM_ACTIONS


def test_the_ghost_tables_are_the_default_ones():
    obs_index, action_index = permutation_tables(COLOUR_KEEPING, ghost)
    assert np.array_equal(obs_index, OBS_INDEX) and np.array_equal(action_index, ACTION_INDEX)


def test_classic_calls_rename_the_suit_called_and_keep_the_passes():
    """[round, seat, call: pass, C, D, H, S]: each call's suit is renamed, a pass stays a pass."""
    obs_index, action_index = permutation_tables(COLOUR_KEEPING, classic)
    start, stop = classic.OBS_OFFSETS["calls"]
    for perm, index in zip(COLOUR_KEEPING, obs_index, strict=True):
        calls = np.zeros((8, 5), np.float32)
        calls[np.arange(8), np.arange(8) % 5] = 1  # pass, C, D, H, S, pass, C, D
        obs = np.zeros(classic.OBS_SIZE, np.float32)
        obs[start:stop] = calls.reshape(-1)
        renamed = obs[index][start:stop].reshape(8, 5)
        call = np.arange(8) % 5
        expected = np.where(call == 0, 0, np.asarray(perm)[call - 1] + 1)
        assert np.array_equal(renamed.argmax(1), expected)
    assert np.array_equal(action_index[:, classic.PASS], np.full(8, classic.PASS))
    assert np.array_equal(action_index[:, classic.GO_ALONE], np.full(8, classic.GO_ALONE))


def renamed_deals(rng, perm, variant):
    """(options of GAMES random deals of ``variant``, the same deals with every card renamed by ``perm``)."""
    cards = card_permutation(perm)
    size, players = variant.HAND_SIZE, variant.NUM_PLAYERS
    deals, renamed = [], []
    for _ in range(GAMES):
        order = rng.permutation(24)
        dealer = int(rng.integers(players))
        for out, rename in ((deals, np.arange(24)), (renamed, cards)):
            dealt = rename[order]
            hands = [dealt[size * s : size * s + size].tolist() for s in range(players)]
            if variant is ghost:
                deal = {"hands": hands, "ghost": dealt[18:24].tolist()}
            else:
                deal = {"hands": hands, "upcard": int(dealt[20])}
            out.append({"dealer": dealer, "deals": [deal]})
    return deals, renamed


@VARIANTS
@pytest.mark.parametrize("k", range(1, 8))
def test_a_renamed_deal_is_the_renamed_game_at_every_decision(variant, k):
    """Play each deal and its renamed copy with the same (renamed) random actions: every observation
    and mask of the copy is the original's through the tables, and the deals score the same."""
    obs_index, action_index = (table[k] for table in permutation_tables(COLOUR_KEEPING, variant))
    rng = np.random.default_rng(k)
    game = ENGINES[variant](episode="deal")
    deals, renamed = renamed_deals(rng, COLOUR_KEEPING[k], variant)
    keys = np.arange(GAMES, dtype=np.uint64)
    state, copy = game.init(keys, deals), game.init(keys, renamed)
    decisions = 0
    while (state.player >= 0).any():
        live = np.flatnonzero(state.player >= 0)
        assert np.array_equal(copy.player >= 0, state.player >= 0)
        sub, sub_copy = state.take(live), copy.take(live)
        obs = game.observe(sub, sub.player.astype(np.int64))
        obs_copy = game.observe(sub_copy, sub_copy.player.astype(np.int64))
        assert np.array_equal(obs_copy, obs[:, obs_index])
        mask, mask_copy = game.legal_mask(sub), game.legal_mask(sub_copy)
        assert np.array_equal(mask_copy[:, action_index], mask)
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        result = game.step(sub, actions)
        result_copy = game.step(sub_copy, action_index[actions])
        assert np.array_equal(result.rewards, result_copy.rewards)
        state.put(live, sub)
        copy.put(live, sub_copy)
        decisions += len(live)
    assert decisions > GAMES * variant.NUM_TRICKS * 2  # the deals were played, not thrown in


def played_positions(seed, variant=ghost, count=400):
    """(engine, state) of the games still going after a random number (< 20) of random legal decisions."""
    rng = np.random.default_rng(seed)
    game = ENGINES[variant](episode="deal")
    state = game.init(np.arange(count, dtype=np.uint64) + seed * count)
    steps = rng.integers(0, 20, count)  # each game stopped after a random number of decisions
    for step in range(20):
        go = np.flatnonzero((state.player >= 0) & (steps > step))
        if len(go) == 0:
            break
        sub = state.take(go)
        mask = game.legal_mask(sub)
        game.step(sub, (rng.random(mask.shape) * mask).argmax(axis=1))
        state.put(go, sub)
    return game, state.take(np.flatnonzero(state.player >= 0))


def positions(seed, variant=ghost, count=400):
    """float32[M, OBS_SIZE] observations of random legal play (every phase) and their masks, from the engine."""
    game, state = played_positions(seed, variant, count)
    return game.observe(state, state.player.astype(np.int64)).astype(np.float32), game.legal_mask(
        state
    )


@VARIANTS
def test_canonical_suits_puts_trump_or_the_strongest_suit_first(variant):
    obs, _ = positions(0, variant)
    renamed, _ = CanonicalSuits(variant)(torch.from_numpy(obs))
    renamed = renamed.numpy()
    trump = renamed[:, slice(*variant.OBS_OFFSETS["trump"])]
    named = trump.sum(1) > 0
    assert 0 < named.sum() < len(obs)  # both kinds of position are in the sample
    assert (trump[named, 0] == 1).all()  # trump is clubs once named
    held = renamed[~named, slice(*variant.OBS_OFFSETS["hand"])].reshape(-1, 6, 4).sum(1)
    assert (held[:, 0] == held.max(1)).all()  # before: the longest suit is clubs


C, D, H, S = 0, 1, 2, 3


@VARIANTS
@pytest.mark.parametrize(
    ("hand", "trump", "order"),
    [
        # (cards held, trump or None, the suit renamed to 0, 1, 2, 3): the docstring's order
        ("AC KC QC JH TH 9D", None, (C, H, D, S)),  # clubs longest; hearts longer than diamonds
        ("AC KC QC 9H AD TS", None, (C, D, H, S)),  # AD beats 9H: one card each, higher rank
        ("AS KS QS KD JH 9C", None, (S, D, H, C)),  # two of one card each, KD beats JH
        ("AS KS KH KD 9C", None, (S, D, H, C)),  # KD ties KH: the lower suit first
        ("AC KC QC JD TD 9H", H, (H, C, S, D)),  # trump first, however short; clubs beat spades
        ("9S 9C TC JC QD KD", D, (D, C, S, H)),
    ],
)
def test_canonical_suits_pins_the_documented_order(variant, hand, trump, order):
    """Trump (before it: the strongest suit in hand) becomes suit 0, its same-colour suit 3,
    and of the other colour the stronger in hand suit 1, the weaker 2 (ties: the lower suit).
    The shipped networks were trained on this order: any other fixed rule would pass the
    invariance tests and play them wrongly."""
    obs = np.zeros((1, variant.OBS_SIZE), np.float32)
    held = [parse_card(c) for c in hand.split()]
    obs[0, variant.OBS_OFFSETS["hand"][0] + np.array(held)] = 1
    if trump is not None:
        obs[0, variant.OBS_OFFSETS["trump"][0] + trump] = 1
    renamed, _ = CanonicalSuits(variant)(torch.from_numpy(obs))
    start, stop = variant.OBS_OFFSETS["hand"]
    expected = [card_permutation(np.argsort(order))[c] for c in held]  # suit order[k] -> k
    assert sorted(np.flatnonzero(renamed.numpy()[0, start:stop]).tolist()) == sorted(expected)
    assert PARTNER_SUIT[order[0]] == order[3]


@VARIANTS
@pytest.mark.parametrize("k", range(8))
def test_renamed_positions_look_the_same_and_get_the_renamed_decision(variant, k):
    """A renamed position gives the same canonical input and the same logits on the renamed actions.

    Positions whose suit order ties on the own hand are skipped: there the order is
    chosen by suit name, so two suits that look alike may swap names.
    """
    obs_index, action_index = (table[k] for table in permutation_tables(COLOUR_KEEPING, variant))
    torch.manual_seed(k)
    obs, mask = positions(k + 1, variant)
    model = ActorCritic(obs.shape[1], mask.shape[1], (32,), canonical_suits=True)
    suits = model.suits
    assert suits is not None
    renamed_obs = torch.from_numpy(obs[:, obs_index])
    a, a_actions = suits(torch.from_numpy(obs))
    b, b_actions = suits(renamed_obs)
    same = (a == b).all(1) & (b_actions[:, action_index] == a_actions).all(1)
    assert same.float().mean() > 0.5, "ties should be the exception"
    with torch.no_grad():
        logits, value = model(torch.from_numpy(obs))
        logits_renamed, value_renamed = model(renamed_obs)
    torch.testing.assert_close(logits_renamed[same][:, action_index], logits[same])
    torch.testing.assert_close(value_renamed[same], value[same])
    if k:  # without the renaming a network does tell the suits apart
        plain = ActorCritic(obs.shape[1], mask.shape[1], (32,))
        with torch.no_grad():
            plain_logits = plain(renamed_obs)[0][:, action_index]
            assert not torch.allclose(plain_logits, plain(torch.from_numpy(obs))[0])


@VARIANTS
@pytest.mark.parametrize("canonical", [False, True], ids=["plain", "canonical"])
def test_each_pool_snapshot_decides_its_own_rows(variant, canonical):
    """The trainer's pool (each snapshot by its forward pass without torch, on its own rows) gives
    every row its own network's choice, whichever snapshots are present and in whatever order:
    greedy, its masked argmax; sampled, a legal action."""
    torch.manual_seed(3)
    obs, mask = positions(9, variant, count=64)
    pool = [
        ActorCritic(obs.shape[1], mask.shape[1], (16,), canonical_suits=canonical) for _ in range(4)
    ]
    roles = np.random.default_rng(0).choice([1, 3, 4], size=len(obs))  # snapshot 1 acts nowhere
    for sample in (False, True):
        run = types.SimpleNamespace(
            config=types.SimpleNamespace(pool_size=4, opponent_sample=sample),
            pool_players=[torch_forward(network) for network in pool],
            opponents=[], partner=None, heuristic=None, sample_rng=np.random.default_rng(1),
        )  # fmt: skip
        actions = np.full(len(obs), -1, np.int64)
        act_opponents(actions, roles, obs, mask, run)
        assert mask[np.arange(len(obs)), actions].all()
        if not sample:
            with torch.no_grad():
                for i, role in enumerate(roles):
                    logits = pool[role - 1](torch.from_numpy(obs[i : i + 1]))[0]
                    own = mask_logits(logits, torch.from_numpy(mask[i : i + 1])).argmax(-1)
                    assert actions[i] == own.item()


@VARIANTS
@pytest.mark.parametrize("canonical", [False, True], ids=["plain", "canonical"])
@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_the_acting_logits_are_forwards_exactly(variant, canonical, activation):
    """act_logits (what PPOPolicy acts on: torch's functions, no value head) gives forward's logits bit
    for bit, on one row and on a batch."""
    torch.manual_seed(4)
    obs, mask = positions(5, variant, count=64)
    network = ActorCritic(
        obs.shape[1], mask.shape[1], (32, 16), activation, canonical_suits=canonical
    )
    with torch.no_grad():
        for rows in (slice(0, 1), slice(None)):
            batch = torch.from_numpy(obs[rows])
            assert torch.equal(network.act_logits(batch), network(batch)[0])


def test_canonical_suits_only_for_ghost_hand_observations():
    with pytest.raises(ValueError, match="canonical_suits works on Ghost Hand observations"):
        ActorCritic(400, 40, (16,), canonical_suits=True)


@VARIANTS
def test_a_canonical_network_file_rebuilds_the_same_network(tmp_path, variant):
    """load_model rebuilds from the stored config alone: the variant's renaming, the same outputs."""
    torch.manual_seed(0)
    obs, _ = positions(5, variant, count=64)
    model = ActorCritic(variant.OBS_SIZE, variant.NUM_ACTIONS, (16,), canonical_suits=True)
    path = str(tmp_path / "policy.pt")
    torch.save(policy_payload(model), path)
    loaded = load_model(path)
    assert loaded.config == model.config and loaded.config["canonical_suits"] is True
    assert loaded.suits is not None
    obs_index, action_index = permutation_tables(COLOUR_KEEPING, variant)
    assert np.array_equal(loaded.suits.obs_index.numpy(), obs_index)
    assert np.array_equal(loaded.suits.action_index.numpy(), action_index)
    with torch.no_grad():
        for ours, theirs in zip(
            model(torch.from_numpy(obs)), loaded(torch.from_numpy(obs)), strict=True
        ):
            torch.testing.assert_close(ours, theirs)


def test_classic_canonical_run_trains_and_its_policy_plays(tmp_path, torch_globals):
    run = cli.run(
        ["--runs_dir", str(tmp_path), "--name", "run", "--variant", "classic",
         "--canonical_suits", "true", "--total_steps", "256", "--eval_every", "2",
         "--final_eval_games", "0", *TINY]
    )  # fmt: skip
    policy = make_policy(f"ppo:{os.path.join(run, 'policy.pt')}", ClassicEuchre(), seed=0)
    assert isinstance(policy, PPOPolicy)
    assert policy.network.config["canonical_suits"] is True and policy.network.args[3]
    venv = ClassicEuchreVec(32, seed=3)
    obs, mask, _ = venv.reset()
    for _ in range(60):
        obs, mask, *_ = venv.step(policy.act(obs, mask))  # venv.step raises on an illegal action
