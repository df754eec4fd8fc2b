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
  limit (413), and JSON nested too deeply is a 400, never a crash.
"""
from __future__ import annotations

import json

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
