"""Telling an outage from a failure, for consumers that are not stages (shared/runtime/recovery.py), on the module's own
PostgreSQL (tests/conftest.py's `pool`)."""

import asyncpg
import pytest

from precedente.shared.runtime import recovery


async def test_work_interrupted_by_a_lost_connection_runs_again_once_the_database_answers(pool: asyncpg.Pool) -> None:
    calls: list[int] = []

    async def work() -> str:
        calls.append(len(calls))
        if len(calls) == 1:  # what asyncpg raises when the server goes away mid-statement
            raise asyncpg.exceptions.AdminShutdownError("terminating connection due to administrator command")
        return await pool.fetchval("SELECT 'aplicada'")

    assert await recovery.outlasting_outages(pool, None, work, "test") == "aplicada"
    assert calls == [0, 1]


async def test_a_failure_while_everything_answers_is_raised_not_retried(pool: asyncpg.Pool) -> None:
    calls: list[int] = []

    async def work() -> None:
        calls.append(1)
        await pool.execute("SELECT * FROM a_table_that_does_not_exist")

    with pytest.raises(asyncpg.UndefinedTableError):
        await recovery.outlasting_outages(pool, None, work, "test")
    assert calls == [1]
