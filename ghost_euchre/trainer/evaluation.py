"""Evaluations of the greedy network on duplicate deals (arena's matches): periodic and final."""

import copy
import time

import torch

from ghost_euchre.agents import make_policy
from ghost_euchre.agents.composite import CompositePolicy
from ghost_euchre.agents.networks import torch_forward
from ghost_euchre.agents.ppo import PPOPolicy
from ghost_euchre.arena.bidding import run_bidding_match
from ghost_euchre.arena.match import run_match
from ghost_euchre.arena.report import format_rows
from ghost_euchre.trainer.config import POOL, read_spec
from ghost_euchre_env import variants


def network_player(model, game, config, name="ppo"):
    """The greedy network ``model`` as a full player: learn='auction' with ``card_play`` making its
    card play, learn='play' with ``bidding`` making its auction."""
    policy = PPOPolicy(game, torch_forward(model), seed=config.eval_seed, name=name)
    if config.learn == "auction":
        card_play = make_policy(read_spec(config.card_play), game, seed=config.eval_seed)
        return CompositePolicy(game, policy, card_play, name=name)
    if config.learn == "play":
        bidding = make_policy(read_spec(config.bidding), game, seed=config.eval_seed)
        return CompositePolicy(game, bidding, policy, name=name)
    return policy


def evaluation_players(model, game, opponent, config):
    """The greedy network as a full player and two ``opponent`` seats, as ``learn`` says.

    opponent: a spec, or a network (a snapshot of the pool, a full player as
    :func:`network_player`). learn='auction': every seat's card play is
    ``card_play`` (a bidding match); learn='play': ``bidding`` bids for the
    network. Classic: the network's team (seats 0 and 2) against a team of two
    ``opponent`` seats.
    """
    policy = network_player(model, game, config)
    if not isinstance(opponent, str):
        opponent = network_player(opponent, game, config, name=POOL)
    elif config.learn == "auction":
        opponent = f"composite[{opponent} | {config.card_play}]"
    return seated(policy, opponent, config.variant)


def seated(player, opponent, variant):
    """The players of a match, one per seat: ``player`` at seat 0 (and its partner's, classic), ``opponent``
    at every other seat."""
    teams = variants.make(variant).teams
    return [player if team == teams[0] else opponent for team in teams]


def evaluate_policy(model, game, opponent, games, config, regret_decisions=0):
    """The match row of the greedy network against two ``opponent`` seats (a spec or a network) on
    duplicate deals.

    With ``regret_decisions`` (learn='auction'), the row also holds ``bid_regret``
    (ghost_euchre.arena.regret.Regret.to_dict() of the network's auction decisions).
    """
    if regret_decisions:
        policy = PPOPolicy(game, torch_forward(model), seed=config.eval_seed, name="ppo")
        result, regrets = run_bidding_match(
            seated(policy, opponent, config.variant), config.card_play,
            regret_decisions, 16, games, config.eval_seed, "game", dict(config.rules) or None,
            variant=config.variant,
        )  # fmt: skip
        assert regrets is not None
        return {**result.players[0], "bid_regret": regrets[0].to_dict()}
    result = run_match(
        evaluation_players(copy.deepcopy(model).cpu(), game, opponent, config),  # on the CPU
        variant=config.variant,
        games=games,
        seed=config.eval_seed,
        episode="game",
        rules=dict(config.rules) or None,
    )
    return result.players[0]


def periodic_evaluation(run, log):
    """Every ``eval_every`` updates (not the last): win rates against heuristic and random, printed.

    Returns their scalars ({} when it is not time).
    """
    config = run.config
    if not (
        log.active
        and config.eval_every
        and run.update % config.eval_every == 0
        and run.update < run.num_updates
    ):
        return {}
    torch.set_num_threads(config.rollout_threads)
    tick = time.perf_counter()
    scalars, parts, rows = {}, [], {}
    for opponent in ("heuristic", "random"):
        regret = config.eval_regret_decisions if opponent == "heuristic" else 0
        if config.learn != "auction":
            regret = 0
        row = rows[opponent] = evaluate_policy(
            run.model, run.engine, opponent, config.eval_games, config, regret
        )
        scalars[f"eval/win_rate_vs_{opponent}"] = row["win_rate"]
        scalars[f"eval/points_per_deal_vs_{opponent}"] = row["mean_points_per_deal"]
        low, high = row["win_rate_ci95"]
        parts.append(f"vs {opponent} {row['win_rate']:.1%} [{low:.1%}, {high:.1%}]")
        if "bid_regret" in row:
            mean, (low, high) = (
                row["bid_regret"]["mean_regret"],
                row["bid_regret"]["mean_regret_ci95"],
            )
            scalars["eval/bid_regret"] = mean
            scalars["eval/bid_regret_ci95_low"], scalars["eval/bid_regret_ci95_high"] = low, high
            parts.append(f"bid regret {mean:.3f} [{low:.3f}, {high:.3f}] points/decision")
    log.evaluated(run, time.perf_counter() - tick, rows["heuristic"])
    log.write(
        f"evaluation after update {run.update} ({run.global_step} decisions, {row['games']} games): "
        f"win rate {', '.join(parts)}"
    )
    return scalars


def final_opponents(run):
    """[(label, opponent)] of the final table: heuristic, random, then every other entry of the run's
    opponents' mix (a spec; 'pool': the latest snapshot of the network), each once."""
    config = run.config
    labels = ["heuristic", "random"]
    labels += [spec for spec, _ in config.opponent_mix() if spec not in labels]
    latest = run.pool[(run.pool_added - 1) % config.pool_size]
    return [(label, copy.deepcopy(latest).cpu() if label == POOL else label) for label in labels]


def pool_label(run):
    """The final table's name of the pool's latest snapshot: the start network until a snapshot is
    taken (every ``snapshot_every`` updates), which is untrained unless ``init_from`` named one."""
    if run.pool_added > 1:
        return "pool (latest snapshot)"
    start = "init_from" if run.config.init_from else "untrained"
    return f"pool (no snapshot yet: the {start} start network)"


def final_evaluation(run, log):
    """The table of the greedy network against two copies of each opponent of
    :func:`final_opponents`: games, win rate with its 95% interval, points per deal (as evaluate's)."""
    config = run.config
    torch.set_num_threads(config.rollout_threads)
    print(
        f"\nevaluation: greedy policy vs two copies of each opponent, {config.final_eval_games} "
        "duplicate games"
    )
    rows = [["opponents", "games", "win rate [95% CI]", "own pts/deal"]]
    for label, opponent in final_opponents(run):
        row = evaluate_policy(run.model, run.engine, opponent, config.final_eval_games, config)
        low, high = row["win_rate_ci95"]
        name = pool_label(run) if label == POOL else label
        rows.append(
            [
                name,
                str(row["games"]),
                f"{row['win_rate']:6.1%} [{low:.1%}, {high:.1%}]",
                f"{row['mean_points_per_deal']:+.3f}",
            ]
        )
        log.writer.add_scalar(f"eval/final_win_rate_vs_{label}", row["win_rate"], run.global_step)
    print("\n".join(format_rows(rows)))
    print(
        "own pts/deal: the greedy policy's own points a deal, not a margin over its opponents "
        "(a losing seat can score points too)"
    )
