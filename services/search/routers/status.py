"""Ingestion status for people and the CLI: how many documents stand at each stage, and why some stopped.

`GET /status` answers, over the documents the caller may see (the access list is inside every SQL
statement here, so no count reveals a hidden document):

- `stages`: documents per ledger stage (`documents.stage`, the current version of each document);
- `review_reasons` / `failure_reasons`: counts per reason code, and `latest_stopped`;
- `unread_pages`: documents indexed with pages left out unread (services/extractor/policy.py's middle outcome;
  GET /review lists them under reason code "unread_pages") and how many pages: they are searchable, so they
  stand in `stages` as "indexed", not in `review_reasons`, yet each waits for a reviewer;
- `review_queue`: the review queue per reason code, by GET /review's own rule (store/review.py QUEUE_CLAUSE: in
  review, failed while being read, indexed with unread pages): the count a page shows beside "Aguardando revisão",
  and what GET /documents?awaiting_review=true lists (a page counted 1 under review while its filter, by stage
  alone, found none: the document was indexed with an unread page);
- `pipeline`: one row per pipeline service, in shared/runtime/pipeline.py's order (extractor ... indexer). For a
  service S that consumes the ledger stage I (its input) and records the stage O (its output):

  - `pending`: documents whose current stage is I: published to S's input topic, S has not recorded O.
  - `in_progress`: how many of those a replica of S is handling right now. A replica handles one
    document at a time and commits its offset only once the document is handled, so a replica is busy
    exactly when one of the partitions it holds has uncommitted messages: `in_progress` is the number
    of S's group members holding such a partition (when the broker does not say which member holds
    which partition, as Tansu does not, the smaller of the members and the partitions with a lag),
    never more than `pending`. `null` when the broker did not answer in time.
  - `waiting`: `pending - in_progress`: published to S's input and not yet picked (`pending` when
    `in_progress` is unknown).
  - `done`: documents whose current version has an O entry in `document_history`: S finished them at
    least once (whatever happened later).
  - `in_review` / `failed`: documents now in `review` / `failed` that S stopped (`halted_in = S`).
  - `lag`: consumer lag of S's group `precedente-S` on its input topic, summed over partitions: end
    offset minus committed offset (the beginning offset when the group has committed nothing). It
    counts messages, not documents (a redelivered or stale event counts too), and it is the broker's
    own number for every document, visible or not; `lag_by_partition` has the detail and `members`
    the group's consumers (replicas). Computed on each request with a short timeout.

- `yielding_to_search`: set only while ingestion holds back for search (shared/runtime/admission.py, the stages' own
  rule over the search_load table): the caller's documents in the pipeline (the `pending` above, summed), the
  worst search replica's p95 and the searches in flight; the ingestion page says "Cedendo à busca" from it.

- `slowest`: the slowest documents of the last hour: documents (current version) indexed in the last
  hour, by time from their latest submission to their indexing, with the slowest stage (the longest
  gap between two consecutive history entries, charged to the service that recorded the later one:
  its queue wait plus its work) and the seconds per stage.
"""

import asyncio
import dataclasses
import logging
import uuid
from datetime import datetime

from fastapi import APIRouter
from pydantic import BaseModel

from precedente.services.search.broker_lag import consumer_lag
from precedente.services.search.deps import DbDep, ReaderDep, SettingsDep
from precedente.services.search.store import review as review_store
from precedente.services.search.store import status as store
from precedente.services.search.store.documents import Db
from precedente.shared.runtime import admission, pipeline, search_load
from precedente.shared.settings import Settings

log = logging.getLogger(__name__)
router = APIRouter(tags=["status"])

SLOWEST_LIMIT = 10

# ledger stage -> the pipeline service that records it
SERVICE_OF_STAGE = {stage.output_stage.value: stage.name for stage in pipeline.STAGES}


class StoppedDocument(BaseModel):
    document_id: uuid.UUID
    filename: str
    stage: str
    halted_in: str | None
    reason_code: str | None
    reason: str | None
    at: datetime


class StageStatus(BaseModel):
    service: str
    consumer_group: str
    input_stage: str
    output_stage: str
    waiting: int
    in_progress: int | None
    pending: int
    done: int
    in_review: int
    failed: int
    lag: int | None
    lag_by_partition: dict[int, int] | None
    members: int | None


class SlowDocument(BaseModel):
    document_id: uuid.UUID
    filename: str
    submitted_at: datetime
    indexed_at: datetime
    total_seconds: float
    slowest_stage: str | None
    slowest_stage_seconds: float | None
    stage_seconds: dict[str, float]


class UnreadPages(BaseModel):
    """Indexed documents with pages left out of the index (documents.unread_pages), and those pages in all."""

    documents: int = 0
    pages: int = 0


class YieldingToSearch(BaseModel):
    """Ingestion is holding back for search (shared/runtime/admission.py): search is busy by the stages' own rule and
    `documents` of the caller's wait in the pipeline (each stage holds its next piece of work, bounded)."""

    documents: int
    search_p95_ms: float
    searches_in_flight: int
    reason: str


class IngestionStatus(BaseModel):
    stages: dict[str, int]
    review_reasons: dict[str, int]
    failure_reasons: dict[str, int]
    latest_stopped: list[StoppedDocument]
    unread_pages: UnreadPages = UnreadPages()
    review_queue: dict[str, int] = {}
    pipeline: list[StageStatus] = []
    lag_error: str | None = None
    slowest: list[SlowDocument] = []
    yielding_to_search: YieldingToSearch | None = None


@router.get("/status", response_model=IngestionStatus)
async def ingestion_status(db: DbDep, who: ReaderDep, settings: SettingsDep) -> IngestionStatus:
    """Counted only over the documents the caller may see: a count must not reveal a hidden one.

    The consumer lag is the broker's count of messages (see the module's docstring)."""
    lag_task = asyncio.create_task(consumer_lag(settings))
    by_stage = await store.stage_counts(db, who.groups)
    reasons = await store.reason_counts(db, who.groups)
    stopped = await store.latest_stopped(db, who.groups)
    unread_documents, unread_pages = await store.unread_counts(db, who.groups)
    halted_by = await store.halted_counts(db, who.groups)
    queue = await review_store.queue_counts(db, who.groups)
    done = await store.reached_counts(db, who.groups, list(SERVICE_OF_STAGE))
    slowest = await slowest_documents(db, who.groups)
    lag_error = None
    try:
        lags = await lag_task
    except Exception as err:  # noqa: BLE001 - the ledger's numbers are still worth answering with
        lags = {}
        lag_error = f"consumer lag unavailable: {type(err).__name__}: {err}".rstrip(": ")
        log.warning("%s", lag_error)

    done_by = {SERVICE_OF_STAGE[stage]: n for stage, n in done.items()}
    rows = []
    for stage in pipeline.STAGES:
        name = stage.name
        pending = by_stage.get(stage.input_stage.value, 0)
        group = lags.get(name)
        in_progress = None
        if group is not None and group.busy_members is not None:
            in_progress = min(group.busy_members, pending)
        rows.append(
            StageStatus(
                service=name,
                consumer_group=stage.group_id,
                input_stage=stage.input_stage.value,
                output_stage=stage.output_stage.value,
                waiting=pending - (in_progress or 0),
                in_progress=in_progress,
                pending=pending,
                done=done_by.get(name, 0),
                in_review=halted_by.get(("review", name), 0),
                failed=halted_by.get(("failed", name), 0),
                lag=group.lag if group else None,
                lag_by_partition=group.by_partition if group else None,
                members=group.members if group else None,
            )
        )
    return IngestionStatus(
        stages=by_stage,
        review_reasons=reasons["review"],
        failure_reasons=reasons["failed"],
        latest_stopped=[StoppedDocument(**dataclasses.asdict(s)) for s in stopped],
        unread_pages=UnreadPages(documents=unread_documents, pages=unread_pages),
        review_queue=queue,
        pipeline=rows,
        lag_error=lag_error,
        slowest=slowest,
        yielding_to_search=await yielding_to_search(db, settings, sum(row.pending for row in rows)),
    )


async def yielding_to_search(db: Db, settings: Settings, pending: int) -> YieldingToSearch | None:
    """Whether ingestion holds back for search now, by the decision every stage takes (admission.busy_reason over
    search_load); None when it does not, admission is off, nothing of the caller's waits, or the load is
    unreadable (the stages then go on too)."""
    if not settings.admission_enabled or pending == 0:
        return None
    try:
        loads = await search_load.read(db)
    except Exception as err:  # noqa: BLE001 - the rest of the status is still worth answering with
        log.warning("search load unreadable: %s", err)
        return None
    thresholds = admission.Thresholds.from_settings(settings)
    reason = admission.busy_reason(loads, thresholds)
    if reason is None:
        return None
    in_flight, p95_ms = admission.search_figures(loads, thresholds)
    return YieldingToSearch(documents=pending, search_p95_ms=p95_ms, searches_in_flight=in_flight, reason=reason)


async def slowest_documents(db: Db, groups: list[str], limit: int = SLOWEST_LIMIT) -> list[SlowDocument]:
    """Documents indexed in the last hour, slowest first, with the time each service took (its queue wait plus
    its work: the gap between two consecutive history entries, charged to the one that recorded the later)."""
    indexed = await store.recently_indexed(db, groups, limit)
    if not indexed:
        return []
    steps = await store.history_steps(db, [r.document_id for r in indexed])
    found = []
    for r in indexed:
        entries = [(s, at) for s, at in steps.get(r.document_id, []) if r.submitted_at <= at <= r.indexed_at]
        spent: dict[str, float] = {}
        for (_, before), (stage, after) in zip(entries, entries[1:], strict=False):
            service = SERVICE_OF_STAGE.get(stage, stage)
            spent[service] = spent.get(service, 0.0) + (after - before).total_seconds()
        spent = {k: round(v, 3) for k, v in spent.items()}
        slowest = max(spent.items(), key=lambda item: item[1]) if spent else None
        found.append(
            SlowDocument(
                document_id=r.document_id,
                filename=r.filename,
                submitted_at=r.submitted_at,
                indexed_at=r.indexed_at,
                total_seconds=round((r.indexed_at - r.submitted_at).total_seconds(), 3),
                slowest_stage=slowest[0] if slowest else None,
                slowest_stage_seconds=slowest[1] if slowest else None,
                stage_seconds=spent,
            )
        )
    return found
