"""`python -m tabletop_rl.agents.web`: start the web app (see `tabletop_rl.agents.web.server`)."""
from tabletop_rl.extras import MissingExtraError, require_extra

try:
    require_extra("web", ("starlette", "uvicorn"), "the web app")
except MissingExtraError as exc:
    raise SystemExit(f"error: {exc}") from None

from tabletop_rl.agents.web.server import main  # noqa: E402  (after the check: it imports Starlette)

raise SystemExit(main())
