"""Request dependencies every router of the search service shares: settings, database, caller."""

import uuid
from typing import Annotated

import asyncpg
from fastapi import Depends, HTTPException, Request
from faststream.kafka import KafkaBroker
from pydantic import BaseModel

from shared.contracts import EVERYONE
from shared.settings import Settings

# The caller may see the document: one of their groups (or "*") is allowed and none is denied (a deny wins).
# public.precedente_visible (shared/migrations/0007_deny_groups.sql) is inlined by PostgreSQL: indexable.
ACCESS_CLAUSE = "public.precedente_visible(access_groups, deny_groups, $2::text[])"


class Caller(BaseModel):
    user: str | None
    groups: list[str]


def get_app_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_db(request: Request) -> asyncpg.Pool:
    return request.app.state.db


def get_broker(request: Request) -> KafkaBroker:
    return request.app.state.broker


def get_caller(request: Request) -> Caller:
    """Identity as the gateway passes it: a user header and a comma-separated groups header."""
    settings: Settings = request.app.state.settings
    raw = request.headers.get(settings.identity_groups_header, "")
    groups = [g.strip() for g in raw.split(",") if g.strip() and g.strip() != EVERYONE]
    return Caller(user=request.headers.get(settings.identity_user_header), groups=groups)


SettingsDep = Annotated[Settings, Depends(get_app_settings)]
DbDep = Annotated[asyncpg.Pool, Depends(get_db)]
BrokerDep = Annotated[KafkaBroker, Depends(get_broker)]
CallerDep = Annotated[Caller, Depends(get_caller)]


async def visible_document(db: asyncpg.Pool, document_id: uuid.UUID, who: Caller) -> asyncpg.Record:
    """The document's ledger row if the caller may see it; 404 alike for hidden and missing ones."""
    row = await db.fetchrow(f"SELECT * FROM documents WHERE id = $1 AND {ACCESS_CLAUSE}", document_id, who.groups)
    if row is None:
        raise HTTPException(404, "document not found")
    return row
