"""The consumer lag of every pipeline service's group on its input topic, and how many of its members are busy:
the broker's side of `GET /status` (services/search/routers/status.py), measured on each request."""

import asyncio
import logging
from typing import Any

from pydantic import BaseModel

from precedente.shared.runtime import pipeline
from precedente.shared.runtime.broker import topic_name
from precedente.shared.runtime.telemetry import measure_lag
from precedente.shared.settings import Settings

log = logging.getLogger(__name__)

LAG_TIMEOUT_S = 3.0


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
