"""Ingestion status for people and the CLI: how many documents stand at each stage, and why some stopped.

`GET /status` answers, over the documents the caller may see (the access list is inside every SQL
statement here, so no count reveals a hidden document):

- `stages`: documents per ledger stage (`documents.stage`, the current version of each document);
- `review_reasons` / `failure_reasons`: counts per reason code, and `latest_stopped`;
- `pipeline`: one row per pipeline service, in shared/pipeline.py's order (extractor ... indexer). For a
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

- `slowest`: the slowest documents of the last hour: documents (current version) indexed in the last
  hour, by time from their latest submission to their indexing, with the slowest stage (the longest
  gap between two consecutive history entries, charged to the service that recorded the later one:
  its queue wait plus its work) and the seconds per stage.
"""

import asyncio
import logging
import uuid
from datetime import datetime
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel

from services.search.deps import ACCESS_CLAUSE, DbDep, ReaderDep, SettingsDep
from shared import pipeline
from shared.broker import topic_name
from shared.settings import Settings
from shared.telemetry import measure_lag

log = logging.getLogger(__name__)
router = APIRouter(tags=["status"])

ACCESS = ACCESS_CLAUSE.replace("$2", "$1")
LAG_TIMEOUT_S = 3.0
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


class IngestionStatus(BaseModel):
    stages: dict[str, int]
    review_reasons: dict[str, int]
    failure_reasons: dict[str, int]
    latest_stopped: list[StoppedDocument]
    pipeline: list[StageStatus] = []
    lag_error: str | None = None
    slowest: list[SlowDocument] = []


class GroupLag(BaseModel):
    lag: int
    by_partition: dict[int, int]
    members: int | None
    busy_members: int | None


async def consumer_lag(settings: Settings, timeout: float = LAG_TIMEOUT_S) -> dict[str, GroupLag]:
    """Committed against end offsets of every pipeline group on its input topic (raises on timeout)."""
    return await asyncio.wait_for(_consumer_lag(settings), timeout)


async def _consumer_lag(settings: Settings) -> dict[str, GroupLag]:
    from aiokafka.admin import AIOKafkaAdminClient

    groups = {stage.group_id: [topic_name(settings, stage.input_topic)] for stage in pipeline.STAGES}
    lags = await measure_lag(settings.kafka_bootstrap, groups)
    members = await _group_members(AIOKafkaAdminClient, settings.kafka_bootstrap)
    result = {}
    for stage in pipeline.STAGES:
        by_partition = {partition: n for (_, partition), n in lags[stage.group_id].items()}
        lagging = {p for p, n in by_partition.items() if n > 0}
        group = members.get(stage.group_id)
        busy = None
        if group is not None:
            holders, assignments = group
            if assignments is not None:
                busy = sum(1 for held in assignments if held & lagging)
            else:
                busy = min(holders, len(lagging))
        result[stage.name] = GroupLag(
            lag=sum(by_partition.values()),
            by_partition=by_partition,
            members=group[0] if group else None,
            busy_members=busy,
        )
    return result


async def _group_members(admin_class: Any, bootstrap: str) -> dict[str, tuple[int, list[set[int]] | None]]:
    """Members per group and, when the broker says, the partitions each one holds."""
    from aiokafka.coordinator.protocol import ConsumerProtocolMemberAssignment

    admin = admin_class(bootstrap_servers=bootstrap)
    await admin.start()
    responses = []
    try:
        for stage in pipeline.STAGES:  # one group per request: Tansu garbles a DescribeGroups answer for several
            try:
                responses.extend(await admin.describe_consumer_groups([stage.group_id]))
            except Exception as err:  # noqa: BLE001 - members are a detail; the lag still stands
                log.info("cannot describe group %s: %s", stage.group_id, err)
    finally:
        await admin.close()
    found: dict[str, tuple[int, list[set[int]] | None]] = {}
    for response in responses:
        for group in response.groups:
            error_code, group_id, members = group[0], group[1], group[5]
            if error_code:
                continue
            assignments: list[set[int]] | None = []
            for member in members:
                raw = member[4]
                if not raw:
                    assignments = None
                    break
                decoded = ConsumerProtocolMemberAssignment.decode(raw)
                assert assignments is not None
                assignments.append({p for _, parts in decoded.assignment for p in parts})
            found[group_id] = (len(members), assignments)
    return found


@router.get("/status", response_model=IngestionStatus)
async def ingestion_status(db: DbDep, who: ReaderDep, settings: SettingsDep) -> IngestionStatus:
    """Counted only over the documents the caller may see: a count must not reveal a hidden one.

    The consumer lag is the broker's count of messages (see the module's docstring)."""
    lag_task = asyncio.create_task(consumer_lag(settings))
    stages = await db.fetch(f"SELECT stage, count(*) AS n FROM documents WHERE {ACCESS} GROUP BY 1", who.groups)
    reasons = await db.fetch(
        f"SELECT stage, coalesce(reason_code, 'unknown') AS code, count(*) AS n FROM documents"
        f" WHERE stage IN ('review', 'failed') AND {ACCESS} GROUP BY 1, 2 ORDER BY 3 DESC",
        who.groups,
    )
    stopped = await db.fetch(
        f"SELECT id, filename, stage, halted_in, reason_code, last_error, updated_at FROM documents"
        f" WHERE stage IN ('review', 'failed') AND {ACCESS} ORDER BY updated_at DESC LIMIT 20",
        who.groups,
    )
    halted = await db.fetch(
        f"SELECT stage, halted_in, count(*) AS n FROM documents"
        f" WHERE stage IN ('review', 'failed') AND halted_in IS NOT NULL AND {ACCESS} GROUP BY 1, 2",
        who.groups,
    )
    done = await db.fetch(
        f"SELECT h.stage, count(DISTINCT d.id) AS n FROM documents d"
        f" JOIN document_history h ON h.document_id = d.id AND h.version = d.version"
        f" WHERE h.stage = ANY($2::text[]) AND {ACCESS} GROUP BY 1",
        who.groups,
        list(SERVICE_OF_STAGE),
    )
    slowest = await slowest_documents(db, who.groups)
    lag_error = None
    try:
        lags = await lag_task
    except Exception as err:  # noqa: BLE001 - the ledger's numbers are still worth answering with
        lags = {}
        lag_error = f"consumer lag unavailable: {type(err).__name__}: {err}".rstrip(": ")
        log.warning("%s", lag_error)

    by_stage = {r["stage"]: r["n"] for r in stages}
    done_by = {SERVICE_OF_STAGE[r["stage"]]: r["n"] for r in done}
    halted_by = {(r["stage"], r["halted_in"]): r["n"] for r in halted}
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
        review_reasons={r["code"]: r["n"] for r in reasons if r["stage"] == "review"},
        failure_reasons={r["code"]: r["n"] for r in reasons if r["stage"] == "failed"},
        latest_stopped=[
            StoppedDocument(
                document_id=r["id"],
                filename=r["filename"],
                stage=r["stage"],
                halted_in=r["halted_in"],
                reason_code=r["reason_code"],
                reason=r["last_error"],
                at=r["updated_at"],
            )
            for r in stopped
        ],
        pipeline=rows,
        lag_error=lag_error,
        slowest=slowest,
    )


async def slowest_documents(db: Any, groups: list[str], limit: int = SLOWEST_LIMIT) -> list[SlowDocument]:
    """Documents indexed in the last hour, slowest first (submission to indexing of the current version)."""
    rows = await db.fetch(
        f"""
        WITH recent AS (
            SELECT d.id, d.filename, d.version,
                   (SELECT max(at) FROM document_history h
                     WHERE h.document_id = d.id AND h.version = d.version AND h.stage = 'indexed') AS indexed_at
              FROM documents d
             WHERE d.stage = 'indexed' AND d.updated_at > now() - interval '1 hour' AND {ACCESS}
        ), timed AS (
            SELECT r.*,
                   (SELECT max(at) FROM document_history h
                     WHERE h.document_id = r.id AND h.version = r.version AND h.stage = 'submitted'
                       AND h.at <= r.indexed_at) AS submitted_at
              FROM recent r
             WHERE r.indexed_at > now() - interval '1 hour'
        )
        SELECT * FROM timed WHERE submitted_at IS NOT NULL
         ORDER BY indexed_at - submitted_at DESC LIMIT {int(limit)}
        """,
        groups,
    )
    rows = [r for r in rows if r["submitted_at"] is not None]
    if not rows:
        return []
    history = await db.fetch(
        "SELECT document_id, stage, at FROM document_history WHERE document_id = ANY($1::uuid[]) ORDER BY at, id",
        [r["id"] for r in rows],
    )
    steps: dict[uuid.UUID, list[tuple[str, datetime]]] = {}
    for h in history:
        steps.setdefault(h["document_id"], []).append((h["stage"], h["at"]))
    found = []
    for r in rows:
        entries = [(s, at) for s, at in steps.get(r["id"], []) if r["submitted_at"] <= at <= r["indexed_at"]]
        spent: dict[str, float] = {}
        for (_, before), (stage, after) in zip(entries, entries[1:], strict=False):
            service = SERVICE_OF_STAGE.get(stage, stage)
            spent[service] = spent.get(service, 0.0) + (after - before).total_seconds()
        spent = {k: round(v, 3) for k, v in spent.items()}
        slowest = max(spent.items(), key=lambda item: item[1]) if spent else None
        found.append(
            SlowDocument(
                document_id=r["id"],
                filename=r["filename"],
                submitted_at=r["submitted_at"],
                indexed_at=r["indexed_at"],
                total_seconds=round((r["indexed_at"] - r["submitted_at"]).total_seconds(), 3),
                slowest_stage=slowest[0] if slowest else None,
                slowest_stage_seconds=slowest[1] if slowest else None,
                stage_seconds=spent,
            )
        )
    return found
