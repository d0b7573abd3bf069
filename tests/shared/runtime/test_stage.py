"""The wiring every stage shares (shared/runtime/stage.py), in process: the app `build_app` makes, on FastStream's
testing broker, with a real migrated PostgreSQL ledger.

The stage under test is the test's own ("probe": documents.extracted -> documents.cleaned) with a handler whose
behaviour each test scripts per document. Observers subscribed to the output, review and dead-letter topics record
what the stage published (topic, key, headers, payload); the ledger is read back row by row.
"""

import asyncio
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import pytest
from faststream import TestApp
from faststream.kafka import KafkaBroker, TestKafkaBroker
from faststream.kafka.annotations import KafkaMessage

from precedente.shared.contracts import (
    DocumentCleaned,
    DocumentDeadLetter,
    DocumentExtracted,
    DocumentReview,
    DocumentSubmitted,
    Stage,
    Topic,
)
from precedente.shared.infra.storage import MissingBlob
from precedente.shared.runtime import ledger
from precedente.shared.runtime.broker import topic_name
from precedente.shared.runtime.stage import Outcome, StageContext, StageService, ToDeadLetter, ToReview, build_app
from precedente.shared.settings import Settings
from tests.helpers.ledger import register

OBSERVED = (Topic.CLEANED, Topic.REVIEW, Topic.DEADLETTER)


@dataclass
class Published:
    topic: str
    key: bytes
    headers: dict[str, Any]
    body: dict[str, Any]


@dataclass
class Call:
    """What the handler saw: the event and the ledger's attempts and last error at that moment."""

    document_id: uuid.UUID
    version: int
    attempts: int
    last_error: str | None


@dataclass
class Probe:
    """The running test stage: its broker and settings, the script per document, what it did and published."""

    broker: KafkaBroker
    settings: Settings
    plan: dict[uuid.UUID, list[BaseException | None]] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    published: list[Published] = field(default_factory=list)
    setup_saw_pool: bool = False

    def on(self, topic: Topic) -> list[Published]:
        return [p for p in self.published if p.topic == topic_name(self.settings, topic)]

    def calls_for(self, document_id: uuid.UUID) -> list[Call]:
        return [c for c in self.calls if c.document_id == document_id]

    async def send(self, event: DocumentExtracted) -> None:
        """Publish as every producer does: JSON body keyed by document id (no publish timeout around the stage)."""
        await self.send_raw(event.model_dump(mode="json"), event.key)

    async def send_raw(self, body: Any, key: bytes | None = None) -> None:
        await self.broker.publish(body, topic_name(self.settings, Topic.EXTRACTED), key=key)


@pytest.fixture
async def probe(pool: asyncpg.Pool, database_url: str) -> AsyncIterator[Probe]:
    """The probe stage built by build_app (its own pool, from settings) and started on the testing broker."""
    settings = Settings(
        database_url=database_url,
        kafka_bootstrap="in-memory:9092",  # never dialled: TestKafkaBroker replaces the connection
        topic_prefix="stage-test.",
        lag_interval_s=0,
        metrics_port=0,
        telemetry_exporter="none",
    )
    state: dict[str, Probe] = {}

    async def clean(event: DocumentExtracted, ctx: StageContext) -> Outcome:
        probe = state["probe"]
        row = await ledger.current(ctx.db, event.document_id)
        assert row is not None
        probe.calls.append(Call(event.document_id, event.version, row["attempts"], row["last_error"]))
        steps = probe.plan.get(event.document_id, [])
        step = steps.pop(0) if len(steps) > 1 else (steps[0] if steps else None)  # the last step repeats
        if step is not None:
            raise step
        return Outcome(
            topic=Topic.CLEANED,
            event=event.follow(DocumentCleaned, pages_key=f"cleaned/{event.document_id}/{event.version}"),
            stage=Stage.CLEANED,
            detail=f"probe: cleaned {event.page_count} pages",
            ledger_fields={"page_count": event.page_count},
        )

    async def setup(ctx: StageContext) -> None:
        state["probe"].setup_saw_pool = await ctx.db.fetchval("SELECT 1") == 1

    service = StageService(
        name="probe",
        input_topic=Topic.EXTRACTED,
        input_stage=Stage.EXTRACTED,
        output_stage=Stage.CLEANED,
        handler=clean,
        setup=setup,
    )
    app = build_app(service, settings)
    broker = app.broker
    assert isinstance(broker, KafkaBroker)
    probe = state["probe"] = Probe(broker=broker, settings=settings)

    for topic in OBSERVED:

        @broker.subscriber(topic_name(settings, topic), group_id="observer")
        async def observe(body: Any, message: KafkaMessage) -> None:
            probe.published.append(
                Published(message.raw_message.topic, message.raw_message.key, dict(message.headers), body)
            )

    async with TestKafkaBroker(broker), TestApp(app):
        yield probe


async def extracted(pool: asyncpg.Pool, page_count: int = 2) -> DocumentExtracted:
    """A document registered and extracted in the ledger, and the documents.extracted event the probe consumes."""
    submission = await register(pool, filename="acordao.pdf", size_bytes=1234)
    assert submission.event is not None
    return await to_extracted(pool, submission.event, page_count)


async def to_extracted(pool: asyncpg.Pool, submitted: DocumentSubmitted, page_count: int = 2) -> DocumentExtracted:
    assert await ledger.advance(pool, submitted, Stage.EXTRACTED, "extractor: text layer")
    return submitted.follow(
        DocumentExtracted, pages_key=f"extracted/{submitted.document_id}", page_count=page_count, confidence=0.97
    )


async def row(pool: asyncpg.Pool, document_id: uuid.UUID) -> asyncpg.Record:
    found = await ledger.current(pool, document_id)
    assert found is not None
    return found


async def history(pool: asyncpg.Pool, document_id: uuid.UUID) -> list[tuple[int, str, str | None]]:
    rows = await pool.fetch(
        "SELECT version, stage, detail FROM document_history WHERE document_id = $1 ORDER BY id", document_id
    )
    return [(r["version"], r["stage"], r["detail"]) for r in rows]


async def test_good_event_advances_the_ledger_and_publishes_the_next_event(pool: asyncpg.Pool, probe: Probe) -> None:
    event = await extracted(pool, page_count=7)
    await probe.send(event)

    assert probe.setup_saw_pool  # the service's setup ran on the stage's context before any event
    assert [(c.document_id, c.version) for c in probe.calls] == [(event.document_id, 1)]
    doc = await row(pool, event.document_id)
    assert (doc["stage"], doc["page_count"], doc["attempts"], doc["last_error"]) == ("cleaned", 7, 0, None)
    assert (doc["halted_in"], doc["reason_code"]) == (None, None)
    assert await history(pool, event.document_id) == [
        (1, "submitted", "new"),
        (1, "extracted", "extractor: text layer"),
        (1, "cleaned", "probe: cleaned 7 pages"),
    ]
    [out] = probe.published
    assert out.topic == "stage-test.documents.cleaned"
    assert out.key == str(event.document_id).encode()
    cleaned = DocumentCleaned.model_validate(out.body)
    assert (cleaned.document_id, cleaned.version, cleaned.trace_id) == (event.document_id, 1, event.trace_id)
    assert cleaned.pages_key == f"cleaned/{event.document_id}/1"
    assert out.headers["trace_id"] == event.trace_id and out.headers["schema_version"] == "1"
    assert out.headers["traceparent"].split("-")[1] == event.trace_id  # the next stage continues the same trace


@pytest.mark.parametrize("ledger_stage", [Stage.CHUNKED, Stage.INDEXED, Stage.REVIEW, Stage.FAILED, Stage.DELETED])
async def test_redelivered_event_past_the_stage_is_skipped(
    pool: asyncpg.Pool, probe: Probe, ledger_stage: Stage
) -> None:
    event = await extracted(pool)
    assert await ledger.advance(pool, event, ledger_stage, "elsewhere")
    before = await history(pool, event.document_id)

    await probe.send(event)

    assert probe.calls == [] and probe.published == []
    assert (await row(pool, event.document_id))["stage"] == ledger_stage
    assert await history(pool, event.document_id) == before


async def test_event_of_an_older_version_is_skipped(pool: asyncpg.Pool, probe: Probe) -> None:
    old = await extracted(pool)
    doc = await row(pool, old.document_id)
    newer = await register(pool, external_id=doc["external_id"], filename="acordao-v2.pdf", size_bytes=2345)
    assert newer.outcome == "new_version" and newer.event is not None
    await to_extracted(pool, newer.event)

    await probe.send(old)

    assert probe.calls == [] and probe.published == []
    doc = await row(pool, old.document_id)
    assert (doc["version"], doc["stage"]) == (2, "extracted")


async def test_event_of_an_unknown_document_is_skipped(pool: asyncpg.Pool, probe: Probe) -> None:
    stray = DocumentExtracted(document_id=uuid.uuid4(), pages_key="extracted/x", page_count=1, confidence=1.0)
    await probe.send(stray)
    assert probe.calls == [] and probe.published == []
    assert await ledger.current(pool, stray.document_id) is None


async def test_redelivery_at_the_output_stage_is_done_again(pool: asyncpg.Pool, probe: Probe) -> None:
    """The stage may have died between recording its result and publishing: a redelivery then redoes both."""
    event = await extracted(pool)
    await probe.send(event)
    await probe.send(event)

    assert len(probe.calls_for(event.document_id)) == 2
    assert [p.key for p in probe.on(Topic.CLEANED)] == [event.key, event.key]
    assert [h[1] for h in await history(pool, event.document_id)] == ["submitted", "extracted", "cleaned", "cleaned"]


async def test_to_review_halts_the_document_for_a_person(pool: asyncpg.Pool, probe: Probe) -> None:
    event = await extracted(pool)
    probe.plan[event.document_id] = [ToReview("OCR abaixo do limiar", "low_ocr_confidence", [2, 5], confidence=0.61)]

    await probe.send(event)

    assert len(probe.calls_for(event.document_id)) == 1
    doc = await row(pool, event.document_id)
    assert (doc["stage"], doc["last_error"], doc["reason_code"], doc["halted_in"]) == (
        "review",
        "OCR abaixo do limiar",
        "low_ocr_confidence",
        "probe",
    )
    assert list(doc["weak_pages"]) == [2, 5] and doc["ocr_confidence"] == pytest.approx(0.61)
    assert (await history(pool, event.document_id))[-1] == (1, "review", "probe: OCR abaixo do limiar")
    [out] = probe.published
    assert out.topic == "stage-test.documents.review" and out.key == event.key
    review = DocumentReview.model_validate(out.body)
    assert (review.document_id, review.version, review.trace_id) == (event.document_id, 1, event.trace_id)
    assert (review.stage, review.reason, review.weak_pages, review.confidence) == (
        Stage.CLEANED,
        "OCR abaixo do limiar",
        [2, 5],
        pytest.approx(0.61),
    )


async def test_to_dead_letter_fails_the_document_and_the_stream_goes_on(pool: asyncpg.Pool, probe: Probe) -> None:
    bad, good = await extracted(pool), await extracted(pool)
    probe.plan[bad.document_id] = [ToDeadLetter("arquivo vazio", "empty")]

    await probe.send(bad)
    await probe.send(good)

    assert len(probe.calls_for(bad.document_id)) == 1  # a bad input is not retried
    doc = await row(pool, bad.document_id)
    assert (doc["stage"], doc["last_error"], doc["reason_code"], doc["halted_in"]) == (
        "failed",
        "arquivo vazio",
        "empty",
        "probe",
    )
    assert (await history(pool, bad.document_id))[-1] == (1, "failed", "probe: arquivo vazio")
    [dead] = probe.on(Topic.DEADLETTER)
    assert dead.key == bad.key
    letter = DocumentDeadLetter.model_validate(dead.body)
    assert (letter.document_id, letter.stage, letter.reason, letter.error_kind) == (
        bad.document_id,
        Stage.CLEANED,
        "arquivo vazio",
        "bad_input",
    )
    assert [p.key for p in probe.on(Topic.CLEANED)] == [good.key]
    assert (await row(pool, good.document_id))["stage"] == "cleaned"


async def test_a_passing_failure_is_retried_and_counted(pool: asyncpg.Pool, probe: Probe) -> None:
    event = await extracted(pool)
    probe.plan[event.document_id] = [RuntimeError("pages store hiccup"), None]

    await probe.send(event)

    calls = probe.calls_for(event.document_id)
    assert [(c.attempts, c.last_error) for c in calls] == [
        (0, None),
        (1, "probe: RuntimeError: pages store hiccup"),  # the second try sees the first one recorded
    ]
    doc = await row(pool, event.document_id)
    assert (doc["stage"], doc["attempts"], doc["last_error"]) == ("cleaned", 0, None)
    assert [p.topic for p in probe.published] == ["stage-test.documents.cleaned"]


async def test_a_repeated_failure_is_dead_lettered_after_max_attempts(pool: asyncpg.Pool, probe: Probe) -> None:
    event, after = await extracted(pool), await extracted(pool)
    probe.plan[event.document_id] = [ValueError("página 3 ilegível")]  # every try
    max_attempts = probe.settings.stage_max_attempts
    assert max_attempts == 3

    await probe.send(event)
    await probe.send(after)

    calls = probe.calls_for(event.document_id)
    assert [c.attempts for c in calls] == list(range(max_attempts))
    assert [c.last_error for c in calls[1:]] == ["probe: ValueError: página 3 ilegível"] * (max_attempts - 1)
    reason = f"probe failed {max_attempts} times; last error: ValueError: página 3 ilegível"
    doc = await row(pool, event.document_id)
    assert (doc["stage"], doc["last_error"], doc["reason_code"], doc["halted_in"], doc["attempts"]) == (
        "failed",
        reason,
        "repeated_failure",
        "probe",
        max_attempts,  # the failed row says how many tries it took
    )
    assert (await history(pool, event.document_id))[-1] == (1, "failed", f"probe: {reason}")
    [dead] = probe.on(Topic.DEADLETTER)
    assert dead.key == event.key
    letter = DocumentDeadLetter.model_validate(dead.body)
    assert (letter.reason, letter.error_kind, letter.stage) == (reason, "repeated_failure", Stage.CLEANED)
    assert [p.key for p in probe.on(Topic.CLEANED)] == [after.key]


async def test_a_failing_version_superseded_meanwhile_stops_being_retried(pool: asyncpg.Pool, probe: Probe) -> None:
    """A newer version submitted while the stage retries an older one: the retries of the old one must end (its
    attempts can no longer be counted, so without a stop the partition would be blocked for good)."""
    event = await extracted(pool)
    probe.plan[event.document_id] = [RuntimeError("sempre falha")]  # every try
    consuming = asyncio.create_task(probe.send(event))
    async with asyncio.timeout(5):
        while not probe.calls_for(event.document_id):
            await asyncio.sleep(0.02)
    doc = await row(pool, event.document_id)
    newer = await register(pool, external_id=doc["external_id"], filename="acordao-v2.pdf", size_bytes=2345)
    assert newer.outcome == "new_version"

    try:
        await asyncio.wait_for(asyncio.shield(consuming), timeout=5)
    finally:
        consuming.cancel()

    assert 1 <= len(probe.calls_for(event.document_id)) <= 2  # at most the try that was already under way
    assert probe.published == []
    doc = await row(pool, event.document_id)
    assert (doc["version"], doc["stage"], doc["attempts"], doc["last_error"]) == (2, "submitted", 0, None)


@pytest.mark.parametrize(
    ("damage", "field_named"),
    [
        (lambda body: body.pop("pages_key"), "pages_key"),  # a field missing
        (lambda body: body.update(page_count="duas"), "page_count"),  # a field of the wrong type
        (lambda body: body.update(chunks_key="chunks/x"), "chunks_key"),  # another topic's schema
    ],
    ids=["missing_field", "wrong_type", "wrong_schema"],
)
async def test_malformed_event_with_a_document_id_is_dead_lettered(
    pool: asyncpg.Pool, probe: Probe, damage: Any, field_named: str
) -> None:
    event, good = await extracted(pool), await extracted(pool)
    body = event.model_dump(mode="json")
    damage(body)

    await probe.send_raw(body, event.key)
    await probe.send(good)

    assert [c.document_id for c in probe.calls] == [good.document_id]
    [dead] = probe.on(Topic.DEADLETTER)
    assert dead.key == event.key
    letter = DocumentDeadLetter.model_validate(dead.body)
    assert letter.document_id == event.document_id and letter.stage == Stage.CLEANED
    assert letter.reason.startswith("documents.extracted message does not match its contract")
    assert f"'{field_named}'" in letter.reason  # the person reading it is told which field is wrong
    assert (await row(pool, event.document_id))["stage"] == "extracted"  # the ledger's own state is untouched
    assert (await row(pool, good.document_id))["stage"] == "cleaned"


async def test_malformed_event_without_a_document_id_is_dead_lettered_by_its_key_or_the_nil_id(
    pool: asyncpg.Pool, probe: Probe
) -> None:
    good, lost = await extracted(pool), await extracted(pool)
    body = lost.model_dump(mode="json") | {"document_id": "not-a-uuid", "version": 3, "trace_id": "dms-trace-7"}

    await probe.send_raw(body, lost.key)  # the body lost its id; the message key still names the document
    await probe.send_raw({"hello": "world"})  # names no document at all
    await probe.send(good)

    by_key, anonymous = (DocumentDeadLetter.model_validate(m.body) for m in probe.on(Topic.DEADLETTER))
    assert by_key.document_id == lost.document_id
    assert (by_key.version, by_key.trace_id) == (3, "dms-trace-7")  # the message's own, not new ones
    assert "'document_id': Input should be a valid UUID" in by_key.reason
    assert "input_value" not in by_key.reason and "https://errors.pydantic.dev" not in by_key.reason
    assert anonymous.document_id == uuid.UUID(int=0)
    assert "'pages_key': Field required" in anonymous.reason
    assert "no document id in it or in its key" in anonymous.reason and "'hello'" in anonymous.reason
    assert [c.document_id for c in probe.calls] == [good.document_id]  # the stream went on
    assert [p.key for p in probe.on(Topic.CLEANED)] == [good.key]


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (b"\x00not json{", "is not JSON"),
        (b'["a", "list"]', "is JSON an array"),
        (b'"a string"', "is JSON a string"),
        (b"null", "is JSON null"),
        (b"", "is empty"),
        (b"\xff\xfe", "is not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deep"),
    ],
    ids=["bytes", "list", "string", "null", "empty", "not_utf8", "deep"],
)
async def test_message_that_is_not_a_json_object_is_dead_lettered_in_words(
    pool: asyncpg.Pool, probe: Probe, raw: bytes, said: str
) -> None:
    """Decoded by the stage itself, not by FastStream (which only logged these): each goes to the dead-letter
    topic under the document its key names, with a reason a person can act on, and in that document's history."""
    lost, good = await extracted(pool), await extracted(pool)

    await probe.send_raw(raw, lost.key)
    await probe.send(good)

    [dead] = probe.on(Topic.DEADLETTER)
    letter = DocumentDeadLetter.model_validate(dead.body)
    assert letter.document_id == lost.document_id and said in letter.reason
    assert [c.document_id for c in probe.calls] == [good.document_id]
    assert (await row(pool, lost.document_id))["stage"] == "extracted"  # not trusted to change its state
    assert any(said in (detail or "") for _, _, detail in await history(pool, lost.document_id))
    assert (await row(pool, good.document_id))["stage"] == "cleaned"


async def test_a_key_that_disagrees_with_the_body_is_dead_lettered(pool: asyncpg.Pool, probe: Probe) -> None:
    event, other = await extracted(pool), await extracted(pool)

    await probe.send_raw(event.model_dump(mode="json"), other.key)

    assert probe.calls == []
    [dead] = probe.on(Topic.DEADLETTER)
    letter = DocumentDeadLetter.model_validate(dead.body)
    assert letter.document_id == event.document_id
    assert f"is not its body's document_id {event.document_id}" in letter.reason
    assert [(await row(pool, d))["stage"] for d in (event.document_id, other.document_id)] == ["extracted"] * 2


async def test_an_unknown_schema_version_is_dead_lettered(pool: asyncpg.Pool, probe: Probe) -> None:
    event = await extracted(pool)

    await probe.send_raw(event.model_dump(mode="json") | {"schema_version": 99}, event.key)

    assert probe.calls == []
    [dead] = probe.on(Topic.DEADLETTER)
    assert (
        "'schema_version'" in dead.body["reason"]
        and "schema version 99 is not one this service reads" in dead.body["reason"]
    )


async def test_a_claim_check_naming_no_blob_is_dead_lettered_at_once(pool: asyncpg.Pool, probe: Probe) -> None:
    """Not retried three times and reported as a Python KeyError: retrying cannot bring the file back."""
    event = await extracted(pool)
    probe.plan[event.document_id] = [MissingBlob("documents/x/v1/extracted.json")]

    await probe.send(event)

    assert len(probe.calls_for(event.document_id)) == 1
    [dead] = probe.on(Topic.DEADLETTER)
    assert dead.body["reason"].startswith("the event's claim check 'documents/x/v1/extracted.json' names no stored")
    assert "KeyError" not in dead.body["reason"]
    failed = await row(pool, event.document_id)
    assert (failed["stage"], failed["reason_code"]) == ("failed", "missing_blob")
