"""The services' Kafka broker (shared/runtime/broker.py) on the embedded Tansu broker."""

from typing import Any

from precedente.shared.contracts import Topic
from precedente.shared.runtime.broker import ensure_topics, make_broker, topic_name
from precedente.shared.settings import Settings
from tests.helpers.tansu import stage_settings


async def test_subscribers_join_their_groups_at_once_and_each_is_assigned_its_topic(kafka: str) -> None:
    """The indexer has three subscribers; one after another, each waited for its group's join (about half the
    session timeout on Tansu, Kafka's initial rebalance delay on Kafka) before the next began."""
    settings: Settings = stage_settings("", kafka, "joins")
    topics = [topic_name(settings, topic) for topic in (Topic.ANNOTATED, Topic.DELETED, Topic.ACCESS_CHANGED)]
    await ensure_topics(settings)
    broker = make_broker(settings)
    for number, topic in enumerate(topics):
        broker.subscriber(topic, group_id=f"joins-{number}", session_timeout_ms=4000, heartbeat_interval_ms=1000)(
            _ignore
        )
    steps: list[tuple[str, str]] = []
    for subscriber in broker.subscribers:
        subscriber.start = _noting(subscriber.start, subscriber.topic_names[0], steps)  # type: ignore[method-assign]
    await broker.start()
    try:
        assert [step for step, _ in steps[:3]] == ["joining"] * 3, steps  # all three began before any was assigned
        for subscriber in broker.subscribers:
            assert {tp.topic for tp in subscriber.consumer.assignment()} == set(subscriber.topic_names)
        assert sorted(topic for subscriber in broker.subscribers for topic in subscriber.topic_names) == sorted(topics)
    finally:
        await broker.stop()


async def _ignore(body: Any) -> None:
    return None


def _noting(start: Any, topic: str, steps: list[tuple[str, str]]) -> Any:
    async def noted() -> None:
        steps.append(("joining", topic))
        await start()
        steps.append(("assigned", topic))

    return noted
