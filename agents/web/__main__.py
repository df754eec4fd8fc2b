"""`python -m tabletop_rl.agents.web` and `tabletop-web`: start the web app (see `tabletop_rl.agents.web.server`)."""
from tabletop_rl.extras import MissingExtraError, require_extra


def main(argv=None) -> int:
    """The server's main, after checking the web extra (Starlette, uvicorn) is installed."""
    try:
        require_extra("web", ("starlette", "uvicorn"), "the web app")
    except MissingExtraError as exc:
        raise SystemExit(f"error: {exc}") from None
    from tabletop_rl.agents.web.server import main as serve

    return serve(argv)


if __name__ == "__main__":
    raise SystemExit(main())
