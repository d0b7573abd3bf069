"""Signing in and out, one's own password, and the admin routes that manage people and API keys.

Who a caller is (sessions, API keys, OIDC JWTs) is decided in services/search/identity.py; the accounts' SQL is
in shared/accounts.py, which the CLI's `precedente admin` shares.
"""

from datetime import datetime
from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import BaseModel, Field

from precedente.services.search import problems
from precedente.services.search.deps import AdminDep, CallerDep, DbDep
from precedente.services.search.identity import Authenticator
from precedente.services.search.ratelimit import retry_after
from precedente.services.search.store import audit
from precedente.shared import accounts
from precedente.shared.accounts import AccountError, Identity, clean_names
from precedente.shared.settings import Settings

router = APIRouter(tags=["identity"])


class LoginRequest(BaseModel):
    user: str = Field(max_length=100)
    password: str = Field(max_length=1000)


class LoginAnswer(BaseModel):
    token: str
    user: str
    groups: list[str]
    roles: list[str]
    expires_at: datetime
    must_change_password: bool = Field(
        False,
        description="True: the password was chosen by someone else (the first administrator's, a generated one);"
        " this session may only change it (POST /auth/password), read /auth/me or sign out until then, other"
        " routes answer 403.",
    )


class Me(BaseModel):
    user: str
    kind: str
    groups: list[str]
    roles: list[str]
    scopes: list[str]
    permissions: list[str]
    auth_mode: str
    must_change_password: bool = False


@router.post("/auth/login", response_model=LoginAnswer, responses=problems.responses(401, 429))
async def login(body: LoginRequest, request: Request, db: DbDep) -> LoginAnswer:
    authenticator: Authenticator = request.app.state.authenticator
    client = request.client.host if request.client else "?"
    limits = ((authenticator.logins, body.user), (authenticator.logins_per_client, client))
    for limiter, key in limits:  # a guessing loop on one name, or from one place
        if wait := await limiter.take(db, key):
            raise HTTPException(429, "too many sign-in attempts; wait", headers={"Retry-After": retry_after(wait)})
    signed_in = await accounts.login(db, body.user, body.password)
    if signed_in is None:
        known = accounts.NAME_PATTERN.fullmatch(body.user) is not None
        failed = Identity(body.user if known else "(invalid name)", "user")
        await audit.record(db, failed, "auth.login_failed", detail={"client": client})
        raise HTTPException(401, "usuário ou senha incorretos", headers={"WWW-Authenticate": "Bearer"})
    token, who, expires_at = signed_in
    await audit.record(db, who, "auth.login", detail={"client": client})
    return LoginAnswer(
        token=token,
        user=who.user,
        groups=who.groups,
        roles=who.roles,
        expires_at=expires_at,
        must_change_password=who.must_change_password,
    )


@router.post("/auth/logout", status_code=204)
async def logout(request: Request, who: CallerDep, db: DbDep) -> Response:
    _, _, token = request.headers.get("authorization", "").partition(" ")
    if who.kind == "user":
        await accounts.logout(db, token.strip())
        await audit.record(db, who, "auth.logout")
    return Response(status_code=204)


class PasswordChange(BaseModel):
    current_password: str = Field(max_length=1000)
    new_password: str = Field(max_length=1000, description=f"At least {accounts.MIN_PASSWORD} characters.")


@router.post("/auth/password", status_code=204, responses=problems.responses(429))
async def change_password(body: PasswordChange, request: Request, who: CallerDep, db: DbDep) -> Response:
    """A person signed in with a local account changes their own password; their other sessions end, and a
    required change is done. The first administrator's one-time password file (`precedente up`'s data
    directory, when this process sees it) is deleted once the password it holds is replaced."""
    if who.kind != "user":
        raise HTTPException(403, "only a person signed in with a local account has a password to change here")
    authenticator: Authenticator = request.app.state.authenticator
    if wait := await authenticator.logins.take(db, who.user):  # the current password is guessed like a sign-in's
        raise HTTPException(429, "too many attempts; wait", headers={"Retry-After": retry_after(wait)})
    _, _, token = request.headers.get("authorization", "").partition(" ")
    try:
        changed = await accounts.change_password(
            db, who.user, body.current_password, body.new_password, keep_session=token.strip()
        )
    except AccountError as err:
        raise HTTPException(422, str(err)) from err
    if not changed:
        await audit.record(db, who, "auth.password_change_failed")
        raise HTTPException(403, "a senha atual está incorreta")
    await audit.record(db, who, "auth.password_change")
    if who.must_change_password:
        settings: Settings = request.app.state.settings
        accounts.forget_one_time_password(settings.data_dir / accounts.ADMIN_PASSWORD_FILE, body.current_password)
    return Response(status_code=204)


@router.get("/auth/me", response_model=Me)
async def me(request: Request, who: CallerDep) -> Me:
    return Me(
        user=who.user,
        kind=who.kind,
        groups=who.groups,
        roles=who.roles,
        scopes=who.scopes,
        permissions=sorted(who.permissions),
        auth_mode=request.app.state.settings.auth_mode,
        must_change_password=who.must_change_password,
    )


class NewUser(BaseModel):
    name: str
    groups: list[str] = Field(default_factory=list, max_length=1000)
    roles: list[str] = Field(default_factory=list)
    password: str | None = Field(
        None,
        description="At least 12 characters; omitted: one is generated and returned, good for one sign-in (the"
        " person's first session may only change it).",
    )


class UserCreated(BaseModel):
    name: str
    groups: list[str]
    roles: list[str]
    password: str | None = Field(None, description="Only when generated; shown this once.")


class UserInfo(BaseModel):
    name: str
    groups: list[str]
    roles: list[str]
    created_by: str
    created_at: datetime
    disabled_at: datetime | None = Field(None, description="Suspended since; null while the person may sign in.")


class NewKey(BaseModel):
    name: str
    scopes: list[str]
    groups: list[str] = Field(default_factory=list, max_length=1000)


class KeyCreated(BaseModel):
    id: str
    key: str = Field(description="Shown this once; only its digest is kept.")
    name: str
    scopes: list[str]
    groups: list[str]


class KeyInfo(BaseModel):
    id: str
    name: str
    scopes: list[str]
    groups: list[str]
    created_by: str
    created_at: datetime
    revoked_at: datetime | None
    last_used_at: datetime | None


@router.post("/users", status_code=201, response_model=UserCreated, responses=problems.responses(409))
async def add_user(body: NewUser, who: AdminDep, db: DbDep) -> UserCreated:
    try:
        password = await accounts.create_user(
            db, body.name, groups=body.groups, roles=body.roles, created_by=who.user, password=body.password
        )
    except AccountError as err:
        raise HTTPException(409 if "already exists" in str(err) else 422, str(err)) from err
    groups, roles = clean_names(body.groups, "group"), clean_names(body.roles, "role")
    await audit.record(db, who, "user.add", detail={"name": body.name, "groups": groups, "roles": roles})
    return UserCreated(name=body.name, groups=groups, roles=roles, password=None if body.password else password)


class PasswordReset(BaseModel):
    password: str | None = Field(
        None,
        description="At least 12 characters, for the person to keep; omitted: one is generated and returned, good"
        " for one sign-in.",
    )


class PasswordSet(BaseModel):
    name: str
    password: str | None = Field(None, description="Only when generated; shown this once.")


@router.post("/users/{name}/password", response_model=PasswordSet, responses=problems.responses(404))
async def reset_password(name: str, body: PasswordReset, who: AdminDep, db: DbDep) -> PasswordSet:
    """An administrator sets a person's password (a forgotten one); every session of theirs ends."""
    try:
        password = await accounts.reset_password(db, name, body.password)
    except AccountError as err:
        raise HTTPException(404 if str(err).startswith("no user") else 422, str(err)) from err
    await audit.record(db, who, "user.password_reset", detail={"name": name})
    return PasswordSet(name=name, password=None if body.password else password)


@router.get("/users", response_model=list[UserInfo])
async def users(who: AdminDep, db: DbDep) -> list[UserInfo]:
    return [UserInfo(**user) for user in await accounts.list_users(db)]


@router.post("/users/{name}/disable", status_code=204, responses=problems.responses(404))
async def disable_user(name: str, who: AdminDep, db: DbDep) -> Response:
    """Suspend a person: their sessions end at once, their account (groups, roles) stays for later."""
    return await _set_disabled(name, True, who, db)


@router.post("/users/{name}/enable", status_code=204, responses=problems.responses(404))
async def enable_user(name: str, who: AdminDep, db: DbDep) -> Response:
    return await _set_disabled(name, False, who, db)


async def _set_disabled(name: str, disabled: bool, who: Identity, db: Any) -> Response:
    if not await accounts.set_disabled(db, name, disabled):
        raise HTTPException(404, f"no user {name!r}")
    await audit.record(db, who, "user.disable" if disabled else "user.enable", detail={"name": name})
    return Response(status_code=204)


@router.delete("/users/{name}", status_code=204, responses=problems.responses(404))
async def remove_user(name: str, who: AdminDep, db: DbDep) -> Response:
    if not await accounts.remove_user(db, name):
        raise HTTPException(404, "no such user")
    await audit.record(db, who, "user.remove", detail={"name": name})
    return Response(status_code=204)


@router.post("/keys", status_code=201, response_model=KeyCreated)
async def create_key(body: NewKey, who: AdminDep, db: DbDep) -> KeyCreated:
    try:
        key_id, key = await accounts.create_key(
            db, body.name, scopes=body.scopes, groups=body.groups, created_by=who.user
        )
    except AccountError as err:
        raise HTTPException(422, str(err)) from err
    scopes, groups = clean_names(body.scopes, "scope"), clean_names(body.groups, "group")
    await audit.record(
        db, who, "key.create", detail={"id": key_id, "name": body.name, "scopes": scopes, "groups": groups}
    )
    return KeyCreated(id=key_id, key=key, name=body.name, scopes=scopes, groups=groups)


@router.get("/keys", response_model=list[KeyInfo])
async def keys(who: AdminDep, db: DbDep) -> list[KeyInfo]:
    return [KeyInfo(**key) for key in await accounts.list_keys(db)]


@router.delete("/keys/{key_id}", status_code=204, responses=problems.responses(404))
async def revoke_key(key_id: str, who: AdminDep, db: DbDep) -> Response:
    if not await accounts.revoke_key(db, key_id):
        raise HTTPException(404, "no such active key")
    await audit.record(db, who, "key.revoke", detail={"id": key_id})
    return Response(status_code=204)
