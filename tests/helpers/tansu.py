"""Settings for a stage run in a test against the embedded Tansu broker: topics of its own, quick group joins."""

import uuid

from precedente.shared.settings import Settings


def stage_settings(database_url: str, bootstrap: str, name: str) -> Settings:
    """One partition, topics under a fresh `name-<hex>.` prefix (a module's broker is shared by its tests), and a
    short session: Tansu lets a consumer join its group after about half of session_timeout_ms."""
    return Settings(
        database_url=database_url,
        kafka_bootstrap=bootstrap,
        topic_partitions=1,
        topic_prefix=f"{name}-{uuid.uuid4().hex[:8]}.",
        consumer_session_timeout_ms=4000,
        consumer_heartbeat_interval_ms=1000,
        lag_interval_s=0,
        metrics_port=0,
        telemetry_exporter="none",
    )
