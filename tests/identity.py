"""Credentials for tests that drive the search service in-process: real accounts and sessions in the
test's database, made through shared/accounts.py as `precedente users add` would."""

import contextlib

import asyncpg

from shared import accounts


async def person_headers(
    pool: asyncpg.Pool, groups: list[str], user: str | None = None, roles: tuple[str, ...] = ("reviewer",)
) -> dict[str, str]:
    """`Authorization: Bearer` of a signed-in person with these groups (created when missing)."""
    user = user or "u-" + "-".join(sorted(g for g in groups if g != "*"))[:90]
    password = f"senha-de-teste-{user}"
    with contextlib.suppress(accounts.AccountError):  # made by an earlier example: same groups, same password
        await accounts.create_user(pool, user, groups=groups, roles=list(roles), created_by="test", password=password)
    signed_in = await accounts.login(pool, user, password)
    assert signed_in is not None
    return {"Authorization": f"Bearer {signed_in[0]}"}
