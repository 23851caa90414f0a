"""The web page's HTTP edge: what a request must be before any route of :mod:`ghost_euchre.arena.web` runs.

- :class:`SameOrigin` (ASGI middleware): the ``Host`` header must be a host
  and an optional port, nothing else, and name this server (its bound address
  or a loopback name: a foreign name is DNS rebinding), an ``Origin`` must be
  the page's own and ``Sec-Fetch-Site`` on ``/api/`` must not say another site,
  a request with a body (POST, PUT, PATCH) must say ``Content-Type:
  application/json`` (a cross-site form or ``text/plain`` post needs no CORS
  preflight; this one does), a request may not carry both ``Content-Length``
  and ``Transfer-Encoding`` (refused, its connection closed: a request
  smuggled behind a proxy), and a WebSocket upgrade is refused (the page
  speaks none) after the same checks. Every response, refusals and the 400 of a
  malformed request included, carries :data:`SECURITY_HEADERS` (``nosniff``,
  frame denial, the page's Content-Security-Policy).
- :func:`read_json`: a body of at most ``MAX_BODY_BYTES``, JSON nested at most
  ``MAX_JSON_DEPTH`` deep, integers of at most ``MAX_INT_DIGITS`` digits, no
  NaN or Infinity, no lone surrogate in any string.
- :func:`error_response`: every error is ``{"error": "one line"}``, at most
  ``MAX_ERROR_CHARS`` characters, whatever it quotes.
- :func:`until_gone`: a route's work in a worker thread, told to stop (a
  ``threading.Event``) once the client has disconnected.
- :func:`serve_config`, :func:`listen`: the uvicorn settings of the page and
  its listening socket; :func:`guarded_protocol`: uvicorn's h11 protocol with a deadline for
  a connection's first byte and for each whole request to arrive (uvicorn times
  out idle keep-alive connections only, not a connection that never finishes
  its first request), a cap on open connections kept below the process's file
  descriptor limit (:func:`connection_cap`: descriptors stay in reserve for the
  rest of the server), at which a new connection closes the longest idle one
  that has not sent a byte (else it gets a JSON 503), and JSON for the 400 of a
  malformed request. ``X-Forwarded-For`` is believed only from the proxy the
  operator names (uvicorn's ``proxy_headers`` and ``forwarded_allow_ips``);
  else the client is the socket's peer.
"""

import functools
import ipaddress
import json
import logging
import os
import re
import socket
import threading
import time

import anyio
import h11
import uvicorn
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from uvicorn.protocols.http.h11_impl import H11Protocol

MAX_BODY_BYTES = 1 << 20
MAX_JSON_DEPTH = 32
MAX_INT_DIGITS = 30
MAX_ERROR_CHARS = 300
BODY_METHODS = ("POST", "PUT", "PATCH")
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", CSP.encode()),
)
# A Host header as a browser sends it: a name or IPv4 address, or an IPv6 one in brackets; a port.
HOST_RE = re.compile(r"(?:\[(?P<ip6>[0-9a-f:.]+)\]|(?P<name>[a-z0-9.-]+))(?::[0-9]{1,5})?")
# Descriptors kept for the server itself (its files, the store, a policy file, threads' pipes).
FD_RESERVE = 32


class ApiError(Exception):
    """A request the API refuses: HTTP ``status`` and a one-line ``message``."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


def one_line(message):
    """``message`` as one line of at most MAX_ERROR_CHARS characters, encodable as UTF-8."""
    text = " ".join(str(message).split())
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 3] + "..."


def error_response(status, message, close=False):
    """The JSON error response: ``{"error": one_line(message)}`` with HTTP ``status`` and the
    security headers (close: the connection is closed after it)."""
    headers = {name.decode(): value.decode() for name, value in SECURITY_HEADERS}
    if close:
        headers["connection"] = "close"
    return JSONResponse({"error": one_line(message)}, status_code=status, headers=headers)


def with_security_headers(headers):
    """``headers`` (a list of (bytes, bytes)) with every one of SECURITY_HEADERS it lacks added."""
    present = {name.lower() for name, _ in headers}
    return [*headers, *((n, v) for n, v in SECURITY_HEADERS if n not in present)]


# --------------------------------------------------------------------- bodies
def _bounded_int(text):
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {digits} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def _no_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def parse_json(raw):
    """The JSON value of the bytes ``raw`` (b"": {}), checked as the module docstring says (ApiError 400)."""
    if not raw:
        return {}
    try:
        value = json.loads(raw, parse_int=_bounded_int, parse_constant=_no_constant)
    except RecursionError:
        raise ApiError(400, f"request body nests deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as error:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise ApiError(400, f"request body is not valid JSON: {error}") from None
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise ApiError(400, f"request body nests deeper than {MAX_JSON_DEPTH} levels")
        if isinstance(item, dict):
            stack.extend((k, depth + 1) for k in item)
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise ApiError(400, "request body holds a lone surrogate in a string") from None
    return value


async def read_json(request):
    """The checked JSON body of ``request`` (ApiError 413 when over MAX_BODY_BYTES, 400 if bad)."""
    length = request.headers.get("content-length", "")
    too_large = ApiError(413, f"request body over {MAX_BODY_BYTES} bytes")
    if length and (not length.isdigit() or len(length) > 12 or int(length) > MAX_BODY_BYTES):
        raise too_large
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise too_large
        chunks.append(chunk)
    return parse_json(b"".join(chunks))


# ------------------------------------------------------------------- origins
def _host_name(host):
    """'127.0.0.1:8000' -> '127.0.0.1', '[::1]:8000' -> '::1', lower case; None for anything
    but a host and an optional port ('127.0.0.1:80@evil.example', '[::1].evil.example')."""
    found = HOST_RE.fullmatch(host.strip().lower())
    return None if found is None else found.group("ip6") or found.group("name")


class SameOrigin:
    """ASGI middleware: refuse foreign hosts, cross-site requests, non-JSON bodies, ambiguous
    framing and WebSocket upgrades; add the security headers (module docstring).

    hosts: the host names (no port) the ``Host`` header may carry; any_ip: any IP
    literal is accepted too (a server bound to every interface).
    """

    def __init__(self, app, hosts=LOOPBACK_NAMES, any_ip=False):
        self.app = app
        self.hosts = {h.lower() for h in hosts}
        self.any_ip = any_ip

    def refusal(self, scope):
        """(status, message, close the connection) refusing the request of ``scope``, or None."""
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        name = _host_name(host)
        if name is None or (name not in self.hosts and not (self.any_ip and _is_ip(name))):
            return (
                400,
                f"Host {host[:80]!r} is not this server's address; open the page by its address",
                False,
            )
        origin = headers.get("origin")
        scheme = {"ws": "http", "wss": "https"}.get(scope.get("scheme"), scope.get("scheme"))
        if origin is not None and origin.lower() != f"{scheme or 'http'}://{host}".lower():
            return (
                403,
                f"cross-origin request refused: Origin {origin[:80]!r} is not this page",
                False,
            )
        site = headers.get("sec-fetch-site", "")
        if scope["path"].startswith("/api/") and site in ("cross-site", "same-site"):
            return 403, f"cross-site request refused (Sec-Fetch-Site: {site})", False
        if scope["type"] == "websocket" or "websocket" in headers.get("upgrade", "").lower():
            return (
                400,
                "this server speaks no WebSocket: the page's API is plain HTTP and JSON",
                True,
            )
        framing = [k for k, _ in scope["headers"] if k in (b"content-length", b"transfer-encoding")]
        if len(framing) > 1:
            return (
                400,
                (
                    "a request carries one Content-Length or one Transfer-Encoding, not "
                    f"{b' and '.join(framing).decode()}; the connection is closed"
                ),
                True,
            )
        media = headers.get("content-type", "").split(";")[0].strip().lower()
        if scope["method"] in BODY_METHODS and media != "application/json":
            return 415, f"a {scope['method']} body must be Content-Type: application/json", False
        return None

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] not in ("http", "websocket"):
            return
        refused = self.refusal({"method": "GET", **scope})
        if refused is not None:
            status, message, close = refused
            response = error_response(status, message, close)
            if scope["type"] == "websocket":
                await _deny_websocket(scope, receive, send, response)
            else:
                await response(scope, receive, send)
            return

        async def send_guarded(message):
            if message["type"] == "http.response.start":
                message["headers"] = with_security_headers(message.get("headers", []))
            await send(message)

        await self.app(scope, receive, send_guarded)


async def _deny_websocket(scope, receive, send, response):
    """Refuse a WebSocket handshake with ``response`` (ASGI's denial response where the server
    offers it, else a close)."""
    await receive()  # websocket.connect
    if "websocket.http.response" not in scope.get("extensions", {}):
        await send({"type": "websocket.close", "code": 1008})
        return
    headers = [(k.encode(), v.encode()) for k, v in response.headers.items()]
    await send(
        {
            "type": "websocket.http.response.start",
            "status": response.status_code,
            "headers": headers,
        }
    )
    await send({"type": "websocket.http.response.body", "body": response.body})


def _is_ip(name):
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


# ------------------------------------------------------------------ requests
async def until_gone(request, work, limiter=None):
    """``work(stop)`` in a worker thread (``limiter``: an anyio CapacityLimiter); its result.

    stop: a threading.Event set as soon as the server sees the client disconnect
    (call this once the request's body has been read: what the client sends
    after it is its hang-up); work is expected to return early then.
    """
    stop = threading.Event()

    async def watch():
        while (await request.receive())["type"] != "http.disconnect":
            pass
        stop.set()

    result, failure = None, None
    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        try:
            result = await anyio.to_thread.run_sync(functools.partial(work, stop), limiter=limiter)
        except Exception as error:  # noqa: BLE001 (raised below, outside the task group's wrapping)
            failure = error
        group.cancel_scope.cancel()
    if failure is not None:
        raise failure
    return result


# ------------------------------------------------------------------ uvicorn
async def _busy(scope, receive, send):
    await error_response(
        503, "the server has too many connections open; try again shortly", close=True
    )(scope, receive, send)


def free_descriptors():
    """File descriptors this process may still open under its soft RLIMIT_NOFILE (None: no limit)."""
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):  # no such limit on this system
        return None
    if limit == resource.RLIM_INFINITY:
        return None
    try:
        in_use = len(os.listdir("/proc/self/fd"))
    except OSError:
        in_use = 0
    return limit - in_use


def accept_batch(cap, most=128):
    """Connections accepted in one round of the event loop, given the connection cap ``cap``.

    asyncio accepts up to the server's ``backlog`` at once, and a connection accepted holds its
    descriptor for a few rounds before the cap can close one to make room: about four batches
    are open beyond the cap at a burst. They must fit in the descriptors the cap leaves free
    (less FD_LOW), or an accept meets an exhausted limit, which stops all accepting for a second
    (asyncio's retry delay) and logs. At least 1."""
    free = free_descriptors()
    if free is None:
        return most
    return max(1, min(most, (free - cap - FD_LOW) // 4))


class LogOnce(logging.Filter):
    """Lets asyncio's "socket.accept() out of system resource" through once (then drops it and
    counts): out of descriptors, asyncio writes it with a traceback for every try."""

    MESSAGE = "socket.accept() out of system resource"

    def __init__(self):
        super().__init__()
        self.dropped = 0

    def filter(self, record):
        if not str(record.msg).startswith(self.MESSAGE):
            return True
        self.dropped += 1
        if self.dropped > 1:
            return False
        record.msg = (
            f"{self.MESSAGE}: too many open files; new connections wait until some close "
            "(raise the open-file limit, ulimit -n; said once)"
        )
        record.args, record.exc_info, record.exc_text = (), None, None
        return True


FD_LOW = 8  # descriptors a new connection leaves free, counted when it is made


def _short_of_descriptors():
    """Whether fewer than FD_LOW descriptors are free now: what the server opened since the cap
    was set (the store, its threads) counts too, so an accept never meets an exhausted limit (each
    such accept pauses the whole server for a second)."""
    free = free_descriptors()
    return free is not None and free < FD_LOW


ACCEPT_LOG = LogOnce()  # the filter serve_config puts on asyncio's logger (one for the process)


def connection_cap(max_connections):
    """``max_connections``, lowered so that the open connections leave FD_RESERVE file descriptors
    (and those open now) to the rest of the server under the process's soft RLIMIT_NOFILE."""
    free = free_descriptors()
    return max_connections if free is None else max(1, min(max_connections, free - FD_RESERVE))


def guarded_protocol(request_timeout_s=10.0, max_connections=100, idle_timeout_s=5.0):
    """A uvicorn ``http=`` protocol class: h11 with the deadlines and connection cap above.

    idle_timeout_s: seconds for a new connection's first byte; request_timeout_s:
    seconds for a whole request (headers and body) to arrive, counted from the
    connection or from the previous response; max_connections: connections open
    at once (lowered by :func:`connection_cap`); a connection beyond it closes the
    one idle longest without a byte sent, or, when none is, gets a JSON 503 and is closed.
    """
    cap = connection_cap(max_connections)

    class GuardedH11Protocol(H11Protocol):
        deadline = None
        started = 0.0  # when the connection was made (monotonic seconds)
        heard = False  # whether the client has sent a byte

        def connection_made(self, transport):
            super().connection_made(transport)
            self.started = time.monotonic()
            full = len(self.connections) > cap or _short_of_descriptors()
            if full and not self._close_an_idle_one():
                self.app = _busy
            self._arm(idle_timeout_s)

        def data_received(self, data):
            if not self.heard:
                self.heard = True
                self._arm(request_timeout_s - (time.monotonic() - self.started))
            super().data_received(data)

        def on_response_complete(self):
            super().on_response_complete()
            self._arm(request_timeout_s)

        def connection_lost(self, exc):
            if self.deadline is not None:
                self.deadline.cancel()
            super().connection_lost(exc)

        def _close_an_idle_one(self):
            """Close the connection open longest that has sent nothing (True), else False."""
            silent = [
                c
                for c in self.connections
                if isinstance(c, GuardedH11Protocol)
                and c is not self
                and not c.heard
                and not c.transport.is_closing()
            ]
            if not silent:
                return False
            oldest = min(silent, key=lambda c: c.started)
            oldest.transport.close()
            self.connections.discard(oldest)
            return True

        def _arm(self, seconds):
            if self.deadline is not None:
                self.deadline.cancel()
            self.deadline = self.loop.call_later(max(seconds, 0.0), self._expire)

        def _expire(self):
            receiving = self.conn.their_state in (h11.IDLE, h11.SEND_BODY)
            if receiving and not self.transport.is_closing():
                self.transport.close()

        def send_400_response(self, msg):
            body = json.dumps({"error": one_line(f"invalid HTTP request: {msg}")}).encode()
            headers = with_security_headers(
                [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ]
            )
            for event in (
                h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
                h11.Data(data=body),
                h11.EndOfMessage(),
            ):
                self.transport.write(self.conn.send(event))
            self.transport.close()

    return GuardedH11Protocol


def is_loopback(host):
    """True if ``host`` names this machine only (127.0.0.0/8, ::1, localhost)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def listen(host, port):
    """A listening TCP socket on host:port (OSError when it cannot be had, e.g. the port in use)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named: asyncio sets TCP_NODELAY only on sockets that say so (else Nagle's
    # algorithm holds each response's body for the client's delayed ACK, about 40 ms)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def trusted_proxies(behind_proxy, trust_every=False):
    """uvicorn's ``forwarded_allow_ips`` for ``--behind-proxy`` (None: ignore ``X-Forwarded-For``).

    behind_proxy: comma-separated IP addresses or networks (``10.0.0.5``, ``10.0.0.0/8``,
    ``::1``), or None; trust_every: believe the header from every peer (``"*"``), an explicit
    choice that defeats the per-client game cap for anyone who can reach the page. ValueError (one
    line) for anything else: a host name, a port, ``*``, an empty item, or a network holding every
    address (``0.0.0.0/0``) without trust_every."""
    if trust_every:
        if behind_proxy is not None:
            raise ValueError("--trust-every-proxy believes every peer: drop --behind-proxy")
        return "*"
    if behind_proxy is None:
        return None
    trusted = []
    for item in str(behind_proxy).split(","):
        try:
            network = ipaddress.ip_network(item.strip(), strict=False)
        except ValueError:
            raise ValueError(
                f"--behind-proxy {behind_proxy!r}: {item.strip()!r} is not an IP address or network "
                "(e.g. 127.0.0.1, 10.0.0.0/8, ::1; several separated by commas; every peer: "
                "--trust-every-proxy)"
            ) from None
        if network.prefixlen == 0:
            raise ValueError(
                f"--behind-proxy {behind_proxy!r}: {item.strip()!r} holds every address; to believe "
                "X-Forwarded-For from every peer say so with --trust-every-proxy"
            )
        address = network.network_address
        trusted.append(str(address) if network.num_addresses == 1 else str(network))
    return ",".join(trusted)


def serve_config(app, request_timeout_s=10.0, max_connections=100, idle_timeout_s=5.0, proxy=None):
    """The uvicorn Config of the page: h11 with deadlines and a connection cap
    (:func:`ghost_euchre.arena.web.guard.guarded_protocol`), 5 s keep-alive, 8 kB of headers at most, no
    WebSocket protocol (an upgrade reaches :class:`SameOrigin` as a plain request, refused).

    proxy: the addresses of the reverse proxy in front of the server, whose
    ``X-Forwarded-For`` names the client (uvicorn's ``forwarded_allow_ips``, as
    :func:`trusted_proxies` returns it); None: the header is ignored and the client is
    the socket's peer.
    """
    logging.getLogger("asyncio").addFilter(ACCEPT_LOG)  # out of descriptors: said once
    return uvicorn.Config(
        app,
        http=guarded_protocol(request_timeout_s, max_connections, idle_timeout_s),
        ws="none",
        timeout_keep_alive=5,
        h11_max_incomplete_event_size=8192,
        limit_concurrency=4 * max_connections,  # uvicorn's own cap, behind ours
        backlog=accept_batch(connection_cap(max_connections)),
        proxy_headers=proxy is not None,
        forwarded_allow_ips=proxy,
        log_level="warning",
    )
