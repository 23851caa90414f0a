"""Fixtures shared by the test files, and the test tiers.

Tiers: a test that trains, starts processes or servers, installs, builds the docs or drives a
browser is marked ``slow`` (here for whole files, by name, or with ``@pytest.mark.slow``);
``python -m pytest -m "not slow"`` runs the rest, the fast tier. The tests run the engine in
checked mode (``GHOST_EUCHRE_CHECKED=1``): a compiled playout refuses a policy's illegal action. Imports are made where a
fixture needs them, so collecting the fast tier does not import torch or the league.
"""

import os
import sys

import pytest

# Checked mode (ghost_euchre_env.core.CHECKED): read once when the engine is imported, after this.
os.environ.setdefault("GHOST_EUCHRE_CHECKED", "1")

LEAGUE_SPECS = (
    "heuristic",
    "random",
    "ghost_euchre.agents.random_policy:RandomPolicy",
    "ghost_euchre.agents.heuristic:heuristic_policy",
)


def pytest_configure(config):
    """absl's log handler (absl comes with OpenSpiel) closes its stream when a command reconfigures
    logging (uvicorn's ``serve`` does, closing every handler of the process) unless that stream is
    sys.stderr at that moment. Made while pytest captures, its stream is the capture's file, which
    a test's ``capsys`` has swapped out: it would be closed, and with it the output capture of
    every later test of the process (a pytest-xdist worker). Its stream is the process's own."""
    try:
        import absl.logging
    except ImportError:  # no OpenSpiel: no absl handler
        return
    absl.logging.get_absl_handler().python_handler.stream = sys.__stderr__


@pytest.fixture
def torch_globals():
    """train.main sets torch's thread count and deterministic mode; put them back afterwards."""
    import torch

    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    yield
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(deterministic)


@pytest.fixture(scope="session")
def league_db(tmp_path_factory):
    """A small league store for the web page: four Ghost Hand matches, three classic ones."""
    from ghost_euchre.arena.league import run_league
    from ghost_euchre.arena.store import Store

    path = str(tmp_path_factory.mktemp("league") / "league.sqlite")
    with Store(path) as store:
        run_league(LEAGUE_SPECS, store, games=6, seed=1, rules={"target_score": 8})
        run_league(LEAGUE_SPECS, store, "classic", games=4, seed=1, rules={"target_score": 4})
    return path


# The slow tier, where it is not marked on the test itself: whole files, then single tests (by
# file and function name, every parametrization). Keep each entry's reason in its comment.
SLOW_FILES = {
    "test_install.py",  # builds the wheel, installs it in a fresh venv
    "test_docs_site.py",  # builds the documentation site
    "test_web_browser.py",  # drives a browser against a live server
    "test_train.py",  # training runs of the real script
    "test_train_distributed.py",  # torchrun ranks
    "test_train_learn.py",  # training runs
    "test_train_plugins.py",  # training runs with users' networks and bots
    "test_exploit.py",  # trains a best response
    "test_parallel.py",  # worker processes, Ray
    "test_interop_cleanrl.py",  # trains
    "test_interop_sb3.py",  # trains
    "test_interop_sb3_native.py",  # trains
    "test_interop_rllib.py",  # Ray, trains
    "test_interop_rllib_native.py",  # Ray, trains
    "test_interop_tianshou.py",  # trains
}
SLOW_TESTS = {
    # a whole (tiny) benchmark suite played twice: once for the private seed, once for determinism
    "test_benchmark.py::test_a_private_seed_is_said_and_deals_other_cards",
    "test_benchmark.py::test_a_card_has_every_section_with_intervals_and_is_deterministic",
    # the single envs stepped beside the native vector env, every id and autoreset mode (minutes)
    "test_gym_vector.py::test_sub_env_i_is_the_single_env_seeded_seed_plus_i",
    "test_docs.py::test_shell_example_runs_as_written",  # a process per documented command
    "test_gym_env.py::test_maskable_ppo_trains_without_an_illegal_action",
    "test_gym_env.py::test_import_of_the_package_registers_the_env",  # a fresh interpreter
    "test_agents.py::test_a_network_of_the_other_variant_is_named_before_torch_is_imported",
    "test_agents.py::test_shipped_networks_are_named_from_any_folder",  # processes
    "test_classic_bidding.py::test_a_classic_learn_auction_run_bids_and_discards_and_loads_as_a_full_player",
    "test_classic_bidding.py::test_a_classic_learn_play_run_plays_the_cards_only",
    "test_classic_bidding.py::test_evaluate_card_play_and_bid_regret_for_classic",  # workers
    "test_classic_bidding.py::test_a_classic_bidding_league_plays_composites",  # workers
    "test_fuzz.py::test_a_plug_in_that_breaks_mid_run_stops_training_naming_it",
    "test_plug_in_failures.py::test_a_network_that_breaks_mid_run_stops_with_one_line_and_resumes",
    "test_plug_in_failures.py::test_an_opponent_that_raises_is_named_before_its_traceback_and_the_run_resumes",
    "test_plug_in_failures.py::test_ctrl_c_in_exploit_is_one_line_and_the_same_command_resumes",
    "test_suits.py::test_classic_canonical_run_trains_and_its_policy_plays",
    "test_league.py::test_two_leagues_writing_one_store_at_once",  # processes
    "test_league.py::test_processes_opening_a_new_store_at_the_same_instant_all_get_it",
    "test_league.py::test_a_killed_writer_leaves_no_partial_match",  # a process killed
    "test_league.py::test_a_class_edited_between_two_league_commands_is_a_second_version",
    "test_web.py::test_load_script_plays_concurrent_games_to_the_end_and_loses_none",  # a server
    "test_web_security.py::test_the_public_host_needs_the_flag_and_then_offers_built_ins_only",
    "test_web_security.py::test_serve_prints_the_address_only_once_listening",
    "test_web_security.py::test_a_request_whose_client_left_stops_its_bots",
    "test_web_security.py::test_idle_and_slow_connections_are_closed_and_connections_capped",
    "test_web_security.py::test_at_the_cap_a_new_connection_closes_the_longest_silent_one",
    "test_web_security.py::test_a_websocket_upgrade_gets_the_origin_check_and_a_json_error",
    "test_web_security.py::test_a_request_with_two_lengths_is_refused_and_its_connection_closed",
    "test_web_security.py::test_x_forwarded_for_is_believed_only_behind_a_named_proxy",
    "test_web_security.py::test_idle_sockets_cannot_starve_a_server_of_descriptors",
    "test_evaluate.py::test_network_policies_get_one_torch_thread_unless_the_user_says",
}


def pytest_collection_modifyitems(config, items):
    """Mark the tests of SLOW_FILES and SLOW_TESTS ``slow``."""
    for item in items:
        file = item.path.name
        test = getattr(item, "originalname", item.name)
        if file in SLOW_FILES or f"{file}::{test}" in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
