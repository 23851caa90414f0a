"""python scripts/golden_doors.py OUT: fixed-seed step streams of every door of the engine.

Each door (the batch engine and its vector API, the AEC and Parallel envs, the single and
vector Gymnasium envs in both autoreset modes, both auction views) is stepped with seeded
random legal actions; every observation, mask, reward, termination, truncation, info and deal
summary goes into a SHA-256 per door, written with the first steps in full to
``OUT/door_<name>.json``. ``scripts/golden`` calls it; ``scripts/golden_compare.py`` compares
the files (a changed engine that deals, steps and observes the same gives the same files).
"""

import hashlib
import json
import pathlib
import sys

import gymnasium
import numpy as np

import ghost_euchre_env
from ghost_euchre_env import (
    classic_bidding_v0,
    classic_euchre_v0,
    dealing,
    ghost_bidding_v0,
    ghost_euchre_v0,
)
from ghost_euchre_env.classic import ClassicEuchre
from ghost_euchre_env.ghost import GhostEuchre

FULL_STEPS = 12  # steps written out in full at the start of each stream


def plain(value):
    """A JSON-able copy of an observation, info or summary (arrays as lists, floats as repr)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return {
            "dtype": str(value.dtype),
            "shape": list(value.shape),
            "data": plain(value.tolist()),
        }
    if isinstance(value, (np.generic,)):
        return plain(value.item())
    if isinstance(value, float):
        return repr(value)
    if hasattr(value, "__dataclass_fields__"):
        return plain({name: getattr(value, name) for name in value.__dataclass_fields__})
    return value


class Stream:
    """SHA-256 of a door's step records, with the first ``FULL_STEPS`` kept in full."""

    def __init__(self):
        self.digest = hashlib.sha256()
        self.first = []
        self.steps = 0

    def add(self, record):
        text = json.dumps(plain(record), sort_keys=True)
        self.digest.update(text.encode())
        if self.steps < FULL_STEPS:
            self.first.append(json.loads(text))
        self.steps += 1

    def write(self, out, name):
        body = {"steps": self.steps, "sha256": self.digest.hexdigest(), "first": self.first}
        (out / f"door_{name}.json").write_text(json.dumps(body, indent=0))


def pick(rng, mask):
    """A seeded random legal action (0 where nothing is legal: a Gymnasium reset step)."""
    legal = np.flatnonzero(mask)
    if not len(legal):
        return 0
    return int(legal[rng.integers(len(legal))])


class ObservationPlayer:
    """A batched policy whose legal action is a fixed function of the observation."""

    name = "observation_player"

    def act(self, obs, mask):
        actions = np.zeros(len(mask), np.int64)
        for row, (ob, legal) in enumerate(zip(obs, mask, strict=True)):
            choices = np.flatnonzero(legal)
            if len(choices):
                actions[row] = choices[int(ob.sum() * 7 + ob.argmax()) % len(choices)]
        return actions


def engine_stream(engine, num_games, steps, seed, options=None):
    """The batch API: legal bits, every seat's observation, hidden cards, step results."""
    stream, rng = Stream(), np.random.default_rng(seed)
    state = engine.init(dealing.stream_keys(seed, num_games), options)
    seats = np.arange(num_games) % engine.num_players
    for _ in range(steps):
        bits = engine.legal_bits(state)
        mask = engine.legal_mask(state)
        actions = np.array([pick(rng, row) for row in mask])
        record = {
            "bits": bits,
            "player": state.player,
            "phase": state.phase,
            "obs": hashlib.sha256(engine.observe(state, state.player.astype(np.int64))).hexdigest(),
            "obs_seat": hashlib.sha256(engine.observe(state, seats)).hexdigest(),
            "hidden": hashlib.sha256(engine.hidden_cards(state, seats)).hexdigest(),
        }
        result = engine.step(state, actions, auto_reset=True)
        record["result"] = result
        stream.add(record)
    return stream


def vec_stream(vec, steps, seed, options=None):
    stream, rng = Stream(), np.random.default_rng(seed)
    obs, mask, player = vec.reset(seed=seed, options=options)
    for _ in range(steps):
        actions = np.array([pick(rng, row) for row in mask])
        obs, mask, player, rewards, done = vec.step(actions)
        stream.add(
            {
                "obs": hashlib.sha256(obs).hexdigest(),
                "mask": mask,
                "player": player,
                "rewards": rewards,
                "done": done,
                "truncated": vec.truncated,
                "deals": vec.last_result.deals,
            }
        )
    return stream


def aec_stream(env, steps, seed):
    """AEC: every ``last()`` and every agent's observation, resetting with seed + k."""
    stream, rng, episode = Stream(), np.random.default_rng(seed), 0
    env.reset(seed=seed)
    for _ in range(steps):
        if not env.agents:
            episode += 1
            env.reset(seed=seed + episode)
        obs, reward, term, trunc, info = env.last()
        action = None if term or trunc else pick(rng, obs["action_mask"])
        record = {
            "agent": env.agent_selection,
            "obs": obs,
            "reward": reward,
            "term": term,
            "trunc": trunc,
            "info": info,
            "all": {a: env.observe(a) for a in env.agents},
            "rewards": env.rewards,
        }
        env.step(action)
        stream.add(record)
    return stream


def parallel_stream(env, steps, seed):
    stream, rng, episode = Stream(), np.random.default_rng(seed), 0
    observations, infos = env.reset(seed=seed)
    stream.add({"obs": observations, "infos": infos})
    for _ in range(steps):
        if not env.agents:
            episode += 1
            observations, infos = env.reset(seed=seed + episode)
            stream.add({"obs": observations, "infos": infos})
        actions = {
            agent: pick(rng, ob["action_mask"]) if ob["action_mask"].any() else 0
            for agent, ob in observations.items()
        }
        observations, rewards, terms, truncs, infos = env.step(actions)
        stream.add(
            {
                "obs": observations,
                "rewards": rewards,
                "terms": terms,
                "truncs": truncs,
                "infos": infos,
            }
        )
    return stream


def gym_stream(env, steps, seed):
    stream, rng, episode = Stream(), np.random.default_rng(seed), 0
    obs, info = env.reset(seed=seed)
    stream.add({"obs": obs, "info": info})
    for _ in range(steps):
        obs, reward, term, trunc, info = env.step(pick(rng, env.unwrapped.action_masks()))
        stream.add({"obs": obs, "reward": reward, "term": term, "trunc": trunc, "info": info})
        if term or trunc:
            episode += 1
            obs, info = env.reset(seed=seed + episode)
            stream.add({"obs": obs, "info": info})
    return stream


def gym_vector_stream(env, steps, seed):
    stream, rng = Stream(), np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    stream.add({"obs": obs, "info": info})
    for _ in range(steps):
        masks = env.unwrapped.action_masks()
        obs, reward, term, trunc, info = env.step(np.array([pick(rng, m) for m in masks]))
        stream.add({"obs": obs, "reward": reward, "term": term, "trunc": trunc, "info": info})
    return stream


def main(out):
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    engines = {
        "ghost": GhostEuchre(),
        "ghost_renege_open": GhostEuchre(allow_renege=True, auction="open", reward="win"),
        "ghost_deal": GhostEuchre(episode="deal", moon_points=10, target_score=8, max_deals=5),
        "classic": ClassicEuchre(),
        "classic_nostick_lone": ClassicEuchre(
            stick_the_dealer=False, allow_lone_defender=True, reward="win"
        ),
        "classic_deal": ClassicEuchre(episode="deal", target_score=3, max_deals=4),
    }
    for name, engine in engines.items():
        engine_stream(engine, 64, 250, 11).write(out, f"engine_{name}")
        engine_stream(engine, 1, 300, 12).write(out, f"engine1_{name}")
    chosen_ghost = {
        "dealer": 1,
        "deals": [
            {
                "hands": [list(range(6)), list(range(6, 12)), list(range(12, 18))],
                "ghost": list(range(18, 24)),
            }
        ],
    }
    chosen_classic = {
        "dealer": 2,
        "deals": [{"hands": [list(range(k, k + 5)) for k in (0, 5, 10, 15)], "upcard": 20}],
    }
    engine_stream(engines["ghost"], 4, 60, 13, chosen_ghost).write(out, "engine_ghost_chosen")
    engine_stream(engines["classic"], 4, 60, 13, chosen_classic).write(out, "engine_classic_chosen")
    vec_stream(ghost_euchre_env.GhostEuchreVec(32, seed=3), 300, 3).write(out, "vec_ghost")
    vec_stream(ghost_euchre_env.ClassicEuchreVec(32, seed=3), 300, 3).write(out, "vec_classic")

    aec_stream(ghost_euchre_v0.env(), 1000, 21).write(out, "aec_ghost")
    aec_stream(classic_euchre_v0.env(), 1000, 21).write(out, "aec_classic")
    aec_stream(ghost_euchre_v0.env(auction="open", allow_renege=True), 600, 22).write(
        out, "aec_ghost_options"
    )
    # The auction views' card play and opponents: a fixed function of the observation (the
    # doors are checked here, not the bots, whose own goldens are scripts/golden's matches).
    heuristic = {"Ghost": ObservationPlayer(), "Classic": ObservationPlayer()}
    aec_stream(ghost_bidding_v0.env(card_play=heuristic["Ghost"]), 300, 23).write(
        out, "aec_ghost_bidding"
    )
    aec_stream(classic_bidding_v0.env(card_play=heuristic["Classic"]), 300, 23).write(
        out, "aec_classic_bidding"
    )
    parallel_stream(ghost_euchre_v0.parallel_env(), 800, 31).write(out, "parallel_ghost")
    parallel_stream(classic_euchre_v0.parallel_env(), 800, 31).write(out, "parallel_classic")

    for env_id in (
        "GhostEuchre-v0",
        "ClassicEuchre-v0",
        "GhostEuchreBidding-v0",
        "ClassicEuchreBidding-v0",
    ):
        bots = {}
        if "Bidding" in env_id:
            policy = heuristic[env_id[: -len("EuchreBidding-v0")]]
            bots = {"card_play": policy, "opponents": policy}
        env = gymnasium.make(env_id, **bots)
        gym_stream(env, 300 if "Bidding" in env_id else 800, 41).write(out, f"gym_{env_id}")
        for mode in ("NextStep", "SameStep"):
            vec = gymnasium.make_vec(
                env_id,
                num_envs=8,
                vectorization_mode="vector_entry_point",
                autoreset_mode=mode,
                **bots,
            )
            gym_vector_stream(vec, 60 if "Bidding" in env_id else 200, 51).write(
                out, f"gymvec_{mode}_{env_id}"
            )
    print(f"door streams in {out}")


if __name__ == "__main__":
    main(sys.argv[1])
