"""The published contract (docs/openapi.json) is true of the running search service: schemathesis sends every
operation generated requests, valid and invalid, as an administrator, and checks each answer against the
contract (no 5xx, a declared status, a declared media type, a body of the declared schema, the declared headers).
Then a plain test per error shape: 404, 405, 401 and 422 answer RFC 9457 problem documents.

The service is `precedente up` of this module's own (embedded PostgreSQL, the Tansu broker, every pipeline
service), so the accounts and keys the generated requests make go away with it; the routes that remove or
suspend an account or revoke a key only ever get the ones made for this test.
"""

import json
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from precedente.harness import RunningStack

pytestmark = pytest.mark.e2e

CONTRACT = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]
EXAMPLES_PER_OPERATION = 12  # per generation mode (valid, invalid): about a minute and a half on two cores
PROBLEM = "application/problem+json"

# Operations that remove, suspend or re-key an account: pinned to the accounts made for this test.
ACCOUNT_ROUTES = {"/users/{name}", "/users/{name}/disable", "/users/{name}/enable", "/users/{name}/password"}
KEY_ROUTES = {"/keys/{key_id}"}

sent: Counter[str] = Counter()  # examples per operation, for the summary
answered: Counter[int] = Counter()
started = time.monotonic()


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    budgets = {  # generated searches and sign-ins must be answered, not mostly throttled (429 is declared too)
        "PRECEDENTE_RATE_LIMIT_SEARCHES_PER_MINUTE": "100000",
        "PRECEDENTE_RATE_LIMIT_UPLOADS_PER_MINUTE": "100000",
        "PRECEDENTE_LOGIN_ATTEMPTS_PER_MINUTE": "100000",
    }
    with RunningStack(tmp_path_factory.mktemp("contract"), extra_env=budgets) as running:
        yield running
        elapsed = time.monotonic() - started
        print(  # noqa: T201 - the figures of the run, shown with -s
            f"\ncontract: {len(sent)} operations, {sum(sent.values())} requests in {elapsed:.0f} s;"
            f" statuses {dict(sorted(answered.items()))}"
        )


@pytest.fixture(scope="module")
def admin(service: RunningStack) -> dict[str, str]:
    return {"Authorization": f"Bearer {service.admin_key()}"}


@pytest.fixture(scope="module")
def made_for_the_test(service: RunningStack, admin: dict[str, str]) -> dict[str, str]:
    """An account and a key that exist only for the destructive operations."""
    name = f"contrato-{uuid.uuid4().hex[:8]}"
    made = service.client.post("/users", json={"name": name, "groups": ["contrato"]}, headers=admin)
    assert made.status_code == 201, made.text
    key = service.client.post("/keys", json={"name": name, "scopes": ["search"]}, headers=admin)
    assert key.status_code == 201, key.text
    return {"name": name, "key_id": key.json()["id"]}


# The published contract, loaded as it is; where it is sent is the module's own service (call_and_validate).
schema = schemathesis.openapi.from_path(
    CONTRACT,
    config=SchemathesisConfig.from_dict(
        {
            "generation": {
                "mode": "all",
                "max-examples": EXAMPLES_PER_OPERATION,
                "database": "none",
                "with-security-parameters": False,
            },
            "phases": {"stateful": {"enabled": False}},
            "request-timeout": 60,
        }
    ),
)


@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck), max_examples=EXAMPLES_PER_OPERATION)
def test_every_operation_keeps_the_contract(
    case: Any, service: RunningStack, admin: dict[str, str], made_for_the_test: dict[str, str]
) -> None:
    path = case.operation.path
    if path in ACCOUNT_ROUTES and case.path_parameters:
        case.path_parameters["name"] = made_for_the_test["name"]
    if path in KEY_ROUTES and case.path_parameters:
        case.path_parameters["key_id"] = made_for_the_test["key_id"]
    sent[case.operation.label] += 1
    headers = {**(case.headers or {}), **admin}  # as the administrator (401s: test_error_shapes_...)
    if path == "/auth/password":  # the admin key has no password; a generated one must not sign it out either
        headers = admin
    response = case.call_and_validate(base_url=service.url, headers=headers, checks=CHECKS)
    answered[response.status_code] += 1


def _problem(answer: httpx.Response, status: int) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == PROBLEM, answer.headers
    body = answer.json()
    assert body["type"] == "about:blank" and body["status"] == status and body["title"], body
    assert isinstance(body["detail"], str) and body["detail"], body
    return body


def test_error_shapes_are_problem_documents(service: RunningStack, admin: dict[str, str]) -> None:
    with httpx.Client(base_url=service.url, timeout=60) as http:
        missing = _problem(http.get("/no/such/path", headers=admin), 404)
        assert missing["instance"] == "/no/such/path"
        hidden = _problem(http.get(f"/documents/{uuid.uuid4()}/status", headers=admin), 404)
        assert hidden["detail"] == "document not found"

        not_served = http.patch(f"/documents/{uuid.uuid4()}", headers=admin)
        _problem(not_served, 405)
        assert not_served.headers["allow"] == "DELETE, GET"  # both routes of the path, not the first one's
        assert _problem(http.put("/search", headers=admin), 405) and http.put("/search").headers["allow"] == "POST"

        anonymous = http.post("/search", json={"query": "dano moral"})
        assert "Bearer" in _problem(anonymous, 401)["detail"] and anonymous.headers["www-authenticate"] == "Bearer"
        forged = http.get("/auth/me", headers={"Authorization": "Bearer prk_000000000000_forged"})
        _problem(forged, 401)

        invalid = _problem(http.post("/search", json={"top_k": "cinco"}, headers=admin), 422)
        where = {tuple(error["loc"]) for error in invalid["errors"]}
        assert {("body", "query"), ("body", "top_k")} <= where, invalid
        assert "body.query" in invalid["detail"] and "body.top_k" in invalid["detail"]  # readable, in one string
        garbage = {"query": "dano moral", "filters": {"cited_law": {"lei": 8078}}}
        assert _problem(http.post("/search", json=garbage, headers=admin), 422)["errors"][0]["loc"][:3] == [
            "body",
            "filters",
            "cited_law",
        ]
        for since in ("ontem", "1700000000", "2026-01-31"):  # a date-time with an offset only
            refused = _problem(http.get("/audit", params={"since": since}, headers=admin), 422)
            assert refused["errors"][0]["loc"] == ["query", "since"], refused
        assert http.get("/audit", params={"since": "2026-01-31T00:00:00Z"}, headers=admin).status_code == 200
        nul = _problem(http.get("/audit", params={"user": "a\x00b"}, headers=admin), 422)
        assert nul["errors"][0]["loc"] == ["query", "user"] and "NUL" in nul["detail"]


def test_the_contract_declares_the_bearer_scheme_and_problem_errors() -> None:
    spec = json.loads(CONTRACT.read_text())
    assert spec["components"]["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": spec["components"]["securitySchemes"]["bearer"]["description"],
    }
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            where = f"{method.upper()} {path}"
            public = path in ("/health", "/auth/login")
            assert ("security" in operation) != public, where
            if not public:
                assert {"401", "403"} <= set(operation["responses"]), where
                assert operation["responses"]["401"]["headers"]["WWW-Authenticate"]["required"], where
            for status, response in operation["responses"].items():
                if int(status) >= 400:
                    assert list(response["content"]) == [PROBLEM], (where, status)
            assert "422" in operation["responses"], where  # the input boundary checks every request
