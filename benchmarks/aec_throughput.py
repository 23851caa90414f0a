"""AEC throughput: ghost_euchre_v0 against PettingZoo's texas_holdem_v4 and tictactoe_v3, same loop, same run.

Every env is played by a uniform random policy over the legal actions through
the standard ``agent_iter()`` / ``last()`` / ``step()`` loop, episode after
episode (dead steps included, as the loop requires). The envs take turns in
short rounds so that a change of machine load hits them alike. "steps" counts
every ``step()`` call, "decisions" only those with an action. Targets (issue 67):
ghost_euchre_v0 at >= 1.5x texas_holdem_v4's steps per second and at least
tictactoe_v3's (a trivial game behind the same PettingZoo wrappers).

Run from the repository root: ``python -m benchmarks.aec_throughput``.
``--profile`` then times the engine calls of the ghost env (no profiler
overhead) and prints a cProfile of it sorted by own time.
texas_holdem_v4 needs ``pip install rlcard pygame``.
"""

import argparse
import cProfile
import pstats
import time

import numpy as np

from ghost_euchre_env import ghost_euchre_v0


class RandomPlay:
    """Uniform random legal play of one AEC env, resumable across rounds."""

    def __init__(self, env, seed):
        self.env = env
        self.rng = np.random.default_rng(seed)
        self.steps = self.decisions = self.episodes = 0
        self.seconds = 0.0
        env.reset(seed=seed)
        self.turns = iter(env.agent_iter())

    def run(self, seconds):
        """Play for ``seconds`` of wall-clock time (stopping mid-episode if need be)."""
        env, rng = self.env, self.rng
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            for _ in self.turns:
                obs, _reward, terminated, truncated, _info = env.last()
                if terminated or truncated:
                    action = None
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    action = int(legal[rng.integers(len(legal))])
                    self.decisions += 1
                env.step(action)
                self.steps += 1
                if time.perf_counter() >= deadline:
                    break
            else:
                self.episodes += 1
                env.reset()
                self.turns = iter(env.agent_iter())
        self.seconds += time.perf_counter() - start

    def line(self, name):
        return (
            f"{name:32s} {self.steps / self.seconds:8.0f} steps/s {self.decisions / self.seconds:8.0f} "
            f"decisions/s  ({self.steps} steps, {self.episodes} episodes ended, {self.seconds:.1f} s)"
        )


def engine_breakdown(seconds, seed, **env_kwargs):
    """Share of the ghost loop's time spent in each engine entry point (timed by wrapping them)."""
    env = ghost_euchre_v0.env(**env_kwargs)
    raw = env.unwrapped
    assert isinstance(raw, ghost_euchre_v0.raw_env)
    game = raw.game
    spent = {}
    for name in ("legal_mask", "_observe_rows", "step", "init", "start_episodes"):
        method = getattr(game, name)

        def timed(*args, _method=method, _name=name, **kwargs):
            start = time.perf_counter()
            try:
                return _method(*args, **kwargs)
            finally:
                spent[_name] = spent.get(_name, 0.0) + time.perf_counter() - start

        setattr(game, name, timed)
    play = RandomPlay(env, seed)
    play.run(seconds)
    print(
        f"engine time per step() call, ghost_euchre_v0 {env_kwargs}: {play.steps / play.seconds:.0f} steps/s"
    )
    for name, total in sorted(spent.items(), key=lambda item: -item[1]):
        print(
            f"  GhostEuchre.{name:15s} {total / play.steps * 1e6:7.1f} us/step  {total / play.seconds:6.1%}"
        )
    rest = play.seconds - sum(spent.values())
    print(
        f"  {'adapter, loop, policy':27s} {rest / play.steps * 1e6:7.1f} us/step  {rest / play.seconds:6.1%}"
    )


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument(
        "--rounds", type=int, default=5, help="rounds of play; each env plays once per round"
    )
    parser.add_argument(
        "--seconds", type=float, default=1.0, help="wall-clock seconds per env per round"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--profile", action="store_true", help="time the engine calls and cProfile the ghost loop"
    )
    args = parser.parse_args()

    from pettingzoo.classic import texas_holdem_v4, tictactoe_v3

    plays = {
        "texas_holdem_v4": RandomPlay(texas_holdem_v4.env(), args.seed),
        "tictactoe_v3": RandomPlay(tictactoe_v3.env(), args.seed),
        "ghost_euchre_v0 episode='game'": RandomPlay(ghost_euchre_v0.env(), args.seed),
        "ghost_euchre_v0 episode='deal'": RandomPlay(
            ghost_euchre_v0.env(episode="deal"), args.seed
        ),
    }
    for _ in range(args.rounds):
        for play in plays.values():
            play.run(args.seconds)
    texas = plays["texas_holdem_v4"]
    for name, play in plays.items():
        print(play.line(name))
    tictactoe = plays["tictactoe_v3"]
    for name, play in plays.items():
        if play is not texas and play is not tictactoe:
            ratio = (play.steps / play.seconds) / (texas.steps / texas.seconds)
            decision_ratio = (play.decisions / play.seconds) / (texas.decisions / texas.seconds)
            tictactoe_ratio = (play.steps / play.seconds) / (tictactoe.steps / tictactoe.seconds)
            print(
                f"{name}: {ratio:.2f}x texas_holdem_v4 steps/s ({decision_ratio:.2f}x decisions/s), "
                f"{tictactoe_ratio:.2f}x tictactoe_v3 steps/s; targets 1.5x and 1x"
            )

    if args.profile:
        for episode in ("game", "deal"):
            engine_breakdown(args.seconds * 2, args.seed, episode=episode)
        profiler = cProfile.Profile()
        profiler.runcall(RandomPlay(ghost_euchre_v0.env(), args.seed).run, args.seconds * 2)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
