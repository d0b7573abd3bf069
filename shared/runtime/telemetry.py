"""Tracing, metrics and structured logs, set up once per process from the settings.

Tracing (OpenTelemetry): one document is one trace. The search service's POST /documents opens it (span "submit"); the
W3C `traceparent` travels in the Kafka message headers (shared/runtime/broker.py publish), and every stage continues it
with one span ("extract", "clean", "chunk", "annotate", "index") whose parent is the previous stage's span. The event's
`trace_id` field is always the OpenTelemetry trace id, so an event published without a `traceparent` (a DMS, the
ledger's resume after a restart, a reviewer's approval) still joins its document's trace. Spans go nowhere
(`PRECEDENTE_TELEMETRY_EXPORTER=none`), to a JSON-lines file (`jsonl`, `PRECEDENTE_TELEMETRY_FILE`) or to an OTLP/HTTP
collector (`otlp`, `PRECEDENTE_OTLP_ENDPOINT`).

Metrics (Prometheus, `precedente_*`): the search service serves them on GET /metrics, each stage
service on its own small HTTP server (`PRECEDENTE_METRICS_PORT`, bound to `PRECEDENTE_METRICS_HOST`).

Logs: `PRECEDENTE_LOG_FORMAT=json` writes one JSON object per line with the time, level, logger,
message, service, and the document id and trace id when known. Document and query text are never logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import NonRecordingSpan, Span, SpanContext, SpanKind, TraceFlags
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from prometheus_client import Counter, Gauge, Histogram

from precedente.shared.runtime import pipeline

if TYPE_CHECKING:
    from precedente.shared.settings import Settings

log = logging.getLogger(__name__)

TRACER_NAME = "precedente"
PROPAGATOR = TraceContextTextMapPropagator()
TRACE_ID = re.compile(r"^[0-9a-f]{32}$")

# The span each stage service opens per document.
STAGE_SPANS = {stage.name: stage.span for stage in pipeline.STAGES}

_document_id: ContextVar[str | None] = ContextVar("precedente_document_id", default=None)
_state: dict[str, Any] = {"service": None, "provider": None}
_lock = threading.Lock()

# --------------------------------------------------------------------------------------------
# Metrics (prometheus_client's default registry: one per process)
# --------------------------------------------------------------------------------------------

DOCUMENTS = Counter(
    "precedente_documents_processed",
    "Documents a stage finished handling, by outcome (ok, review, deadletter, skipped, malformed, error).",
    ["stage", "outcome"],
)
PAGES = Counter("precedente_pages_processed", "Pages extracted, by extraction method.", ["stage", "method"])
FAILURES = Counter(
    "precedente_stage_failures",
    "Failures by stage and reason code; disposition is review, deadletter or retry.",
    ["stage", "reason", "disposition"],
)
STAGE_SECONDS = Histogram(
    "precedente_stage_duration_seconds",
    "Time a stage spent on one document (retries included).",
    ["stage", "outcome"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900),
)
OCR_CONFIDENCE = Histogram(
    "precedente_ocr_confidence",
    "Mean Tesseract word confidence of each page read by OCR (0-1).",
    buckets=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0),
)
CONSUMER_LAG = Gauge(
    "precedente_consumer_lag",
    "Messages not yet committed by a consumer group (end offset - committed offset).",
    ["group", "topic", "partition"],
)
SEARCH_SECONDS = Histogram(
    "precedente_search_duration_seconds",
    "Latency of POST /search, by outcome.",
    ["outcome"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10),
)
SEARCH_RESULTS = Histogram(
    "precedente_search_results",
    "Results returned by one search.",
    buckets=(0, 1, 2, 3, 5, 10, 20, 50, 100),
)
SUBMISSIONS = Counter("precedente_documents_submitted", "Uploads through POST /documents, by outcome.", ["outcome"])
YIELDED_SECONDS = Histogram(
    "precedente_admission_yield_seconds",
    "Time a pipeline stage waited for search before its next piece of work (shared/runtime/admission.py), "
    "by why it went on.",
    ["stage", "outcome"],
    buckets=(0.1, 0.25, 0.5, 1, 2, 3, 5, 10),
)
YIELDING = Gauge(
    "precedente_admission_yielding",
    "Pieces of work a pipeline stage is holding back for search right now ('cedendo à busca').",
    ["stage"],
)

# --------------------------------------------------------------------------------------------
# Set-up
# --------------------------------------------------------------------------------------------


class JsonlSpanExporter(SpanExporter):
    """One JSON object per finished span, appended to a file several processes may share."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def export(self, spans: Any) -> SpanExportResult:
        lines = "".join(json.dumps(span_record(span), ensure_ascii=False) + "\n" for span in spans)
        # One write with O_APPEND: lines of processes writing the same file do not interleave.
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, lines.encode())
        finally:
            os.close(fd)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None


def span_record(span: ReadableSpan) -> dict[str, Any]:
    context = span.get_span_context()
    assert context is not None
    return {
        "name": span.name,
        "trace_id": format(context.trace_id, "032x"),
        "span_id": format(context.span_id, "016x"),
        "parent_span_id": format(span.parent.span_id, "016x") if span.parent else None,
        "kind": span.kind.name,
        "service": span.resource.attributes.get("service.name"),
        "start_ns": span.start_time,
        "end_ns": span.end_time,
        "status": span.status.status_code.name,
        "attributes": dict(span.attributes or {}),
        "events": [{"name": e.name, "attributes": dict(e.attributes or {})} for e in span.events],
    }


def setup(settings: Settings, service: str) -> None:
    """Tracing and log format for this process; later calls only update the log format and service name."""
    _state["service"] = service
    setup_logging(settings.log_format)
    with _lock:
        if _state["provider"] is not None:
            return
        provider = TracerProvider(resource=Resource.create({"service.name": f"precedente-{service}"}))
        if settings.telemetry_exporter == "jsonl":
            path = settings.telemetry_file or str(Path(settings.data_dir) / "logs" / "traces.jsonl")
            provider.add_span_processor(SimpleSpanProcessor(JsonlSpanExporter(path)))
        elif settings.telemetry_exporter == "otlp":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.trace.export import BatchSpanProcessor

            exporter = OTLPSpanExporter(endpoint=settings.otlp_endpoint or None)
            provider.add_span_processor(BatchSpanProcessor(exporter))
        # An SDK provider even with no exporter: spans get real ids, so the context still travels.
        trace.set_tracer_provider(provider)
        _state["provider"] = provider


def shutdown() -> None:
    provider = _state.get("provider")
    if provider is not None:
        provider.force_flush()


def tracer() -> trace.Tracer:
    return trace.get_tracer(TRACER_NAME)


# --------------------------------------------------------------------------------------------
# Context through Kafka headers
# --------------------------------------------------------------------------------------------


def current_trace_id() -> str | None:
    """The active span's trace id (32 hex digits), or None outside any span."""
    context = trace.get_current_span().get_span_context()
    return format(context.trace_id, "032x") if context.is_valid else None


def inject_headers(headers: dict[str, str], trace_id: str | None = None) -> dict[str, str]:
    """Add the W3C traceparent of the active span, unless it belongs to another trace than `trace_id`."""
    current = current_trace_id()
    if current is not None and (trace_id is None or trace_id == current):
        PROPAGATOR.inject(headers)
    return headers


def parent_context(headers: Mapping[str, Any] | None, trace_id: str | None) -> otel_context.Context:
    """The context a consumer's span starts in: the traceparent header when it belongs to the event's
    trace, else a remote parent in the event's trace (so its trace_id stays the trace), else a new trace."""
    carrier = {k.lower(): (v.decode() if isinstance(v, bytes) else str(v)) for k, v in (headers or {}).items()}
    extracted = PROPAGATOR.extract(carrier)
    span_context = trace.get_current_span(extracted).get_span_context()
    wanted = trace_id.lower() if isinstance(trace_id, str) and TRACE_ID.match(trace_id.lower()) else None
    if span_context.is_valid and (wanted is None or format(span_context.trace_id, "032x") == wanted):
        return extracted
    if wanted is not None and int(wanted, 16) != 0:
        remote = SpanContext(
            trace_id=int(wanted, 16),
            span_id=random.getrandbits(64) or 1,
            is_remote=True,
            trace_flags=TraceFlags(TraceFlags.SAMPLED),
        )
        return trace.set_span_in_context(NonRecordingSpan(remote), otel_context.Context())
    return otel_context.Context()


@contextlib.contextmanager
def document_context(document_id: Any) -> Iterator[None]:
    """Log records inside carry this document id."""
    token = _document_id.set(str(document_id) if document_id is not None else None)
    try:
        yield
    finally:
        _document_id.reset(token)


@contextlib.contextmanager
def consumer_span(name: str, headers: Mapping[str, Any] | None, body: Mapping[str, Any], stage: str) -> Iterator[Span]:
    """A stage's span for one event, continuing the event's trace, with the document in log records."""
    parent = parent_context(headers, body.get("trace_id"))
    attributes = {"precedente.stage": stage, "messaging.system": "kafka"}
    if body.get("document_id") is not None:
        attributes["precedente.document_id"] = str(body["document_id"])
    if isinstance(body.get("version"), int):
        attributes["precedente.version"] = body["version"]
    with (
        document_context(body.get("document_id")),
        tracer().start_as_current_span(name, context=parent, kind=SpanKind.CONSUMER, attributes=attributes) as span,
    ):
        yield span


def record_span(name: str, start_ns: int, end_ns: int, attributes: Mapping[str, Any] | None = None) -> None:
    """A finished child of the active span, from timings measured elsewhere (the extractor's child process)."""
    span = tracer().start_span(name, start_time=start_ns, attributes=dict(attributes or {}))
    span.end(end_time=end_ns)


# --------------------------------------------------------------------------------------------
# Structured logs
# --------------------------------------------------------------------------------------------


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, service, document_id, trace_id."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if _state.get("service"):
            entry["service"] = _state["service"]
        if document_id := _document_id.get():
            entry["document_id"] = document_id
        span_context = trace.get_current_span().get_span_context()
        if span_context.is_valid:
            entry["trace_id"] = format(span_context.trace_id, "032x")
            entry["span_id"] = format(span_context.span_id, "016x")
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


LOGGERS_WITH_OWN_HANDLERS = ("uvicorn", "uvicorn.access", "uvicorn.error")


def setup_logging(log_format: str) -> None:
    """With "json", every handler of the root logger (and uvicorn's own) writes JSON lines."""
    if log_format != "json":
        return
    formatter = JsonFormatter()
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(logging.StreamHandler())
        root.setLevel(logging.INFO)
    for name in (None, *LOGGERS_WITH_OWN_HANDLERS):
        for handler in logging.getLogger(name).handlers:
            handler.setFormatter(formatter)


# --------------------------------------------------------------------------------------------
# Metrics endpoints and consumer lag
# --------------------------------------------------------------------------------------------


def start_metrics_server(settings: Settings) -> int | None:
    """prometheus_client's HTTP server for a process without one of its own (the stage services)."""
    if not settings.metrics_port:
        return None
    from prometheus_client import start_http_server

    start_http_server(settings.metrics_port, addr=settings.metrics_host)
    log.info("metrics on http://%s:%s/metrics", settings.metrics_host, settings.metrics_port)
    return settings.metrics_port


class LagMeter:
    """Consumer lag of groups on their topics, per (topic, partition): end offset minus committed offset.

    Where a group has committed nothing yet, its beginning offset counts as committed (what retention removed is no
    longer there to consume). The one measurement behind precedente_consumer_lag and GET /status. Its two clients
    live as long as the meter: a stage measures every lag_interval_s, and starting an admin client and a consumer
    each time (six connections and a metadata load) was about a quarter of an idle stack's CPU: 2.77 CPU-s in 30 s
    with it, 2.26 with one meter per stage, 2.1 with no measurement (AMD EPYC, two cores, 2026-12-05)."""

    def __init__(self, bootstrap: str) -> None:
        from aiokafka import AIOKafkaConsumer
        from aiokafka.admin import AIOKafkaAdminClient

        self.admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
        self.reader = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)

    async def start(self) -> LagMeter:
        try:
            await self.admin.start()
            await self.reader.start()
        except BaseException:
            with contextlib.suppress(Exception):  # neither client may be left open (aiokafka warns of each)
                await self.close()
            raise
        return self

    async def close(self) -> None:
        try:
            await self.reader.stop()
        finally:
            await self.admin.close()

    async def __aenter__(self) -> LagMeter:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def measure(self, groups: Mapping[str, Sequence[str]]) -> dict[str, dict[tuple[str, int], int]]:
        from aiokafka import TopicPartition

        await self.reader.topics()  # refreshes the cluster metadata: topics and partitions added since count
        partitions = {
            group: [TopicPartition(t, p) for t in topics for p in sorted(self.reader.partitions_for_topic(t) or [])]
            for group, topics in groups.items()
        }
        every = sorted({tp for tps in partitions.values() for tp in tps})
        if not every:
            return {group: {} for group in groups}
        ends = await self.reader.end_offsets(every)
        starts = await self.reader.beginning_offsets(every)
        held = {group: tps for group, tps in partitions.items() if tps}
        committed = await asyncio.gather(
            *(self.admin.list_consumer_group_offsets(group, partitions=tps) for group, tps in held.items())
        )
        offsets = dict(zip(held, committed, strict=True))
        lag: dict[str, dict[tuple[str, int], int]] = {}
        for group, tps in partitions.items():
            lag[group] = {}
            for tp in tps:
                meta = offsets[group].get(tp)
                done = meta.offset if meta is not None and meta.offset >= 0 else starts[tp]
                lag[group][(tp.topic, tp.partition)] = max(ends[tp] - done, 0)
        return lag


async def measure_lag(bootstrap: str, groups: Mapping[str, Sequence[str]]) -> dict[str, dict[tuple[str, int], int]]:
    """One measurement on clients of its own (GET /status asks now and then)."""
    async with LagMeter(bootstrap) as meter:
        return await meter.measure(groups)


async def watch_lag(bootstrap: str, group: str, topics: list[str], every_s: float) -> None:
    """Refresh precedente_consumer_lag for one group until cancelled, on one meter; a failure (the broker away)
    closes it, and the next round starts a new one."""
    meter: LagMeter | None = None
    try:
        while True:
            try:
                if meter is None:
                    meter = await LagMeter(bootstrap).start()
                measured = await meter.measure({group: topics})
                for (topic, partition), behind in measured[group].items():
                    CONSUMER_LAG.labels(group, topic, str(partition)).set(behind)
            except asyncio.CancelledError:
                raise
            except Exception as err:  # noqa: BLE001 - a metric must never take the service down
                log.debug("consumer lag of %s not measured: %s", group, err)
                if meter is not None:
                    await _close_quietly(meter)
                    meter = None
            await asyncio.sleep(every_s)
    finally:
        if meter is not None:
            await _close_quietly(meter)


async def _close_quietly(meter: LagMeter) -> None:
    with contextlib.suppress(Exception):
        await meter.close()


# --------------------------------------------------------------------------------------------
# HTTP (the search service)
# --------------------------------------------------------------------------------------------

# FastAPI's own OpenTelemetry support makes one server span per request ("POST /search"), the
# caller's `traceparent` its parent, through the provider set up above. Its OTel metrics and logs
# stay off (Prometheus serves the metrics; its logs could carry request bodies), and so do the
# per-dependency spans; /metrics scrapes and /health probes are not traced.
FASTAPI_TELEMETRY: dict[str, Any] = {
    "tracing": True,
    "metrics": False,
    "logs": False,
    "operation_spans": False,
    "exclude": lambda scope: scope.get("path") in ("/metrics", "/health"),
}
