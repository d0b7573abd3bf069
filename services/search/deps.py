"""Request dependencies every router of the search service shares: settings, database, the caller and
what they may do."""

import uuid
from collections.abc import Awaitable, Callable
from typing import Annotated

import asyncpg
from fastapi import Depends, HTTPException, Request
from faststream.kafka import KafkaBroker

from shared.accounts import Identity
from shared.settings import Settings

# The caller may see the document: one of their groups (or "*") is allowed and none is denied (a deny wins).
# public.precedente_visible (shared/migrations/0007_deny_groups.sql) is inlined by PostgreSQL: indexable.
ACCESS_CLAUSE = "public.precedente_visible(access_groups, deny_groups, $2::text[])"


def get_app_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_db(request: Request) -> asyncpg.Pool:
    return request.app.state.db


def get_broker(request: Request) -> KafkaBroker:
    return request.app.state.broker


async def get_caller(request: Request) -> Identity:
    """The authenticated caller (services/search/auth.py), resolved once per request: 401 without one."""
    if (who := getattr(request.state, "caller", None)) is None:
        who = request.state.caller = await request.app.state.authenticator.authenticate(request)
    return who


def permitted(*permissions: str) -> Callable[..., Awaitable[Identity]]:
    """A dependency: the caller, if they hold one of these permissions (403 otherwise)."""

    async def check(who: Annotated[Identity, Depends(get_caller)]) -> Identity:
        if not any(who.may(p) for p in permissions):
            raise HTTPException(403, f"{who.user} may not do this (needs permission: {' or '.join(permissions)})")
        return who

    return check


SettingsDep = Annotated[Settings, Depends(get_app_settings)]
DbDep = Annotated[asyncpg.Pool, Depends(get_db)]
BrokerDep = Annotated[KafkaBroker, Depends(get_broker)]
CallerDep = Annotated[Identity, Depends(get_caller)]
SearcherDep = Annotated[Identity, Depends(permitted("search"))]
ReaderDep = Annotated[Identity, Depends(permitted("search", "ingest"))]  # a document's status: both kinds of callers
IngesterDep = Annotated[Identity, Depends(permitted("ingest"))]
ReviewerDep = Annotated[Identity, Depends(permitted("review"))]
AdminDep = Annotated[Identity, Depends(permitted("admin"))]


async def visible_document(
    db: asyncpg.Pool, document_id: uuid.UUID, who: Identity, or_submitted: bool = False
) -> asyncpg.Record:
    """The document's ledger row if the caller may see it (or, with `or_submitted`, submitted it); 404 alike
    for hidden and missing ones."""
    mine = " OR submitted_by = $3" if or_submitted else ""
    arguments = (who.user,) if or_submitted else ()
    row = await db.fetchrow(
        f"SELECT * FROM documents WHERE id = $1 AND ({ACCESS_CLAUSE}{mine})", document_id, who.groups, *arguments
    )
    if row is None:
        raise HTTPException(404, "document not found")
    return row
