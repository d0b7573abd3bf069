"""One input boundary: no text that PostgreSQL cannot store reaches a route.

PostgreSQL text holds neither NUL nor half a surrogate pair, and asyncpg raises on both
(CharacterNotInRepertoire, UntranslatableCharacter): a `?user=%00` or a JSON "a\\u0000" answered 500 on
every route that passed it on. Rather than each route remembering to check, this middleware checks
every request once, before routing: the path, every query parameter (percent-decoded) and every string
of a JSON body, keys included. What fails answers 422 as any other validation error does: a problem
document (services/search/problems.py) whose `errors` lists {loc, msg, type}. Multipart uploads are checked
by the upload route (the file's bytes are data, not text).
"""

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, unquote

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from precedente.services.search import problems

MAX_JSON_BYTES = 1_000_000  # no route takes a larger JSON body; a larger one is refused by size, not read whole


def problem(value: str) -> str | None:
    """Why PostgreSQL cannot store this text, or None."""
    if "\x00" in value:
        return "text cannot contain NUL characters"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "text is not valid Unicode (it holds a lone surrogate)"
    return None


def _strings(value: Any, where: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield (*where, key), key
            yield from _strings(item, (*where, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, (*where, i))


def _unstorable(scope: Scope, body: bytes | None) -> list[dict[str, Any]]:
    errors = []
    path = scope.get("path", "")
    if reason := problem(path):
        errors.append({"loc": ["path"], "msg": reason, "type": "value_error", "input": None})
    raw = scope.get("query_string", b"").decode("latin-1")
    for name, value in parse_qsl(raw, keep_blank_values=True, errors="surrogateescape"):
        for text in (name, value):
            if reason := problem(text):
                errors.append({"loc": ["query", unquote(name, errors="replace")], "msg": reason, "type": "value_error"})
    if body:
        try:
            document = json.loads(body)
        except UnicodeDecodeError:  # FastAPI would answer 400 "error parsing the body": JSON is Unicode text
            errors.append({"loc": ["body"], "msg": "the body is not JSON text (not UTF-8)", "type": "json_invalid"})
            return errors
        except RecursionError:  # nested deeper than a parser goes: refused here, never a 500
            errors.append({"loc": ["body"], "msg": "the JSON body is nested too deeply", "type": "json_invalid"})
            return errors
        except ValueError:
            return errors  # malformed JSON is the route's 422
        for where, text in _strings(document, ()):
            if reason := problem(text):
                errors.append({"loc": ["body", *where], "msg": reason, "type": "value_error"})
    for error in errors:
        error["loc"] = [problem_free(part) for part in error["loc"]]
    return errors


def problem_free(part: str | int) -> str | int:
    """A location part fit to be echoed in JSON: NUL and lone surrogates written as escapes."""
    if isinstance(part, int):
        return part
    return part.encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\x00")


class InputBoundary:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        is_json = headers.get(b"content-type", b"").split(b";")[0].strip().endswith(b"json")
        body, messages = None, []
        if is_json:
            chunks, size = [], 0
            while True:
                message = await receive()
                messages.append(message)
                if message["type"] != "http.request":
                    break
                chunks.append(message.get("body", b""))
                size += len(chunks[-1])
                if size > MAX_JSON_BYTES or not message.get("more_body"):
                    break
            body = b"".join(chunks) if size <= MAX_JSON_BYTES else None
        errors = _unstorable(scope, body)
        if errors:
            for error in errors:
                error.pop("input", None)
            path = problem_free(scope.get("path", ""))
            answer = problems.document(422, problems.readable(errors), str(path), errors=errors)
            content = json.dumps(answer, ensure_ascii=True).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 422,
                    "headers": [
                        (b"content-type", problems.MEDIA_TYPE.encode()),
                        (b"content-length", str(len(content)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": content})
            return

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay if is_json else receive, send)
