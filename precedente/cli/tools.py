"""`precedente inspect` and `precedente docs`: work on files here, with nothing running: read one file as the
extractor would, and generate the contract documents from the code."""

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from precedente.cli.common import console
from precedente.shared.settings import Settings


def inspect_command(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="The file to read.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a report.")] = False,
) -> None:
    """Extract and clean one file here (no broker, no database): each page's method, confidence and text,
    and whether the extractor would send it to review, and why."""
    from precedente.inspect import inspect_file, inspection_json, print_inspection

    inspection = inspect_file(file, Settings())
    if as_json:
        sys.stdout.write(json.dumps(inspection_json(inspection), ensure_ascii=False) + "\n")
    else:
        print_inspection(inspection, console)


def docs_command(
    out: Annotated[Path, typer.Option(help="Folder to write into.")] = Path("docs"),
    check: Annotated[bool, typer.Option("--check", help="Only say whether the files are current.")] = False,
) -> None:
    """Generate docs/asyncapi.json, docs/openapi.json and docs/configuration.md from the code."""
    from precedente.docs_gen import generate, stale

    if check:
        outdated = stale(out)
        for name in outdated:
            console.print(f"[red]out of date:[/red] {out / name} (run `precedente docs`)")
        raise typer.Exit(1 if outdated else 0)
    for path in generate(out):
        console.print(f"wrote {path}")
