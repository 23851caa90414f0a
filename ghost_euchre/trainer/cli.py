"""``ghost-euchre-train`` / ``python -m ghost_euchre.trainer``: the command line over the trainer.

The command line and the YAML config are checked before torch and the
trainer's modules are imported, so a mistake is reported at once (one line,
exit status 2); :func:`main` then hands the checked config to
:func:`ghost_euchre.trainer.loop.train`.
"""

import argparse
import json
import os
import sys

import yaml

from ghost_euchre.agents.checked import PolicyRaised
from ghost_euchre.plumbing.cli import OneLineParser
from ghost_euchre.plumbing.commands import program_name
from ghost_euchre.trainer.config import (
    CONFIG_DIR,
    DEFAULT_CONFIG,
    RESUME_FIXED,
    check_runs_dir,
    field_docs,
    field_groups,
    find_config,
    init_from_file,
    make_config,
    read_yaml,
    specs_read_once,
    yaml_problem,
)


def parse_args(argv=None):
    """-> (TrainConfig, resume path or None, config file stem for the run name); each spec of the
    configs it checks is read once (:func:`ghost_euchre.trainer.config.specs_read_once`)."""
    with specs_read_once():
        return _parse_args(argv)


def _parse_args(argv):
    others = sorted(f[:-5] for f in os.listdir(CONFIG_DIR) if f.endswith(".yaml"))
    others.remove("default")
    parser = OneLineParser(
        command="train",
        prog=program_name("train"),
        description="PPO self-play for Ghost Hand and classic Euchre: TensorBoard logs, checkpoints "
        "and a policy file under runs_dir/name, an evaluation table at the end.",
        allow_abbrev=False,
        usage="%(prog)s [--config NAME|FILE | --resume CHECKPOINT|RUN_FOLDER] [--FIELD VALUE ...]",
        epilog="Values are YAML: 1000, 3e-4, true, [256, 256], {auction: open}.",
    )
    parser.add_argument(
        "--config",
        help=f"YAML config file, or a config by name: default (the default), {', '.join(others)}",
    )
    parser.add_argument(
        "--resume",
        metavar="CHECKPOINT",
        help="continue the run saved in this checkpoint, or in a run folder's newest checkpoint",
    )
    docs = field_docs()
    defaults = make_config(read_yaml(find_config(DEFAULT_CONFIG)), DEFAULT_CONFIG)
    for group, fields in field_groups().items():
        arguments = parser.add_argument_group(group)
        for name in fields:
            arguments.add_argument(
                f"--{name}",
                default=argparse.SUPPRESS,
                metavar="VALUE",
                help=f"{docs[name]} (default: {json.dumps(getattr(defaults, name))})".replace(
                    "%", "%%"
                ),
            )
    args = vars(parser.parse_args(argv))
    config_path, resume = args.pop("config"), args.pop("resume")
    saved_ranks = 1  # ranks whose games a checkpoint holds
    try:
        overrides = {k: yaml.safe_load(v) for k, v in args.items()}
    except yaml.YAMLError as error:
        parser.error(f"a command-line value is not valid YAML: {yaml_problem(error)}")
    try:
        if resume is not None:
            if config_path is not None:
                parser.error(
                    "--resume uses the checkpoint's config; pass changes as --FIELD VALUE, not --config"
                )
            from ghost_euchre.trainer.checkpoint import read_checkpoint  # torch: only to resume

            resume = newest_checkpoint(resume)
            saved = read_checkpoint(resume)
            values, saved_ranks = saved["config"], saved.get("world_size", 1)
            # checkpoints older than the field hold networks that see the suits as dealt
            canonical = bool(saved["model_config"].get("canonical_suits"))
            values = {"canonical_suits": canonical, **values}
            stem, source = values.get("name", ""), str(resume)
        else:
            if config_path is not None and not config_path.strip():  # not the default, silently
                parser.error(
                    f"--config {config_path!r}: expected a config name ({', '.join(['default', *others])}) "
                    "or a YAML file"
                )
            config_path = source = find_config(str(config_path or DEFAULT_CONFIG))
            values = read_yaml(config_path)
            stem = os.path.splitext(os.path.basename(config_path))[0]
        base = make_config(values, source)
        config = make_config({**values, **overrides}, "command line")
    except ValueError as error:
        parser.error(str(error))
    changed = [k for k in RESUME_FIXED if getattr(base, k) != getattr(config, k)]
    if resume is not None and changed:
        parser.error(
            f"--resume cannot change {changed}: the checkpoint's network, games and pool depend on them"
        )
    world_size = int(os.environ.get("WORLD_SIZE", "1"))  # set by torchrun
    if resume is not None and saved_ranks != world_size:
        parser.error(
            f"checkpoint {resume!r} holds the games of {saved_ranks} rank(s); resume it with "
            f"{saved_ranks} (torchrun --nproc_per_node={saved_ranks}), not {world_size}"
        )
    try:
        check_runs_dir(config.runs_dir)
    except ValueError as error:
        parser.error(str(error))
    if config.num_envs % world_size:
        parser.error(
            f"num_envs must be a multiple of the number of ranks ({world_size}), got {config.num_envs}"
        )
    import torch  # the checks that need torch come last (importing it takes seconds)

    from ghost_euchre.agents.networks import load_model
    from ghost_euchre.trainer.ranks import pick_device

    try:
        pick_device(config.device, 0, torch.cuda.is_available())
        if config.init_from and resume is None:
            load_model(init_from_file(config.init_from))  # a network (its shape: checked in setup)
    except ValueError as error:
        parser.error(str(error))
    return config, resume, stem


def newest_checkpoint(path):
    """A checkpoint to resume: ``path`` itself, or a run folder's newest checkpoint (final.pt, else the
    last of checkpoints/); ValueError (one line) for a folder that holds none."""
    from ghost_euchre.trainer.failures import last_checkpoint

    if not os.path.isdir(path):
        return path
    found = last_checkpoint(path)
    if found is None:
        raise ValueError(
            f"--resume: run folder {path!r} holds no checkpoint (final.pt or checkpoints/)"
        )
    return found


def wait_passively():
    """Make torch's OpenMP threads sleep at a barrier instead of spinning, unless ``OMP_WAIT_POLICY`` is set
    (it counts only before torch is first imported). A spinning thread holds the core its partner needs when
    other work takes one: on the shared 2-core machine two spinning update threads ran 3-6x slower than one
    thread, two sleeping ones as fast as one or faster (``benchmarks/load_defaults.py``, docs/speed.md)."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def run(argv=None):
    """Train as the command line ``argv`` says (one process, or one rank of a torchrun job); returns the
    run's folder."""
    wait_passively()
    with specs_read_once():  # the config's checks and the run's bots: one read of each spec
        config, resume, stem = parse_args(argv)
        from ghost_euchre.trainer.loop import (
            train,  # torch and the trainer, once the command line is checked
        )

        return train(config, resume, stem)


def main(argv=None):
    """The command's entry point: exit status 0 when the run ends, 2 for a bad command line; when another
    rank of a torchrun job stops, one line and status 1; a plug-in that fails mid-run: one line naming
    it and the update, then status 2 (a bad value came back) or its traceback and status 1 (it raised),
    and status 1 after one line naming it when a user's module raises while the run is set up; Ctrl-C: the update being played ends, its checkpoint is written, one line says how to resume, status
    130 (a second Ctrl-C stops at once: ghost_euchre.trainer.interrupt)."""
    try:
        return _main(argv)
    except KeyboardInterrupt:  # before the run started (reading the config, importing torch, setup)
        print(
            f"{program_name('train')}: stopped by Ctrl-C before the first update; nothing was saved",
            file=sys.stderr,
            flush=True,
        )
        raise SystemExit(130) from None
    except PolicyRaised as error:  # a user's module, bot or network raised while it was built
        print(f"{program_name('train')}: error: {error}", file=sys.stderr)
        print(error.trace, end="", file=sys.stderr, flush=True)
        raise SystemExit(1) from None


def _main(argv):
    with specs_read_once():  # the config's checks and the run's bots: one read of each spec
        return _checked_and_trained(argv)


def _checked_and_trained(argv):
    wait_passively()
    config, resume, stem = parse_args(argv)
    from ghost_euchre.trainer.failures import TrainingStopped
    from ghost_euchre.trainer.interrupt import INTERRUPTED_STATUS, Interrupted
    from ghost_euchre.trainer.loop import train
    from ghost_euchre.trainer.ranks import RankFailure

    try:
        train(config, resume, stem)
    except TrainingStopped as stop:  # a plug-in failed mid-run: one line first (then its traceback)
        print(f"{program_name('train')}: error: {stop}", file=sys.stderr)
        print(stop.trace, end="", file=sys.stderr, flush=True)
        raise SystemExit(stop.status) from None
    except Interrupted as stop:  # Ctrl-C: where it stopped, what was saved, how to resume
        print(f"{program_name('train')}: {stop}", file=sys.stderr, flush=True)
        raise SystemExit(INTERRUPTED_STATUS) from None
    except RankFailure as failure:  # another rank stopped: one line, not a traceback
        print(failure, file=sys.stderr, flush=True)
        # Leave without interpreter teardown: destroying a process group whose collective
        # timed out while a peer is still connected can abort the process (SIGABRT) in gloo.
        os._exit(1)
    return 0
