"""Search service: the HTTP API lawyers (through the gateway), the CLI and uploaders use.

This module only wires the app: its state (lifespan), middleware, error handlers and routers. The routes are in
services/search/routers/ (and auth.py, status.py), their SQL in services/search/store/, and the state reaches
them through services/search/deps.py.
"""

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from services.search.auth import Authenticator
from services.search.auth import router as auth_router
from services.search.boundary import InputBoundary
from services.search.ranking import ranking_from
from services.search.routers import access, admin, documents, review, search
from services.search.status import router as status_router
from services.search.store import audit
from shared import outbox, recovery, telemetry
from shared.broker import make_broker
from shared.db import create_pool
from shared.embeddings import IndexGuard, get_embedder
from shared.settings import Settings, get_settings


async def validation_error(request: Request, exc: RequestValidationError) -> Response:
    """FastAPI's 422, except that input JSON may carry and UTF-8 may not (a lone surrogate, echoed back in the
    errors) is written as an ASCII escape: a malformed request must never turn into a 500."""
    try:
        return await request_validation_exception_handler(request, exc)
    except UnicodeEncodeError:
        content = json.dumps({"detail": jsonable_encoder(exc.errors())})  # ASCII: surrogates escaped
        return Response(content, status_code=422, media_type="application/json")


async def database_unavailable(request: Request, exc: Exception) -> Response:
    """The database is down or restarting: 503 with Retry-After, which a client may retry, not a 500."""
    return JSONResponse(
        {"detail": "the database is unavailable; retry shortly"}, status_code=503, headers={"Retry-After": "5"}
    )


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
        try:
            yield
        finally:
            pruning.cancel()
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
        exception_handlers={
            RequestValidationError: validation_error,
            **dict.fromkeys(DATABASE_DOWN, database_unavailable),
        },
    )
    app.add_middleware(InputBoundary)  # NUL or broken Unicode in a path, query or JSON body: 422, never a 500
    app.state.settings = settings
    app.state.ranking = ranking_from(settings)
    app.state.authenticator = Authenticator(settings)
    app.include_router(auth_router)
    app.include_router(admin.router)
    app.include_router(review.router)
    app.include_router(status_router)
    app.include_router(access.router)
    app.include_router(search.router)
    app.include_router(documents.router)
    return app
