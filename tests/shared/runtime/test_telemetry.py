"""Tracing context through Kafka headers, the event's trace id, JSON logs, OCR spans (shared/runtime/telemetry.py)."""

import asyncio
import contextlib
import json
import logging
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from opentelemetry import trace
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from precedente.services.extractor.logic import extract_timed
from precedente.services.extractor.ocr import PageTiming
from precedente.services.extractor.service import OCR_BATCH_PAGES, record_ocr
from precedente.shared.contracts import DocumentExtracted, Topic
from precedente.shared.runtime import pipeline, telemetry
from precedente.shared.runtime.broker import ensure_topics, topic_name
from precedente.shared.settings import Settings
from tests.conftest import DOCS


@pytest.fixture(scope="module")
def memory() -> InMemorySpanExporter:
    telemetry.setup(Settings(telemetry_exporter="none"), "test")
    exporter = InMemorySpanExporter()
    trace.get_tracer_provider().add_span_processor(SimpleSpanProcessor(exporter))  # type: ignore[attr-defined]
    return exporter


@pytest.fixture
def spans(memory: InMemorySpanExporter) -> Iterator[InMemorySpanExporter]:
    memory.clear()
    yield memory
    memory.clear()


def hex_ids(span: trace.Span) -> tuple[str, str]:
    context = span.get_span_context()
    return format(context.trace_id, "032x"), format(context.span_id, "016x")


def test_the_next_stage_span_is_a_child_of_the_publishing_span(spans: InMemorySpanExporter) -> None:
    document_id = uuid.uuid4()
    with telemetry.tracer().start_as_current_span("submit") as submit:
        trace_id, submit_span = hex_ids(submit)
        event = DocumentExtracted(document_id=document_id, pages_key="k", page_count=1, confidence=1.0)
        assert event.trace_id == trace_id  # the event's trace_id is the active trace
        headers = telemetry.inject_headers({"trace_id": event.trace_id}, event.trace_id)
    assert re.fullmatch(rf"00-{trace_id}-{submit_span}-0[0-9a-f]", headers["traceparent"])

    body = event.model_dump(mode="json")
    kafka_headers = {k: v.encode() for k, v in headers.items()}  # as aiokafka hands them over: bytes
    with telemetry.consumer_span("clean", kafka_headers, body, "cleaner") as span:
        assert telemetry.current_trace_id() == trace_id
    finished = {s.name: s for s in spans.get_finished_spans()}
    clean = finished["clean"]
    assert format(clean.context.trace_id, "032x") == trace_id
    assert clean.parent is not None and format(clean.parent.span_id, "016x") == submit_span
    assert clean.attributes["precedente.document_id"] == str(document_id)
    assert clean.attributes["precedente.version"] == 1
    assert clean.attributes["precedente.stage"] == "cleaner"
    assert span.get_span_context().trace_id == clean.context.trace_id


def test_an_event_without_traceparent_joins_the_trace_of_its_trace_id(spans: InMemorySpanExporter) -> None:
    trace_id = uuid.uuid4().hex  # what the ledger's resume or a DMS publishes: no traceparent header
    body = {"document_id": str(uuid.uuid4()), "version": 2, "trace_id": trace_id}
    with telemetry.consumer_span("index", {"trace_id": trace_id.encode()}, body, "indexer"):
        assert telemetry.current_trace_id() == trace_id
    (span,) = spans.get_finished_spans()
    assert format(span.context.trace_id, "032x") == trace_id
    assert span.parent is not None and span.parent.is_remote


def test_a_traceparent_of_another_trace_does_not_override_the_events_trace_id(spans: InMemorySpanExporter) -> None:
    with telemetry.tracer().start_as_current_span("approve request") as request:
        other_trace, _ = hex_ids(request)
        document_trace = uuid.uuid4().hex  # a reviewer's approval re-publishes the document's own trace
        headers = telemetry.inject_headers({"trace_id": document_trace}, document_trace)
        assert "traceparent" not in headers
        headers["traceparent"] = f"00-{other_trace}-{'1' * 16}-01"
    body = {"document_id": str(uuid.uuid4()), "version": 1, "trace_id": document_trace}
    with telemetry.consumer_span("clean", headers, body, "cleaner"):
        assert telemetry.current_trace_id() == document_trace


def test_a_trace_id_that_is_not_hex_starts_a_new_trace(spans: InMemorySpanExporter) -> None:
    body = {"document_id": str(uuid.uuid4()), "version": 1, "trace_id": "dms-42"}
    with telemetry.consumer_span("extract", {}, body, "extractor"):
        assert re.fullmatch(r"[0-9a-f]{32}", telemetry.current_trace_id() or "")
    assert DocumentExtracted(document_id=uuid.uuid4(), pages_key="k", page_count=1, confidence=1).trace_id


def test_json_logs_carry_service_document_id_and_trace_id(spans: InMemorySpanExporter) -> None:
    formatter = telemetry.JsonFormatter()
    logger = logging.getLogger("precedente.test")
    document_id = str(uuid.uuid4())
    trace_id = uuid.uuid4().hex
    body = {"document_id": document_id, "version": 1, "trace_id": trace_id}
    with telemetry.consumer_span("chunk", {}, body, "chunker"):
        inside = json.loads(
            formatter.format(logger.makeRecord(logger.name, logging.INFO, "f", 1, "done %s", ("x",), None))
        )
    outside = json.loads(formatter.format(logger.makeRecord(logger.name, logging.WARNING, "f", 1, "idle", (), None)))
    assert inside["message"] == "done x"
    assert inside["level"] == "INFO" and inside["logger"] == "precedente.test" and inside["time"]
    assert inside["service"] == "test"
    assert inside["document_id"] == document_id
    assert inside["trace_id"] == trace_id
    assert "document_id" not in outside and "trace_id" not in outside


def test_json_log_format_is_applied_to_the_root_handlers() -> None:
    root = logging.getLogger()
    handler = logging.StreamHandler()
    root.addHandler(handler)
    try:
        telemetry.setup_logging("text")
        assert not isinstance(handler.formatter, telemetry.JsonFormatter)
        telemetry.setup_logging("json")
        assert isinstance(handler.formatter, telemetry.JsonFormatter)
    finally:
        root.removeHandler(handler)


def test_the_jsonl_exporter_appends_one_object_per_span(tmp_path: Path) -> None:
    from opentelemetry.sdk.trace import TracerProvider

    path = tmp_path / "logs" / "traces.jsonl"
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(telemetry.JsonlSpanExporter(path)))
    tracer = provider.get_tracer("t")
    with tracer.start_as_current_span("extract", attributes={"precedente.document_id": "d"}) as parent:
        tracer.start_span("ocr_batch", start_time=1_000, attributes={"precedente.ocr.pages": [1, 2]}).end(
            end_time=2_000
        )
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["name"] for line in lines] == ["ocr_batch", "extract"]
    batch, extract = lines
    assert batch["trace_id"] == extract["trace_id"] == format(parent.get_span_context().trace_id, "032x")
    assert batch["parent_span_id"] == extract["span_id"] and extract["parent_span_id"] is None
    assert (batch["start_ns"], batch["end_ns"]) == (1_000, 2_000)
    assert batch["attributes"]["precedente.ocr.pages"] == [1, 2]


def test_ocr_page_timings_become_batch_spans_under_the_extract_span(spans: InMemorySpanExporter) -> None:
    timings = [PageTiming(n, 1_000 * n, 1_000 * n + 500, 0.9) for n in range(1, OCR_BATCH_PAGES + 2)]
    with telemetry.tracer().start_as_current_span("extract") as extract:
        record_ocr(timings)
    batches = [s for s in spans.get_finished_spans() if s.name == "ocr_batch"]
    assert [list(b.attributes["precedente.ocr.pages"]) for b in batches] == [
        list(range(1, OCR_BATCH_PAGES + 1)),
        [OCR_BATCH_PAGES + 1],
    ]
    assert all(b.parent is not None and b.parent.span_id == extract.get_span_context().span_id for b in batches)
    assert (batches[0].start_time, batches[0].end_time) == (1_000, 1_000 * OCR_BATCH_PAGES + 500)


def test_extraction_returns_when_each_ocr_page_ran() -> None:
    """The child process cannot reach the exporter: it hands back wall-clock timings per OCR'd page."""
    with pymupdf.open(DOCS / "scanned" / "stj_resp_1433940_mg_scan.pdf") as scan, pymupdf.open() as one_page:
        one_page.insert_pdf(scan, from_page=0, to_page=0)
        data = one_page.tobytes()
    document, timings = extract_timed(data, "scan.pdf", ocr_workers=1)
    assert [p.method for p in document.pages] == ["ocr"]
    (timing,) = timings
    assert timing.number == 1 and timing.start_ns < timing.end_ns
    assert timing.confidence == document.pages[0].confidence
    plain, none = extract_timed((DOCS / "stj_resp_1433940_mg_acordao.pdf").read_bytes(), "native.pdf")
    assert none == [] and plain.pages


def test_http_requests_continue_the_callers_trace(spans: InMemorySpanExporter) -> None:
    app = FastAPI(telemetry=telemetry.FASTAPI_TELEMETRY)  # as services/search/app.py makes it

    @app.get("/documents/{document_id}")
    async def read(document_id: str) -> dict[str, str | None]:
        return {"trace_id": telemetry.current_trace_id()}

    caller_trace, caller_span = uuid.uuid4().hex, "00f067aa0ba902b7"
    with TestClient(app) as client:
        answer = client.get("/documents/abc", headers={"traceparent": f"00-{caller_trace}-{caller_span}-01"})
        fresh = client.get("/documents/def")
    assert answer.json()["trace_id"] == caller_trace
    assert fresh.json()["trace_id"] not in (None, caller_trace)
    server = [s for s in spans.get_finished_spans() if s.kind == trace.SpanKind.SERVER]
    assert [s.name for s in server] == ["GET /documents/{document_id}"] * 2
    assert format(server[0].parent.span_id, "016x") == caller_span
    assert server[0].attributes["http.response.status_code"] == 200
    assert server[1].parent is None
    assert not [s for s in spans.get_finished_spans() if s.kind != trace.SpanKind.SERVER]  # no per-dependency spans


def test_metrics_scrapes_are_not_traced(spans: InMemorySpanExporter) -> None:
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
    from starlette.responses import Response

    app = FastAPI(telemetry=telemetry.FASTAPI_TELEMETRY)

    @app.get("/metrics")
    async def metrics() -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    telemetry.SEARCH_RESULTS.observe(3)
    with TestClient(app) as client:
        text = client.get("/metrics").text
    assert "precedente_search_results_count" in text and "precedente_consumer_lag" in text
    assert spans.get_finished_spans() == ()


async def test_consumer_lag_is_measured_once_for_the_metric_and_for_status(
    kafka: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End minus committed offset per partition; nothing committed counts from the beginning. The stage's
    gauge and GET /status's numbers come from the same measurement."""
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

    from precedente.services.search.broker_lag import consumer_lag

    settings = Settings(kafka_bootstrap=kafka, topic_partitions=2, topic_prefix="lag.")
    await ensure_topics(settings)
    submitted, chunked = topic_name(settings, Topic.SUBMITTED), topic_name(settings, Topic.CHUNKED)
    producer = AIOKafkaProducer(bootstrap_servers=kafka)
    await producer.start()
    try:
        for topic, partition in [(submitted, 0), (submitted, 0), (submitted, 0), (submitted, 1), (chunked, 1)]:
            await producer.send_and_wait(topic, b"{}", key=b"k", partition=partition)
    finally:
        await producer.stop()
    extractor = pipeline.by_name("extractor").group_id
    committer = AIOKafkaConsumer(bootstrap_servers=kafka, group_id=extractor, enable_auto_commit=False)
    await committer.start()
    try:
        first = TopicPartition(submitted, 0)
        committer.assign([first])
        await committer.commit({first: 2})
    finally:
        await committer.stop()

    measured = await telemetry.measure_lag(kafka, {extractor: [submitted], "precedente-nobody": ["lag.no.such.topic"]})
    assert measured == {extractor: {(submitted, 0): 1, (submitted, 1): 1}, "precedente-nobody": {}}

    status = await consumer_lag(settings, timeout=10)
    assert list(status) == list(pipeline.NAMES)
    assert (status["extractor"].lag, status["extractor"].by_partition) == (2, {0: 1, 1: 1})
    assert (status["annotator"].lag, status["annotator"].by_partition) == (1, {0: 0, 1: 1})
    assert all(status[name].lag == 0 for name in ("cleaner", "chunker", "indexer"))

    # The stage's watcher measures round after round on one pair of clients, and closes them when cancelled.
    starts, closes, rounds = [], [], []
    monkeypatch.setattr(telemetry.LagMeter, "start", _spy(telemetry.LagMeter.start, starts))
    monkeypatch.setattr(telemetry.LagMeter, "close", _spy(telemetry.LagMeter.close, closes))
    monkeypatch.setattr(telemetry.LagMeter, "measure", _spy(telemetry.LagMeter.measure, rounds))
    watcher = asyncio.create_task(telemetry.watch_lag(kafka, extractor, [submitted], 0.1))
    try:
        gauge = telemetry.CONSUMER_LAG.labels(extractor, submitted, "0")
        for _ in range(100):
            if gauge._value.get() == 1 and len(rounds) >= 3:  # noqa: SLF001 - prometheus_client has no public reader
                break
            await asyncio.sleep(0.1)
        assert gauge._value.get() == 1  # noqa: SLF001
        assert telemetry.CONSUMER_LAG.labels(extractor, submitted, "1")._value.get() == 1  # noqa: SLF001
        assert len(rounds) >= 3 and len(starts) == 1 and not closes
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
    assert len(closes) == 1


def _spy(method: Any, calls: list[object]) -> Any:
    """`method`, noting each call in `calls`."""

    async def spied(self: object, *args: Any) -> Any:
        calls.append(args)
        return await method(self, *args)

    return spied
