"""Sphinx configuration of the documentation site: ``sphinx-build -W -b html docs build/docs``.

The pages are Markdown (MyST); the API reference is generated from the docstrings
(autodoc, autosummary). Every code block of the pages runs in tests/test_docs.py.
"""

import os
import pathlib
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)  # document this checkout, not an installed copy

import ghost_euchre_env  # noqa: E402  (after the path above)

project = "Ghost Hand Euchre"
author = "the Ghost Hand Euchre authors"
copyright = "2026, " + author
version = release = ghost_euchre_env.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "_generated"]
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]
smartquotes = False  # prose keeps "--variant" and quotes as typed (no en dash, no curly quotes)

autosummary_generate = True
viewcode_follow_imported_members = (
    False  # a re-exported name's source links to its own module's page
)
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "description"

html_theme = "furo"
html_title = f"Ghost Hand Euchre {release}"
autodoc_inherit_docstrings = False  # a base class's docstring (gymnasium's, PettingZoo's) is theirs


def _networks_table():
    """docs/_generated/networks.md: the shipped networks' table, from their one registry."""
    from ghost_euchre.agents.pretrained import NETWORKS

    rows = ["| spec | plays | what | file |", "|---|---|---|---|"]
    rows += [
        f"| `ppo:{name}` | {net.variant} | {net.about} | `{net.file}` |"
        for name, net in NETWORKS.items()
    ]
    _write_generated("networks.md", "\n".join(rows) + "\n")


def _write_generated(name, text):
    """docs/_generated/NAME, written only when it changed (Sphinx rebuilds what includes it)."""
    path = pathlib.Path(ROOT, "docs", "_generated", name)
    path.parent.mkdir(exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _help_text(main, argv):
    """What ``main(argv)`` prints for --help, as an installed command prints it."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        main(argv)
    return out.getvalue()


def _commands_reference():
    """docs/_generated/commands.md: every command's --help, from the parsers themselves."""
    saved_argv, saved_columns = sys.argv[0], os.environ.get("COLUMNS")
    sys.argv[0], os.environ["COLUMNS"] = "ghost-euchre-evaluate", "100"  # as installed
    try:
        from ghost_euchre.commands import evaluate_main, train_main

        sections = [("ghost-euchre-evaluate", evaluate_main, [])]
        sections += [
            (f"ghost-euchre-evaluate {sub}", evaluate_main, [sub])
            for sub in ("replay", "leaderboard", "serve", "exploit", "benchmark")
        ]
        text = ""
        for title, main, argv in sections:
            text += f"## `{title}`\n\n```text\n{_help_text(main, [*argv, '--help'])}```\n\n"
        sys.argv[0] = "ghost-euchre-train"
        text += f"## `ghost-euchre-train`\n\n```text\n{_help_text(train_main, ['--help'])}```\n"
    finally:
        sys.argv[0] = saved_argv
        if saved_columns is None:
            os.environ.pop("COLUMNS")
        else:
            os.environ["COLUMNS"] = saved_columns
    _write_generated("commands.md", text)


def _config_reference():
    """docs/_generated/config.md: the trainer's config fields by group, from TrainConfig."""
    import json

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
    _write_generated("config.md", text)


_networks_table()
_commands_reference()
_config_reference()
