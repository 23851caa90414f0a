"""The documentation's pages (the README and the site's sources, docs/*.md) and their marked snippets."""

import functools
import pathlib
import re
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = (ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md")))


@functools.cache
def page_text(page):
    """The text of one page (a path of PAGES)."""
    return page.read_text(encoding="utf-8")


def doc_snippet(name):
    """The ```python block right after ``<!-- snippet: name -->`` on the one page that has it."""
    pattern = re.compile(rf"<!-- snippet: {name} -->\n```python\n(.*?)```", re.DOTALL)
    found = [m.group(1) for page in PAGES for m in pattern.finditer(page_text(page))]
    assert len(found) == 1, (
        f"{len(found)} python blocks after <!-- snippet: {name} --> (expected 1)"
    )
    return found[0]


def run_snippet(code, name):
    """Execute ``code`` as a fresh module named ``name``; its namespace (a dict)."""
    namespace: dict[str, Any] = {"__name__": name}
    exec(compile(code, f"docs:{name}", "exec"), namespace)
    return namespace
