"""The embedded PostgreSQL's memory is sized from the machine's, not left at PostgreSQL's defaults (128 MB of
shared buffers, less than a firm's HNSW index alone), and the running server has those settings."""

from pathlib import Path

import asyncpg

from precedente.shared.infra.embedded import MIB, EmbeddedPostgres, machine_memory, memory_settings, precedente_conf

GIB = 1024 * MIB


def test_a_quarter_of_memory_for_shared_buffers_and_three_quarters_assumed_cached() -> None:
    assert memory_settings(24 * GIB) == {
        "shared_buffers": "6144MB",
        "effective_cache_size": "18432MB",
        "work_mem": "24MB",
        "maintenance_work_mem": "1024MB",
    }


def test_small_and_large_machines_stay_within_bounds() -> None:
    small = memory_settings(1 * GIB)
    assert small == {
        "shared_buffers": "256MB",
        "effective_cache_size": "768MB",
        "work_mem": "4MB",
        "maintenance_work_mem": "64MB",
    }
    tiny = memory_settings(100 * MIB)  # never under PostgreSQL's own defaults
    assert tiny["shared_buffers"] == "128MB" and tiny["work_mem"] == "4MB"
    large = memory_settings(256 * GIB)
    assert large["shared_buffers"] == "8192MB"  # the kernel's cache serves the rest
    assert large["work_mem"] == "64MB" and large["maintenance_work_mem"] == "1024MB"
    assert large["effective_cache_size"] == f"{256 * 1024 * 3 // 4}MB"


def test_a_container_limit_below_the_machine_is_what_counts(tmp_path: Path) -> None:
    limit = tmp_path / "memory.max"
    limit.write_text(f"{2 * GIB}\n")
    assert machine_memory((limit,)) == 2 * GIB
    limit.write_text("max\n")  # cgroup v2 without a limit
    assert machine_memory((limit,)) == machine_memory(())
    assert machine_memory((tmp_path / "absent",)) == machine_memory(())


def test_the_configuration_keeps_the_access_settings_and_adds_the_memory() -> None:
    text = precedente_conf(8 * GIB)
    assert "listen_addresses = '127.0.0.1'" in text and "password_encryption = 'scram-sha-256'" in text
    assert "shared_buffers = '2048MB'" in text and "effective_cache_size = '6144MB'" in text


async def test_the_running_server_has_the_sized_memory(embedded_postgres: EmbeddedPostgres, owner_url: str) -> None:
    wanted = memory_settings(machine_memory())
    conf = (embedded_postgres.pgdata / "precedente.conf").read_text()
    assert conf == precedente_conf(machine_memory())
    conn = await asyncpg.connect(owner_url)
    try:
        for name, value in wanted.items():
            running = await conn.fetchval("SELECT pg_size_bytes(current_setting($1))", name)
            assert running == int(value.removesuffix("MB")) * MIB, name
    finally:
        await conn.close()
