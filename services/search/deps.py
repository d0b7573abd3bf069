"""Request dependencies every router of the search service shares: the app's state (settings, database,
broker, outbox relay, query model, ranking), the caller and what they may do.

create_app and its lifespan put the state on app.state; routes reach it only through these, never through a
closure, so a router module can be read and tested on its own.
"""

import uuid
from collections.abc import Awaitable, Callable
from typing import Annotated, Protocol

import asyncpg
from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials
from faststream.kafka import KafkaBroker

from precedente.services.search import problems
from precedente.services.search.engine.ranking import Ranking
from precedente.services.search.store import audit, documents
from precedente.shared.accounts import Identity
from precedente.shared.embeddings.embedders import IndexGuard, QueryCache
from precedente.shared.runtime import outbox
from precedente.shared.settings import Settings


class Throttle(Protocol):
    """The caller's budget of costly requests (services/search/identity.py, Authenticator.throttle): 429 once spent."""

    def __call__(self, db: asyncpg.Pool, who: Identity, what: str) -> Awaitable[None]: ...


def get_app_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_db(request: Request) -> asyncpg.Pool:
    return request.app.state.db


def get_broker(request: Request) -> KafkaBroker:
    return request.app.state.broker


def get_relay(request: Request) -> outbox.Relay:
    """The relay that publishes what a route queued in the outbox (one per process, see outbox.relay_for)."""
    return outbox.relay_for(request.app.state)


def get_throttle(request: Request) -> Throttle:
    return request.app.state.authenticator.throttle


def get_index_guard(request: Request) -> IndexGuard:
    return request.app.state.index_guard


def get_query_vectors(request: Request) -> QueryCache:
    """The query model behind a cache; a new cache when the model was replaced (a test, a re-embedding)."""
    state = request.app.state
    if getattr(state, "query_vectors", None) is None or state.query_vectors.embedder is not state.embedder:
        state.query_vectors = QueryCache(state.embedder)
    return state.query_vectors


def get_ranking(request: Request) -> Ranking:
    return request.app.state.ranking


async def get_caller(
    request: Request, _bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(problems.bearer)]
) -> Identity:
    """The authenticated caller (services/search/identity.py), resolved once per request: 401 without one, 403
    while the account must change its password. `_bearer` declares the scheme in the contract; the token is
    read (and checked) by the authenticator."""
    if (who := getattr(request.state, "caller", None)) is None:
        who = request.state.caller = await request.app.state.authenticator.authenticate(request)
    return who


# The errors these raise, declared in the contract of every route that depends on them (services/search/problems.py).
problems.declares(get_caller, 401, 403)
problems.declares(get_db, 503)  # the database down: 503 with Retry-After (app.py's handler)
problems.declares(get_throttle, 429)


def permitted(*permissions: str) -> Callable[..., Awaitable[Identity]]:
    """A dependency: the caller, if they hold one of these permissions (403 otherwise)."""

    async def check(who: Annotated[Identity, Depends(get_caller)]) -> Identity:
        if not any(who.may(p) for p in permissions):
            raise HTTPException(403, f"{who.user} may not do this (needs permission: {' or '.join(permissions)})")
        return who

    return problems.declares(check, 401, 403)


SettingsDep = Annotated[Settings, Depends(get_app_settings)]
DbDep = Annotated[asyncpg.Pool, Depends(get_db)]
BrokerDep = Annotated[KafkaBroker, Depends(get_broker)]
RelayDep = Annotated[outbox.Relay, Depends(get_relay)]
ThrottleDep = Annotated[Throttle, Depends(get_throttle)]
IndexGuardDep = Annotated[IndexGuard, Depends(get_index_guard)]
QueryVectorsDep = Annotated[QueryCache, Depends(get_query_vectors)]
RankingDep = Annotated[Ranking, Depends(get_ranking)]
CallerDep = Annotated[Identity, Depends(get_caller)]
SearcherDep = Annotated[Identity, Depends(permitted("search"))]
ReaderDep = Annotated[Identity, Depends(permitted("search", "ingest"))]  # a document's status: both kinds of callers
IngesterDep = Annotated[Identity, Depends(permitted("ingest"))]
ReviewerDep = Annotated[Identity, Depends(permitted("review"))]
AdminDep = Annotated[Identity, Depends(permitted("admin"))]


async def visible_document(
    db: asyncpg.Pool,
    document_id: uuid.UUID,
    who: Identity,
    or_submitted: bool = False,
    attempted: str = "document.access",
) -> documents.Document:
    """The document if the caller may see it (or, with `or_submitted`, submitted it); 404 alike for hidden and
    missing ones. A refusal of a document that exists is recorded in the audit log as `attempted` (rate-limited:
    services/search/store/audit.py), so someone probing an ethical wall is on record."""
    found = await documents.visible(db, document_id, who.groups, submitted_by=who.user if or_submitted else None)
    if found is None:
        audit.record_denied_soon(db, who, document_id, attempted)
        raise HTTPException(404, "document not found")
    return found
