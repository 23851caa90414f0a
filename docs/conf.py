"""Sphinx configuration of the documentation site: ``sphinx-build -W -b html docs build/docs``.

The pages are Markdown (MyST); the API reference is generated from the docstrings
(autodoc, autosummary). Every code block of the pages runs in tests/test_docs.py.
"""

import os
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

autosummary_generate = True
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "description"

html_theme = "furo"
html_title = f"Ghost Hand Euchre {release}"
autodoc_inherit_docstrings = False  # a base class's docstring (gymnasium's, PettingZoo's) is theirs


def _networks_table():
    """docs/_generated/networks.md: the shipped networks' table, from their one registry."""
    from agents.pretrained import NETWORKS

    rows = ["| spec | plays | what | file |", "|---|---|---|---|"]
    rows += [
        f"| `ppo:{name}` | {net.variant} | {net.about} | `{net.file}` |"
        for name, net in NETWORKS.items()
    ]
    os.makedirs(os.path.join(ROOT, "docs", "_generated"), exist_ok=True)
    with open(os.path.join(ROOT, "docs", "_generated", "networks.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")


_networks_table()
