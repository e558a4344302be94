"""``python -m pybsnsing``: the command line."""

from .cli import main

raise SystemExit(main())
