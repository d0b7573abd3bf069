"""Search service: the HTTP API lawyers (through the gateway), the CLI and uploaders use.

This module only wires the app: its state (lifespan), middleware, error handlers (services/search/problems.py) and
routers. The routes are in
services/search/routers/, their SQL in services/search/store/, and the state reaches
them through services/search/deps.py.
"""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from precedente.services.search import problems
from precedente.services.search.boundary import InputBoundary
from precedente.services.search.engine.ranking import ranking_from
from precedente.services.search.identity import Authenticator
from precedente.services.search.routers import (
    access,
    admin,
    auth,
    blobs,
    documents,
    export,
    folders,
    history,
    judgments,
    panels,
    refused,
    relevance,
    review,
    saved_searches,
    search,
    status,
    thesaurus,
)
from precedente.services.search.store import audit
from precedente.shared.embeddings.embedders import IndexGuard, get_embedder
from precedente.shared.infra.db import create_pool
from precedente.shared.runtime import outbox, recovery, search_load, telemetry
from precedente.shared.runtime.broker import make_broker
from precedente.shared.settings import Settings, get_settings

# Connection-level failures only: a query error is a bug and stays a 500.
DATABASE_DOWN = (OSError, *recovery.CONNECTION_LOST)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    telemetry.setup(settings, "search")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        telemetry.setup_logging(settings.log_format)  # uvicorn set up its own loggers since create_app
        telemetry.start_metrics_server(settings)  # for scrapers without a credential, on an internal port
        app.state.db = await create_pool(settings.database_url, max_size=10)
        app.state.broker = make_broker(settings)
        await app.state.broker.start()
        app.state.embedder = await asyncio.to_thread(get_embedder, settings)
        app.state.index_guard = IndexGuard(app.state.embedder)
        await app.state.index_guard.problem(app.state.db)  # logs an error now if the index holds another model
        pruning = asyncio.create_task(audit.prune_periodically(app.state.db, settings.audit_retention_days))
        app.state.relay = outbox.Relay(app.state.db, app.state.broker, settings).start()  # uploads the broker missed
        app.state.search_load = search_load.Publisher(app.state.db, settings).start()  # read by the stages
        try:
            yield
        finally:
            pruning.cancel()
            await app.state.search_load.stop()
            await app.state.relay.stop()
            await app.state.broker.stop()
            await app.state.db.close()
            telemetry.shutdown()

    # No /docs or /openapi.json: every route but /health needs a credential, and the schema is published in
    # docs/openapi.json (`precedente docs`) instead.
    app = FastAPI(
        title="Precedente search API",
        version="0.1.0",
        lifespan=lifespan,
        telemetry=telemetry.FASTAPI_TELEMETRY,
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
        exception_handlers=dict.fromkeys(DATABASE_DOWN, problems.database_unavailable),
    )
    problems.install(app)  # every error answered as application/problem+json (RFC 9457), and declared so
    app.add_middleware(InputBoundary)  # NUL or broken Unicode in a path, query or JSON body: 422, never a 500
    app.state.settings = settings
    app.state.ranking = ranking_from(settings)
    app.state.authenticator = Authenticator(settings)
    app.include_router(auth.router)
    app.include_router(admin.router)
    app.include_router(review.router)
    app.include_router(status.router)
    app.include_router(refused.router)
    app.include_router(access.router)
    app.include_router(search.router)
    app.include_router(documents.router)
    app.include_router(folders.router)
    app.include_router(export.router)
    app.include_router(blobs.router)
    app.include_router(judgments.router)
    app.include_router(panels.router)
    app.include_router(relevance.router)
    app.include_router(history.router)
    app.include_router(saved_searches.router)
    app.include_router(thesaurus.router)
    return app
