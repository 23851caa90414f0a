"""Seeded, counter-based dealing shared by every variant.

Each game owns a 64-bit stream key. The cards of deal ``d`` of episode ``e`` of a
game are a pure function of ``(key, e, d)`` (a SplitMix64 hash), so a game's deals
do not depend on the batch size, on the other games in the batch, or on which
API runs it: game 0 of a vector env seeded with ``s`` deals exactly like an AEC
env seeded with ``s``, and duplicate evaluation only needs equal keys.

Here: the stream keys, and the checks of reset options and chosen deals. The rest of
the scheme is kernels of :mod:`ghost_euchre_env.kernels.skeleton`: an episode's key
is ``mix(key ^ mix(episode + golden))`` and its first dealer, unless chosen,
``mix(episode key ^ salt) % seats`` (``open_episode``); deal ``d``'s deck sorts the
cards by ``mix(mix(deal key + (k + 1) * golden))``, the deal key being
``mix(episode key ^ mix(d * MUL2))`` (``random_deck``).
"""

import secrets

import numpy as np

from .cards import NUM_CARDS, cards_to_mask
from .kernels import skeleton

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def mix64(x):
    """SplitMix64 finaliser: uint64[...] -> a new uint64[...] (wrapping arithmetic); the one
    implementation is the kernels' (:func:`ghost_euchre_env.kernels.skeleton.mix64`)."""
    x = np.array(x, dtype=np.uint64)
    with skeleton.wrapping():
        skeleton.mix64_each(x.reshape(-1))
    return x


def stream_keys(seed, num_games):
    """uint64[num_games] stream keys: game i of seed s gets mix(mix(s) + i).

    seed: int, or a sequence of num_games ints (game i then gets the key that
    game 0 of seed[i] would get). None draws fresh entropy from the OS.
    """
    if seed is None:
        return stream_keys(secrets.randbits(63), num_games)  # fresh entropy from the OS
    if np.ndim(seed) == 0:
        check_seed(seed)
        base = mix64(np.uint64(int(seed)))
        return mix64(base + np.arange(num_games, dtype=np.uint64) * _GOLDEN)
    seeds = list(seed)
    if len(seeds) != num_games:
        raise ValueError(f"seed list has {len(seeds)} entries; expected one per game ({num_games})")
    for s in seeds:
        check_seed(s)
    return mix64(mix64(np.array([int(s) for s in seeds], dtype=np.uint64)))


MAX_SEED = (1 << 64) - 1  # a stream key is 64 bits: a larger seed would deal as a smaller one


def check_seed(seed, what="seed"):
    """``seed`` as an int, or ValueError unless it is an int in 0..2**64-1 (not a bool)."""
    if (
        isinstance(seed, (bool, np.bool_))
        or not isinstance(seed, (int, np.integer))
        or not 0 <= seed <= MAX_SEED
    ):
        raise ValueError(f"{what} must be None or an int in 0..2**64-1, got {seed!r}")
    return int(seed)


SEQUENCES = (list, tuple, np.ndarray)  # what a chosen hand (a list of card ids) may be


def parse_deal(deal, hand_sizes, hand_names):
    """Validate one chosen deal and return its hands as uint32 masks.

    deal: lists of card ids, one per hand, in the order of ``hand_names``;
    hand_sizes: cards each hand must hold. The hands must be disjoint, and with
    the cards they hold, together cover all 24 cards. Raises ValueError naming the
    first problem found.
    """
    masks = []
    seen = {}
    for cards, size, name in zip(deal, hand_sizes, hand_names, strict=True):
        if not isinstance(cards, SEQUENCES):
            raise ValueError(f"{name} must be a list of {size} card ids, got {cards!r}")
        cards = list(cards)
        if len(cards) != size:
            raise ValueError(f"{name} has {len(cards)} cards {cards}; expected {size}")
        for card in cards:
            if (
                isinstance(card, bool)
                or not isinstance(card, (int, np.integer))
                or not 0 <= card < NUM_CARDS
            ):
                raise ValueError(f"{name} holds {card!r}; card ids are ints 0..23")
            if card in seen:
                raise ValueError(f"card {card} is dealt twice: to {seen[card]} and to {name}")
            seen[card] = name
        masks.append(int(cards_to_mask(cards)))
    if len(seen) != NUM_CARDS:
        missing = sorted(set(range(NUM_CARDS)) - set(seen))
        raise ValueError(f"deal is not a partition of the 24 cards: missing {missing}")
    return masks


def parse_options(options, count, num_seats, parse_one_deal):
    """Validate reset options for ``count`` games.

    options: None, one dict for every game, or a list of ``count`` dicts (or None),
    each with optional ``dealer`` (a seat) and ``deals`` (a list of deals, each
    turned into a row of ints by ``parse_one_deal(deal, game, number)``).
    Returns (int8[count] dealer, -1 for a random one; list of ``count`` lists of
    parsed deals, or None when no options were given).
    """
    if options is None:
        return np.full(count, -1, dtype=np.int8), None
    if isinstance(options, dict):
        options = [options] * count
    if not isinstance(options, (list, tuple)):
        raise ValueError(
            f"options must be None, a dict or a list of {count} dicts (or None), got {options!r}"
        )
    options = list(options)
    if len(options) != count:
        raise ValueError(
            f"options list has {len(options)} entries; expected one per game ({count})"
        )
    dealers = np.full(count, -1, dtype=np.int8)
    deals = []
    for game, option in enumerate(options):
        if option is None:
            option = {}
        if not isinstance(option, dict):
            raise ValueError(f"options for game {game} must be a dict or None, got {option!r}")
        unknown = set(option) - {"dealer", "deals"}
        if unknown:
            raise ValueError(
                f"unknown option(s) {sorted(unknown)} for game {game}; expected 'dealer', 'deals'"
            )
        dealer = option.get("dealer")
        if dealer is not None:
            if (
                isinstance(dealer, bool)
                or not isinstance(dealer, (int, np.integer))
                or not 0 <= dealer < num_seats
            ):
                raise ValueError(
                    f"game {game}: dealer must be a seat 0..{num_seats - 1}, got {dealer!r}"
                )
            dealers[game] = dealer
        chosen = option.get("deals")
        if chosen is None:
            chosen = []
        if not isinstance(chosen, (list, tuple)):
            raise ValueError(f"game {game}: 'deals' must be a list of deals, got {chosen!r}")
        deals.append([parse_one_deal(deal, game, number) for number, deal in enumerate(chosen)])
    return dealers, deals


def store_chosen(state, games, deals):
    """Keep the parsed chosen deals of ``games`` (int[M]) in ``state.chosen`` / ``state.num_chosen``.

    ``state.chosen`` (uint32[N, K, W]) grows along K when a game brings more deals.
    deals: M lists of rows of W ints, or None (no chosen deals).
    """
    if deals is None:
        state.num_chosen[games] = 0
        return
    state.num_chosen[games] = [len(d) for d in deals]
    longest = int(state.num_chosen[games].max(initial=0))
    if longest > state.chosen.shape[1]:
        grown = np.zeros((state.num_games, longest, state.chosen.shape[2]), state.chosen.dtype)
        grown[:, : state.chosen.shape[1]] = state.chosen
        state.chosen = grown
    for row, game_deals in zip(games, deals, strict=True):
        if game_deals:
            state.chosen[row, : len(game_deals)] = game_deals
