"""The embedded PostgreSQL asks for a password (SCRAM) and the services' role owns nothing: against real
clusters, one made now and one made the old way (initdb --auth=trust), which is secured at its next start."""

import os
import stat
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from precedente.services.search.store import audit
from precedente.shared import accounts
from precedente.shared.infra.db import MigrationError, migrate, migrate_for, migration_files
from precedente.shared.infra.embedded import (
    APP_ROLE,
    OWNER_ROLE,
    EmbeddedPostgres,
    hba_is_scram,
    read_secret,
    scram_verifier,
)
from precedente.shared.infra.lexicon import refresh_statistics

DENIED = asyncpg.InsufficientPrivilegeError


@pytest.fixture(scope="module")
async def owner(owner_url: str) -> AsyncIterator[asyncpg.Connection]:
    conn = await asyncpg.connect(owner_url)
    yield conn
    await conn.close()


async def test_no_password_no_connection(embedded_postgres: EmbeddedPostgres) -> None:
    for role in (OWNER_ROLE, APP_ROLE):
        with pytest.raises(asyncpg.InvalidPasswordError):
            await asyncpg.connect(host="127.0.0.1", port=embedded_postgres.port, user=role, database="postgres")
        with pytest.raises(asyncpg.InvalidPasswordError):
            await asyncpg.connect(
                host="127.0.0.1", port=embedded_postgres.port, user=role, password="wrong", database="postgres"
            )
    assert hba_is_scram((embedded_postgres.pgdata / "pg_hba.conf").read_text())


async def test_passwords_live_in_private_files(embedded_postgres: EmbeddedPostgres) -> None:
    for role in (OWNER_ROLE, APP_ROLE):
        path = embedded_postgres.secret_file(role)
        info = path.stat()
        assert path.parent == embedded_postgres.pgdata.parent  # the data directory, beside pg/
        assert stat.S_IMODE(info.st_mode) == 0o600 and info.st_uid == os.geteuid()
        assert len(read_secret(path)) >= 40
    assert embedded_postgres.password(OWNER_ROLE) != embedded_postgres.password(APP_ROLE)
    # A file others could read is closed again before it is used.
    path = embedded_postgres.secret_file(APP_ROLE)
    path.chmod(0o644)
    read_secret(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    # The server's log holds statements and failed logins: its owner only.
    assert stat.S_IMODE(embedded_postgres.logfile.stat().st_mode) == 0o600
    assert embedded_postgres.logfile.stat().st_size > 0  # the server writes to it all the same


async def test_the_server_keeps_verifiers_and_listens_on_loopback_only(owner: asyncpg.Connection) -> None:
    stored = await owner.fetchval("SELECT rolpassword FROM pg_authid WHERE rolname = $1", APP_ROLE)
    assert stored.startswith("SCRAM-SHA-256$4096:")
    assert await owner.fetchval("SHOW listen_addresses") == "127.0.0.1"
    assert await owner.fetchval("SHOW unix_socket_directories") == ""
    assert await owner.fetchval("SELECT count(*) FROM pg_hba_file_rules WHERE auth_method <> 'scram-sha-256'") == 0


def test_scram_verifier_matches_rfc_7677() -> None:
    # RFC 7677's example: user's password "pencil", salt W22ZaJ0SNY7soEsUEjb6gQ==, 4096 iterations.
    import base64

    verifier = scram_verifier("pencil", base64.b64decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096)
    assert verifier == (
        "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$"
        "WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=:wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU="
    )


async def test_the_services_role_has_no_power_beyond_rows(pool: asyncpg.Pool, owner: asyncpg.Connection) -> None:
    assert await pool.fetchval("SELECT current_user") == APP_ROLE  # the conftest pool is the services' role
    role = await owner.fetchrow("SELECT * FROM pg_roles WHERE rolname = $1", APP_ROLE)
    assert role["rolcanlogin"] and not any(
        role[k] for k in ("rolsuper", "rolcreatedb", "rolcreaterole", "rolreplication", "rolbypassrls")
    )
    owned = await owner.fetchval(
        "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = 'public' AND pg_get_userbyid(c.relowner) = $1",
        APP_ROLE,
    )
    assert owned == 0
    for statement in (
        "DROP TRIGGER audit_log_append_only ON audit_log",
        "ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only",
        "ALTER TABLE audit_log DISABLE TRIGGER ALL",
        "CREATE OR REPLACE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql"
        " AS $$ BEGIN RETURN OLD; END $$",
        "UPDATE audit_log SET actor = 'ninguem'",
        "DELETE FROM audit_log",
        "TRUNCATE audit_log",
        "SET session_replication_role = replica",  # would silence every trigger
        "DROP TABLE documents",
        "ALTER TABLE chunks ADD COLUMN x int",
        "CREATE TABLE intruso (id int)",
        "REFRESH MATERIALIZED VIEW lexicon",
        "DELETE FROM schema_migrations",
        "CREATE ROLE outro LOGIN",
        "CREATE DATABASE outro",
    ):
        with pytest.raises(DENIED):
            await pool.execute(statement)


async def test_the_services_role_writes_rows_and_calls_the_owners_functions(
    pool: asyncpg.Pool, owner: asyncpg.Connection
) -> None:
    who = accounts.Identity("perita", "user")
    await audit.record(pool, who, "search", query="antiga")
    await audit.record(pool, who, "search", query="recente")
    async with owner.transaction():  # backdated by the owner, as if written long ago
        await owner.execute("ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only")
        await owner.execute("UPDATE audit_log SET at = now() - interval '40 days' WHERE query = 'antiga'")
        await owner.execute("ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only")
    with pytest.raises(asyncpg.RaiseError, match="at least one day"):
        await pool.fetchval("SELECT prune_audit_log(0)")  # no wiping the trail through the retention job
    assert await audit.prune(pool, retention_days=30) == 1
    assert [r["query"] for r in await pool.fetch("SELECT query FROM audit_log WHERE actor = 'perita'")] == ["recente"]
    assert await refresh_statistics(pool) is True
    # PUBLIC may not call the owner's functions: only the roles granted them.
    assert not await owner.fetchval("SELECT has_function_privilege('public', 'prune_audit_log(integer)', 'EXECUTE')")


async def test_tables_of_later_migrations_are_granted_by_default(pool: asyncpg.Pool, owner: asyncpg.Connection) -> None:
    table = f"later_{uuid.uuid4().hex[:8]}"
    await owner.execute(f"CREATE TABLE {table} (id bigserial PRIMARY KEY, note text)")  # as a migration would
    try:
        await pool.execute(f"INSERT INTO {table} (note) VALUES ('nova')")
        assert await pool.fetchval(f"UPDATE {table} SET note = 'velha' RETURNING note") == "velha"
        with pytest.raises(DENIED):
            await pool.execute(f"DROP TABLE {table}")
    finally:
        await owner.execute(f"DROP TABLE {table}")


async def test_the_services_role_cannot_migrate(owner: asyncpg.Connection, database_url: str) -> None:
    assert await migrate(database_url) == []  # a current schema: nothing to do, nothing refused
    name = f"m_{uuid.uuid4().hex[:8]}"
    await owner.execute(f"CREATE DATABASE {name}")
    with pytest.raises(MigrationError, match="PRECEDENTE_DATABASE_OWNER_URL"):
        await migrate(database_url.rsplit("/", 1)[0] + f"/{name}")


def _old_cluster(data_dir: Path) -> EmbeddedPostgres:
    """A data directory as `precedente up` made them before passwords: initdb --auth=trust, started the old way."""
    postgres = EmbeddedPostgres(data_dir)
    postgres._prepare()
    postgres._run(
        "initdb", "-D", str(postgres.pgdata), "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8",
        timeout=120,
    )  # fmt: skip
    options = f"-c listen_addresses=127.0.0.1 -c port={postgres.port} -c unix_socket_directories=''"
    postgres._run("pg_ctl", "start", "-w", "-D", str(postgres.pgdata), "-l", str(postgres.logfile), "-o", options)
    return postgres


async def test_a_trust_cluster_is_secured_at_its_next_start_and_keeps_its_rows(tmp_path: Path) -> None:
    old = _old_cluster(tmp_path)
    open_url = f"postgresql://postgres@127.0.0.1:{old.port}/postgres"
    try:
        await migrate(open_url)
        conn = await asyncpg.connect(open_url)  # no password: the hole this closes
        try:
            await conn.execute("INSERT INTO users (name, password_hash, created_by) VALUES ('ana', 'x', 'antes')")
        finally:
            await conn.close()
    finally:
        old.stop()
    assert not old.secret_file(OWNER_ROLE).exists()

    postgres = EmbeddedPostgres(tmp_path, port=old.port)
    owner_url = postgres.start()
    try:
        with pytest.raises(asyncpg.InvalidPasswordError):
            await asyncpg.connect(open_url)
        assert hba_is_scram((postgres.pgdata / "pg_hba.conf").read_text())
        assert stat.S_IMODE(postgres.secret_file(OWNER_ROLE).stat().st_mode) == 0o600
        assert await migrate(owner_url, APP_ROLE) == []  # grants only: the schema was current
        app = await asyncpg.connect(postgres.app_url)
        try:
            assert await app.fetchval("SELECT created_by FROM users WHERE name = 'ana'") == "antes"
            assert await app.fetchval("SELECT count(*) FROM schema_migrations") == len(migration_files())
            with pytest.raises(DENIED):
                await app.execute("TRUNCATE audit_log")
        finally:
            await app.close()
    finally:
        postgres.stop()

    again = EmbeddedPostgres(tmp_path)  # a later start: same passwords, nothing to secure
    assert again.start() == owner_url.replace(f":{old.port}/", f":{again.port}/")
    try:
        conn = await asyncpg.connect(again.app_url)
        try:
            assert await conn.fetchval("SELECT count(*) FROM users WHERE name = 'ana'") == 1
        finally:
            await conn.close()
    finally:
        again.stop()


async def test_migrate_creates_the_services_role_of_an_external_database(
    embedded_postgres: EmbeddedPostgres, owner: asyncpg.Connection
) -> None:
    """docker-compose.yml and deploy/k8s: the migrate one-shot, as the owner, makes the role the services' URL
    names, with the URL's password, and grants it rows; run again with another password, it takes that one."""
    role = f"servicos_{uuid.uuid4().hex[:6]}"
    app_url = f"postgresql://{role}:primeira@127.0.0.1:{embedded_postgres.port}/postgres"
    assert await migrate_for(embedded_postgres.owner_url, app_url) == []
    conn = await asyncpg.connect(app_url)
    try:
        assert await conn.fetchval("SELECT count(*) FROM schema_migrations") == len(migration_files())
        with pytest.raises(DENIED):
            await conn.execute("DELETE FROM audit_log")
    finally:
        await conn.close()
    assert not await owner.fetchval("SELECT rolsuper OR rolcreatedb FROM pg_roles WHERE rolname = $1", role)
    rotated = app_url.replace(":primeira@", ":segunda@")
    await migrate_for(embedded_postgres.owner_url, rotated)
    with pytest.raises(asyncpg.InvalidPasswordError):
        await asyncpg.connect(app_url)
    await (await asyncpg.connect(rotated)).close()


def test_a_lost_owner_password_is_not_replaced_by_a_new_one(tmp_path: Path) -> None:
    postgres = EmbeddedPostgres(tmp_path)
    postgres.start()
    postgres.stop()
    postgres.secret_file(OWNER_ROLE).unlink()
    with pytest.raises(RuntimeError, match="is missing"):
        EmbeddedPostgres(tmp_path).start()
    assert not postgres.secret_file(OWNER_ROLE).exists()
