"""A database of a test's own on the module's PostgreSQL server, for tests that change tables or need data
no other test should see."""

import uuid

import asyncpg

from precedente.shared.infra.db import migrate


async def new_database(owner_url: str, role: str | None, prefix: str = "t") -> str:
    """Create and migrate (granting `role` its rows) a new database; returns its URL as the owner's."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    owner = await asyncpg.connect(owner_url)
    try:
        await owner.execute(f"CREATE DATABASE {name}")
    finally:
        await owner.close()
    url = owner_url.rsplit("/", 1)[0] + f"/{name}"
    await migrate(url, role)
    return url


def as_role(database_url: str, owner_database_url: str) -> str:
    """The same database as `owner_database_url`, reached with `database_url`'s credentials."""
    return database_url.rsplit("/", 1)[0] + "/" + owner_database_url.rsplit("/", 1)[1]
