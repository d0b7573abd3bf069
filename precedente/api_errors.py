"""What the CLI says when something goes wrong: one line on stderr with the fix, never a traceback.

The API answers every error as an RFC 9457 problem document (services/search/problems.py); its `detail` is the
sentence for a person. A stopped API, a missing key or a revoked one is the operator's everyday mistake, so the
line says what to do about it. The exit status tells a script what kind of failure it was (EXIT_CODES).
"""

import sys
from pathlib import Path
from typing import NoReturn

import httpx

EXIT_OK = 0
EXIT_FAILED = 1  # the API refused or could not be reached, or a file failed
EXIT_USAGE = 2  # click's own status for a wrong option or value
EXIT_UNFINISHED = 3  # `ingest --wait` ran out of time with documents still in the pipeline
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report SIGINT

EXIT_CODES = {
    EXIT_OK: "done",
    EXIT_FAILED: "failed: the API refused the request or could not be reached, or a file failed to ingest",
    EXIT_USAGE: "wrong usage: an unknown option, a value that is not valid (the line names the valid ones), a"
    " missing file",
    EXIT_UNFINISHED: "`ingest --wait` timed out while documents were still being processed",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
}

CREDENTIAL_HINT = (
    "set PRECEDENTE_API_KEY to a valid key (`precedente keys create`), or run this where `precedente up` keeps"
    " its admin key"
)
MISSING_CREDENTIAL = (
    "no credential was sent: PRECEDENTE_API_KEY is not set and there is no {key_file} (the admin key"
    " `precedente up` keeps in its data directory); run this in the folder where `precedente up` runs, set"
    " PRECEDENTE_DATA_DIR to its data directory, or set PRECEDENTE_API_KEY (`precedente keys create`)"
)
FORBIDDEN_HINT = "ask an administrator for a key or account with that permission (`precedente keys create --scope`)"


def exit_codes_help() -> str:
    """The exit statuses, for `precedente --help`."""
    return "Exit status: " + "; ".join(f"{code} {meaning}" for code, meaning in EXIT_CODES.items()) + "."


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


def _key_file() -> Path:
    from precedente.shared.accounts import ADMIN_KEY_FILE
    from precedente.shared.settings import Settings

    return (Settings().data_dir / ADMIN_KEY_FILE).resolve()


def explain(err: httpx.HTTPError, credential_hint: bool = True) -> str:
    """The one line that says what went wrong with a request to the API, and how to fix it where it can."""
    if isinstance(err, httpx.HTTPStatusError):
        message = problem_message(err.response)
        status = err.response.status_code
        if status == 401 and credential_hint:
            sent = "authorization" in err.request.headers
            message += f" ({CREDENTIAL_HINT})" if sent else f" ({MISSING_CREDENTIAL.format(key_file=_key_file())})"
        elif status == 403 and "needs permission" in message:
            message += f" ({FORBIDDEN_HINT})"
        return message
    try:
        where = f"{err.request.url.scheme}://{err.request.url.netloc.decode()}"
    except RuntimeError:  # no request attached
        where = "the search API"
    reason = " ".join(str(err).split()) or type(err).__name__
    if isinstance(err, httpx.TimeoutException):
        return f"the search API at {where} did not answer in time ({reason}); it may be busy: try again"
    return (
        f"cannot reach the search API at {where}: {reason} (is it running? start it with `precedente up`, or"
        " point --api / PRECEDENTE_API_URL at it)"
    )


def fail(message: str, status: int = EXIT_FAILED) -> NoReturn:
    sys.stderr.write(f"precedente: {message}\n")
    raise SystemExit(status)


def check(response: httpx.Response, credential_hint: bool = True) -> httpx.Response:
    """The response, or the error's one line and exit status 1 (a 401 says how to get a credential, unless it
    answered a password: `precedente password`)."""
    if response.status_code >= 400:
        refused = httpx.HTTPStatusError("refused", request=response.request, response=response)
        fail(explain(refused, credential_hint))
    return response
