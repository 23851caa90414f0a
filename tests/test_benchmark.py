"""The benchmark (ghost_euchre.arena.benchmark, ghost_euchre.arena.cards, ghost_euchre.arena.benchmark_cli) on a tiny test-only suite; the
oracle (ghost_euchre.agents.oracle); the cards table of the store and of the web page; the published cards."""

import importlib
import json
import pathlib
import sqlite3
import sys
import textwrap

import numpy as np
import pytest
from web_helpers import web_client

from ghost_euchre.agents.checked import PolicyRaised
from ghost_euchre.agents.specs import make_policy
from ghost_euchre.agents.worlds import read_knowledge, true_worlds, world_states
from ghost_euchre.arena import benchmark, benchmark_cli
from ghost_euchre.arena.analysis import analyse
from ghost_euchre.arena.benchmark import SUITES, Section, Suite, lineup, run_card
from ghost_euchre.arena.cards import (
    HEADLINE,
    compact_rows,
    headline_cards,
    markdown,
    published_cards,
    write_plot,
)
from ghost_euchre.arena.match import make_game, run_match
from ghost_euchre.arena.store import SCHEMA_VERSION, Store
from ghost_euchre_env import dealing, variants


def tiny_sections(pimc=False, oracle="heuristic"):
    """A suite of the v1 kinds but a few games each (scale's reference: the heuristic, fast, or the
    oracle)."""
    return (
        Section("field/heuristics", "match", ("heuristic", "heuristic"), 12, 0),
        *((Section("field/pimc", "match", ("pimc:samples=2",) * 2, 6, 1),) if pimc else ()),
        Section("auction", "auction", ("heuristic", "heuristic"), 12, 4, regret=(6, 2)),
        Section("cost", "cost", ("heuristic", "heuristic"), 6, 5),
        Section("scale", "scale", ("heuristic", "heuristic"), 12, 0, ("random", oracle)),
    )


ROOT = pathlib.Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS_PAGE = (ROOT / "docs" / "benchmark.md").read_text(encoding="utf-8")
TINY = Suite("tiny", 7, {"ghost": tiny_sections(), "classic": tiny_sections()})


def without_timing(card):
    return {k: v for k, v in card.items() if k != "timing"}


def sections_played(monkeypatch):
    """[the names of the sections benchmark.run_section plays from now on, in order]."""
    played = []
    real = benchmark.run_section
    monkeypatch.setattr(
        benchmark,
        "run_section",
        lambda section, *a, **k: played.append(section.name) or real(section, *a, **k),
    )
    return played


# ------------------------------------------------------------------- oracle
@pytest.mark.parametrize("variant", ["ghost", "classic"])
def test_the_oracle_plays_legal_moves_and_beats_the_heuristics(variant):
    players = lineup(variant, "oracle", ["heuristic"] * 2)
    result = run_match(players, variant=variant, games=12, seed=1, episode="deal")
    assert result.players[0]["mean_points_per_deal"] > 0  # it sees every card


@pytest.mark.parametrize("variant", ["ghost", "classic"])
def test_true_worlds_rebuild_the_real_state(variant):
    game = make_game(variant, "game", None)
    state = game.init(dealing.stream_keys(3, 8))
    rng = np.random.default_rng(0)
    for _ in range(7):  # into the auction or the play
        mask = game.legal_mask(state)
        game.step(state, np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
    seat = state.player.astype(np.int64)
    knowledge = read_knowledge(game.observe(state, seat), game)
    worlds = true_worlds(game, state, seat)
    rebuilt = world_states(game, knowledge, *(part[:, 0] for part in worlds))
    relative = (seat[:, None] + np.arange(game.num_players)) % game.num_players
    assert (rebuilt.hands == np.take_along_axis(state.hands, relative, axis=1)).all()


def test_the_oracle_refuses_to_play_where_no_deal_is_shown():
    game = make_game("ghost", "game", None)
    oracle = make_policy("oracle", game)
    state = game.init(dealing.stream_keys(0, 2))
    obs, mask = game.observe(state, state.player.astype(np.int64)), game.legal_mask(state)
    with pytest.raises(ValueError, match="no legal player"):
        oracle.act(obs, mask)


def test_the_oracle_bids_in_a_composite():
    players = ["composite[oracle | heuristic]", "heuristic", "heuristic"]
    result = run_match(players, games=6, seed=2, episode="deal")
    assert result.players[0]["games"] == 6


# ------------------------------------------------------------------- cards
def test_a_card_has_every_section_with_intervals_and_is_deterministic(tmp_path):
    first = run_card("heuristic", "ghost", TINY, seed=None)
    again = run_card("heuristic", "ghost", TINY, seed=None)
    assert without_timing(first) == without_timing(again)
    assert json.loads(json.dumps(without_timing(first))) == without_timing(first)
    assert first["published_seed"] and first["seed"] == 7 and first["suite"] == "tiny"
    assert first["planned"] == [s.name for s in TINY.sections["ghost"]]
    heuristics = first["sections"]["field/heuristics"]
    assert heuristics["games"] == 12 and len(heuristics["win_rate_ci95"]) == 2
    # the heuristic's auction against itself: no difference at all
    assert first["sections"]["auction"]["points_per_deal_over_heuristic"] == 0
    scale = first["sections"]["scale"]
    assert scale["random"]["win_rate"] <= scale["heuristic"]["win_rate"]
    assert first["timing"]["cost"]["cpu_ms_per_decision"] > 0
    assert benchmark.interval_widths(first)["field/heuristics/win_rate"] > 0
    text = markdown(first)
    assert "| win rate vs two heuristics" in text and "published seed 7" in text
    assert "`heuristic`" in compact_rows([first])
    write_plot(first, tmp_path / "card.png", others=[])
    assert (tmp_path / "card.png").read_bytes()[:4] == b"\x89PNG"


def test_a_private_seed_is_said_and_deals_other_cards():
    private = run_card("random", "ghost", TINY, seed=8)
    public = run_card("random", "ghost", TINY)
    assert not private["published_seed"] and private["seed"] == 8
    assert private["sections"] != public["sections"]
    assert "private seed 8" in markdown(private)


@pytest.mark.slow
def test_workers_do_not_change_a_card():
    suite = Suite("tiny", 7, {"ghost": tiny_sections(pimc=True, oracle="oracle")})
    one = run_card("heuristic", "ghost", suite, workers=1)
    two = run_card("heuristic", "ghost", suite, workers=2)
    assert without_timing(one) == without_timing(two)


def user_bot(folder, body="pass", module="benchbots"):
    (folder / f"{module}.py").write_text(
        textwrap.dedent(
            f"""
            import os

            import numpy as np

            from ghost_euchre.agents import Policy


            class Cautious(Policy):
                name = "cautious"

                def act(self, obs, mask):
                    {body}
                    PASS = self.variant.actions.PASS
                    return np.where(mask[:, PASS], PASS, mask.argmax(axis=1)).astype(np.int64)
            """
        )
    )
    importlib.invalidate_caches()  # the folder was listed before this file was written


def test_a_change_to_a_bots_code_makes_a_new_card_and_the_same_code_reuses_it(
    tmp_path, monkeypatch
):
    monkeypatch.syspath_prepend(str(tmp_path))
    user_bot(tmp_path)
    lines = []
    with Store(tmp_path / "league.sqlite") as store:
        first = run_card("benchbots:Cautious", "ghost", TINY, store=store)
        reused = run_card("benchbots:Cautious", "ghost", TINY, store=store, out=lines.append)
        assert reused == first and any("reused" in line for line in lines)
        user_bot(tmp_path, body="del obs  # edited")
        second = run_card("benchbots:Cautious", "ghost", TINY, store=store)
        cards = store.cards("ghost")
    assert first["fingerprint"] != second["fingerprint"]
    assert [c["card"]["fingerprint"] for c in cards] == [
        second["fingerprint"],
        first["fingerprint"],
    ]


def test_a_bot_that_raises_is_named_with_its_section_and_game_and_the_rest_continues(
    tmp_path, monkeypatch
):
    monkeypatch.syspath_prepend(str(tmp_path))
    # with BENCH_FAIL set, raises at its first auction decision (in the first section)
    fail = "if os.environ.get('BENCH_FAIL') and not self.variant.card_play(obs).any(): raise OSError('boom')"
    user_bot(tmp_path, fail, "failbots")
    suite = Suite("tiny", 7, {"ghost": tiny_sections()})
    monkeypatch.setenv("BENCH_FAIL", "1")
    db = tmp_path / "league.sqlite"
    with Store(db) as store, pytest.raises(PolicyRaised, match="boom") as error:
        run_card("failbots:Cautious", "ghost", suite, store=store)
    message = str(error.value)
    assert "benchmark section 'field/heuristics'" in message and "game" in message
    monkeypatch.delenv("BENCH_FAIL")
    played = sections_played(monkeypatch)
    with Store(db) as store:
        card = run_card("failbots:Cautious", "ghost", suite, store=store)
    assert played == [s.name for s in suite.sections["ghost"]]  # it failed in its first section
    assert benchmark.complete(card)


def test_sections_done_are_kept_when_a_later_one_fails(tmp_path, monkeypatch):
    real = benchmark.run_section

    def failing(section, *args, **kwargs):
        if section.name == "cost":
            raise KeyboardInterrupt
        return real(section, *args, **kwargs)

    monkeypatch.setattr(benchmark, "run_section", failing)
    with Store(tmp_path / "s.sqlite") as store:
        with pytest.raises(KeyboardInterrupt):
            run_card("random", "ghost", TINY, store=store)
        assert store.cards("ghost") == []  # not complete: not listed
        (kept,) = store.cards("ghost", complete=None)
    assert list(kept["card"]["sections"]) == ["field/heuristics", "auction"]
    played = []
    monkeypatch.setattr(
        benchmark,
        "run_section",
        lambda section, *a, **k: played.append(section.name) or real(section, *a, **k),
    )
    with Store(tmp_path / "s.sqlite") as store:
        run_card("random", "ghost", TINY, store=store)
    assert played == ["cost", "scale"]


def test_a_player_that_cannot_be_built_is_refused_before_the_first_game(
    tmp_path, monkeypatch, capsys
):
    """Every section's players are built before the first game: one that cannot be (a bad spec, an
    extra that is not installed) is one line naming its section, status 2, nothing played."""
    from ghost_euchre.commands import evaluate_main

    (tmp_path / "torchbot.py").write_text("import torch\n\n\nclass Bot:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sys.modules, "torch", None)  # as if not installed
    played = sections_played(monkeypatch)
    needs = (
        "this needs torch, which comes with the 'train' extra: pip install 'ghost-euchre[train]'"
    )
    for opponent, line in (
        ("no_such_module_xyz:Bot", "no module named 'no_such_module_xyz'"),
        ("torchbot:Bot", needs),
    ):
        later = Section("field/network", "match", (opponent, opponent), 6, 2)
        suite = Suite("tiny", 7, {"ghost": (*tiny_sections()[:1], later)})
        monkeypatch.setitem(SUITES, "tiny", suite)
        argv = ["benchmark", "random", "--suite", "tiny", "--db", str(tmp_path / "s.sqlite")]
        assert evaluate_main([*argv, "--quiet"]) == 2
        err = capsys.readouterr().err
        assert f"error: benchmark section 'field/network': policy spec {opponent!r}: {line}" in err
        assert len(err.strip().splitlines()) == 1, err
    assert played == []


def test_the_robustness_section_is_opt_in_and_given_by_the_caller(tmp_path):
    suite = Suite(
        "tiny",
        7,
        {
            "ghost": (
                *tiny_sections()[:1],
                Section("robustness", "robustness", games=6, offset=6, budget=32768),
            )
        },
    )
    assert "robustness" not in run_card("random", "ghost", suite)["planned"]
    calls = []

    def robustness(spec, variant, seed, budget, games, db=None):
        calls.append((spec, variant, seed, budget, games, db))
        return {"budget": budget, "games": games, "win_rate": 0.5, "win_rate_ci95": [0.4, 0.6]}

    with Store(tmp_path / "s.sqlite") as store:
        card = run_card("random", "ghost", suite, store=store, robustness=robustness)
    assert calls == [("random", "ghost", 13, 32768, 6, str(tmp_path / "s.sqlite"))]
    assert card["sections"]["robustness"]["win_rate"] == 0.5
    assert "a best response's win rate" in markdown(card)


@pytest.mark.slow
def test_the_command_trains_the_robustness_section(tmp_path, monkeypatch):
    from ghost_euchre.commands import evaluate_main

    section = Section("robustness", "robustness", games=6, offset=6, budget=32768)
    monkeypatch.setitem(SUITES, "tiny", Suite("tiny", 7, {"ghost": (section,)}))
    monkeypatch.chdir(tmp_path)  # the response's run goes to runs/exploit here
    db, out = str(tmp_path / "s.sqlite"), tmp_path / "c.json"
    argv = ["benchmark", "random", "--suite", "tiny", "--robustness", "--db", db, "--quiet"]
    assert evaluate_main([*argv, "--json", str(out)]) == 0
    figures = json.loads(out.read_text())["sections"]["robustness"]
    assert figures["budget"] == 32768 and figures["games"] == 6 and figures["win_rate"] > 0.5


# -------------------------------------------------------------- command line
@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["heuristic", "--suite", "v9"], "unknown suite 'v9'"),
        (["heuristic", "--seed", "-3"], "--seed must be an int >= 0"),
        (["heuristic", "--seed", "x"], "--seed must be an int >= 0"),
        (["nosuchbot"], "policy spec"),
        (["heuristic", "--workers", "0"], "--workers"),
        (["heuristic", "--robustness"], "--robustness trains"),
    ],
)
def test_bad_input_is_one_line_and_status_2(argv, words, tmp_path, capsys):
    assert benchmark_cli.main([*argv, "--db", str(tmp_path / "s.sqlite")]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_the_command_writes_the_card_and_the_leaderboard_lists_it(tmp_path, monkeypatch, capsys):
    from ghost_euchre.commands import evaluate_main as main

    monkeypatch.setitem(SUITES, "tiny", TINY)
    db, out = str(tmp_path / "s.sqlite"), tmp_path / "out"
    argv = ["benchmark", "heuristic", "--suite", "tiny", "--db", db, "--workers", "1", "--quiet"]
    files = ["--json", str(out / "c.json"), "--markdown", str(out / "c.md")]
    assert main([*argv, *files, "--plot", str(out / "c.png")]) == 0
    card = json.loads((out / "c.json").read_text())
    assert card["spec"] == "heuristic" and "| figure |" in (out / "c.md").read_text()
    capsys.readouterr()
    assert main(["leaderboard", "--cards", "--db", db]) == 0
    assert "`heuristic`" in capsys.readouterr().out


# ------------------------------------------------------------------- store
def test_a_store_of_the_previous_schema_opens_and_gets_the_cards_table(tmp_path):
    path = tmp_path / "old.sqlite"
    with Store(path) as store:
        store.player_id(("heuristic", "abc"))
    db = sqlite3.connect(path)
    db.execute("DROP TABLE cards")
    db.execute("UPDATE schema_version SET version = 4")
    db.commit()
    db.close()
    with Store(path, read_only=True) as store:  # read as it is: no cards
        assert store.cards() == []
    with Store(path) as store:  # upgraded
        assert store.cards() == []
        assert [v for (v,) in store.db.execute("SELECT version FROM schema_version")] == [
            SCHEMA_VERSION
        ]
        store.add_card(
            "k", ("heuristic", "abc"), {"suite": "v1", "seed": 1, "variant": "ghost"}, True
        )
        assert store.cards()[0]["spec"] == "heuristic"


def test_the_web_page_serves_the_stored_cards(tmp_path):
    from ghost_euchre.arena.web import create_app

    db = tmp_path / "s.sqlite"
    card = {"suite": "v1", "seed": 1, "variant": "ghost", "spec": "heuristic"}
    with Store(db) as store:
        store.add_card("k", ("heuristic", "abc"), card, True)
        store.add_card("partial", ("random", "def"), dict(card, spec="random"), False)
    client = web_client(create_app(db=str(db)))
    assert client.get("/api/cards").json()["cards"] == [card]
    assert client.get("/api/cards?variant=classic").json()["cards"] == []
    assert client.get("/api/cards?variant=../../etc").status_code == 400


# --------------------------------------------------------------- card play
CARD_PLAY_ROW = "| card play: points a deal lost to double-dummy play |"


@pytest.mark.parametrize(
    ("variant", "spec", "games"), [("ghost", "heuristic", 12), ("classic", "heuristic", 8)]
)
def test_the_card_play_figure_is_the_analysis_loss_a_deal_of_the_bots_seats(variant, spec, games):
    """The card-play section's figure is what ``analyse`` finds for SPEC's players (every seat
    solved, players told apart by name) over the same recorded games: points lost over deals."""
    section = Section("card-play", "cardplay", ("heuristic", "heuristic"), games, 0)
    card = run_card(spec, variant, Suite("tiny", 7, {variant: (section,)}))
    figures = card["sections"]["card-play"]
    result = run_match(lineup(variant, spec, section.opponents), variant, games, 7, record=True)
    found = analyse(result.game_records())
    mine = [result.players[p]["name"] for p in np.flatnonzero(variants.make(variant).teams == 0)]
    rows = [p for p in found.players if p.player in mine]
    assert len(rows) == len(mine) == (1 if variant == "ghost" else 2)
    lost, deals = sum(p.lost for p in rows), sum(p.deals for p in rows)
    assert figures["games"] == games and figures["deals"] == deals > 0
    assert figures["decisions"] == sum(p.decisions for p in rows)
    assert figures["off_line"] == sum(p.off_line for p in rows) > 0
    assert figures["points_lost_per_deal"] == pytest.approx(lost / deals)
    lo, hi = figures["points_lost_per_deal_ci95"]
    assert lo <= figures["points_lost_per_deal"] <= hi
    text = markdown(card)
    assert f"{CARD_PLAY_ROW} {lost / deals:.3f} | [{lo:.3f}, {hi:.3f}] | {games} |" in text
    assert "no legal player reaches that double-dummy line (loss 0)" in text


def test_a_stored_card_made_before_card_play_was_added_plays_only_that_section(
    tmp_path, monkeypatch
):
    """A section added to a released suite: the card stored without it is continued (the other
    sections kept), never played again from the start."""
    before = Suite("tiny", 7, {"ghost": tiny_sections()[:1]})
    after = Suite(
        "tiny",
        7,
        {
            "ghost": (
                *tiny_sections()[:1],
                Section("card-play", "cardplay", ("heuristic", "heuristic"), 6, 0),
            )
        },
    )
    with Store(tmp_path / "s.sqlite") as store:
        old = run_card("random", "ghost", before, store=store)
        played = sections_played(monkeypatch)
        new = run_card("random", "ghost", after, store=store)
    assert played == ["card-play"]
    assert new["sections"]["field/heuristics"] == old["sections"]["field/heuristics"]
    assert benchmark.complete(new) and new["planned"] == ["field/heuristics", "card-play"]


def test_an_old_published_card_without_card_play_loads_and_prints_not_measured():
    cards = published_cards()
    old = [c for c in cards if "card-play" not in c["sections"]]  # made before the section
    assert old and len(old) < len(cards)
    for card in cards:
        text = markdown(card)
        measured = card not in old
        assert (f"{CARD_PLAY_ROW} not measured | - | - |" in text) != measured, card["spec"]
        assert ("no legal player reaches" in text) == measured  # the note goes with a figure
    assert compact_rows(cards)  # the plot: test_the_plot_reads_as_the_printed_card
    other_suite = dict(cards[0], suite="tiny")  # a suite that never added the section
    assert CARD_PLAY_ROW not in markdown(other_suite)


# --------------------------------------------------------------- published
def test_published_cards_parse_and_match_their_suites():
    cards = published_cards()
    assert {c["variant"] for c in cards} == {"ghost", "classic"}
    for card in cards:
        suite = SUITES[card["suite"]]
        added = benchmark.ADDED.get(card["suite"], ())  # a card made before them lacks them
        planned = [s.name for s in suite.of(card["variant"])]
        assert [n for n in card["planned"] if n not in added] == [
            n for n in planned if n not in added
        ]
        assert set(card["planned"]) <= set(planned) and card["published_seed"]
        planned = card["planned"]
        assert card["seed"] == suite.seed and set(card["sections"]) == set(planned), card["spec"]
        for section in suite.of(card["variant"]):
            if section.kind in ("match", "auction") and section.name in planned:
                assert card["sections"][section.name]["games"] >= section.games
        assert markdown(card) in DOCS_PAGE, f"docs/benchmark.md lacks the card of {card['spec']}"
    headline = headline_cards()
    assert {c["spec"] for c in headline} == set(HEADLINE) and len(headline) < len(cards)
    assert compact_rows(headline) in README, "the README's table is not the headline cards'"


@pytest.mark.parametrize("variant", ["ghost", "classic"])
def test_the_plot_reads_as_the_printed_card(variant, tmp_path):
    """Win rates in percent on one 0-100% axis, a line at the fair share, the points panels on
    one range, and no panel of a Ghost Hand card titled for classic."""
    cards = published_cards(variant)
    figure = write_plot(cards[0], tmp_path / "card.png")
    panels = [ax for ax in figure.axes if ax.get_visible()]
    rates = [ax for ax in panels if ax.get_title().startswith("win rate")]
    points = [ax for ax in panels if ax.get_title().startswith("points")]
    assert len(rates) + len(points) == len(panels) and rates and points
    fair = {"ghost": 100 / 3, "classic": 50.0}[variant]
    for ax in rates:
        assert ax.get_xlim() == (0, 100)
        assert ax.xaxis.get_major_formatter()(50, 0) == "50%"
        assert any(np.allclose(line.get_xdata(), fair) for line in ax.get_lines())
        xs = [x for line in ax.get_lines() for x in np.atleast_1d(line.get_xdata())]
        assert max(xs) > 1  # percent, not fractions
    assert len({ax.get_xlim() for ax in points}) == 1
    titles = " ".join(ax.get_title() for ax in panels)
    assert ("classic" in titles) is False
    assert ("their team" in titles) == (variant == "classic")
