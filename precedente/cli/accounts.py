"""`precedente users`, `precedente keys`, `precedente password` and `precedente audit`: accounts and the audit log.

Through a running instance with an admin credential (PRECEDENTE_API_KEY, or the admin key `precedente up`
keeps in its data directory), or with --local straight in the database of PRECEDENTE_DATABASE_URL: how an
operator makes the first accounts of a production deployment, before anyone can sign in.
"""

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Annotated, Any

import asyncpg
import httpx
import typer
from rich.console import Console
from rich.table import Table

from precedente import api_errors
from precedente.cli.common import SINCE_HELP, moment_since
from precedente.credentials import api_client
from precedente.shared import accounts
from precedente.shared.infra.db import create_pool
from precedente.shared.settings import Settings

console = Console()
users_app = typer.Typer(help="People who sign in: add, list, password, disable, enable, remove.", no_args_is_help=True)
keys_app = typer.Typer(help="API keys of systems and scripts: create, list, revoke.", no_args_is_help=True)

ApiOption = Annotated[str | None, typer.Option("--api", help="Search API URL (default PRECEDENTE_API_URL).")]
LocalOption = Annotated[
    bool, typer.Option("--local", help="Straight in the database (PRECEDENTE_DATABASE_URL), not through the API.")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON (for scripts) instead of text.")]
OPERATOR = "operator (--local)"


def _api(method: str, path: str, api: str | None, **kwargs: Any) -> Any:
    """The API's answer; a refusal (a problem document) or an unreachable API: one line, exit status 1."""
    try:
        with api_client(api) as http:
            response = api_errors.check(http.request(method, path, **kwargs))
    except httpx.TransportError as err:
        api_errors.fail(api_errors.explain(err))
    return response.json() if response.content else None


def _local(work: Callable[[asyncpg.Pool], Awaitable[Any]]) -> Any:
    url = Settings().database_url
    if not url:
        api_errors.fail(
            "--local needs PRECEDENTE_DATABASE_URL (the database's URL); without --local it goes through the API",
            api_errors.EXIT_USAGE,
        )

    async def run() -> Any:
        pool = await create_pool(url)
        try:
            return await work(pool)
        finally:
            await pool.close()

    try:
        return asyncio.run(run())
    except accounts.AccountError as err:
        api_errors.fail(str(err))


def _print(rows: list[dict[str, Any]], columns: list[str], as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2, default=str) + "\n")
        return
    table = Table()
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*(", ".join(v) if isinstance(v := row.get(c), list) else str(v or "") for c in columns))
    console.print(table)


@users_app.command("add")
def users_add(
    name: str,
    groups: Annotated[str, typer.Option(help="Comma-separated groups (matters, practice areas, clients).")] = "",
    admin: Annotated[bool, typer.Option("--admin", help="Manages users, keys and reads the audit log.")] = False,
    reviewer: Annotated[bool, typer.Option("--reviewer", help="Works the review queue.")] = False,
    api: ApiOption = None,
    local: LocalOption = False,
    as_json: JsonOption = False,
) -> None:
    """Add a person; prints a generated one-time password to hand over."""
    roles = [r for r, wanted in (("admin", admin), ("reviewer", reviewer)) if wanted]
    if local:
        password = _local(
            lambda pool: accounts.create_user(pool, name, groups=groups, roles=roles, created_by=OPERATOR)
        )
    else:
        body = {"name": name, "groups": accounts.clean_names(groups, "group"), "roles": roles}
        password = _api("POST", "/users", api, json=body)["password"]
    if as_json:
        sys.stdout.write(json.dumps({"name": name, "roles": roles, "password": password}) + "\n")
        return
    console.print(
        f"user {name} added; one-time password (shown only now; the first sign-in asks for a new one): {password}",
        markup=False,
    )


@users_app.command("password")
def users_password(
    name: str,
    password: Annotated[
        str | None, typer.Option(help="The new password (12+ characters); omitted: one is generated.")
    ] = None,
    api: ApiOption = None,
    local: LocalOption = False,
) -> None:
    """Set a person's password (a forgotten one): every session of theirs ends."""
    if local:
        chosen = _local(lambda pool: accounts.reset_password(pool, name, password))
    else:
        chosen = _api("POST", f"/users/{name}/password", api, json={"password": password})["password"]
    if password is None:
        console.print(
            f"new one-time password of {name} (shown only now; the next sign-in asks for a new one): {chosen}",
            markup=False,
        )
    else:
        console.print(f"password of {name} set")


def password_command(
    user: Annotated[str, typer.Option(prompt="Usuário", help="Your user name.")],
    api: ApiOption = None,
) -> None:
    """Change your own password (asked for, not echoed): signs in with the current one, sets the new one,
    signs out. Your other sessions end; a change the account still owed (the first administrator's) is done,
    and the one-time password file of `precedente up` is deleted here if it holds the old password."""
    current = typer.prompt("Senha atual", hide_input=True)
    new = typer.prompt("Nova senha (12 caracteres ou mais)", hide_input=True, confirmation_prompt=True)
    try:
        with httpx.Client(base_url=(api or Settings().api_url).rstrip("/"), timeout=60) as http:
            signed_in = api_errors.check(
                http.post("/auth/login", json={"user": user, "password": current}), credential_hint=False
            )
            session = {"Authorization": f"Bearer {signed_in.json()['token']}"}
            try:
                changed = http.post(
                    "/auth/password", json={"current_password": current, "new_password": new}, headers=session
                )
            finally:
                http.post("/auth/logout", headers=session)
    except httpx.TransportError as err:
        api_errors.fail(api_errors.explain(err))
    api_errors.check(changed)
    console.print(f"password of {user} changed; your other sessions have ended")
    if accounts.forget_one_time_password(Settings().data_dir / accounts.ADMIN_PASSWORD_FILE, current):
        console.print("the one-time password file is gone", markup=False)


@users_app.command("list")
def users_list(api: ApiOption = None, local: LocalOption = False, as_json: JsonOption = False) -> None:
    rows = _local(accounts.list_users) if local else _api("GET", "/users", api)
    _print(rows, ["name", "groups", "roles", "created_by", "created_at", "disabled_at"], as_json)


@users_app.command("disable")
def users_disable(name: str, api: ApiOption = None, local: LocalOption = False) -> None:
    """Suspend a person (their sessions end at once); `users enable` lets them back in."""
    _switch(name, True, api, local)


@users_app.command("enable")
def users_enable(name: str, api: ApiOption = None, local: LocalOption = False) -> None:
    _switch(name, False, api, local)


def _switch(name: str, disabled: bool, api: str | None, local: bool) -> None:
    verb = "disable" if disabled else "enable"
    _change(
        local,
        lambda pool: accounts.set_disabled(pool, name, disabled),
        f"no user {name}",
        "POST",
        f"/users/{name}/{verb}",
        api,
    )
    console.print(f"user {name} {verb}d")


def _change(
    local: bool, work: Callable[[asyncpg.Pool], Awaitable[bool]], missing: str, method: str, path: str, api: str | None
) -> None:
    """One change to an account or key: straight in the database (False: nothing to change) or through the API."""
    if local:
        if not _local(work):
            api_errors.fail(missing)
    else:
        _api(method, path, api)


@users_app.command("remove")
def users_remove(name: str, api: ApiOption = None, local: LocalOption = False) -> None:
    """Remove a person: their sessions end at once."""
    _change(local, lambda pool: accounts.remove_user(pool, name), f"no user {name}", "DELETE", f"/users/{name}", api)
    console.print(f"user {name} removed")


@keys_app.command("create")
def keys_create(
    scope: Annotated[str, typer.Option(help="search, ingest, review or admin (comma-separated for several).")],
    name: Annotated[str, typer.Option(help="What uses it, e.g. 'DMS Procuradoria'.")] = "",
    groups: Annotated[str, typer.Option(help="Comma-separated groups whose documents it may see.")] = "",
    api: ApiOption = None,
    local: LocalOption = False,
    as_json: JsonOption = False,
) -> None:
    """Create an API key; prints it once (send it as `Authorization: Bearer KEY`)."""
    name = name or f"{scope} key"
    if local:
        key_id, key = _local(
            lambda pool: accounts.create_key(pool, name, scopes=scope, groups=groups, created_by=OPERATOR)
        )
    else:
        body = {
            "name": name,
            "scopes": accounts.clean_names(scope, "scope"),
            "groups": accounts.clean_names(groups, "group"),
        }
        made = _api("POST", "/keys", api, json=body)
        key_id, key = made["id"], made["key"]
    if as_json:
        sys.stdout.write(json.dumps({"id": key_id, "name": name, "scopes": scope.split(","), "key": key}) + "\n")
        return
    console.print(f"key {key_id} ({scope}) created; shown only now:\n{key}", markup=False)


@keys_app.command("list")
def keys_list(api: ApiOption = None, local: LocalOption = False, as_json: JsonOption = False) -> None:
    rows = _local(accounts.list_keys) if local else _api("GET", "/keys", api)
    _print(rows, ["id", "name", "scopes", "groups", "created_by", "revoked_at", "last_used_at"], as_json)


@keys_app.command("revoke")
def keys_revoke(key_id: str, api: ApiOption = None, local: LocalOption = False) -> None:
    revoke = partial(accounts.revoke_key, key_id=key_id)
    _change(local, revoke, f"no active key {key_id}", "DELETE", f"/keys/{key_id}", api)
    console.print(f"key {key_id} revoked")


def audit_command(
    user: Annotated[str | None, typer.Option(help="Only this actor (a user name, or key:NAME).")] = None,
    since: Annotated[str | None, typer.Option(help=SINCE_HELP)] = None,
    action: Annotated[
        str | None,
        typer.Option(
            help="Only this action or family: search, document, review.approve, document.denied (refused requests)..."
        ),
    ] = None,
    limit: Annotated[int, typer.Option(help="At most this many entries, newest first.")] = 200,
    api: ApiOption = None,
    as_json: JsonOption = False,
) -> None:
    """Read the audit log: who searched for what, opened which document, changed which access list or account."""
    params: dict[str, Any] = {"limit": limit}
    if moment := moment_since(since):
        params["since"] = moment.isoformat()
    params.update({k: v for k, v in {"user": user, "action": action}.items() if v})
    entries = _api("GET", "/audit", api, params=params)
    if as_json:
        sys.stdout.write(json.dumps(entries, ensure_ascii=False, indent=2) + "\n")
        return
    table = Table()
    for column in ("at", "actor", "action", "documents", "query / detail"):
        table.add_column(column, overflow="fold")
    for entry in entries:
        what = entry["query"] if entry["query"] is not None else json.dumps(entry["detail"], ensure_ascii=False)
        documents = ", ".join(d[:8] for d in entry["document_ids"][:5]) + (
            "…" if len(entry["document_ids"]) > 5 else ""
        )
        table.add_row(entry["at"][:19], entry["actor"], entry["action"], documents, what[:120])
    console.print(table)
