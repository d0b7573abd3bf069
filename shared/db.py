"""Database access: one asyncpg pool per process, pgvector codecs, and versioned migrations."""

import contextlib
import json
from importlib import resources

import asyncpg
from pgvector.asyncpg import register_vector

MIGRATIONS_LOCK = 0x5052_4543  # advisory lock id: one migrator at a time across services


async def _init_connection(conn: asyncpg.Connection) -> None:
    await conn.set_type_codec("jsonb", encoder=json.dumps, decoder=json.loads, schema="pg_catalog")
    with contextlib.suppress(ValueError):  # before the first migration the vector type does not exist yet
        await register_vector(conn)


async def create_pool(url: str, min_size: int = 1, max_size: int = 5) -> asyncpg.Pool:
    return await asyncpg.create_pool(url, min_size=min_size, max_size=max_size, init=_init_connection)


def migration_files() -> list[tuple[int, str, str]]:
    folder = resources.files("shared") / "migrations"
    found = []
    for item in folder.iterdir():
        if item.name.endswith(".sql"):
            found.append((int(item.name.split("_", 1)[0]), item.name, item.read_text()))
    return sorted(found)


async def migrate(url: str) -> list[str]:
    """Apply the migrations not yet applied, each in its own transaction; returns their names."""
    conn = await asyncpg.connect(url)
    applied_now = []
    try:
        await conn.execute("SELECT pg_advisory_lock($1)", MIGRATIONS_LOCK)
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = {r["version"] for r in await conn.fetch("SELECT version FROM schema_migrations")}
        for version, name, sql in migration_files():
            if version in done:
                continue
            async with conn.transaction():
                await conn.execute(sql)
                await conn.execute("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", version, name)
            applied_now.append(name)
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", MIGRATIONS_LOCK)
        await conn.close()
    return applied_now
