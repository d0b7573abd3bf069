"""Every error the search API answers is an RFC 9457 problem document (`application/problem+json`).

`{type, title, status, detail, instance}`: `type` is "about:blank" (the status says what happened), `title`
the status's phrase, `detail` one readable sentence for a person, `instance` the request's path. A 422 of
request validation adds `errors`, FastAPI's list of {loc, msg, type}. The headers that go with a status stay
(Retry-After on 429 and 503, WWW-Authenticate on 401, X-Precedente-Password-Change on the 403 of a required
password change, Allow on 405). A 500 tells nothing of the bug; the traceback goes to the log.

The contract says so too: install() makes app.openapi() declare the Problem schema under
application/problem+json for every error status of every operation. Which statuses an operation can answer
is declared, not guessed: a dependency declares what it raises (`declares(get_caller, 401, 403)`), a route
what its own body raises (`responses=problems.responses(404, 409)`), and every operation can answer 422 (the
input boundary checks every request before routing).
"""

import http
import json
import logging
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from fastapi import FastAPI, Request, routing
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from fastapi.security import HTTPBearer
from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import models_json_schema
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import get_route_path

log = logging.getLogger(__name__)

MEDIA_TYPE = "application/problem+json"
ABOUT_BLANK = "about:blank"
PASSWORD_CHANGE_HEADER = "X-Precedente-Password-Change"
DECLARED = "__problem_statuses__"
REF = "#/components/schemas/"

# The bearer scheme of the contract: API keys, session tokens (`POST /auth/login`) and OIDC JWTs all travel as
# `Authorization: Bearer <token>` (the gateway keeps a person's session token in a cookie and sends it so).
# auto_error=False: services/search/identity.py answers the 401 itself, with its own reasons.
bearer = HTTPBearer(
    auto_error=False,
    scheme_name="bearer",
    description="An API key (pk_...), a session token of `POST /auth/login` (ps_...) or an OIDC JWT.",
)


class Problem(BaseModel):
    """An RFC 9457 problem document."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"additionalProperties": True})

    type: str = Field(ABOUT_BLANK, description='A URI naming the kind of problem; "about:blank": see the status.')
    title: str = Field(description="The status's phrase (Not Found, Too Many Requests...).")
    status: int = Field(description="The HTTP status code, repeated.")
    detail: str = Field(description="What went wrong, for a person to read.")
    instance: str | None = Field(None, description="The request's path.")


class ValidationIssue(BaseModel):
    loc: list[str | int] = Field(description='Where: ["body", "query"], ["query", "limit"]...')
    msg: str
    type: str


class ValidationProblem(Problem):
    """A 422: the request does not fit the contract, or holds text PostgreSQL cannot store."""

    errors: list[ValidationIssue] = Field(
        description="Every problem found, as FastAPI lists them (empty when a route refused the request as a whole)."
    )


class ProblemResponse(JSONResponse):
    media_type = MEDIA_TYPE

    def render(self, content: Any) -> bytes:
        try:
            return json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate echoed back: written as an ASCII escape, never a 500
            return json.dumps(content, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")


def title_of(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def document(status: int, detail: str, instance: str | None = None, **extensions: Any) -> dict[str, Any]:
    """The problem document of this status (extension members after the standard ones)."""
    body: dict[str, Any] = {"type": ABOUT_BLANK, "title": title_of(status), "status": status, "detail": detail}
    if instance is not None:
        body["instance"] = instance
    return body | extensions


def problem(
    status: int,
    detail: str,
    request: Request | None = None,
    headers: dict[str, str] | None = None,
    **extensions: Any,
) -> ProblemResponse:
    instance = request.url.path if request is not None else None
    return ProblemResponse(document(status, detail, instance, **extensions), status_code=status, headers=headers)


def readable(errors: Iterable[dict[str, Any]]) -> str:
    """FastAPI's validation errors as one sentence: `body.query: Field required; query.limit: ...`."""
    parts = [f"{'.'.join(str(p) for p in e.get('loc', ())) or 'request'}: {e.get('msg', 'invalid')}" for e in errors]
    return "; ".join(parts) or "the request is invalid"


def issues(errors: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The `errors` member: loc, msg and type only (the input and context may not even be JSON)."""
    return [
        {"loc": [p if isinstance(p, int) else str(p) for p in e.get("loc", ())], "msg": str(e.get("msg", "")),
         "type": str(e.get("type", "value_error"))}
        for e in errors
    ]  # fmt: skip


def allowed_methods(request: Request) -> list[str]:
    """Every method some route serves at this path (several routes may share one: GET and DELETE)."""
    path = get_route_path(request.scope)
    methods: set[str] = set()
    for context in routing.iter_route_contexts(request.app.routes):
        regex, served = getattr(context, "path_regex", None), context.methods
        if regex is not None and served and regex.match(path):
            methods |= served
    return sorted(methods)


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    status, headers = exc.status_code, dict(exc.headers or {})
    detail = exc.detail if isinstance(exc.detail, str) else json.dumps(exc.detail, default=str)
    if status == 405:
        allowed = allowed_methods(request)
        headers["Allow"] = ", ".join(allowed)
        detail = f"{request.url.path} does not answer {request.method}; it answers {', '.join(allowed)}"
    elif status == 404 and detail == title_of(404):  # no route at all (a route's own 404 says what is missing)
        detail = f"there is nothing at {request.url.path}"
    elif status == 401:
        headers.setdefault("WWW-Authenticate", "Bearer")
    if status < 200 or status in (204, 304):  # no body allowed
        return Response(status_code=status, headers=headers)
    if status == 422:  # a route refused the input as a whole: the same shape as a validation error's
        return problem(status, detail, request, headers, errors=[])
    return problem(status, detail, request, headers)


async def validation_error(request: Request, exc: Exception) -> Response:
    """422: a readable `detail` and FastAPI's list in `errors`. A malformed request never turns into a 500."""
    assert isinstance(exc, RequestValidationError)
    errors = issues(exc.errors())
    return problem(422, readable(errors), request, errors=errors)


async def database_unavailable(request: Request, exc: Exception) -> Response:
    """The database is down or restarting: 503 with Retry-After, which a client may retry, not a 500."""
    return problem(503, "the database is unavailable; retry shortly", request, {"Retry-After": "5"})


async def server_error(request: Request, exc: Exception) -> Response:
    """A bug: logged with its traceback, answered with nothing of it."""
    log.error("unhandled %s on %s %s", type(exc).__name__, request.method, request.url.path, exc_info=exc)
    return problem(500, "internal error: the service could not answer this request (it has been logged)", request)


F = TypeVar("F", bound=Callable[..., Any])


def declares(dependency: F, *statuses: int) -> F:
    """Mark a dependency with the error statuses it may raise: every route that depends on it declares them."""
    setattr(dependency, DECLARED, frozenset(statuses) | getattr(dependency, DECLARED, frozenset()))
    return dependency


# What a status is, for every route that may answer it; the headers that go with it.
DESCRIPTIONS = {
    400: "The body cannot be parsed (a malformed multipart form).",
    401: "No credential, or an invalid, expired or revoked one.",
    403: "The caller may not do this (a missing permission, or a password change is required first).",
    404: "Not found, or not visible to the caller (alike).",
    409: "The resource is not in a state that allows this.",
    410: "Gone: deleted by its owner.",
    413: "The upload is larger than the limit.",
    415: "A kind of file no stage can read.",
    422: "The request does not fit the contract, or holds text that cannot be stored (NUL, lone surrogates).",
    429: "The caller's budget is spent; retry after Retry-After seconds.",
    503: "Unavailable for now (the database, the index); a client may retry.",
}
HEADERS: dict[int, dict[str, dict[str, Any]]] = {
    401: {"WWW-Authenticate": {"required": True, "schema": {"type": "string"}, "description": "Bearer"}},
    403: {
        PASSWORD_CHANGE_HEADER: {
            "required": False,
            "schema": {"type": "string", "enum": ["required"]},
            "description": "Set when the account must change its password first (POST /auth/password).",
        }
    },
    429: {"Retry-After": {"required": True, "schema": {"type": "string"}, "description": "Seconds to wait."}},
    503: {"Retry-After": {"required": False, "schema": {"type": "string"}, "description": "Seconds to wait."}},
}


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The error statuses a route's own body raises, for its decorator: `responses=problems.responses(404)`."""
    return {
        status: {"model": ValidationProblem if status == 422 else Problem, "description": DESCRIPTIONS.get(status, "")}
        for status in statuses
    }


def _dependencies_statuses(route: APIRoute) -> set[int]:
    found: set[int] = set()
    pending = list(route.dependant.dependencies)
    while pending:
        dependant = pending.pop()
        found |= getattr(dependant.call, DECLARED, frozenset())
        pending.extend(dependant.dependencies)
    return found


def _problem_schemas() -> dict[str, Any]:
    _, schemas = models_json_schema(
        [(Problem, "serialization"), (ValidationProblem, "serialization")], ref_template=REF + "{model}"
    )
    return schemas["$defs"]


def _error_response(status: int) -> dict[str, Any]:
    model = "ValidationProblem" if status == 422 else "Problem"
    return {
        "description": DESCRIPTIONS.get(status, title_of(status)),
        "content": {"application/json": {"schema": {"$ref": REF + model}}},
    }


def declare_errors(app: FastAPI, spec: dict[str, Any]) -> None:
    """Complete the contract: each operation's error statuses (its dependencies' and 422) as problem+json, with
    the headers that go with them. FastAPI writes every response model it is given as JSON; errors are not."""
    for context in routing.iter_route_contexts(app.routes):
        route = context.original_route
        if not isinstance(route, APIRoute) or not route.include_in_schema:
            continue
        for method in context.methods or ():
            operation = spec["paths"].get(context.path_format, {}).get(method.lower())
            if operation is None:
                continue
            answers = operation.setdefault("responses", {})
            for status in sorted(_dependencies_statuses(route) | {422}):
                answers.setdefault(str(status), _error_response(status))
            answers["422"] = {**answers["422"], **_error_response(422)}  # not FastAPI's HTTPValidationError
            operation["responses"] = answers = dict(sorted(answers.items()))
            for status, response in answers.items():
                if not status.isdigit() or int(status) < 400:
                    continue
                content = response.setdefault("content", {})
                if "application/json" in content:
                    content[MEDIA_TYPE] = content.pop("application/json")
                if headers := HEADERS.get(int(status)):
                    response["headers"] = headers
    schemas = spec.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(_problem_schemas())
    text = json.dumps(spec["paths"])
    for unused in ("HTTPValidationError", "ValidationError"):
        if unused in schemas and f'"{REF}{unused}"' not in text:
            del schemas[unused]
    spec["components"]["schemas"] = dict(sorted(schemas.items()))


def install(app: FastAPI) -> None:
    """Answer every error as a problem document, and say so in app.openapi()."""
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(Exception, server_error)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = get_openapi(
                title=app.title,
                version=app.version,
                openapi_version=app.openapi_version,
                description=app.description,
                routes=app.routes,
                tags=app.openapi_tags,
                servers=app.servers,
            )
            declare_errors(app, spec)
            app.openapi_schema = spec
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
