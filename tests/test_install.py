"""The package as a user gets it: a wheel installed in a fresh virtual environment.

The wheel is built from a copy of the sources (so no build files land in the
checkout) and installed into a new venv; the venv reaches the dependencies
(numpy, torch, ...) through a ``.pth`` file naming this interpreter's
site-packages, after its own, and nothing of the clone is on its path. Every
command runs from an empty folder. About a minute on a 2-core machine.

The light install is a second venv holding the wheel and only the package's own
dependencies (pip, from ``constraints.txt``'s versions): no torch, no web server,
no matplotlib.
"""

import json
import os
import pathlib
import shutil
import site
import socket
import subprocess
import sys
import sysconfig
import tarfile
import time
import urllib.error
import urllib.request
import zipfile

import pytest

import ghost_euchre_env
from ghost_euchre.agents.pretrained import NETWORKS

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = {"ghost_euchre", "ghost_euchre_env"}  # the only top-level names the wheel installs
SOURCES = ["pyproject.toml", "README.md", "LICENSE", *sorted(PACKAGES)]  # what the build reads
EXTRAS_ONLY = ("torch", "tensorboard", "matplotlib", "starlette", "uvicorn", "h11", "anyio")

pytestmark = pytest.mark.install


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """A copy of what the build reads (a link would stay a link: the packages hold none)."""
    folder = tmp_path_factory.mktemp("build") / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, folder / name, ignore=ignore, symlinks=True)
        else:
            folder.mkdir(exist_ok=True)
            shutil.copy(source, folder / name)
    return folder


@pytest.fixture(scope="module")
def wheel(sources):
    """The wheel built from a copy of the sources (pip, setuptools, no build isolation)."""
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    dist = sources.parent / "dist"
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", dist, "."],
        cwd=sources,
        check=True,
    )
    (path,) = dist.glob("*.whl")
    return path


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory):
    """(venv folder, an empty working folder): the wheel installed in a fresh venv."""
    folder = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", folder / "env"], check=True)
    python = folder / "env" / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--python", python]
    subprocess.run([*pip, "install", "--no-deps", "-q", wheel], check=True)
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # This interpreter's site-packages, for the dependencies only: plain lines, so their .pth
    # files (this checkout's editable install among them) are not run.
    ours = [*site.getsitepackages(), sysconfig.get_paths()["purelib"], site.getusersitepackages()]
    ours = dict.fromkeys(p for p in ours if os.path.isdir(p))
    (pathlib.Path(purelib) / "_dependencies.pth").write_text("\n".join(ours) + "\n")
    (folder / "work").mkdir()
    return folder / "env", folder / "work"


def _environment():
    """This process's environment without a PYTHONPATH (nothing of the clone on the path)."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


def _run(venv, command, *arguments):
    """Run the venv's ``command`` (a file of its bin/) from the empty working folder."""
    env_folder, work = venv
    return subprocess.run(
        [env_folder / "bin" / command, *map(str, arguments)],
        cwd=work,
        env=_environment(),
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_wheel_holds_the_packages_their_data_and_no_scripts(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {name.split("/")[0] for name in names} == {
        *PACKAGES,
        f"ghost_euchre-{ghost_euchre_env.__version__}.dist-info",
    }  # no top-level train or evaluate module
    pretrained = "ghost_euchre/agents/pretrained"
    assert {f"{pretrained}/{n.file}" for n in NETWORKS.values()} <= names
    assert f"{pretrained}/README.md" in names
    assert f"ghost_euchre-{ghost_euchre_env.__version__}.dist-info/licenses/LICENSE" in names
    configs = {
        f"ghost_euchre/trainer/configs/{p.name}"
        for p in (ROOT / "ghost_euchre" / "trainer" / "configs").glob("*.yaml")
    }
    assert "ghost_euchre/trainer/configs/default.yaml" in configs and configs <= names
    static = {
        f"ghost_euchre/arena/web/static/{p.name}"
        for p in (ROOT / "ghost_euchre" / "arena" / "web" / "static").iterdir()
    }
    assert "ghost_euchre/arena/web/static/play.html" in static and static <= names
    published = {
        f"ghost_euchre/arena/published/{p.name}"
        for p in (ROOT / "ghost_euchre" / "arena" / "published").glob("*.json")
    }
    assert (
        published and published <= names
    )  # the benchmark's published cards (ghost_euchre.arena.cards)
    entry_points = zipfile.ZipFile(wheel).read(
        f"ghost_euchre-{ghost_euchre_env.__version__}.dist-info/entry_points.txt"
    )
    assert b"ghost-euchre-train = ghost_euchre.commands:train_main" in entry_points
    assert b"ghost-euchre-evaluate = ghost_euchre.commands:evaluate_main" in entry_points


def test_the_top_level_agents_and_configs_are_links_into_the_package_and_nothing_else_is():
    """Only the repository's two top-level names for reading are links (a checkout without
    symbolic links has a small text file naming the target there); the packages hold real
    files, so such a checkout builds and imports the same package."""
    for name, target in (
        ("agents", "ghost_euchre/agents"),
        ("configs", "ghost_euchre/trainer/configs"),
    ):
        path = ROOT / name
        assert (os.readlink(path) if path.is_symlink() else path.read_text()) == target
    assert [p for name in PACKAGES for p in (ROOT / name).rglob("*") if p.is_symlink()] == []


def test_the_sdist_holds_the_repository_s_layout_and_every_file_of_the_wheel(sources, wheel):
    """Each file of the sdist is a real file at the same path of the repository (none reached
    through a link, no folder copied twice), and the wheel is built from those files."""
    dist = sources.parent / "sdist"
    build = "import sys; from setuptools import build_meta; build_meta.build_sdist(sys.argv[1])"
    subprocess.run(
        [sys.executable, "-c", build, dist], cwd=sources, check=True, capture_output=True
    )
    (path,) = dist.glob("*.tar.gz")
    with tarfile.open(path) as tar:
        members = tar.getmembers()
    assert [m.name for m in members if m.issym() or m.islnk()] == []
    files = {m.name.split("/", 1)[1] for m in members if m.isfile()}
    made = {"PKG-INFO", "setup.cfg"} | {f for f in files if f.startswith("ghost_euchre.egg-info/")}
    assert [
        f for f in files - made if (ROOT / f).resolve() != ROOT / f or not (ROOT / f).is_file()
    ] == []
    installed = {n for n in zipfile.ZipFile(wheel).namelist() if ".dist-info/" not in n}
    assert installed <= files
    assert {"ghost_euchre/agents/specs.py", "ghost_euchre/trainer/configs/default.yaml"} <= files


def test_the_venv_imports_the_installed_copy_and_its_version(venv):
    code = (
        "import json, ghost_euchre_env, importlib.metadata as m;"
        "import ghost_euchre.agents as a, ghost_euchre.arena as b, ghost_euchre.trainer as c;"
        "print(json.dumps({'version': ghost_euchre_env.__version__,"
        " 'metadata': m.version('ghost-euchre'),"
        " 'files': [p.__file__ for p in (ghost_euchre_env, a, b, c)]}))"
    )
    result = _run(venv, "python", "-c", code)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["version"] == found["metadata"] == ghost_euchre_env.__version__
    for file in found["files"]:
        assert pathlib.Path(file).is_relative_to(venv[0]), file  # not the clone


def test_the_modules_run_as_commands_too(venv):
    for module, usage in (
        ("ghost_euchre.arena", "usage:"),
        ("ghost_euchre.trainer", "--config NAME|FILE"),
    ):
        result = _run(venv, "python", "-m", module, "--help")
        assert result.returncode == 0 and usage in result.stdout, result.stderr


def test_the_shipped_agent_plays_by_name_through_the_console_command(venv):
    result = _run(venv, "ghost-euchre-evaluate", "ppo:ghost", "heuristic", "heuristic")
    assert result.returncode == 0, result.stderr
    assert "ppo:ghost" in result.stdout and "heuristic#2" in result.stdout
    result = _run(venv, "ghost-euchre-evaluate", "ppo:ghots", "heuristic", "heuristic")
    assert result.returncode == 2 and "the shipped networks are" in result.stderr


def test_the_published_benchmark_cards_are_found_from_the_wheel(venv):
    code = (
        "import json; from ghost_euchre.arena.cards import PUBLISHED_DIR, published_cards;"
        "print(json.dumps([PUBLISHED_DIR, [c['spec'] for c in published_cards('ghost')]]))"
    )
    result = _run(venv, "python", "-c", code)
    assert result.returncode == 0, result.stderr
    folder, specs = json.loads(result.stdout)
    assert pathlib.Path(folder).is_relative_to(venv[0]) and "ppo:ghost" in specs


def test_the_search_bot_reads_the_installed_network(venv):
    """``search``'s default network and playouts are the package's file, found from any folder."""
    spec = "search:samples=2,pool=2"
    result = _run(venv, "ghost-euchre-evaluate", spec, "heuristic", "heuristic", "--games", "6")
    assert result.returncode == 0 and spec in result.stdout, result.stderr


def test_a_few_training_updates_on_the_default_config(venv):
    result = _run(
        venv,
        "ghost-euchre-train",
        *("--name", "wheel", "--num_envs", "64", "--total_steps", "4096"),
        *("--eval_every", "0", "--final_eval_games", "6", "--progress", "false"),
        *("--torch_threads", "1"),
    )
    assert result.returncode == 0, result.stderr
    run = venv[1] / "runs" / "wheel"
    assert (run / "policy.pt").is_file() and (run / "final.pt").is_file()
    assert "2 updates of 2048 decisions" in result.stdout
    header = (run / "config.yaml").read_text(encoding="utf-8")
    assert header.startswith("# the config of this run (fields: ghost-euchre-train --help)")


SCRIPT_NAMES = ("evaluate.py", "train.py")  # a clone's scripts, which an install does not have


def test_no_output_of_the_installed_commands_names_a_clone_script(venv):
    """Help, usage errors and one-line errors name the commands as the user typed them."""
    evaluate = "ghost-euchre-evaluate"
    runs = [
        (evaluate, "--help"),
        *((evaluate, sub, "--help") for sub in ("replay", "leaderboard", "serve", "exploit")),
        (evaluate, "--games", "3"),  # no SPEC: argparse's usage error
        (evaluate, "human", "heuristic", "heuristic", "--json", "x.json"),
        (evaluate, "mybots:LowCard", "heuristic", "heuristic"),  # no such module
        (evaluate, "--league", "human", "heuristic", "random"),
        (evaluate, "leaderboard", "--db", "missing.sqlite"),
        (evaluate, "exploit", "human"),
        (evaluate, "exploit", "heuristic", "--init", "nothing.pt"),
        ("ghost-euchre-train", "--help"),
        ("ghost-euchre-train", "--resume", "nothing.pt"),
        ("ghost-euchre-train", "--total_steps", "many"),
        (
            "python",
            "-m",
            "ghost_euchre.arena",
            "exploit",
            "--help",
        ),  # the trainer's subcommand, by module too
    ]
    for command in runs:
        result = _run(venv, *command)
        said = result.stdout + result.stderr
        assert result.returncode in (0, 2), (command, said)
        assert not [name for name in SCRIPT_NAMES if name in said], (command, said)
        if command[0] == "python":
            assert "usage: python -m ghost_euchre.arena exploit" in said, said
    help_text = _run(venv, evaluate, "--help").stdout
    for sub in ("replay", "leaderboard", "serve", "exploit"):
        assert f"{evaluate} {sub}" in help_text  # --help lists every subcommand
    assert "(default: 1)" in _run(venv, "ghost-euchre-train", "--help").stdout  # defaults shown


def test_the_native_vector_env_and_the_named_views_work_from_the_wheel(venv):
    """What outside code reaches: make_vec's batched env with heuristic opponents, SB3's VecEnv, and an
    observation read by name."""
    code = (
        "import gymnasium, numpy as np, ghost_euchre_env\n"
        "from ghost_euchre_env import variants\n"
        "from ghost_euchre_env.interop.sb3 import SB3VecEnv\n"
        "envs = gymnasium.make_vec('GhostEuchre-v0', num_envs=8, opponents='heuristic', episode='deal')\n"
        "obs, info = envs.reset(seed=0)\n"
        "ghost = variants.make('ghost')\n"
        "view = ghost.view(obs)\n"
        "assert view.hand.shape == (8, 24) and (ghost.encode(view) == obs).all()\n"
        "for _ in range(50):\n"
        "    obs, reward, term, trunc, info = envs.step(envs.action_masks().argmax(axis=1))\n"
        "print(type(envs).__name__, SB3VecEnv.__name__, ghost.actions.PASS)\n"
    )
    result = _run(venv, "python", "-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["EuchreVectorEnv", "SB3VecEnv", "24"]


def test_the_docs_examples_run_from_the_wheel(venv):
    """docs/bots.md's rule bot by its installed module name, and the CleanRL-style example's help."""
    bot = "ghost_euchre.examples.rule_bots:GhostBowers"
    result = _run(venv, "ghost-euchre-evaluate", bot, "heuristic", "random", "--games", "6")
    assert result.returncode == 0 and bot in result.stdout, result.stderr
    result = _run(venv, "python", "-m", "ghost_euchre.examples.cleanrl_ppo", "--help")
    assert result.returncode == 0 and "--env-id" in result.stdout, result.stderr
    where = "import ghost_euchre.examples as e; print(e.__path__[0])"
    folder = pathlib.Path(_run(venv, "python", "-c", where).stdout.strip()) / "proc"
    assert sorted(p.name for p in folder.glob("*.c")) == ["first_legal.c", "simple_rule.c"]
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler:  # docs/protocol.md's steps: copy, compile, play
        program = venv[1] / "first_legal"
        subprocess.run([compiler, "-O2", "-o", program, folder / "first_legal.c"], check=True)
        result = _run(venv, "ghost-euchre-evaluate", "proc:./first_legal", "heuristic", "random")
        assert result.returncode == 0 and "proc:./first_legal" in result.stdout, result.stderr


def test_shipped_configs_and_networks_are_found_by_name(venv):
    code = (
        "from ghost_euchre.trainer.cli import parse_args;"
        "classic, _, stem = parse_args(['--config', 'classic']);"
        "bidder, _, _ = parse_args(['--config', 'bidding']);"  # init_from: ghost-180m, loaded
        "print(classic.variant, stem, bidder.init_from)"
    )
    result = _run(venv, "python", "-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["classic", "classic", "ghost-180m"]


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_page_is_served(venv):
    port = _free_port()
    env_folder, work = venv
    server = subprocess.Popen(
        [env_folder / "bin" / "ghost-euchre-evaluate", "serve", "--port", str(port)],
        cwd=work,
        env=_environment(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        page = options = None
        for _ in range(3000):  # until the server listens (it imports torch first)
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/play")
                options = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/options"))
                break
            except urllib.error.URLError:
                assert server.poll() is None, server.communicate()[1]
                time.sleep(0.1)
        assert page is not None and page.status == 200
        assert b"<html" in page.read().lower()
        assert options is not None and "ppo:ghost" in options["specs"]
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/leaderboard")
            raise AssertionError("a leaderboard without a store")
        except urllib.error.HTTPError as error:  # no store yet: how to play a league, by command
            message = json.load(error)["error"]
        assert "ghost-euchre-evaluate --league" in message and "evaluate.py" not in message
    finally:
        server.terminate()
        server.wait()


@pytest.fixture(scope="module")
def light_venv(wheel, tmp_path_factory):
    """(venv folder, a working folder): the wheel with its own dependencies alone (no extras)."""
    folder = tmp_path_factory.mktemp("light")
    subprocess.run([sys.executable, "-m", "venv", folder / "env"], check=True)
    python = folder / "env" / "bin" / "python"
    pip = [python, "-m", "pip", "--disable-pip-version-check", "-q", "install"]
    subprocess.run([*pip, wheel, "-c", ROOT / "constraints.txt"], check=True, env=_environment())
    (folder / "work").mkdir()
    return folder / "env", folder / "work"


def test_the_light_install_has_no_extra(light_venv):
    code = "import importlib.util as u, sys; print(*[m for m in sys.argv[1:] if u.find_spec(m)])"
    result = _run(light_venv, "python", "-c", code, *EXTRAS_ONLY)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == []


def test_the_light_install_plays_a_pettingzoo_game_and_a_heuristic_match(light_venv):
    code = (
        "from ghost_euchre_env import ghost_euchre_v0\n"
        "import numpy as np\n"
        "env = ghost_euchre_v0.env(episode='deal')\n"
        "env.reset(seed=3)\n"
        "steps = 0\n"
        "for agent in env.agent_iter():\n"
        "    obs, reward, term, trunc, info = env.last()\n"
        "    mask = obs['action_mask']\n"
        "    env.step(None if term or trunc else int(np.flatnonzero(mask)[0]))\n"
        "    steps += 1\n"
        "print('steps', steps)\n"
    )
    result = _run(light_venv, "python", "-c", code)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.split()[-1]) > 3
    result = _run(
        light_venv,
        "ghost-euchre-evaluate",
        "heuristic",
        "heuristic",
        "pimc:samples=4",
        "--games",
        "6",
    )
    assert result.returncode == 0, result.stderr
    assert "pimc:samples=4" in result.stdout


def test_the_light_install_plays_every_shipped_bot_and_analyses_without_torch(light_venv):
    """The networks play by their compiled forward pass (no torch), so do search's playouts and
    the oracle; a recorded match is analysed."""
    for variant, bots in (
        ("ghost", ("ppo:ghost", "search:samples=8", "oracle:samples=4")),
        ("classic", ("ppo:classic", "ppo:classic-bidder", "heuristic", "random")),
    ):
        command = ["ghost-euchre-evaluate", "--variant", variant, *bots, "--games", "2"]
        result = _run(light_venv, *command, "--record", f"{variant}.json", "--quiet")
        assert result.returncode == 0, result.stderr
        assert all(bot in result.stdout for bot in bots), result.stdout
    result = _run(light_venv, "ghost-euchre-evaluate", "analyse", "ghost.json", "--game", "0")
    assert result.returncode == 0, result.stderr
    assert "points lost against double-dummy play" in result.stdout


def test_a_command_that_needs_an_extra_names_it_in_one_line(light_venv):
    for command, extra in (
        (("ghost-euchre-evaluate", "exploit", "heuristic"), "train"),
        (("ghost-euchre-evaluate", "heuristic", "heuristic", "random", "--plot", "p.png"), "plot"),
        (("ghost-euchre-evaluate", "serve", "--port", "0"), "web"),
        (("ghost-euchre-train", "--total_steps", "64"), "train"),
    ):
        result = _run(light_venv, *command)
        assert result.returncode == 2, (command, result.stderr)
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
        assert f"pip install 'ghost-euchre[{extra}]'" in result.stderr, result.stderr
    assert not (light_venv[1] / "p.png").exists() and not (light_venv[1] / "runs").exists()


def test_a_match_runs_beside_the_user_s_own_agents_and_arena_packages(light_venv):
    """A working folder with packages of its own named agents/ and arena/ (PYTHONPATH=., as the
    docs say to reach a bot of one's own): the commands use the project's names only."""
    work = light_venv[1] / "mine"
    for package in ("agents", "arena"):
        (work / package).mkdir(parents=True)
        (work / package / "__init__.py").write_text("")
        (work / package / "checked.py").write_text("raise RuntimeError('not the project')\n")
    (work / "agents" / "mybot.py").write_text(
        "from ghost_euchre.agents.random_policy import RandomPolicy\n\n\n"
        "class MyBot(RandomPolicy):\n    name = 'mybot'\n"
    )
    result = subprocess.run(
        [
            light_venv[0] / "bin" / "ghost-euchre-evaluate",
            "heuristic",
            "random",
            "agents.mybot:MyBot",
            "--games",
            "6",
        ],
        cwd=work,
        env={**_environment(), "PYTHONPATH": "."},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "agents.mybot:MyBot" in result.stdout and "note:" not in result.stderr
