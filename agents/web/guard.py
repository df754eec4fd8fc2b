"""What the web app checks before a request reaches a game: its Host, its Origin, its content type
and the size and depth of its body.

Why: the server listens on this machine, and any web page the user opens can send requests to
`http://127.0.0.1:8000`. A page of another site cannot read the answers, but a "simple" request
(`text/plain`, a form) needs no permission, and a site whose name resolves to 127.0.0.1 (DNS
rebinding) sends its own name as Host. So:

- every request must name an allowed host (`Host`; default: the address the server listens on
  and this machine's loopback names), else 400;
- every POST must come from the page itself: an `Origin`, when sent, must be this server's
  (`http://<Host>`), and the body must be `application/json` (records: JSON lines), a type a
  page of another site cannot send without asking first (CORS preflight, never granted here);
- a body is refused by its `Content-Length` and, when streamed, as soon as it grows past the
  limit (413), and JSON nested too deeply is a 400, never a crash;
- one client (`client_key`: its address, an IPv6 client's /64) has bounded shares: the server's
  sessions and memory (`server.Store`) and bot moves in flight (`ClientQuota`), so no client can
  take what others need (429 past its share).
"""
from __future__ import annotations

import ipaddress
import json
import threading
from collections import Counter
from contextlib import contextmanager

#: Loopback names: the hosts allowed when the server listens on a loopback address.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
#: Addresses that listen on every interface: the allowed hosts must then be named.
WILDCARD_HOSTS = ("0.0.0.0", "::", "")


class RequestError(Exception):
    """A request the server refuses: `status` (4xx, or 5xx for a failing bot) and a message."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def host_name(host_header: str) -> str:
    """The name in a Host header, without the port (`[::1]:8000` -> `::1`), lower case."""
    h = host_header.strip().lower()
    if h.startswith("["):
        return h[1:h.find("]")] if "]" in h else h
    return h.rsplit(":", 1)[0] if h.count(":") == 1 else h


def allowed_hosts_for(listen: str, extra=()) -> tuple[str, ...]:
    """The hosts a server listening on `listen` answers to: `extra` and, unless `listen` is a
    wildcard address, `listen` itself and the loopback names."""
    hosts = [host_name(h) for h in extra]
    if listen not in WILDCARD_HOSTS:
        hosts += [host_name(listen), *LOOPBACK_HOSTS]
    return tuple(dict.fromkeys(hosts))


def check_host(headers, allowed: tuple[str, ...]) -> None:
    host = host_name(headers.get("host", ""))
    if host not in allowed:
        raise RequestError(400, "the Host header names a host this server does not answer to "
                                "(start it with --allowed-host NAME to add one)")


def check_post(headers, scheme: str, content_types: tuple[str, ...]) -> None:
    """A POST must come from this server's own page: same-origin `Origin` (when sent) and one of
    `content_types`."""
    origin = headers.get("origin")
    if origin is not None and origin != f"{scheme}://{headers.get('host', '')}":
        raise RequestError(403, "cross-origin request refused: the Origin is not this server")
    if headers.get("sec-fetch-site") not in (None, "same-origin", "none"):
        raise RequestError(403, "cross-site request refused (Sec-Fetch-Site)")
    ctype = headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if ctype not in content_types:
        raise RequestError(415, f"the body must be sent as {' or '.join(content_types)}; got {ctype or 'no type'!r}")


async def read_body(request, limit: int) -> bytes:
    """The request body, refused (413) by its Content-Length or as soon as the stream passes `limit`."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not (declared.strip().isascii() and declared.strip().isdigit()):
            raise RequestError(400, f"Content-Length must be a number of bytes; got {declared!r}")
        if int(declared) > limit:
            raise RequestError(413, f"the body is larger than {limit} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise RequestError(413, f"the body is larger than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def parse_object(raw: bytes) -> dict:
    """A JSON object from a request body; anything else (bad JSON, too deep, not an object) is a 400."""
    try:
        body = json.loads(raw or b"{}")
    except ValueError as exc:  # bad JSON or UTF-8, or an integer of more than 4,300 digits
        raise RequestError(400, f"the request body is not JSON: {str(exc)[:200]}") from None
    except RecursionError:
        raise RequestError(400, "the request body is nested too deeply") from None
    if not isinstance(body, dict):
        raise RequestError(400, f"the request body must be a JSON object; got {type(body).__name__}")
    return body


def client_key(client) -> str:
    """Who a request counts against: its peer address (`scope["client"]`, a (host, port) pair or
    None); an IPv6 peer by its /64 network (one machine holds a whole /64), an IPv4-mapped one as
    IPv4. Behind a reverse proxy every request has the proxy's address: one client to these bounds."""
    host = client[0] if client else ""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return str(host)[:64] or "unknown"
    if ip.version == 6 and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    if ip.version == 6 and not ip.is_loopback:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class ClientQuota:
    """Bot moves in flight per client: at most `moves` at once (searches and quick bots), of which
    at most `searches` in the search workers; past that a 429. A move counts until its worker is
    done with it, also after its request gave up waiting (the worker is still busy)."""

    def __init__(self, moves: int = 2, searches: int = 1):
        if not 1 <= searches <= moves:
            raise ValueError(f"need 1 <= searches ({searches}) <= moves ({moves})")
        self.moves, self.searches = int(moves), int(searches)
        self._lock = threading.Lock()
        self._moves: Counter = Counter()
        self._searches: Counter = Counter()

    def acquire(self, client: str, search: bool) -> None:
        with self._lock:
            if self._moves[client] >= self.moves:
                raise RequestError(429, f"this client has {self.moves} bot moves in flight, the most one client may "
                                        "have; wait for them (try again in a moment)")
            if search and self._searches[client] >= self.searches:
                raise RequestError(429, f"this client has {self.searches} bot search(es) in flight, the most one "
                                        "client may have; wait for it (try again in a moment)")
            self._moves[client] += 1
            if search:
                self._searches[client] += 1

    def release(self, client: str, search: bool) -> None:
        with self._lock:
            for counter in (self._moves, self._searches) if search else (self._moves,):
                counter[client] -= 1
                if counter[client] <= 0:
                    del counter[client]

    def in_flight(self, client: str) -> tuple[int, int]:
        """(moves, searches) `client` has in flight."""
        with self._lock:
            return self._moves[client], self._searches[client]

    def submit(self, client: str, search: bool, workers, fn, *args):
        """`workers.submit(fn, *args)` counted against `client` until the future is done."""
        self.acquire(client, search)
        try:
            future = workers.submit(fn, *args)
        except BaseException:
            self.release(client, search)
            raise
        future.add_done_callback(lambda _: self.release(client, search))
        return future

    @contextmanager
    def holding(self, client: str, search: bool = False):
        """A move computed in the request's own thread (a helper bot finishing a turn)."""
        self.acquire(client, search)
        try:
            yield
        finally:
            self.release(client, search)
