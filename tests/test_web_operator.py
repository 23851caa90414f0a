"""Issue 54, class 6: the page's operator options and limits. ``--behind-proxy`` takes IP addresses and
networks only (trusting every peer is its own flag); under a low open-file limit the page refuses new
connections before its descriptors run out, answers within 2 s and says so once; a policy file swapped
for a symlink while it is read is a 4xx, never a 500."""

import errno
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from ghost_euchre.arena import cli as evaluate
from ghost_euchre.arena.web.gate import SpecGate
from ghost_euchre.arena.web.guard import trusted_proxies

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize(
    ("value", "trusted"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("10.0.0.0/8, ::1", "10.0.0.0/8,::1"),
        ("192.168.1.7/32", "192.168.1.7"),
        (None, None),
    ],
)
def test_behind_proxy_takes_addresses_and_networks(value, trusted):
    assert trusted_proxies(value) == trusted


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("*", "'*' is not an IP address or network"),
        ("not-an-address", "'not-an-address' is not an IP address or network"),
        ("999.1.1.1", "'999.1.1.1' is not an IP address"),
        ("", "'' is not an IP address"),
        ("127.0.0.1:evil", "'127.0.0.1:evil' is not an IP address"),
        ("0.0.0.0/0", "holds every address; to believe X-Forwarded-For from every peer"),
    ],
)  # fmt: skip
def test_behind_proxy_refuses_anything_else_before_the_page_starts(value, message, capsys):
    assert evaluate.main(["serve", "--port", "0", "--behind-proxy", value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "--behind-proxy" in err, err


def test_trusting_every_peer_is_its_own_flag():
    assert trusted_proxies(None, trust_every=True) == "*"
    with pytest.raises(ValueError, match="drop --behind-proxy"):
        trusted_proxies("127.0.0.1", trust_every=True)


def test_a_policy_file_swapped_under_realpath_is_not_offered(tmp_path, monkeypatch):
    (tmp_path / "net.pt").write_bytes(b"")
    gate = SpecGate([str(tmp_path)])

    def swapped(path):
        raise OSError(errno.EINVAL, "Invalid argument", path)  # readlink of a file no longer a link

    monkeypatch.setattr(os.path, "realpath", swapped)
    with pytest.raises(ValueError, match="is not a policy file of this page"):
        gate.policy_path("net.pt")


LOW_LIMIT = (  # the page under an open-file limit of 48
    "import resource, sys; resource.setrlimit(resource.RLIMIT_NOFILE, (48, 48)); "
    "from ghost_euchre.arena.cli import main; sys.exit(main(sys.argv[1:]))"
)


@pytest.mark.slow
def test_under_a_low_open_file_limit_idle_sockets_do_not_stall_the_page(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = tmp_path / "serve.log"
    with open(log, "w") as out:
        server = subprocess.Popen(
            [sys.executable, "-c", LOW_LIMIT, "serve", "--port", str(port), "--db", str(tmp_path / "none.sqlite")],
            stdout=out, stderr=out, env={**os.environ, "PYTHONPATH": ROOT},
        )  # fmt: skip
    sockets = []
    try:
        deadline = time.monotonic() + 60
        while "Ctrl-C stops" not in log.read_text():
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        # idle: connected, never a byte
        sockets += [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(108)]
        # answered within 2 s (it was 8 s, with the descriptors gone)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/options", timeout=2) as answer:
            assert answer.status == 200
    finally:
        for sock in sockets:
            sock.close()
        server.terminate()
        server.wait(timeout=30)
    lines = log.read_text().splitlines()
    assert sum("out of system resource" in line for line in lines) <= 1, lines[:20]
    assert len(lines) < 10, lines[:20]
