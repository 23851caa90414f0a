"""Every code example of the documentation runs as written, and the site lists every module.

The pages are the README and the site's sources (``docs/*.md``; see
``tests/docs_snippets.py``). Each ```python block is executed in a fresh
namespace, in a scratch folder that holds the repository's top-level files (so
relative paths such as ``configs/default.yaml`` resolve, and whatever an example
writes stays out of the repository). A block introduced by a line naming a file
(``mybots.py``) is also saved under that name, for the shell examples that use
it. Blocks marked ``<!-- snippet: NAME -->`` are run by the test that reads them
with ``doc_snippet("NAME")`` (the library examples, which need the ``interop``
extra); a block whose imports are not installed is skipped.

The shell examples ``ghost-euchre-evaluate ...`` (run as ``python -m ghost_euchre.arena``,
the command's module), ``python -m ghost_euchre.arena ...`` and ``python evaluate.py ...``
run as written when they are cheap: no placeholder (``SPEC``, ``FILE``), no
``human`` (interactive), no ``pimc``, ``search`` or ``oracle`` (the search bots, alone or in
a composite: the oracle solves every card decision), no ``benchmark`` (its
suite plays ``pimc``) and at most 1,000 games. New
examples are picked up by these rules without touching this file. The C programs of
``ghost_euchre/examples/proc`` are built into the scratch folder when a C compiler is there (the
examples that play them skip without one).
"""

import ast
import contextlib
import importlib.util
import io
import os
import pathlib
import pkgutil
import re
import runpy
import shlex
import shutil
import subprocess
import sys

import pytest
from docs_snippets import PAGES, ROOT, page_text

FENCE = re.compile(
    r"^```([^\n`]*)\n(.*?)^```", re.DOTALL | re.MULTILINE
)  # MyST directives too: ```{include}
SNIPPET_MARK = re.compile(r"<!-- snippet: (\w+) -->\n$")
FILE_NAME = re.compile(r"`(\w+\.py)`")
MAX_GAMES = 1000
EVALUATE = {  # how a shell example names the evaluate command -> how the test runs it
    ("ghost-euchre-evaluate",): ["-m", "ghost_euchre.arena"],
    ("python", "-m", "ghost_euchre.arena"): ["-m", "ghost_euchre.arena"],
    ("python", "evaluate.py"): ["evaluate.py"],
}
PACKAGES = ("ghost_euchre_env", "ghost_euchre")


def _blocks():
    """[(page, language, code, text before the fence)] of every fenced block of every page."""
    return [
        (page, m.group(1), m.group(2), page_text(page)[: m.start()])
        for page in PAGES
        for m in FENCE.finditer(page_text(page))
    ]


def _tested_snippets():
    """Names of the marked snippets some test reads with doc_snippet("NAME")."""
    names = set()
    for path in pathlib.Path(__file__).parent.glob("test_*.py"):
        names |= set(re.findall(r"doc_snippet\(\"(\w+)\"\)", path.read_text(encoding="utf-8")))
    return names


def _python_blocks():
    """[(page, code, snippet name or None, file name or None)] of the python blocks."""
    blocks = []
    for page, language, code, before in _blocks():
        if language != "python":
            continue
        mark = SNIPPET_MARK.search(before)
        lines = before.rstrip("\n").splitlines()
        intro = FILE_NAME.findall(lines[-1]) if lines else []
        blocks.append((page, code, mark.group(1) if mark else None, intro[0] if intro else None))
    return blocks


def _where(page, code):
    """'page.md:line' of a block."""
    text = page_text(page)
    return f"{page.name}:{text[: text.index(code)].count(chr(10)) + 1}"


def _evaluate_command(words):
    """The interpreter arguments that run a shell example's evaluate command, or None if it is none.

    Leading ``NAME=value`` words (environment settings) are skipped here.
    """
    words = words[len(_settings(words)) :]
    for prefix, run in EVALUATE.items():
        if tuple(words[: len(prefix)]) == prefix:
            return [*run, *words[len(prefix) :]]
    return None


def _settings(words):
    """The leading ``NAME=value`` words of a command, as a dict."""
    settings = {}
    for word in words:
        name, sep, value = word.partition("=")
        if not (sep and re.fullmatch(r"[A-Z_][A-Z0-9_]*", name)):
            break
        settings[name] = value
    return settings


def _shell_examples():
    """The evaluate commands of the pages' shell blocks (continuation lines joined), as words."""
    commands = [
        shlex.split(command.split("#")[0])
        for _, language, code, _ in _blocks()
        if language in ("", "bash", "sh", "shell")
        for command in code.replace("\\\n", " ").splitlines()
        if command.strip() and _evaluate_command(shlex.split(command.split("#")[0]))
    ]
    return [list(words) for words in dict.fromkeys(map(tuple, commands))]  # each command once


def _cheap(words):
    games = [int(words[i + 1]) for i, word in enumerate(words[:-1]) if word == "--games"]
    return not (
        any(re.fullmatch(r"\[?[A-Z][A-Z_]*\]?", word) or word.startswith("[") for word in words)
        or "human" in words
        or any(re.search(r"(^|[\[| ])(pimc|search|oracle)", word) for word in words)  # search
        or any(part in word for word in words for part in ("cards=solver", "leaf="))  # minutes
        or "benchmark" in words  # the suite plays pimc (minutes)
        or any(g > MAX_GAMES for g in games)
    )


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """A folder with links to the repository's top-level entries (but fresh docs/ and runs/), and the pages' named files."""
    folder = tmp_path_factory.mktemp("docs")
    for entry in ROOT.iterdir():
        if entry.name not in ("docs", "runs", ".git") and not entry.name.startswith("."):
            (folder / entry.name).symlink_to(entry)
    (folder / "docs").mkdir()
    (folder / "runs").mkdir()
    for _, code, _, file_name in _python_blocks():
        if file_name:
            (folder / file_name).write_text(code, encoding="utf-8")
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler:  # the protocol page's programs, built as it says (cc -O2 -o NAME NAME.c)
        for source in (ROOT / "ghost_euchre" / "examples" / "proc").glob("*.c"):
            subprocess.run([compiler, "-O2", "-o", folder / source.stem, source], check=True)
    return folder


def test_the_pages_have_examples_of_each_kind():
    assert len(_python_blocks()) >= 5
    assert any(_cheap(words) for words in _shell_examples())
    assert any("ghost-euchre-evaluate" in words for words in _shell_examples())


def test_every_marked_snippet_is_run_by_a_test():
    marked = {name for _, _, name, _ in _python_blocks() if name}
    assert marked <= _tested_snippets()


def _untested_blocks():
    """(page, code) of the python blocks no other test runs (marked snippets are run by the tests that read them)."""
    tested = _tested_snippets()
    return [(page, code) for page, code, name, _ in _python_blocks() if name not in tested]


@pytest.mark.parametrize(
    ("page", "code"), _untested_blocks(), ids=[_where(*block) for block in _untested_blocks()]
)
def test_python_example_runs_as_written(page, code, scratch, monkeypatch):
    for node in ast.walk(ast.parse(code)):
        modules = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules = [node.module]
        for module in modules:
            if importlib.util.find_spec(module.split(".")[0]) is None:
                pytest.skip(f"needs {module}, which is not installed")
    monkeypatch.chdir(scratch)
    monkeypatch.syspath_prepend(str(scratch))
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, _where(page, code), "exec"), {"__name__": "__main__"})


@pytest.mark.parametrize("words", [w for w in _shell_examples() if _cheap(w)], ids=shlex.join)
def test_shell_example_runs_as_written(words, scratch):
    programs = [w.split(":")[1] for w in words if w.startswith("proc:")]
    missing = [p for p in programs if not (scratch / p).exists()]
    if missing:
        pytest.skip(f"plays {', '.join(missing)}, built with a C compiler, which is not installed")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(scratch), str(ROOT)])}
    env.update(_settings(words))
    completed = subprocess.run(
        [sys.executable, *(_evaluate_command(words) or [])],
        cwd=scratch,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert completed.stdout.strip()


def test_the_api_reference_lists_every_module():
    listed = set(re.findall(r"^   ([\w.]+)$", page_text(ROOT / "docs" / "api.md"), re.MULTILINE))
    modules, packages = set(), list[str](PACKAGES)
    while packages:  # every module of every package and sub-package
        package = packages.pop()
        modules.add(package)
        path = [str(ROOT / package.replace(".", os.sep))]
        for m in pkgutil.iter_modules(path):
            if m.name != "__main__" and f"{package}.{m.name}" != "ghost_euchre.examples":
                (packages.append if m.ispkg else modules.add)(f"{package}.{m.name}")
    assert listed == modules


def test_every_page_is_in_the_site():
    index = page_text(ROOT / "docs" / "index.md")
    pages = {p.stem for p in PAGES if p.parent.name == "docs"} - {"index"}
    assert pages <= set(re.findall(r"^([\w-]+)$", index, re.MULTILINE))


def test_ci_runs_the_readme_test_command_as_written():
    readme = ROOT / "README.md"
    (command,) = [
        line
        for page, language, code, _ in _blocks()
        if page == readme and language == "bash"
        for line in code.splitlines()
        if line.startswith("scripts/check")
    ]
    assert command in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    check = (ROOT / "scripts" / "check").read_text(encoding="utf-8")
    assert "sphinx-build -W" in check  # the site builds with warnings as errors
    assert "-c constraints.txt" in check and "python -m pytest" in check


def test_the_constraints_pin_every_package_of_the_test_install():
    """constraints.txt names one exact version of each package the test command installs."""
    lines = (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
    pins = [line for line in lines if line and not line.startswith("#")]
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[^\s=]+", pin) for pin in pins), pins
    names = {re.split(r"==", pin)[0].lower().replace("_", "-") for pin in pins}
    for needed in ("pytest", "ruff", "pyright", "sphinx", "numpy", "torch", "gymnasium"):
        assert needed in names, needed


def test_the_generated_parts_of_the_pages_are_up_to_date():
    """Every command's --help, the config fields, the shipped networks, the example bots and the
    README's cards are committed Markdown (readable outside the site), as docs/reference_pages.py
    writes them from the code; no page includes a file that is not committed."""
    generator = runpy.run_path(str(ROOT / "docs" / "reference_pages.py"))
    stale = generator["stale"]()
    assert not stale, f"out of date: {sorted(stale)}; run python docs/reference_pages.py"
    assert "ppo:ghost" in generator["committed"]("networks")
    assert "--workers N" in generator["committed"]("commands")
    usages = re.findall(r"^usage: (\S+)", generator["committed"]("commands"), re.MULTILINE)
    assert len(usages) == 8  # as an install prints them, whatever imported the parsers first
    assert set(usages) == {"ghost-euchre-evaluate", "ghost-euchre-train"}, usages
    assert "| `total_steps` |" in generator["committed"]("config")
    includes = re.compile(r"^```\{(?:literal)?include\} *(\S+)", re.MULTILINE)
    for page in PAGES:
        for path in includes.findall(page_text(page)):
            included = (page.parent / path).resolve()
            assert included.is_relative_to(ROOT) and "_generated" not in path, (page.name, path)


@pytest.mark.parametrize("variant", ["ghost", "classic"])
def test_the_protocol_page_read_alone_is_enough_to_play(variant):
    """docs/protocol.md lays out every nested field of a decide message, says what a contract of 6
    is and what the scores are divided by, and warns that a seed past 2^53 is rounded by a double."""
    import json

    from ghost_euchre.agents.protocol import Messages
    from ghost_euchre_env import dealing, variants

    text = page_text(ROOT / "docs" / "protocol.md")
    game = variants.make(variant).make_game()
    state = game.init(dealing.stream_keys(3, 1))
    obs = json.loads(
        Messages(game).decide(game.observe(state, state.player), game.legal_mask(state), [0])
    )
    nested = [
        name
        for name, value in obs["games"][0]["obs"].items()
        if isinstance(value, list) and value and isinstance(value[0], list)
    ]
    layout = text[text.index("| field | layout | meaning |") :].split("\n\n")[0]
    assert nested and all(f"`{name}`" in layout for name in nested), nested
    for field in ("scores", "contract", "deal_progress"):
        assert f"`{field}`" in layout
    assert "6 (moon)" in layout and "divided by `target_score`" in layout
    assert "JSON.parse` rounds it silently" in text and "BigInt" in text
    assert 7896617691693857887 > 2**53 and float(7896617691693857887) != 7896617691693857887
    started = " ".join(text[text.index("A program is started") :].split("\n\n")[0].split())
    assert "once in each process that plays its games" in started  # a worker each, by default


def test_the_one_warning_of_pettingzoos_api_tests_is_the_one_the_page_expects():
    """PettingZoo's parallel_api_test passes reset a dummy option; the warning naming it is the
    one docs/aec.md says to expect, and there is no other."""
    import warnings

    from pettingzoo.test import parallel_api_test

    from ghost_euchre_env import ghost_euchre_v0

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(ghost_euchre_v0.parallel_env(), num_cycles=20)
    messages = {str(w.message) for w in caught}
    expected = "ghost_euchre_v0.reset ignores option(s) ['options']; it uses ['dealer', 'deals']"
    assert messages == {expected}
    page = " ".join(page_text(ROOT / "docs" / "aec.md").split())
    assert "`api_test` and `parallel_api_test` check that `reset` takes options" in page


def test_the_web_page_documents_every_route_of_its_json_api():
    """docs/web.md's table names every API route of the app (method and path, the path's
    parameters as the page names them), and the app's docstring points there."""
    from ghost_euchre.arena.web import app, create_app

    names = {"game_id": "id", "match_id": "m", "game": "k"}  # the page's names of path parameters
    page = page_text(ROOT / "docs" / "web.md")
    table = page[page.index("## The JSON API") : page.index("## Security")]
    for route in create_app(db=None).routes:
        path = getattr(route, "path", "")
        if not path.startswith("/api/"):
            continue
        for name, shown in names.items():
            path = path.replace("{" + name + "}", "{" + shown + "}")
        for method in sorted(set(getattr(route, "methods", None) or ()) - {"HEAD"}):
            assert f"| `{method} {path}` |" in table, (method, path)
    assert "docs/web.md" in (app.__doc__ or "")


def test_the_readme_links_to_files_that_exist():
    """The README is read on its own (GitHub, PyPI): its relative links point at files of the repository."""
    text = FENCE.sub("", page_text(ROOT / "README.md"))  # links, not code
    links = re.findall(r"\]\(([^)#\s]+)[^)]*\)", text)
    relative = [link for link in links if "://" not in link]
    assert relative
    assert [link for link in relative if not (ROOT / link).exists()] == []


def test_the_first_use_compile_figures_are_in_one_place():
    """The seconds each part's first use compiles are on the Speed page's Start-up table, one row
    a part of benchmarks/startup.py; the README, Getting started, the design page and the
    terminal's line point there and give no figure of their own."""
    speed = page_text(ROOT / "docs" / "speed.md")
    table = speed[speed.index("## Start-up") :].split("\n\n| part |")[1].split("\n\n")[0]
    script = (ROOT / "benchmarks" / "startup.py").read_text(encoding="utf-8")
    (bots,) = re.findall(r"^BOTS = (\(.*\))$", script, re.MULTILINE)
    bots = ast.literal_eval(bots)
    assert all(f"`{bot}`'s" in table for bot in bots) and "solver" in table and "engine" in table
    for page in ("README.md", "docs/getting-started.md", "docs/design.md"):
        text = page_text(ROOT / page)
        assert "speed.md#start-up" in text, page
        assert not re.search(r"\d+ s of CPU|half a minute", text), page
    said = (ROOT / "ghost_euchre_env" / "kernels" / "__init__.py").read_text(encoding="utf-8")
    assert "(docs/speed.md, Start-up)" in said and "half a minute" not in said


def test_the_readme_and_the_training_page_give_the_default_run_one_time_and_one_figure():
    """The default run's wall time (minutes) and closing win rate are stated on the README (the
    two commands, the headline table) and on the Training page, the same in each place."""
    readme = page_text(ROOT / "README.md")
    training = page_text(ROOT / "docs" / "training.md")
    (command_minutes,) = re.findall(r"train the default agent \((\d+) minutes", readme)
    ((figure, headline_minutes),) = re.findall(
        r"\| the default training run \| \*\*([\d.]+%)\*\* .* in (\d+) minutes", readme
    )
    ((page_minutes, page_figure),) = re.findall(
        r"trains a Ghost Hand agent in (\d+) minutes.*?\*\*([\d.]+%)\*\*", training, re.DOTALL
    )
    assert command_minutes == headline_minutes == page_minutes
    assert figure == page_figure


def test_the_pages_name_every_subcommand_and_every_dependency():
    """The README and Getting started list every subcommand the evaluate command's help names, and
    Getting started's dependencies are the package's own and its extras' (pyproject.toml)."""
    from ghost_euchre.arena.cli_args import SUBCOMMANDS_HELP

    subcommands = re.findall(r"^  \{prog\} (\w+)", SUBCOMMANDS_HELP, re.MULTILINE)
    assert len(subcommands) == 6
    for page in ("README.md", "docs/getting-started.md"):
        listed = " ".join(
            line for line in page_text(ROOT / page).splitlines() if "subcommands" in line
        )
        assert [s for s in subcommands if f"`{s}`" not in listed] == [], page
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    needed = []
    for list_start in ("dependencies = [", "train = [", "web = [", "plot = ["):
        block = pyproject[pyproject.index(list_start) :].split("]", 1)[0]
        needed += re.findall(r'^\s+"([A-Za-z0-9_.-]+)[<>=]', block, re.MULTILINE)
    guide = page_text(ROOT / "docs" / "getting-started.md")
    dependencies = guide[guide.index("## Dependencies") :]
    assert len(needed) > 10
    assert [name for name in needed if f"`{name}`" not in dependencies] == []


@pytest.mark.parametrize(
    ("page", "marker"),
    [("gymnasium.md", 'metadata["autoreset_mode"]'), ("bots.md", "table.hand.shape")],
)
def test_an_example_prints_what_its_comment_says(page, marker, scratch, monkeypatch):
    """An example whose print line shows its output in a comment prints that (``[...]``: any)."""
    (code,) = [code for p, code, _, _ in _python_blocks() if p.name == page and marker in code]
    (shown,) = [line.split("  # ", 1)[1] for line in code.splitlines() if line.startswith("print(")]
    monkeypatch.chdir(scratch)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, page, "exec"), {"__name__": "__main__"})
    pattern = ".*".join(map(re.escape, shown.split("[...]")))
    assert re.fullmatch(pattern, out.getvalue().strip()), (out.getvalue(), shown)


def test_the_pages_name_installed_modules_and_say_where_a_clone_has_a_path():
    """A module is named as an install imports it (``ghost_euchre.agents.X``), never as a bare
    ``agents.X`` (but 0.1's names, said to be such); a path of a clone (``agents/ppo.py``) appears
    only where its paragraph says "clone". The pages about the repository itself (design,
    contributing) and the figures run from a clone (Results, Speed: said at their top) are left
    out, as are examples and output in code blocks (but the commands' help)."""
    about_the_clone = {"design.md", "contributing.md", "CONTRIBUTING.md", "results.md", "speed.md"}
    bare, paths = [], []
    for page in PAGES:
        text = page_text(page)
        for paragraph in text.split("\n\n"):
            if "0.1" not in paragraph:
                bare += [(page.name, m) for m in re.findall(r"(?<![\w./])agents\.\w+", paragraph)]
        if page.name in about_the_clone:
            continue
        prose = text if page.name == "commands.md" else FENCE.sub("", text)
        for paragraph in prose.split("\n\n"):
            found = re.findall(r"(?<![\w./:])agents/[\w.][\w./]*", paragraph)
            if found and "clone" not in paragraph:
                paths += [(page.name, path) for path in found]
    assert bare == [] and paths == []
