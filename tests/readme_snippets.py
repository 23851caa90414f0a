"""The README's library examples, so that tests run them exactly as written."""

import pathlib
import re
from typing import Any

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def readme_snippet(name):
    """The ```python block right after ``<!-- snippet: name -->`` in the README."""
    text = README.read_text(encoding="utf-8")
    match = re.search(rf"<!-- snippet: {name} -->\n```python\n(.*?)```", text, re.DOTALL)
    assert match, f"README has no python block after <!-- snippet: {name} -->"
    return match.group(1)


def run_snippet(code, name):
    """Execute ``code`` as a fresh module named ``name``; its namespace (a dict)."""
    namespace: dict[str, Any] = {"__name__": name}
    exec(compile(code, f"README:{name}", "exec"), namespace)
    return namespace
