"""Suit symmetry: the renaming tables against the engine itself, and the canonical-suit network."""

import numpy as np
import pytest
import torch

from agents.ppo import ActorCritic, CanonicalSuits
from ghost_euchre_env import GhostEuchre
from ghost_euchre_env.cards import PARTNER_SUIT
from ghost_euchre_env.ghost import OBS_OFFSETS
from ghost_euchre_env.suits import COLOUR_KEEPING, card_permutation, permutation_tables

OBS_INDEX, ACTION_INDEX = permutation_tables(COLOUR_KEEPING)
GAMES = 64


def test_the_eight_colour_keeping_renamings_are_tables_of_permutations():
    assert len(COLOUR_KEEPING) == 8 and len({tuple(p) for p in COLOUR_KEEPING}) == 8
    for perm, obs_index, action_index in zip(COLOUR_KEEPING, OBS_INDEX, ACTION_INDEX, strict=True):
        assert all(PARTNER_SUIT[perm[s]] == perm[PARTNER_SUIT[s]] for s in range(4))
        assert sorted(obs_index) == list(range(len(obs_index)))
        assert sorted(action_index) == list(range(len(action_index)))
        inverse = np.argsort(perm)  # renaming back: the tables compose to the identity
        back_obs, back_action = permutation_tables([inverse])
        assert np.array_equal(obs_index[back_obs[0]], np.arange(len(obs_index)))
        assert np.array_equal(back_action[0][action_index], np.arange(len(action_index)))
    assert np.array_equal(OBS_INDEX[0], np.arange(OBS_INDEX.shape[1]))  # the identity renaming


def renamed_deals(rng, perm):
    """(options of GAMES random deals, the same deals with every card renamed by ``perm``)."""
    cards = card_permutation(perm)
    deals, renamed = [], []
    for _ in range(GAMES):
        order = rng.permutation(24)
        hands = [order[6 * s : 6 * s + 6].tolist() for s in range(4)]
        dealer = int(rng.integers(3))
        deals.append({"dealer": dealer, "deals": [{"hands": hands[:3], "ghost": hands[3]}]})
        hands = [cards[h].tolist() for h in hands]
        renamed.append({"dealer": dealer, "deals": [{"hands": hands[:3], "ghost": hands[3]}]})
    return deals, renamed


@pytest.mark.parametrize("k", range(1, 8))
def test_a_renamed_deal_is_the_renamed_game_at_every_decision(k):
    """Play each deal and its renamed copy with the same (renamed) random actions: every observation
    and mask of the copy is the original's through the tables, and the deals score the same."""
    rng = np.random.default_rng(k)
    game = GhostEuchre(episode="deal")
    deals, renamed = renamed_deals(rng, COLOUR_KEEPING[k])
    keys = np.arange(GAMES, dtype=np.uint64)
    state, copy = game.init(keys, deals), game.init(keys, renamed)
    while (state.player >= 0).any():
        live = np.flatnonzero(state.player >= 0)
        assert np.array_equal(copy.player >= 0, state.player >= 0)
        sub, sub_copy = state.take(live), copy.take(live)
        obs = game.observe(sub, sub.player.astype(np.int64))
        obs_copy = game.observe(sub_copy, sub_copy.player.astype(np.int64))
        assert np.array_equal(obs_copy, obs[:, OBS_INDEX[k]])
        mask, mask_copy = game.legal_mask(sub), game.legal_mask(sub_copy)
        assert np.array_equal(mask_copy[:, ACTION_INDEX[k]], mask)
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        result = game.step(sub, actions)
        result_copy = game.step(sub_copy, ACTION_INDEX[k][actions])
        assert np.array_equal(result.rewards, result_copy.rewards)
        state.put(live, sub)
        copy.put(live, sub_copy)


def positions(seed, count=400):
    """float32[count, 464] observations of random legal play (every phase), from the engine."""
    rng = np.random.default_rng(seed)
    game = GhostEuchre(episode="deal")
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
    live = np.flatnonzero(state.player >= 0)
    sub = state.take(live)
    return game.observe(sub, sub.player.astype(np.int64)).astype(np.float32), game.legal_mask(sub)


def test_canonical_suits_puts_trump_or_the_strongest_suit_first():
    obs, _ = positions(0)
    renamed, _ = CanonicalSuits()(torch.from_numpy(obs))
    renamed = renamed.numpy()
    trump = renamed[:, slice(*OBS_OFFSETS["trump"])]
    named = trump.sum(1) > 0
    assert 0 < named.sum() < len(obs)  # both kinds of position are in the sample
    assert (trump[named, 0] == 1).all()  # trump is clubs once named
    held = renamed[~named, slice(*OBS_OFFSETS["hand"])].reshape(-1, 6, 4).sum(1)
    assert (held[:, 0] == held.max(1)).all()  # before: the longest suit is clubs


@pytest.mark.parametrize("k", range(8))
def test_renamed_positions_look_the_same_and_get_the_renamed_decision(k):
    """A renamed position gives the same canonical input and the same logits on the renamed actions.

    Positions whose suit order ties on the own hand are skipped: there the order is
    chosen by suit name, so two suits that look alike may swap names.
    """
    torch.manual_seed(k)
    obs, mask = positions(k + 1)
    model = ActorCritic(obs.shape[1], mask.shape[1], (32,), canonical_suits=True)
    suits = model.suits
    assert suits is not None
    renamed_obs = torch.from_numpy(obs[:, OBS_INDEX[k]])
    a, a_actions = suits(torch.from_numpy(obs))
    b, b_actions = suits(renamed_obs)
    same = (a == b).all(1) & (b_actions[:, ACTION_INDEX[k]] == a_actions).all(1)
    assert same.float().mean() > 0.5, "ties should be the exception"
    with torch.no_grad():
        logits, value = model(torch.from_numpy(obs))
        logits_renamed, value_renamed = model(renamed_obs)
    torch.testing.assert_close(logits_renamed[same][:, ACTION_INDEX[k]], logits[same])
    torch.testing.assert_close(value_renamed[same], value[same])
    if k:  # without the renaming a network does tell the suits apart
        plain = ActorCritic(obs.shape[1], mask.shape[1], (32,))
        with torch.no_grad():
            plain_logits = plain(renamed_obs)[0][:, ACTION_INDEX[k]]
            assert not torch.allclose(plain_logits, plain(torch.from_numpy(obs))[0])


def test_canonical_suits_only_for_ghost_hand_observations():
    with pytest.raises(ValueError, match="canonical_suits works on Ghost Hand observations"):
        ActorCritic(400, 40, (16,), canonical_suits=True)
