"""People, sessions and API keys in PostgreSQL: what the search API authenticates against and what
`precedente users` / `precedente keys` manage (through the API, or straight in the database).

Secrets are shown once and never stored: passwords as scrypt hashes, session tokens and API key secrets
(256 random bits) as SHA-256 digests.
"""

import asyncio
import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg

from precedente.shared.contracts import EVERYONE

SESSION_PREFIX = "prs_"
KEY_PREFIX = "prk_"
SESSION_TTL = timedelta(hours=12)
ADMIN_KEY_FILE = "admin.key"  # in the data directory of `precedente up`: the local CLI's credential
# Also there, 0600, until its owner changes it: the first administrator's one-time password (never printed).
ADMIN_PASSWORD_FILE = "admin-password"
FIRST_ADMIN = "admin"

ROLES = ("reviewer", "admin")
SCOPES = ("search", "ingest", "review", "admin")
PERMISSIONS = frozenset(SCOPES)
# What a person may do besides their roles: search and open documents, upload, change access lists.
PERSON_PERMISSIONS = frozenset({"search", "ingest"})

# Safe in a header, a URL segment, a log line and the comma-separated groups of a form field.
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$")

MIN_PASSWORD = 12

# scrypt at N=2^14, r=8: about 16 MiB and 50 ms a check, the cost OWASP suggests for interactive logins.
_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1


class AccountError(ValueError):
    """A request about accounts that cannot be honoured; the message is safe to show the caller."""


@dataclass(frozen=True)
class Identity:
    """Who is calling and what they may do. A role or scope never widens what documents they see."""

    user: str
    kind: str  # 'user', 'key', 'oidc', 'anonymous'
    groups: list[str] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    scopes: list[str] = field(default_factory=list)
    credential: str = ""  # session digest or key id: what rate limits and logout key on
    must_change_password: bool = False  # a person whose password someone else chose: only a change is allowed

    @property
    def permissions(self) -> frozenset[str]:
        if self.kind == "key":
            return PERMISSIONS if "admin" in self.scopes else frozenset(self.scopes)
        if "admin" in self.roles:
            return PERMISSIONS
        extra = {"review"} if "reviewer" in self.roles or self.kind == "anonymous" else set()
        return PERSON_PERMISSIONS | extra

    def may(self, permission: str) -> bool:
        return permission in self.permissions


def clean_names(values: list[str] | str | None, what: str) -> list[str]:
    """Groups or roles as a sorted list without duplicates; a malformed name is refused, not dropped."""
    if isinstance(values, str):
        values = values.split(",")
    found = set()
    for raw in values or []:
        value = raw.strip()
        if not value or value == EVERYONE:
            continue  # everyone already sees what is open to everyone
        if not NAME_PATTERN.fullmatch(value):
            raise AccountError(f"invalid {what} name {value!r}: letters, digits and . _ @ + - only")
        found.add(value)
    return sorted(found)


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P, dklen=32)
    encode = base64.urlsafe_b64encode
    return f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${encode(salt).decode()}${encode(digest).decode()}"


# Checked against when the user does not exist, so a wrong name costs the same time as a wrong password.
_DUMMY_HASH = hash_password(secrets.token_urlsafe(16))


async def verified(password: str, stored: str | None) -> bool:
    """verify_password in a worker thread: 50 ms of scrypt on the event loop would stall every request."""
    return await asyncio.to_thread(verify_password, password, stored)


def verify_password(password: str, stored: str | None) -> bool:
    try:
        scheme, n, r, p, salt, digest = (stored or _DUMMY_HASH).split("$")
        expected = base64.urlsafe_b64decode(digest)
        given = hashlib.scrypt(
            password.encode(), salt=base64.urlsafe_b64decode(salt), n=int(n), r=int(r), p=int(p), dklen=len(expected)
        )
    except (ValueError, TypeError):
        return False
    return scheme == "scrypt" and stored is not None and hmac.compare_digest(given, expected)


def digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def new_password() -> str:
    return secrets.token_urlsafe(15)  # 20 characters, 120 bits


async def create_user(
    pool: asyncpg.Pool | asyncpg.Connection,
    name: str,
    *,
    groups: list[str] | str | None,
    roles: list[str] | str | None,
    created_by: str,
    password: str | None = None,
    must_change_password: bool = False,
) -> str:
    """Create a person; returns the password (generated when none is given, to be shown once). With
    `must_change_password` their sessions may do nothing but change it (POST /auth/password); a generated
    password always asks for it: it was read by whoever handed it over, so it is good for one sign-in."""
    if not NAME_PATTERN.fullmatch(name):
        raise AccountError(f"invalid user name {name!r}: letters, digits and . _ @ + - only")
    roles = clean_names(roles, "role")
    if unknown := set(roles) - set(ROLES):
        raise AccountError(f"unknown role(s) {', '.join(sorted(unknown))}; roles are {', '.join(ROLES)}")
    generated = password is None
    password = new_password() if generated else _checked(password)
    inserted = await pool.fetchval(
        "INSERT INTO users (name, password_hash, groups, roles, created_by, must_change_password)"
        " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (name) DO NOTHING RETURNING name",
        name,
        await asyncio.to_thread(hash_password, password),
        clean_names(groups, "group"),
        roles,
        created_by,
        must_change_password or generated,
    )
    if inserted is None:
        raise AccountError(f"user {name!r} already exists")
    return password


def _checked(password: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"a password needs at least {MIN_PASSWORD} characters")
    return password


async def change_password(pool: asyncpg.Pool, name: str, current: str, new: str, keep_session: str = "") -> bool:
    """A person's own change: the current password first (False when wrong). Every other session of theirs
    ends, so a password that leaked stops working everywhere it was used. A required change is then done."""
    row = await pool.fetchrow("SELECT password_hash FROM users WHERE name = $1 AND disabled_at IS NULL", name)
    if not await verified(current, row["password_hash"] if row else None) or row is None:
        return False
    if new == current:
        raise AccountError("the new password is the current one")
    await _set_password(pool, name, _checked(new), keep_session)
    return True


async def reset_password(pool: asyncpg.Pool, name: str, password: str | None = None) -> str:
    """An administrator's reset: the given or a generated password (returned, to be shown once); every
    session of the person ends. A generated one must be changed at the next sign-in, as a new person's (see
    create_user); a given one lifts a required change: the administrator chose it for the person to keep."""
    generated = password is None
    password = new_password() if generated else _checked(password)
    if not NAME_PATTERN.fullmatch(name) or not await _set_password(pool, name, password, "", must_change=generated):
        raise AccountError(f"no user {name!r}")
    return password


async def _set_password(
    pool: asyncpg.Pool, name: str, password: str, keep_session: str, must_change: bool = False
) -> bool:
    hashed = await asyncio.to_thread(hash_password, password)  # ~50 ms of scrypt: off the loop, no connection held
    async with pool.acquire() as conn, conn.transaction():
        updated = await conn.fetchval(
            "UPDATE users SET password_hash = $2, must_change_password = $3 WHERE name = $1 RETURNING true",
            name,
            hashed,
            must_change,
        )
        kept = digest(keep_session) if keep_session else b""
        await conn.execute("DELETE FROM sessions WHERE user_name = $1 AND token_hash <> $2", name, kept)
    return updated is not None


async def set_disabled(pool: asyncpg.Pool, name: str, disabled: bool) -> bool:
    """Suspend a person (on leave, under review) keeping their groups and roles, or let them back in. A
    suspension ends their sessions at once; they sign in again only once enabled. False: no such user."""
    if not NAME_PATTERN.fullmatch(name):
        return False
    async with pool.acquire() as conn, conn.transaction():
        found = await conn.fetchval(
            "UPDATE users SET disabled_at = CASE WHEN $2 THEN coalesce(disabled_at, now()) END"
            " WHERE name = $1 RETURNING true",
            name,
            disabled,
        )
        if found and disabled:
            await conn.execute("DELETE FROM sessions WHERE user_name = $1", name)
    return found is not None


async def remove_user(pool: asyncpg.Pool, name: str) -> bool:
    """Delete a person and, with them, every session they hold: access ends at once."""
    if not NAME_PATTERN.fullmatch(name):  # no account has another name (nor could PostgreSQL compare one with NUL)
        return False
    return await pool.fetchval("DELETE FROM users WHERE name = $1 RETURNING true", name) is not None


async def list_users(pool: asyncpg.Pool) -> list[dict]:
    rows = await pool.fetch("SELECT name, groups, roles, created_by, created_at, disabled_at FROM users ORDER BY name")
    return [dict(row) for row in rows]


async def any_admin(pool: asyncpg.Pool) -> bool:
    return bool(await pool.fetchval("SELECT EXISTS (SELECT 1 FROM users WHERE 'admin' = ANY(roles))"))


async def create_key(
    pool: asyncpg.Pool | asyncpg.Connection,
    name: str,
    *,
    scopes: list[str] | str,
    groups: list[str] | str | None,
    created_by: str,
) -> tuple[str, str]:
    """Create an API key; returns (id, key). The key is shown once; only its digest is kept."""
    scopes = clean_names(scopes, "scope")
    if not scopes or set(scopes) - set(SCOPES):
        raise AccountError(f"a key needs one or more scopes of {', '.join(SCOPES)} (got {', '.join(scopes) or 'none'})")
    if not name.strip() or len(name) > 200:
        raise AccountError("a key needs a name (at most 200 characters) saying what uses it")
    key_id, secret = secrets.token_hex(6), secrets.token_urlsafe(32)
    await pool.execute(
        "INSERT INTO api_keys (id, secret_hash, name, scopes, groups, created_by) VALUES ($1, $2, $3, $4, $5, $6)",
        key_id,
        digest(secret),
        name.strip(),
        scopes,
        clean_names(groups, "group"),
        created_by,
    )
    return key_id, f"{KEY_PREFIX}{key_id}_{secret}"


async def revoke_key(pool: asyncpg.Pool, key_id: str) -> bool:
    revoked = await pool.fetchval(
        "UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING true", key_id
    )
    return revoked is not None


async def list_keys(pool: asyncpg.Pool) -> list[dict]:
    rows = await pool.fetch(
        "SELECT id, name, scopes, groups, created_by, created_at, revoked_at, last_used_at"
        " FROM api_keys ORDER BY created_at"
    )
    return [dict(row) for row in rows]


async def login(pool: asyncpg.Pool, name: str, password: str) -> tuple[str, Identity, datetime] | None:
    """A new session for the right name and password; None otherwise, after the same work either way."""
    row = None
    if NAME_PATTERN.fullmatch(name):  # no account has another name (nor could PostgreSQL compare one holding NUL)
        row = await pool.fetchrow("SELECT * FROM users WHERE name = $1 AND disabled_at IS NULL", name)
    if not await verified(password, row["password_hash"] if row else None) or row is None:
        return None
    token = SESSION_PREFIX + secrets.token_urlsafe(32)
    expires_at = datetime.now(UTC) + SESSION_TTL
    await pool.execute(
        "INSERT INTO sessions (token_hash, user_name, expires_at) VALUES ($1, $2, $3)", digest(token), name, expires_at
    )
    await pool.execute("DELETE FROM sessions WHERE expires_at < now()")  # expired ones are dead weight
    identity = Identity(
        user=name,
        kind="user",
        groups=list(row["groups"]),
        roles=list(row["roles"]),
        must_change_password=row["must_change_password"],
    )
    return token, identity, expires_at


async def logout(pool: asyncpg.Pool, token: str) -> None:
    await pool.execute("DELETE FROM sessions WHERE token_hash = $1", digest(token))


async def resolve(pool: asyncpg.Pool, token: str) -> Identity | None:
    """The identity behind a session token or an API key, read fresh each time: removing a user or
    revoking a key takes effect on the next request."""
    if token.startswith(SESSION_PREFIX):
        hashed = digest(token)
        row = await pool.fetchrow(
            "SELECT u.name, u.groups, u.roles, u.must_change_password"
            " FROM sessions s JOIN users u ON u.name = s.user_name"
            " WHERE s.token_hash = $1 AND s.expires_at > now() AND u.disabled_at IS NULL",
            hashed,
        )
        if row is None:
            return None
        return Identity(
            row["name"],
            "user",
            list(row["groups"]),
            list(row["roles"]),
            credential=hashed.hex()[:16],
            must_change_password=row["must_change_password"],
        )
    if token.startswith(KEY_PREFIX):
        key_id, _, secret = token[len(KEY_PREFIX) :].partition("_")
        row = await pool.fetchrow(
            "SELECT id, name, scopes, groups, secret_hash, last_used_at FROM api_keys"
            " WHERE id = $1 AND revoked_at IS NULL",
            key_id,
        )
        if row is None or not hmac.compare_digest(bytes(row["secret_hash"]), digest(secret)):
            return None
        if row["last_used_at"] is None or row["last_used_at"] < datetime.now(UTC) - timedelta(minutes=1):
            # At most once a minute: a busy script's key must not turn every search into a row update.
            await pool.execute("UPDATE api_keys SET last_used_at = now() WHERE id = $1", key_id)
        return Identity(
            f"key:{row['name']}", "key", list(row["groups"]), scopes=list(row["scopes"]), credential=row["id"]
        )
    return None


async def bootstrap(pool: asyncpg.Pool, key_file: Path, password_file: Path) -> Path | None:
    """Each start of `precedente up`: on the first, an administrator "admin" whose generated password goes to
    `password_file` (0600; never printed, so never in a log) and must be changed at the first sign-in; on
    every start, an admin API key for the local CLI in `key_file` (0600), made again if the file is missing
    or its key no longer works. Returns `password_file` while it holds a password still to be changed (None
    otherwise); once changed it is deleted here, if the API did not already."""
    if not await any_admin(pool):
        password = await create_user(
            pool, FIRST_ADMIN, groups=[], roles=["admin"], created_by="precedente up", must_change_password=True
        )
        _write_private(password_file, password)
    pending = await pool.fetchval("SELECT must_change_password FROM users WHERE name = $1", FIRST_ADMIN)
    if not pending:
        password_file.unlink(missing_ok=True)
    current = key_file.read_text().strip() if key_file.exists() else ""
    if not current or await resolve(pool, current) is None:
        _, key = await create_key(
            pool, "local CLI (precedente up)", scopes=["admin"], groups=[], created_by="precedente up"
        )
        _write_private(key_file, key)
    return password_file if pending and password_file.exists() else None


def _write_private(path: Path, secret: str) -> None:
    """A file only its owner reads, made so before the secret is in it."""
    path.unlink(missing_ok=True)
    path.touch(mode=0o600)
    path.write_text(secret + "\n")


def forget_one_time_password(password_file: Path, password: str) -> bool:
    """Delete the first administrator's password file if it holds `password`, the one just replaced; True when
    deleted. Comparing contents, not names, never deletes a file that holds anything else."""
    try:
        held = password_file.read_text().strip()
    except OSError:
        return False
    if not held or not hmac.compare_digest(held.encode(), password.encode("utf-8", "surrogatepass")):
        return False
    password_file.unlink(missing_ok=True)
    return True
