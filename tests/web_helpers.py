"""Helpers of the web page's tests: a client as the page calls the API, a served app, a gated bot."""

import contextlib
import socket
import threading

import numpy as np
import uvicorn
from starlette.testclient import TestClient

from ghost_euchre.agents.base import Policy
from ghost_euchre.arena.web.guard import serve_config

BASE = "http://127.0.0.1:8000"  # the Host the app serves (a loopback name)
MAX_ERROR_BYTES = 1000


def web_client(app, **kwargs):
    """A TestClient of ``app`` as the page calls it: a loopback Host, JSON bodies."""
    return TestClient(app, base_url=BASE, headers={"content-type": "application/json"}, **kwargs)


def assert_error(response, status, *words):
    """``response`` is ``{"error": "one line"}`` with ``status``, short, naming every word."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json"), response.text
    assert len(response.content) < MAX_ERROR_BYTES, len(response.content)
    body = response.json()
    assert list(body) == ["error"] and isinstance(body["error"], str), body
    message = body["error"]
    assert "\n" not in message and message.strip(), message
    for word in words:
        assert word in message, message
    return message


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def served(app, **limits):
    """``app`` served by uvicorn with the page's settings (``serve_config(app, **limits)``) on a
    free local port, in a thread; yields (port, the uvicorn Server)."""
    port = free_port()
    config = serve_config(app, **limits)
    config.host, config.port = "127.0.0.1", port
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(3000):
        if server.started:
            break
        thread.join(0.01)
    assert server.started, "uvicorn did not start"
    try:
        yield port, server
    finally:
        server.should_exit = True
        thread.join(30)


class Gated(Policy):
    """A bot whose decisions wait for ``Gated.release`` (a threading.Event); counts them.

    ``Gated.entered`` is set when a decision starts. For the tests of a client
    that leaves while the bots think (allowed with ``SpecGate(allowed=["web_helpers:Gated"])``).
    """

    name = "gated"
    release = threading.Event()
    entered = threading.Event()
    calls = 0

    def act(self, obs, mask):
        type(self).calls += 1
        type(self).entered.set()
        assert type(self).release.wait(60), "the test never released the bot"
        return np.asarray(mask).argmax(axis=1).astype(np.int64)
