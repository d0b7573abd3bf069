"""`precedente tesauro` against the real search service served over HTTP (uvicorn on a free 127.0.0.1 port, the
module's own PostgreSQL): an administrator lists, adds, edits and removes the firm's sets and reads the shipped base;
a lawyer's credential is refused, and so is a set of one name, each as one line."""

from collections.abc import Iterator

import asyncpg
import pytest

from precedente.shared.settings import Settings
from tests.helpers.identity import key_headers
from tests.helpers.served import run_cli as run
from tests.helpers.served import served_search_app


@pytest.fixture(scope="module")
def api(database_url: str) -> Iterator[str]:
    with served_search_app(database_url, Settings(database_url=database_url, rate_limit_searches_per_minute=0)) as url:
        yield url


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
