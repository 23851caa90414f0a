"""Sphinx configuration of the documentation site: ``sphinx-build -W -b html docs build/docs``.

The pages are Markdown (MyST); the API reference is generated from the docstrings
(autodoc, autosummary). Every code block of the pages runs in tests/test_docs.py. The parts of
the pages generated from the code (every command's --help, the config fields, the shipped
networks, the example bots) are committed, so that a page reads whole outside the site too:
``python docs/reference_pages.py`` writes them, and a test fails when one is out of date.
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
exclude_patterns = ["_build"]
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
