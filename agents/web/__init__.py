"""Play against the bots and watch recorded games in a browser.

    python -m tabletop_rl.agents.web [--host 127.0.0.1] [--port 8000] [--open]

Needs the `web` extra (`pip install tabletop-rl[web]`: Starlette and uvicorn). The server
(`tabletop_rl.agents.web.server`) holds the games and sends each seat only what it may see
(`tabletop_rl.agents.web.views`); `guard` checks every request's host, origin, content type and
body, `bots` says which bots a request may choose; the page is `static/`. The threat note is in
`server`'s docstring.
"""
from tabletop_rl.agents.web.server import create_app, main

__all__ = ["create_app", "main"]
