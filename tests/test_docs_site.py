"""The documentation site as a reader gets it: it builds with warnings as errors, and every link
between its pages (and every anchor a link names) leads somewhere. About a minute: a full build
(less after scripts/check, which has just built the site: see the fixture)."""

import html.parser
import os
import pathlib
import subprocess
import sys
import urllib.parse

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

pytest.importorskip("sphinx", reason="the docs extra builds the site")


class _Links(html.parser.HTMLParser):
    """The ids a page defines and the links (href, src) it holds."""

    def __init__(self):
        super().__init__()
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"])
        if tag == "a" and values.get("name"):
            self.ids.add(values["name"])
        for key in ("href", "src") if tag in ("a", "img") else ():
            if values.get(key):
                self.links.append(values[key])


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """{page path: its _Links} of the site built from docs/ (warnings as errors).

    Built whole into a scratch folder; or, where scripts/check has just built the site with the
    same command and names the folder in GHOST_EUCHRE_DOCS_BUILT, built into that folder again:
    sphinx then re-reads, with warnings as errors, only the sources changed since that build (none
    in CI), and the pages checked are still those of the current sources (a minute saved).
    """
    built = os.environ.get("GHOST_EUCHRE_DOCS_BUILT")
    out = ROOT / built if built else tmp_path_factory.mktemp("site")
    build = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    done = subprocess.run(
        [*build, "docs", out], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    pages = {}
    for path in out.rglob("*.html"):
        parser = _Links()
        parser.feed(path.read_text(encoding="utf-8"))
        pages[path] = parser
    return pages


def test_every_link_within_the_site_leads_to_a_page_and_anchor_that_exist(site):
    broken = []
    for page, links in site.items():
        for link in links.links:
            parts = urllib.parse.urlsplit(link)
            if parts.scheme or link.startswith(("mailto:", "//")):
                continue  # outside the site
            target = (
                (page.parent / urllib.parse.unquote(parts.path)).resolve() if parts.path else page
            )
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.name}: {link} (no such file)")
            elif parts.fragment and target.suffix == ".html":
                if target not in site:
                    continue
                if parts.fragment not in site[target].ids:
                    broken.append(f"{page.name}: {link} (no such anchor)")
    assert broken == [], "\n".join(broken)


def test_the_site_has_a_page_for_each_kind_of_reader(site):
    index = (next(p for p in site if p.name == "index.html" and p.parent.name != "api")).read_text(
        encoding="utf-8"
    )
    for caption in ("Tutorials", "How-to guides", "Reference", "Explanation"):
        assert caption in index
