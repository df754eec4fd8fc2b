"""`python -m tabletop_rl.agents.web`: start the web app (see `tabletop_rl.agents.web.server`)."""
from tabletop_rl.agents.web.server import main

raise SystemExit(main())
