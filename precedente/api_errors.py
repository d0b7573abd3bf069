"""What the CLI says when the search API refuses a request or cannot be reached: one line, never a traceback.

The API answers every error as an RFC 9457 problem document (services/search/problems.py); its `detail` is the
sentence for a person. A stopped API, a missing key or a revoked one is the operator's everyday mistake, so the
line says what to do about it.
"""

import sys
from typing import NoReturn

import httpx

CREDENTIAL_HINT = (
    "set PRECEDENTE_API_KEY to a valid key (`precedente keys create`), or run this where `precedente up` keeps"
    " its admin key"
)


def problem_message(response: httpx.Response) -> str:
    """`403 Forbidden: key:x may not do this (...)`: the status and the problem's detail (or title)."""
    try:
        body = response.json()
    except ValueError:
        body = None
    detail = body.get("detail") or body.get("title") if isinstance(body, dict) else None
    if not isinstance(detail, str):
        lines = response.text.strip().splitlines()
        detail = lines[0][:300] if lines else ""
    line = f"{response.status_code} {response.reason_phrase}: {detail}" if detail else str(response.status_code)
    return " ".join(line.split())


def explain(err: httpx.HTTPError, credential_hint: bool = True) -> str:
    """The one line that says what went wrong with a request to the API, and how to fix it where it can."""
    if isinstance(err, httpx.HTTPStatusError):
        message = problem_message(err.response)
        if err.response.status_code == 401 and credential_hint:
            message += f" ({CREDENTIAL_HINT})"
        return message
    try:
        where = f"{err.request.url.scheme}://{err.request.url.netloc.decode()}"
    except RuntimeError:  # no request attached
        where = "the search API"
    reason = " ".join(str(err).split()) or type(err).__name__
    return f"cannot reach the search API at {where}: {reason} (is it running? start it with `precedente up`)"


def fail(message: str) -> NoReturn:
    sys.stderr.write(f"precedente: {message}\n")
    raise SystemExit(1)


def check(response: httpx.Response, credential_hint: bool = True) -> httpx.Response:
    """The response, or the error's one line and exit status 1 (a 401 says how to get a credential, unless it
    answered a password: `precedente password`)."""
    if response.status_code >= 400:
        refused = httpx.HTTPStatusError("refused", request=response.request, response=response)
        fail(explain(refused, credential_hint))
    return response
