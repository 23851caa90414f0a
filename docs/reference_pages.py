"""Writes the generated parts of the committed pages, so a page reads whole outside the site too.

    python docs/reference_pages.py          # rewrite them
    python docs/reference_pages.py --check  # exit 1 if a committed page differs

Each part lies between ``<!-- generated: NAME (docs/reference_pages.py; do not edit) -->`` and
``<!-- end of generated: NAME -->`` on its page (``PARTS``): every command's ``--help``
(docs/commands.md), the trainer's config fields (docs/config.md), the shipped networks' table
and the rule-based example bots (docs/bots.md), the C example bots (docs/protocol.md), the
README's table of the headline bots' published cards and every published card (docs/benchmark.md). tests/test_docs.py checks that the
committed pages are this script's output.
"""

import contextlib
import io
import json
import os
import pathlib
import re
import sys
from unittest import mock

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout, not an installed copy

COLUMNS = "100"  # the width --help is wrapped to on the page


def networks_table():
    """The shipped networks' table, from their one registry."""
    from ghost_euchre.agents.pretrained import NETWORKS

    rows = ["| spec | plays | what | file |", "|---|---|---|---|"]
    rows += [
        f"| `ppo:{name}` | {net.variant} | {net.about} | `{net.file}` |"
        for name, net in NETWORKS.items()
    ]
    return "\n".join(rows) + "\n"


def _help_text(main, argv):
    """What ``main(argv)`` prints for --help, as an installed command prints it."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        main(argv)
    return out.getvalue()


def commands_reference():
    """Every command's --help, from the parsers themselves (the machine's core count left out)."""
    from ghost_euchre.arena import benchmark_cli, cli_args
    from ghost_euchre.commands import evaluate_main, train_main

    cores = "machine's"  # "default: the machine's usable cores", on any machine
    with (
        mock.patch.dict(os.environ, {"COLUMNS": COLUMNS, "NO_COLOR": "1", "PYTHON_COLORS": "0"}),
        mock.patch.object(cli_args, "usable_cores", return_value=cores),
        mock.patch.object(benchmark_cli, "usable_cores", return_value=cores),
        mock.patch.object(sys, "argv", ["ghost-euchre-evaluate"]),  # as installed
    ):
        sections = [("ghost-euchre-evaluate", evaluate_main, [])]
        sections += [
            (f"ghost-euchre-evaluate {sub}", evaluate_main, [sub])
            for sub in ("replay", "analyse", "leaderboard", "serve", "exploit", "benchmark")
        ]
        text = ""
        for title, main, argv in sections:
            text += f"## `{title}`\n\n```text\n{_help_text(main, [*argv, '--help'])}```\n\n"
        sys.argv[0] = "ghost-euchre-train"
        text += f"## `ghost-euchre-train`\n\n```text\n{_help_text(train_main, ['--help'])}```\n"
    return text


def config_reference():
    """The trainer's config fields by group, with the default config's values, from TrainConfig."""
    from ghost_euchre.trainer.config import (
        DEFAULT_CONFIG,
        field_docs,
        field_groups,
        find_config,
        make_config,
        read_yaml,
    )

    docs = field_docs()
    defaults = make_config(read_yaml(find_config(DEFAULT_CONFIG)), DEFAULT_CONFIG)
    text = ""
    for group, fields in field_groups().items():
        text += f"## {group}\n\n| field | default | what |\n|---|---|---|\n"
        for name in fields:
            value = json.dumps(getattr(defaults, name)).replace("|", "\\|")
            what = " ".join(docs[name].split()).replace("|", "\\|")
            text += f"| `{name}` | `{value}` | {what} |\n"
        text += "\n"
    return text.rstrip("\n") + "\n"


def source_block(path, language, start_at=None):
    """A fenced block of the file ``path`` (from the repository's root), from its line ``start_at``."""
    text = (ROOT / path).read_text(encoding="utf-8")
    if start_at is not None:
        text = text[text.index(start_at) :]
    return f"```{language}\n{text}```\n"


def headline_cards():
    """The README's table: the headline bots' published cards (the rest: docs/benchmark.md)."""
    from ghost_euchre.arena.cards import compact_rows, headline_cards

    return compact_rows(headline_cards()) + "\n"


def published_cards():
    """The Benchmark page's cards: each variant's table of the published cards, then each card
    with the command that made it."""
    from ghost_euchre.arena.cards import compact_rows, markdown, published_cards
    from ghost_euchre_env import variants

    parts = []
    for name in variants.available():
        title = variants.make(name).title
        cards = published_cards(name)
        parts += [f"### {title[0].upper()}{title[1:]}", "", compact_rows(cards), ""]
        for card in cards:
            command = f"ghost-euchre-evaluate benchmark '{card['spec']}' --variant {name}"
            parts += [f"#### `{card['spec']}` ({name})", "", "```bash", command + " --workers 2"]
            parts += ["```", "", markdown(card), ""]
    return "\n".join(parts)


README, DOCS = ROOT / "README.md", ROOT / "docs"
PARTS = {  # name: (page, what writes it)
    "commands": (DOCS / "commands.md", commands_reference),
    "config": (DOCS / "config.md", config_reference),
    "networks": (DOCS / "bots.md", networks_table),
    "rule_bots.py": (
        DOCS / "bots.md",
        lambda: source_block("ghost_euchre/examples/rule_bots.py", "python", "import numpy as np"),
    ),
    "first_legal.c": (
        DOCS / "protocol.md",
        lambda: source_block("ghost_euchre/examples/proc/first_legal.c", "c"),
    ),
    "simple_rule.c": (
        DOCS / "protocol.md",
        lambda: source_block("ghost_euchre/examples/proc/simple_rule.c", "c"),
    ),
    "headline cards": (README, headline_cards),
    "published cards": (DOCS / "benchmark.md", published_cards),
}


def _region(name):
    begin = f"<!-- generated: {name} (docs/reference_pages.py; do not edit) -->\n"
    end = f"<!-- end of generated: {name} -->"
    return re.compile(re.escape(begin) + r"(.*?)" + re.escape(end), re.DOTALL), begin, end


def committed(name):
    """The text of part ``name`` as its page holds it (ValueError: the page has no such part)."""
    page, _ = PARTS[name]
    found = _region(name)[0].findall(page.read_text(encoding="utf-8"))
    if len(found) != 1:
        raise ValueError(f"{page.name} holds {len(found)} parts named {name!r} (expected 1)")
    return found[0]


def stale():
    """{name: (page, committed text, generated text)} of the parts whose page is out of date."""
    found = {}
    for name, (page, make) in PARTS.items():
        text, have = make(), committed(name)
        if have != "\n" + text + "\n":
            found[name] = (page, have, text)
    return found


def write():
    """Rewrite every stale part in its page; the names of the parts rewritten."""
    parts = stale()
    for name, (page, _, text) in parts.items():
        pattern, begin, end = _region(name)
        new = pattern.sub(
            lambda _, t=text, b=begin, e=end: f"{b}\n{t}\n{e}", page.read_text("utf-8")
        )
        page.write_text(new, encoding="utf-8")
    return sorted(parts)


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        names = sorted(stale())
        if names:
            sys.exit(f"out of date: {', '.join(names)}; run python docs/reference_pages.py")
    elif sys.argv[1:]:
        sys.exit("usage: python docs/reference_pages.py [--check]")
    else:
        print("rewritten:", ", ".join(write()) or "nothing")
