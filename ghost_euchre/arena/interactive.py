"""Games played one at a time at the terminal, with a ``human`` among the players, every move narrated.

No duplicate seating: the seats are the players in the given order (see
:func:`play_interactive`).
"""

import numpy as np

from ghost_euchre.agents.base import playing
from ghost_euchre.agents.human import HumanPolicy, Narrator, seat_labels
from ghost_euchre.arena.match import act, build_players, check_player_count
from ghost_euchre_env import dealing
from ghost_euchre_env.core import check_int
from ghost_euchre_env.records import make_game


def play_interactive(
    players, variant="ghost", games=1, seed: int | None = 0, episode="game", rules=None, out=print
):
    """Play ``games`` games one at a time with seats in the given order, narrating every move.

    For matches with a ``human`` player: no duplicate seating. seed: an int >= 0,
    or None for a fresh one, printed so that the games can be played again.
    Every seat is named the same way in every line (:func:`ghost_euchre.agents.human.seat_labels`).
    Returns the final scores of each game (list of lists, by seat, or by team in classic).
    """
    check_int("games", games, 1)
    drawn = seed is None
    if drawn:
        seed = int(np.random.default_rng().integers(1_000_000))
    check_int("seed", seed, 0)
    game = make_game(variant, episode, rules)
    check_player_count(players, game)
    policies, names, _ = build_players(players, game, seed)
    if drawn:  # once the players are built: a bad spec is the only line printed
        out(f"seed {seed} (play these deals again with --seed {seed})")
    labels = seat_labels(names, [isinstance(policy, HumanPolicy) for policy in policies])
    for seat, policy in enumerate(policies):
        if isinstance(policy, HumanPolicy):
            policy.take_seat(seat, labels, out)
    results = []
    with playing(policies):
        for number, key in enumerate(dealing.stream_keys(seed, games)):
            results.append(_play_narrated(game, policies, names, labels, key, number, games, out))
    return results


def _play_narrated(game, policies, names, labels, key, number, games, out):
    """Game ``number`` of ``games`` (dealing key ``key``) played and narrated; its final scores."""
    state = game.init(np.array([key], np.uint64))
    narrator = Narrator(game, labels, out)
    out(f"=== game {number + 1} of {games} ===")
    seats = np.arange(game.num_players)[None, :]
    while True:
        narrator.before(state)
        player = state.player.astype(np.int64)
        mask = game.legal_mask(state)
        obs = game.observe(state, player)
        actions = act(policies, names, seats, obs, mask, player, games=np.array([number]))
        narrator.action(state, int(actions[0]))
        result = game.step(state, actions)
        narrator.after(state, result)
        if result.terminated[0] or result.truncated[0]:
            return state.scores[0].tolist()
