"""Database access: one asyncpg pool per process, pgvector codecs, versioned migrations and the
application role's privileges.

Two roles where the deployment has two (PRECEDENTE_DATABASE_OWNER_URL and PRECEDENTE_DATABASE_URL):
the owner runs the migrations and owns every table; the application role, which every service uses,
is granted rows only: it reads and writes them, may only add to the audit log, and owns nothing, so
it cannot alter, drop or disable anything (the audit log's append-only trigger included). What the
services do at run time that needs the owner (refreshing the lexical statistics, pruning the audit
log) are SECURITY DEFINER functions of migration 0011. One role for both keeps working as before.
"""

import base64
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
from importlib import resources
from urllib.parse import unquote, urlsplit

import asyncpg
from pgvector.asyncpg import register_vector

log = logging.getLogger(__name__)

MIGRATIONS_LOCK = 0x5052_4543  # advisory lock id: one migrator at a time across services

# Tables the application role may read and add to, never change: the audit trail and the migrations' record.
APPEND_ONLY_TABLES = ("audit_log",)
READ_ONLY_TABLES = ("schema_migrations", "language_centroids")
SCRAM_ITERATIONS = 4096  # PostgreSQL's own default (scram_iterations)


class MigrationError(RuntimeError):
    """A migration could not be applied; the message says which and why."""


async def _init_connection(conn: asyncpg.Connection) -> None:
    await conn.set_type_codec("jsonb", encoder=json.dumps, decoder=json.loads, schema="pg_catalog")
    with contextlib.suppress(ValueError):  # before the first migration the vector type does not exist yet
        await register_vector(conn)


async def create_pool(url: str, min_size: int = 1, max_size: int = 5) -> asyncpg.Pool:
    return await asyncpg.create_pool(url, min_size=min_size, max_size=max_size, init=_init_connection)


def migration_files() -> list[tuple[int, str, str]]:
    folder = resources.files("precedente.shared") / "migrations"
    found = []
    for item in folder.iterdir():
        if item.name.endswith(".sql"):
            found.append((int(item.name.split("_", 1)[0]), item.name, item.read_text()))
    return sorted(found)


def scram_verifier(password: str, salt: bytes | None = None, iterations: int = SCRAM_ITERATIONS) -> str:
    """What PostgreSQL stores for a SCRAM-SHA-256 password (RFC 5802/7677), computed here so that the
    password itself never travels to the server, nor into its logs or pg_stat_statements."""
    salt = salt or secrets.token_bytes(16)
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    client_key = hmac.digest(salted, b"Client Key", "sha256")
    stored_key = hashlib.sha256(client_key).digest()
    server_key = hmac.digest(salted, b"Server Key", "sha256")

    def b64(raw: bytes) -> str:
        return base64.b64encode(raw).decode()

    return f"SCRAM-SHA-256${iterations}:{b64(salt)}${b64(stored_key)}:{b64(server_key)}"


def url_role(url: str) -> str | None:
    """The user a postgresql:// URL names, if it names one."""
    user = urlsplit(url).username
    return unquote(user) if user else None


async def _pending(conn: asyncpg.Connection) -> list[tuple[int, str, str]] | None:
    """The migrations not applied yet; None when there is no schema_migrations table at all."""
    if not await conn.fetchval("SELECT to_regclass('public.schema_migrations') IS NOT NULL"):
        return None
    done = {r["version"] for r in await conn.fetch("SELECT version FROM schema_migrations")}
    return [m for m in migration_files() if m[0] not in done]


async def migrate(url: str, app_role: str | None = None) -> list[str]:
    """Apply the migrations not yet applied, each in its own transaction; returns their names.

    `url` is the owner's. With `app_role` (another role than the owner), that role is then granted what
    the services need, on every table there is and, by default privileges, on those later migrations
    create. A role without the right to create tables may call this on a current schema: nothing to do."""
    conn = await asyncpg.connect(url)
    applied_now = []
    try:
        await conn.execute("SELECT pg_advisory_lock($1)", MIGRATIONS_LOCK)
        pending = await _pending(conn)
        step = "schema_migrations"
        try:
            if pending is None:
                await conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations ("
                    " version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
                )
                pending = migration_files()
            for version, step, sql in pending:
                async with conn.transaction():
                    await conn.execute(sql)
                    await conn.execute("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", version, step)
                applied_now.append(step)
        except asyncpg.InsufficientPrivilegeError as err:
            who = await conn.fetchval("SELECT current_user")
            raise MigrationError(
                f"{step}: {err} (connected as {who}; migrations run as the schema's owner:"
                " PRECEDENTE_DATABASE_OWNER_URL)"
            ) from err
        if app_role is not None and app_role != await conn.fetchval("SELECT current_user"):
            await grant_app_role(conn, app_role)
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", MIGRATIONS_LOCK)
        await conn.close()
    return applied_now


async def migrate_for(owner_url: str, app_url: str) -> list[str]:
    """`precedente migrate` and `up`: migrate as the owner, granting the application URL's role its
    privileges (nothing to grant when both URLs are one role). Where the owner may manage roles (the
    superuser of docker-compose.yml's and deploy/k8s's PostgreSQL), the application role is created, or
    given the URL's password, first: the URL is the one place its password is written."""
    app_role = url_role(app_url) if app_url and app_url != owner_url else None
    if app_role is not None:
        password = urlsplit(app_url).password
        await ensure_app_role(owner_url, app_role, unquote(password) if password else None)
    return await migrate(owner_url, app_role)


async def ensure_app_role(owner_url: str, role: str, password: str | None) -> None:
    """The application role exists, may log in, and is nothing more (no superuser, no CREATEDB or
    CREATEROLE); with `password`, that is its password. Left as it is where the owner may not manage
    roles (a managed database whose administrator made it): then it must exist already."""
    conn = await asyncpg.connect(owner_url)
    try:
        me = await conn.fetchrow("SELECT rolsuper, rolcreaterole FROM pg_roles WHERE rolname = current_user")
        exists = await conn.fetchval("SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", role)
        if not (me["rolsuper"] or me["rolcreaterole"]):
            if not exists:
                raise MigrationError(
                    f"the application role {role!r} does not exist and the owner may not create it: create it"
                    " (CREATE ROLE ... LOGIN PASSWORD ...) or migrate as a role with CREATEROLE"
                )
            return
        who = asyncpg.utils._quote_ident(role)  # noqa: SLF001 - asyncpg's own identifier quoting
        if not exists:
            await conn.execute(f"CREATE ROLE {who}")
        secret = f" PASSWORD '{scram_verifier(password)}'" if password else ""  # base64 and digits: no quote in it
        # Only a superuser may even name the SUPERUSER, REPLICATION and BYPASSRLS attributes.
        powers = " NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS" if me["rolsuper"] else ""
        await conn.execute(f"ALTER ROLE {who} LOGIN{powers}{secret}")
    finally:
        await conn.close()


async def grant_app_role(conn: asyncpg.Connection, role: str) -> None:
    """Rows, not structure: SELECT/INSERT/UPDATE/DELETE on every table (only SELECT and INSERT on the
    append-only ones), the sequences, the functions; and the same, by default, on what the owner creates
    later. Run by the owner, in one transaction, after every migration run."""
    attributes = await conn.fetchrow("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = $1", role)
    if attributes is None:
        raise MigrationError(f"the application role {role!r} does not exist: create it first (deploy/README.md)")
    if attributes["rolsuper"] or attributes["rolbypassrls"]:
        log.warning("the application role %s is a superuser or bypasses row security: it needs neither", role)
    who = asyncpg.utils._quote_ident(role)  # noqa: SLF001 - asyncpg's own identifier quoting
    statements = [
        f"GRANT USAGE ON SCHEMA public TO {who}",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {who}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {who}",
        f"GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO {who}",
        f"REVOKE TRUNCATE, REFERENCES, TRIGGER ON ALL TABLES IN SCHEMA public FROM {who}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {who}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO {who}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT EXECUTE ON FUNCTIONS TO {who}",
    ]
    for table in APPEND_ONLY_TABLES:
        statements.append(f"REVOKE UPDATE, DELETE, TRUNCATE ON TABLE public.{table} FROM {who}")
    for table in READ_ONLY_TABLES:
        statements.append(f"REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON TABLE public.{table} FROM {who}")
    async with conn.transaction():
        for statement in statements:
            await conn.execute(statement)
