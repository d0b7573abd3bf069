"""`python -m precedente.cli`: what the stack and the tests run, the same as the `precedente` entry point."""

from precedente.cli.root import main

main()
