"""The thin wiring every pipeline stage shares: consume, guard with the ledger, handle, persist, publish.

A stage module only supplies a handler (plain logic plus its storage) and the stages it moves a
document between. Everything that makes the stream trustworthy lives here once: stale and
redelivered events are skipped, failures are retried a bounded number of times, and a document that
cannot go on is routed to review or dead-letter with its reason, so one bad file never blocks the
partition and none is silently dropped.

A stage that declares a concurrency above 1 (the extractor: settings.extractor_concurrency) handles that many
events at once, so one long document does not hold those behind it (InFlight); each partition's offset is
still committed only past events that are all done, so a crash loses none.
"""

import asyncio
import contextlib
import importlib
import json
import logging
import time
import traceback
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import asyncpg
from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener, ConsumerRecord, TopicPartition
from aiokafka.errors import KafkaError
from faststream import AckPolicy, FastStream
from faststream.exceptions import NackMessage
from faststream.kafka import KafkaBroker
from faststream.kafka.annotations import KafkaMessage
from faststream.message import StreamMessage
from opentelemetry import trace
from pydantic import ValidationError

from precedente.shared.contracts import (
    EVENT_BY_TOPIC,
    DocumentDeadLetter,
    DocumentReview,
    DocumentSubmitted,
    E,
    Event,
    Stage,
    Topic,
)
from precedente.shared.infra.db import create_pool
from precedente.shared.infra.storage import BlobMismatch, MissingBlob
from precedente.shared.runtime import ledger, pipeline, recovery, refused, search_load, telemetry
from precedente.shared.runtime.broker import CONSUMER_FETCH_BOUNDS, STOP_GRACE_S, make_broker, publish, topic_name
from precedente.shared.settings import Settings

log = logging.getLogger(__name__)

# An outage of the database or the broker is waited out (see _process), probing with backoff. An error that
# looks like one while both answer is retried this many times (about a minute) before it counts as a failure.
OUTAGE_FIRST_DELAY_S = 0.5
OUTAGE_MAX_DELAY_S = 5.0
OUTAGE_RETRIES_WHILE_REACHABLE = 12


class ToReview(Exception):
    """A person must look at this document (low OCR confidence, password, no text).

    `code` is a stable short name for the reason, so the queue can be counted and filtered by it.
    """

    def __init__(
        self,
        reason: str,
        code: str = "needs_review",
        weak_pages: list[int] | None = None,
        confidence: float | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code
        self.weak_pages = weak_pages or []
        self.confidence = confidence


class ToDeadLetter(Exception):
    """No stage can do anything with this input (empty, unsupported format, damaged)."""

    def __init__(self, reason: str, code: str = "unreadable") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


class HandBack(Exception):  # noqa: N818 - what the handler does, not an error
    """Raised by a handler at a safe point once its stage is stopping (StageContext.stopping): the event is left
    uncommitted, for the next consumer, with what the handler persisted so far (the indexer's vectors, batch by
    batch). Not a failure: no attempt is counted and nothing goes to review or dead-letter."""

    def __init__(self, reason: str = "the stage is stopping") -> None:
        super().__init__(reason)


@dataclass
class Outcome:
    topic: Topic
    event: Event
    stage: Stage
    detail: str | None = None
    ledger_fields: dict[str, Any] = field(default_factory=dict)
    # Set by a handler that advanced the ledger and queued its event in the outbox itself, in the transaction of
    # its writes, so that a crash cannot publish it twice (the indexer): the stage's result ("ok", or "skipped"
    # for a redelivery that found the work done); the stage then records and publishes nothing more.
    recorded: str | None = None


@dataclass
class StageContext:
    settings: Settings
    db: asyncpg.Pool
    broker: KafkaBroker
    state: dict[str, Any] = field(default_factory=dict)
    # Set when the process starts stopping: a handler working in batches hands its event back (HandBack) before
    # its next batch instead of finishing the document (STOP_GRACE_S bounds the rest).
    stopping: asyncio.Event = field(default_factory=asyncio.Event)


Handler = Callable[[Any, StageContext], Awaitable[Outcome]]


@dataclass(frozen=True)
class StageService:
    name: str
    input_topic: Topic
    input_stage: Stage
    output_stage: Stage
    handler: Handler
    setup: Callable[[StageContext], Awaitable[None]] | None = None
    # Events one process handles at once, from the settings; None or 1: one at a time, in order.
    concurrency: Callable[[Settings], int] | None = None

    @classmethod
    def declared(
        cls,
        name: str,
        handler: Handler,
        setup: Callable[[StageContext], Awaitable[None]] | None = None,
        concurrency: Callable[[Settings], int] | None = None,
    ) -> "StageService":
        """The service of the pipeline stage `name`, its topic and ledger stages as shared/runtime/pipeline.py declares
        them."""
        step = pipeline.by_name(name)
        return cls(step.name, step.input_topic, step.input_stage, step.output_stage, handler, setup, concurrency)

    def concurrency_for(self, settings: Settings) -> int:
        return max(1, self.concurrency(settings)) if self.concurrency is not None else 1

    @property
    def group_id(self) -> str:
        return f"precedente-{self.name}"


def load_service(name: str) -> StageService:
    """The stage's service, imported from the module shared/runtime/pipeline.py declares for it: only the process that
    runs a stage needs its code."""
    return importlib.import_module(pipeline.by_name(name).module).SERVICE


class Unreadable(Exception):
    """A message whose bytes are no JSON object: what a person is told about it, in words."""


def decode(raw: bytes | dict[str, Any]) -> dict[str, Any]:
    """The message's JSON object; Unreadable says why there is none (not UTF-8, not JSON, nested too deep for
    the parser, a JSON array, string, number or null, or nothing at all)."""
    if isinstance(raw, dict):
        return raw
    if not raw:
        raise Unreadable("the message is empty (no value, or a tombstone)")
    try:
        body = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise Unreadable(f"the message is not UTF-8 text (byte {err.start}); it starts {raw[:80]!r}") from None
    except json.JSONDecodeError as err:
        raise Unreadable(
            f"the message is not JSON ({err.msg} at character {err.pos}); it starts {raw[:80]!r}"
        ) from None
    except RecursionError:
        raise Unreadable(f"the message's JSON is nested too deep to read; it starts {raw[:80]!r}") from None
    if not isinstance(body, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(body), "a number")
        raise Unreadable(f"the message is JSON {kind}, not an object with the event's fields")
    return body


def _nul_at(body: dict[str, Any]) -> str | None:
    """Where the decoded message holds a NUL character (a key or a string at any depth), as a dotted path;
    None when nowhere. Walked without recursion: what JSON could nest, this follows."""
    stack: list[tuple[str, Any]] = [("", body)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str) and "\x00" in value:
            return path or "(body)"
        if isinstance(value, dict):
            for name, item in value.items():
                if "\x00" in name:
                    return f"{path}.(key)".lstrip(".")
                stack.append((f"{path}.{name}".lstrip("."), item))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", item) for i, item in enumerate(value))
    return None


def _span_view(body: dict[str, Any]) -> dict[str, Any]:
    """The fields the span and the log line read, kept only where they have their contract's type: a message
    with a list for its trace_id is still handled (and dead-lettered) inside its span."""
    view: dict[str, Any] = {}
    for name in ("document_id", "trace_id"):
        if isinstance(body.get(name), str) and "\x00" not in body[name] and len(body[name]) <= 64:
            view[name] = body[name]
    if isinstance(body.get("version"), int) and not isinstance(body["version"], bool):
        view["version"] = body["version"]
    return view


async def process(
    service: StageService,
    ctx: StageContext,
    body: dict[str, Any] | bytes,
    headers: Mapping[str, Any] | None = None,
    key: bytes | None = None,
) -> None:
    """Handle one event inside the stage's span (continuing the document's trace from the headers).

    `body` is the message's bytes as consumed (or an already decoded object). `key` is the message's Kafka key
    (the document id, as every producer keys it): a message that breaks its contract is still dead-lettered
    under the right document when its body lost the id.

    First the stage yields to search while it is busy (shared/runtime/search_load.py, bounded), outside the stage's span
    and time: taking the next message is where ingestion gives way to a lawyer's search."""
    await search_load.yield_to_search(ctx.db, ctx.settings, service.name, stopping=ctx.stopping)
    span_name = telemetry.STAGE_SPANS.get(service.name, service.name)
    started = time.perf_counter()
    result = "error"
    try:
        raw, body = body, decode(body)
    except Unreadable as err:
        raw, body = body, {}
        unreadable: Unreadable | None = err
    else:
        unreadable = None
    if unreadable is None and (where := _nul_at(body)) is not None:
        unreadable = Unreadable(
            f"the message holds a NUL character (in {where!r}), which no stored text can hold: remove it and publish"
            " the event again"
        )
    with telemetry.consumer_span(span_name, headers, _span_view(body), service.name) as span:
        try:
            if unreadable is not None:
                await _reject_malformed(service, ctx, body, str(unreadable), key, raw)
                result = "malformed"
            else:
                result = await _process(service, ctx, body, key)
        except HandBack:
            result = "handed_back"
            raise
        finally:
            span.set_attribute("precedente.outcome", result)
            if result == "error":
                span.set_status(trace.StatusCode.ERROR)
            elapsed = time.perf_counter() - started
            telemetry.DOCUMENTS.labels(service.name, result).inc()
            telemetry.STAGE_SECONDS.labels(service.name, result).observe(elapsed)
            seen = _span_view(body)
            log.info(
                "%s: %s v%s %s in %.2f s", service.name, seen.get("document_id"), seen.get("version"), result, elapsed
            )


async def _process(service: StageService, ctx: StageContext, body: dict[str, Any], key: bytes | None = None) -> str:
    """The stage's work on one event; returns its outcome for the span and the metrics.

    While the database or the broker is down the event is neither acknowledged (it would be lost) nor
    counted as a failed attempt (an outage is not the document's fault): the stage waits, probing with
    backoff, and then handles the event again from the ledger's current state.
    """
    model = EVENT_BY_TOPIC[service.input_topic]
    try:
        event = model.model_validate(body)
    except ValidationError as err:
        reason = f"{service.input_topic.value} message does not match its contract: {_contract_errors(err)}"
        await _reject_malformed(service, ctx, body, reason, key)
        return "malformed"
    if key is not None and _key_disagrees(key, event):
        await _reject_malformed(service, ctx, body, _key_reason(service.input_topic, key, event), None)
        return "malformed"
    current_trace = telemetry.current_trace_id()
    if current_trace is not None and event.trace_id != current_trace:
        # An event whose trace_id is no trace id (a DMS's own): what follows it carries the real one.
        event = event.model_copy(update={"trace_id": current_trace})
    delay, reachable_failures = OUTAGE_FIRST_DELAY_S, 0
    while True:
        try:
            return await _handle(service, ctx, event)
        except HandBack:
            raise
        except Exception as err:
            if not await recovery.infrastructure_down(err, ctx.db):
                raise
            if reachable_failures >= OUTAGE_RETRIES_WHILE_REACHABLE:
                raise  # it fails while the database and the broker both answer: no outage to wait out
            telemetry.FAILURES.labels(service.name, type(err).__name__, "outage").inc()
            log.warning(
                "%s: %s v%s waits for the database and the broker (%s)",
                service.name,
                event.document_id,
                event.version,
                recovery.describe(err),
            )
            waited = await recovery.wait_until_reachable(ctx.db, ctx.broker)
            if waited:
                log.info("%s: reachable again after %.1f s; handling %s again", service.name, waited, event.document_id)
                delay, reachable_failures = OUTAGE_FIRST_DELAY_S, 0
            else:  # both answer, yet it failed (a broker back without its topics yet): back off
                reachable_failures += 1
                await asyncio.sleep(delay)
                delay = min(delay * 2, OUTAGE_MAX_DELAY_S)


async def _handle(service: StageService, ctx: StageContext, event: Event) -> str:
    """One try at the event: ledger guard, handler with bounded retries, ledger advance, publish."""
    if isinstance(event, DocumentSubmitted) and not await ledger.accept_external_submission(ctx.db, event):
        log.info("%s: skipping stale submission of %s v%s", service.name, event.document_id, event.version)
        return "skipped"
    row = await ledger.current(ctx.db, event.document_id)
    if ledger.is_stale_or_done(row, event, service.input_stage, service.output_stage):
        log.info("%s: skipping %s v%s (stale or already done)", service.name, event.document_id, event.version)
        return "skipped"

    while True:
        try:
            outcome = await service.handler(event, ctx)
            break
        except HandBack:
            raise  # the stage is stopping: not the document's failure
        except ToReview as review:
            telemetry.FAILURES.labels(service.name, review.code, "review").inc()
            await _to_review(service, ctx, event, review)
            return "review"
        except (ToDeadLetter, MissingBlob, BlobMismatch) as dead:
            code = dead.code if isinstance(dead, ToDeadLetter | BlobMismatch) else "missing_blob"
            reason = dead.reason
            telemetry.FAILURES.labels(service.name, code, "deadletter").inc()
            await _to_deadletter(service, ctx, event, reason, code, "bad_input")
            return "deadletter"
        except Exception as err:  # noqa: BLE001 - any failure is recorded and retried, never lost
            if await recovery.infrastructure_down(err, ctx.db):
                raise  # an outage: _process waits it out without counting an attempt against the document
            error = f"{type(err).__name__}: {err}"
            log.warning("%s failed on %s: %s\n%s", service.name, event.document_id, error, traceback.format_exc())
            trace.get_current_span().record_exception(err)
            telemetry.FAILURES.labels(service.name, type(err).__name__, "retry").inc()
            attempts = await ledger.record_attempt_failure(ctx.db, event, f"{service.name}: {error}")
            if attempts == 0:  # no ledger row of this version any more: a newer one took over, with its own event
                log.info("%s: stops retrying %s v%s (superseded)", service.name, event.document_id, event.version)
                return "skipped"
            if attempts >= ctx.settings.stage_max_attempts:
                reason = f"{service.name} failed {attempts} times; last error: {error}"
                telemetry.FAILURES.labels(service.name, "repeated_failure", "deadletter").inc()
                await _to_deadletter(
                    service, ctx, event, reason, "repeated_failure", "repeated_failure", attempts=attempts
                )
                return "deadletter"
            await asyncio.sleep(min(2**attempts, 30) * 0.5)

    if outcome.recorded is not None:
        return outcome.recorded
    if await ledger.advance(ctx.db, event, outcome.stage, outcome.detail, **outcome.ledger_fields):
        await publish(ctx.broker, ctx.settings, outcome.topic, outcome.event)
        return "ok"
    return "skipped"


async def _to_review(service: StageService, ctx: StageContext, event: Event, review: ToReview) -> None:
    fields: dict[str, Any] = {
        "last_error": review.reason,
        "weak_pages": review.weak_pages,
        "halted_in": service.name,
        "reason_code": review.code,
    }
    if review.confidence is not None:
        fields["ocr_confidence"] = review.confidence
    if await ledger.advance(ctx.db, event, Stage.REVIEW, f"{service.name}: {review.reason}", **fields):
        await publish(
            ctx.broker,
            ctx.settings,
            Topic.REVIEW,
            event.follow(
                DocumentReview,
                stage=service.output_stage,
                reason=review.reason,
                weak_pages=review.weak_pages,
                confidence=review.confidence,
            ),
        )


async def _to_deadletter(
    service: StageService, ctx: StageContext, event: Event, reason: str, code: str, kind: str, attempts: int = 0
) -> None:
    detail = f"{service.name}: {reason}"
    fields = {"last_error": reason, "halted_in": service.name, "reason_code": code, "attempts": attempts}
    if await ledger.advance(ctx.db, event, Stage.FAILED, detail, **fields):
        await publish(
            ctx.broker,
            ctx.settings,
            Topic.DEADLETTER,
            event.follow(DocumentDeadLetter, stage=service.output_stage, reason=reason, error_kind=kind),
        )


def _contract_errors(err: ValidationError) -> str:
    """pydantic's errors as a person reads them: each field and what is wrong with it, no input dumps."""
    parts = [f"'{'.'.join(str(p) for p in e['loc']) or '(body)'}': {e['msg']}" for e in err.errors()[:5]]
    more = err.error_count() - len(parts)
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def _document_id_of(body: dict[str, Any], key: bytes | None) -> uuid.UUID | None:
    for candidate in (body.get("document_id"), key.decode("utf-8", "replace") if key else None):
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            return uuid.UUID(str(candidate))
    return None


def _key_disagrees(key: bytes | None, event: Event) -> bool:
    return key is not None and key.decode("utf-8", "replace") != str(event.document_id)


def _key_reason(topic: Topic, key: bytes, event: Event) -> str:
    return (
        f"{topic.value} message's key {key[:80].decode('utf-8', 'replace')!r} is not its body's"
        f" document_id {event.document_id}: every producer keys a document's events by its id (so they stay"
        " in order on one partition); neither is trusted, nothing was done"
    )


async def decode_or_refuse(
    ctx: StageContext,
    consumer: str,
    topic: Topic,
    model: type[E],
    stage: Stage,
    raw: bytes | dict[str, Any],
    key: bytes | None,
) -> E | None:
    """The event of a message consumed outside the stage chain (the indexer's documents.deleted and
    documents.access_changed consumers), or None once a message that breaks the contract is dead-lettered with
    its reason, as process() does for a stage: `consumer` names who refused it, `stage` is the dead letter's."""
    body: dict[str, Any] = {}
    try:
        body = decode(raw)
        if (where := _nul_at(body)) is not None:
            raise Unreadable(f"the message holds a NUL character (in {where!r}), which no stored text can hold")
        event = model.model_validate(body)
    except Unreadable as err:
        reason = str(err)
    except ValidationError as err:
        reason = f"{topic.value} message does not match its contract: {_contract_errors(err)}"
    else:
        if not _key_disagrees(key, event):
            return event
        reason, key = _key_reason(topic, key or b"", event), None
    await _refuse(ctx, consumer, topic, stage, body, reason, key, raw)
    return None


async def _reject_malformed(
    service: StageService,
    ctx: StageContext,
    body: dict[str, Any],
    reason: str,
    key: bytes | None,
    raw: bytes | dict[str, Any] | None = None,
) -> None:
    await _refuse(ctx, service.name, service.input_topic, service.output_stage, body, reason, key, raw)


async def _refuse(
    ctx: StageContext,
    consumer: str,
    topic: Topic,
    stage: Stage,
    body: dict[str, Any],
    reason: str,
    key: bytes | None,
    raw: bytes | dict[str, Any] | None = None,
) -> None:
    """A message that breaks its contract still goes somewhere a person can see it: the dead-letter topic, under its
    document (from the body or the message key), its version and trace kept where they are valid, and, for a document
    the ledger knows, an entry in its history (its state untouched: the message is not trusted to change it). A message
    that names no document at all is dead-lettered under the nil id, its start quoted. Every one, with a document or
    not, is also kept in the bounded record of refused messages (shared/runtime/refused.py), which the API, the page and
    the CLI show: nothing in the product reads the topic."""
    document_id = _document_id_of(body, key)
    start = refused.quoted_start(raw, body)
    if document_id is None:
        reason += "; no document id in it or in its key"
        if "; it starts " not in reason:  # decode()'s own reasons quote it already
            reason += f"; it starts {start}"
    log.error("%s: %s", consumer, reason)
    try:
        await refused.record(
            ctx.db, ctx.settings.refused_messages_kept, consumer, topic.value, reason, start, document_id
        )
    except Exception:  # noqa: BLE001 - the dead letter and the log still tell; the stream must go on
        log.exception("%s: could not record the refused message", consumer)
    if document_id is not None:
        await ledger.note_refused(ctx.db, document_id, f"{consumer}: refused a message: {reason}")
    follow: dict[str, Any] = {}
    version, trace_id = body.get("version"), body.get("trace_id")
    if isinstance(version, int) and not isinstance(version, bool) and version >= 1:
        follow["version"] = version
    if isinstance(trace_id, str) and 0 < len(trace_id) <= 64 and "\x00" not in trace_id:
        follow["trace_id"] = trace_id
    await publish(
        ctx.broker,
        ctx.settings,
        Topic.DEADLETTER,
        DocumentDeadLetter(document_id=document_id or uuid.UUID(int=0), stage=stage, reason=reason, **follow),
    )


async def _raw_bytes(message: StreamMessage[Any]) -> bytes:
    """The message's value as it came: decoded by process(), so that no message fails before it can be
    dead-lettered (FastStream's own decoding only logs what is no JSON object)."""
    return bytes(message.body or b"")


def subscriber(
    broker: KafkaBroker,
    settings: Settings,
    topic: Topic,
    group_id: str,
    in_flight: "InFlight | None" = None,
    raw: bool = False,
) -> Any:
    """A consumer of `topic` in `group_id` as every stage consumes: from the earliest offset, committed only after the
    handler returns, with bounded prefetch (back-pressure: see shared/runtime/broker.py).

    With `in_flight` the handler only admits the event and returns; InFlight commits the offsets itself.
    With `raw` the handler's body is the message's bytes (see process())."""
    return broker.subscriber(
        topic_name(settings, topic),
        group_id=group_id,
        auto_offset_reset="earliest",
        ack_policy=AckPolicy.ACK if in_flight is None else AckPolicy.MANUAL,
        session_timeout_ms=settings.consumer_session_timeout_ms,
        heartbeat_interval_ms=settings.consumer_heartbeat_interval_ms,
        max_poll_interval_ms=900_000,
        **({} if in_flight is None else {"listener": in_flight.listener()}),
        **({"decoder": _raw_bytes} if raw else {}),
        **CONSUMER_FETCH_BOUNDS,
    )


UNCOMMITTED_LIMIT = 100
"""Events admitted and not yet committed, at most, per process: done events behind a long one wait for it to be
committed, and a crash hands them over again (each skipped or redone by the ledger guard); this bounds that."""

DRAIN_TIMEOUT_S = STOP_GRACE_S
"""How long a stopping stage lets the events in flight finish (as the broker's graceful_timeout does for a stage
that handles one at a time); the rest are left uncommitted for the next consumer."""


class PartitionOffsets:
    """The admitted events of one partition, in offset order, and how far they are all done: the offset to commit."""

    def __init__(self) -> None:
        self.admitted: deque[int] = deque()
        self.done: set[int] = set()
        self.position: int | None = None  # the next offset to read once everything before it is done
        self.committed: int | None = None

    def admit(self, offset: int) -> None:
        self.admitted.append(offset)

    def finish(self, offset: int) -> int:
        """Mark `offset` done; returns how many events the committable position moved past."""
        self.done.add(offset)
        moved = 0
        while self.admitted and self.admitted[0] in self.done:
            first = self.admitted.popleft()
            self.done.discard(first)
            self.position = first + 1
            moved += 1
        return moved

    def to_commit(self) -> int | None:
        """The position to commit now, or None when the last commit already covers it."""
        if self.position is None or (self.committed is not None and self.position <= self.committed):
            return None
        return self.position


class _Revocations(ConsumerRebalanceListener):
    def __init__(self, in_flight: "InFlight") -> None:
        self.in_flight = in_flight

    async def on_partitions_revoked(self, revoked: list[TopicPartition]) -> None:
        await self.in_flight.revoke(revoked)

    async def on_partitions_assigned(self, assigned: list[TopicPartition]) -> None:
        return None


class InFlight:
    """Up to `concurrency` events handled at once by one consumer, with at-least-once delivery kept.

    The subscriber's handler waits for a free place (back-pressure: the consumer reads no further meanwhile),
    starts the event's work and returns; FastStream commits nothing (AckPolicy.MANUAL). When a work ends, the
    partition's offset is committed past every event before it that is done too, never past one still running:
    a crash or a kill re-delivers what was running and what finished after it, and the ledger guard skips or
    redoes those (a stage's work is idempotent by version). Events of one document (one key) run in order.
    On revocation the finished prefix is committed and the partition forgotten; what still runs goes on, its
    result guarded by the ledger, and is handed over again to the partition's next owner.
    """

    def __init__(self, name: str, concurrency: int, limit: int = UNCOMMITTED_LIMIT) -> None:
        self.name = name
        self.concurrency = max(1, concurrency)
        self.limit = max(limit, self.concurrency)
        self.partitions: dict[TopicPartition, PartitionOffsets] = {}
        self.running = 0
        self.uncommitted = 0
        self.closing = False
        self.tasks: set[asyncio.Task[None]] = set()
        self._by_key: dict[bytes, asyncio.Task[None]] = {}
        self._changed = asyncio.Condition()
        self._commit_lock = asyncio.Lock()
        self._consumer: AIOKafkaConsumer | None = None

    def listener(self) -> ConsumerRebalanceListener:
        return _Revocations(self)

    def _has_room(self) -> bool:
        return self.closing or (self.running < self.concurrency and self.uncommitted < self.limit)

    async def admit(self, record: ConsumerRecord, consumer: Any, work: Callable[[], Awaitable[None]]) -> bool:
        """Start `work` for `record` once there is room; False when stopping (the record stays uncommitted)."""
        async with self._changed:
            await self._changed.wait_for(self._has_room)
            if self.closing:
                return False
            if isinstance(consumer, AIOKafkaConsumer):  # FastStream's in-memory test broker has none to commit to
                self._consumer = consumer
            partition = TopicPartition(record.topic, record.partition)
            offsets = self.partitions.setdefault(partition, PartitionOffsets())
            offsets.admit(record.offset)
            self.running += 1
            self.uncommitted += 1
        key = record.key
        previous = self._by_key.get(key) if key is not None else None
        task = asyncio.create_task(self._run(partition, offsets, record.offset, key, previous, work))
        if key is not None:
            self._by_key[key] = task
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return True

    async def _run(
        self,
        partition: TopicPartition,
        offsets: PartitionOffsets,
        offset: int,
        key: bytes | None,
        previous: "asyncio.Task[None] | None",
        work: Callable[[], Awaitable[None]],
    ) -> None:
        finished = False
        try:
            if previous is not None:
                await asyncio.wait({previous})  # the same document's earlier event first: its versions stay in order
            try:
                await work()
            except HandBack:
                return  # stopping: left uncommitted, read again by the partition's next owner
            except Exception:  # noqa: BLE001 - as AckPolicy.ACK: process() already recorded what it could
                log.exception(
                    "%s: the event at %s offset %d failed outside the stage's handling", self.name, partition, offset
                )
            finished = True
        finally:
            async with self._changed:
                self.running -= 1
                if finished and self.partitions.get(partition) is offsets:
                    self.uncommitted -= offsets.finish(offset)
                self._changed.notify_all()
            if key is not None and self._by_key.get(key) is asyncio.current_task():
                del self._by_key[key]
        if finished:
            await self._commit(partition, offsets)

    async def _commit(self, partition: TopicPartition, offsets: PartitionOffsets) -> None:
        async with self._commit_lock:
            position = offsets.to_commit()
            if position is None or self._consumer is None or self.partitions.get(partition) is not offsets:
                return
            try:
                await self._consumer.commit({partition: position})
                offsets.committed = position
            except KafkaError as err:  # a rebalance took the partition: its next owner re-reads from the last commit
                log.warning("%s: could not commit %s at %d (%s); it is read again", self.name, partition, position, err)

    async def revoke(self, revoked: list[TopicPartition]) -> None:
        """Before a rebalance hands these partitions over: commit what is done, then forget them."""
        for partition in revoked:
            offsets = self.partitions.get(partition)
            if offsets is not None:
                await self._commit(partition, offsets)
        async with self._changed:
            for partition in revoked:
                offsets = self.partitions.pop(partition, None)
                if offsets is not None:
                    self.uncommitted -= len(offsets.admitted)
            self._changed.notify_all()

    async def close(self, timeout: float = DRAIN_TIMEOUT_S) -> None:
        """Admit nothing more and let the running events finish (and commit) for up to `timeout`, then stop them:
        what did not finish stays uncommitted, for the next consumer."""
        async with self._changed:
            self.closing = True
            self._changed.notify_all()
        if self.tasks:
            _, unfinished = await asyncio.wait(set(self.tasks), timeout=timeout)
            for task in unfinished:
                task.cancel()
            if unfinished:
                log.warning("%s: stopped %d events in flight; they are read again", self.name, len(unfinished))
                await asyncio.wait(unfinished)


def build_app(service: StageService, settings: Settings) -> FastStream:
    """A FastStream application consuming the service's input topic in its own consumer group."""
    telemetry.setup(settings, service.name)
    broker = make_broker(settings)
    app = FastStream(broker, logger=log)
    holder: dict[str, Any] = {}
    concurrency = service.concurrency_for(settings)
    in_flight = InFlight(service.name, concurrency) if concurrency > 1 else None

    @subscriber(broker, settings, service.input_topic, service.group_id, in_flight, raw=True)
    async def on_event(body: bytes, message: KafkaMessage) -> None:
        record = message.raw_message
        if in_flight is None:
            try:
                await process(service, holder["ctx"], body, message.headers, record.key)
            except HandBack:
                raise NackMessage() from None  # not committed: the consumer is stopping, the next one reads it
            return
        headers = message.headers
        await in_flight.admit(
            record, message.consumer, lambda: process(service, holder["ctx"], body, headers, record.key)
        )

    @app.on_startup
    async def connect() -> None:
        if not settings.database_url:
            raise RuntimeError("PRECEDENTE_DATABASE_URL is not set")
        pool = await create_pool(settings.database_url)
        ctx = StageContext(settings=settings, db=pool, broker=broker)
        if service.setup is not None:
            await service.setup(ctx)
        holder["ctx"] = ctx
        telemetry.start_metrics_server(settings)
        if settings.lag_interval_s > 0:
            topics = [topic_name(settings, service.input_topic)]
            lag = telemetry.watch_lag(settings.kafka_bootstrap, service.group_id, topics, settings.lag_interval_s)
            holder["lag"] = asyncio.create_task(lag)

    @app.on_shutdown
    async def drain() -> None:  # before the broker stops: the events in flight may still commit
        if "ctx" in holder:
            holder["ctx"].stopping.set()
        if in_flight is not None:
            await in_flight.close()

    @app.after_shutdown
    async def disconnect() -> None:
        if "lag" in holder:
            holder["lag"].cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await holder["lag"]
        if "ctx" in holder:
            await holder["ctx"].db.close()
        telemetry.shutdown()

    return app
