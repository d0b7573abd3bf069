"""`precedente up`, `serve`, `migrate`, `reembed` and `topics`: run the stack or one service, and keep the database,
the index and the broker's topics in shape."""

import asyncio
import logging
import os
import sys
import traceback
from pathlib import Path
from typing import Annotated

import typer

from precedente import api_errors
from precedente.cli.common import configure_logging, console
from precedente.shared.runtime import pipeline
from precedente.shared.settings import Settings


def up(
    data_dir: Annotated[Path | None, typer.Option(help="Where the database and logs live.")] = None,
    port: Annotated[int | None, typer.Option(help="Port of the search API.")] = None,
    no_auth: Annotated[
        bool, typer.Option("--no-auth", help="No sign-in: everyone is one anonymous user. Local demos only.")
    ] = False,
) -> None:
    """Start the database, the broker, every service and the search API; Ctrl-C stops them all."""
    from precedente.stack import run_up

    configure_logging()
    if no_auth:
        os.environ["PRECEDENTE_AUTH_MODE"] = "none"  # the services inherit it
    settings = Settings()
    where = (data_dir or settings.data_dir).resolve()
    try:
        run_up(settings, where, port or settings.api_port)
    except (RuntimeError, TimeoutError, OSError) as err:  # a start that fails: what failed, and where to read more
        if os.environ.get("PRECEDENTE_DEBUG"):
            traceback.print_exc()
        api_errors.fail(f"could not start: {' '.join(str(err).split())} (the services' logs are in {where / 'logs'})")


def serve(
    service: Annotated[str, typer.Argument(help=f"{', '.join(pipeline.NAMES)} or search")],
) -> None:
    """Run one service in the foreground (its own consumer group; run more copies to scale out)."""
    configure_logging()
    settings = Settings()
    if service == "search":
        without_pdf_layout_model()
        import uvicorn

        from precedente.services.search.app import create_app

        uvicorn.run(create_app(settings), host=settings.api_host, port=settings.api_port, log_level="info")
        return
    if service not in pipeline.NAMES:
        raise typer.BadParameter(f"unknown service {service!r}; choose from {', '.join([*pipeline.NAMES, 'search'])}")
    from precedente.shared.runtime.stage import build_app, load_service

    asyncio.run(build_app(load_service(service), settings).run())


def without_pdf_layout_model() -> None:
    """pymupdf 2.0 loads its ONNX page-layout model and pymupdf4llm at `import pymupdf`: 0.86 -> 0.17 CPU-s and
    137 -> 47 MB of a process that imports it without them (two EPYC cores). Only the extractor's table finder uses the
    model; the search service renders pages and finds passages, so its replicas go without. A name set to None in
    sys.modules fails its import, which pymupdf takes as the package not being installed."""
    for name in ("pymupdf.layout", "pymupdf4llm"):
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]


def migrate_command() -> None:
    """Apply database migrations as the schema's owner (PRECEDENTE_DATABASE_OWNER_URL, else PRECEDENTE_DATABASE_URL),
    granting PRECEDENTE_DATABASE_URL's role what the services need when it is another role."""
    from precedente.shared.infra.db import migrate_for

    settings = Settings()
    applied = asyncio.run(migrate_for(settings.owner_database_url, settings.database_url))
    console.print(f"applied: {', '.join(applied) or 'nothing, schema is current'}")


def reembed(
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only say what would be re-embedded.")] = False,
    batch_size: Annotated[
        int | None, typer.Option(help="Chunks per batch (default PRECEDENTE_EMBEDDING_BATCH_SIZE).")
    ] = None,
) -> None:
    """Re-embed the stored chunks with the configured embedding model (PRECEDENTE_EMBEDDING_*), from their
    stored text; resumable, and search keeps serving the old vectors until the switch."""
    from precedente.reembed import ReembedError, run

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        run(Settings(), console, dry_run=dry_run, batch_size=batch_size)
    except ReembedError as err:
        console.print(f"[red]reembed:[/red] {err}")
        raise typer.Exit(1) from err


def topics(resume: Annotated[bool, typer.Option(help="Also re-publish unfinished documents.")] = False) -> None:
    """Create the Kafka topics (PRECEDENTE_KAFKA_BOOTSTRAP), idempotently."""
    from precedente.shared.runtime.broker import ensure_topics
    from precedente.shared.runtime.recovery import resume_unfinished

    settings = Settings()
    created = asyncio.run(ensure_topics(settings))
    console.print(f"created: {', '.join(created) or 'none, all exist'}")
    if resume:
        console.print(f"resumed: {asyncio.run(resume_unfinished(settings))} documents")
