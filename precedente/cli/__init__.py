"""The `precedente` command, one module per command group (root.py lists them all and wires them to the app).

`precedente.cli:main` is the console entry point and `python -m precedente.cli` runs it too (__main__.py)."""

from precedente.cli.root import app, main

__all__ = ["app", "main"]
