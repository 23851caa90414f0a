"""PPO self-play for Ghost Hand and classic Euchre (ghost-euchre-train, python -m ghost_euchre.trainer).

One module per concern, each readable on its own (imports point down this list;
the package uses ``agents`` and ``ghost_euchre.arena``, which never import it):

- :mod:`~ghost_euchre.trainer.config`: ``TrainConfig``, YAML and command-line values, configs by name
- :mod:`~ghost_euchre.trainer.cli`: the command line (``main(argv)``; ``python -m ghost_euchre.trainer``)
- :mod:`~ghost_euchre.trainer.loop`: the training loop (setup or resume, rollout, update, log, checkpoint)
- :mod:`~ghost_euchre.trainer.run`: the run's state and the setup of a new run
- :mod:`~ghost_euchre.trainer.opponents`: seat roles, the opponents' mix and pool, their decisions
- :mod:`~ghost_euchre.trainer.rollout`: rollouts, the per-seat rollout buffer, GAE
- :mod:`~ghost_euchre.trainer.update`: the PPO update (and the warm-up's imitation)
- :mod:`~ghost_euchre.trainer.critic`: the oracle critics (``critic: oracle``: the value also sees the hidden cards; ``solver``: and the solved value)
- :mod:`~ghost_euchre.trainer.distill`: distillation (``distill_decisions``: a teacher's actions, or its values' softmax, as lessons: the rollout oracle's bids, a search's or a policy's)
- :mod:`~ghost_euchre.trainer.stats`: deal statistics and the update's scalars for TensorBoard
- :mod:`~ghost_euchre.trainer.log`, :mod:`~ghost_euchre.trainer.evaluation`: TensorBoard and progress; evaluations
- :mod:`~ghost_euchre.trainer.checkpoint`: atomic checkpoints, exact resume
- :mod:`~ghost_euchre.trainer.failures`: a run stopped by a plug-in (a network, bot or teacher that fails mid-run)
- :mod:`~ghost_euchre.trainer.interrupt`: Ctrl-C (the update ends, its checkpoint is written, exit status 130)
- :mod:`~ghost_euchre.trainer.ranks`: torchrun ranks, devices, collectives

Every field of :class:`TrainConfig` is a command-line option ``--FIELD VALUE``;
VALUE is read as YAML (``1000``, ``3e-4``, ``true``, ``[256, 256]``,
``{auction: open}``), then checked against the field's type. Command-line values
override the YAML file; an unknown key or a wrong type stops with a message that
names it. ``--resume`` continues a run from a checkpoint with the checkpoint's
config (command-line options still override it) and reproduces exactly the
run that was not interrupted.

How it trains. ``num_envs`` games run in one ``GhostEuchreVec`` (``variant:
classic``: ``ClassicEuchreVec``); each step, one seat per game decides. At the
start of every game each seat gets a role: the learner (the network being
trained: the MLP, or any ``model`` class) or an opponent drawn from the
``opponents`` mix (a past snapshot of the network from a pool, the heuristic,
any policy spec). Every seat the learner plays is its own
trajectory: a decision's successor is the same seat's next decision in the same
game, the rewards paid to that seat in between (by absolute seat, every step)
are added to the decision, and the end of the deal (``return_horizon: deal``;
``game``: of the game) closes all its seats' trajectories, so a decision is
credited with its own deal's points and not with the luck of the deals after
it. Advantages are GAE over those per-seat sequences; a trajectory still open
when the rollout ends is bootstrapped with the value of that seat's current
observation. Only learner decisions with a choice enter the PPO batch, with
their legal masks, which the update reuses (``skip_forced``: a move with one
legal action is played as it is).

Two choices keep the auction from collapsing into "always pass" (a random card
player loses whatever it bids, and a policy that stopped bidding never finds out
that bidding pays once it plays well): the default reward is the *margin*, a
seat's deal points minus the mean of the other two seats' (passing while an
opponent makes a contract costs points), and during ``bidding_warmup_steps`` the
heuristic bids and names trump for the learner while the network imitates it,
so PPO first learns card play under sensible contracts and then improves the
auction from the heuristic's instead of from random.

Classic Euchre (``variant: classic``): one network plays all four seats; a
seat's reward is its team's, and the margin is its team's points minus the
other team's. Partners are drawn like opponents (the learner, a snapshot or the
heuristic), so the learner plays with and against all of them. During the
warm-up the heuristic makes every learner decision before card play (ordering
up, naming trump, the dealer's discard, going alone). TensorBoard adds the
order-up rate, the maker's success rate, lone hands tried and made, and euchres
suffered; evaluations pit the network's team against a team of two opponents.

Data-parallel under torchrun (``torchrun --standalone --nproc_per_node=K
-m ghost_euchre.trainer ...``, or several nodes with ``--nnodes=M --rdzv_backend=c10d
--rdzv_endpoint=HOST:PORT``): the config describes the whole job and K only how
it is run. Rank r plays games r*N/K .. (r+1)*N/K - 1 of the seed's deal streams
(N = num_envs, a multiple of K), with its own seat roles and action sampling
(seeded from (seed, r)); the networks start identical (same seed). What is
guaranteed: every update is the single-process update on the union of the K
ranks' rollouts (rank 0's decisions, then rank 1's, ...): the same minibatches
of that global batch (their order drawn from one generator every rank holds),
advantages normalised over each whole minibatch, the gradient of its mean loss
(each rank's part summed over the ranks: all_reduce, gloo between CPUs, NCCL
between GPUs), equal up to the order of float sums; so the parameters, the
optimizer and the opponent pool are identical on every rank after every update.
Metrics are summed over the ranks (SPS counts all ranks' decisions); rank 0 alone
writes TensorBoard, checkpoints, evaluations and the progress bar. A checkpoint
holds every rank's games, roles and generators: ``--resume`` under the same
number of ranks continues exactly, under another is an error. A rank that stops,
or does not answer within ``collective_timeout`` seconds, makes the others stop
with a one-line message. With one rank (plain ``ghost-euchre-train``) none of this
runs and the results are those of the single-process trainer.

Output under ``runs/NAME/``: ``config.yaml`` (the run's config, readable and
reusable with ``--config``), TensorBoard logs, ``checkpoints/update_*.pt``
(resumable), ``final.pt`` (resumable) and ``policy.pt`` (the network alone). Both
kinds load in matches as ``ppo:PATH``.
"""
