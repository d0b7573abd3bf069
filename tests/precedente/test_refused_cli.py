"""`precedente recusadas` against the real search service served over HTTP (uvicorn on a free 127.0.0.1 port, the
module's own PostgreSQL): the refused messages in Portuguese, newest first, the one naming no document included, and a
lawyer's credential refused in one line. The rows are written by shared/refused.record, as shared/runtime/stage.py's
_refuse writes them (tests/shared/test_event_contract.py drives that from a Kafka client)."""

import asyncio
import json
import uuid
from collections.abc import Iterator

import asyncpg
import pytest

from precedente import api_errors
from precedente.shared.runtime import refused
from precedente.shared.settings import Settings
from tests.helpers.identity import key_headers
from tests.helpers.served import run_cli as run
from tests.helpers.served import served_search_app


@pytest.fixture(scope="module")
def api(database_url: str) -> Iterator[str]:
    with served_search_app(database_url, Settings(database_url=database_url, refused_messages_kept=500)) as url:
        yield url


async def test_recusadas_lists_them_in_portuguese(
    api: str, pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    admin = (await key_headers(pool, "admin"))["Authorization"].removeprefix("Bearer ")
    monkeypatch.setenv("PRECEDENTE_API_URL", api)
    monkeypatch.setenv("PRECEDENTE_API_KEY", admin)
    monkeypatch.setenv("COLUMNS", "80")
    document = uuid.uuid4()
    nameless = b'["sem", "documento"]'
    reason = "'size_bytes': Input should be a valid integer"
    await refused.record(pool, 500, "extractor", "documents.submitted", reason, "b'{}'", document)
    await refused.record(
        pool,
        500,
        "extractor",
        "documents.submitted",
        "the message is JSON an array; no document id in it or in its key",
        refused.quoted_start(nameless),
        None,
    )

    status, out, err = await asyncio.to_thread(run, capsys, "recusadas")

    assert status == 0, err
    assert "2 mensagens recusadas guardadas (no máximo 500" in out
    assert out.index("JSON an array") < out.index("'size_bytes'")  # newest first
    assert "documento: nenhum (a mensagem não diz qual)" in out
    assert f"documento: {document}" in out
    assert f"começo: {nameless!r}" in out  # quoted whole, on one line
    assert "extractor recusou uma mensagem de documents.submitted" in out

    status, out, _ = await asyncio.to_thread(run, capsys, "recusadas", "--json", "--limit", "1")
    assert status == 0 and json.loads(out)["messages"][0]["document_id"] is None and json.loads(out)["total"] == 2


async def test_recusadas_is_for_administrators(
    api: str, pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lawyer = (await key_headers(pool, "search", "*"))["Authorization"].removeprefix("Bearer ")
    monkeypatch.setenv("PRECEDENTE_API_URL", api)
    monkeypatch.setenv("PRECEDENTE_API_KEY", lawyer)

    status, out, err = await asyncio.to_thread(run, capsys, "recusadas")

    assert status != 0 and out == ""
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("precedente: "), err
    assert status in api_errors.EXIT_CODES and "needs permission: admin" in lines[0], err
