"""`precedente review` and `precedente status`: the review queue and the ingestion status in a terminal."""

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from precedente import api_errors
from precedente.credentials import api_client

console = Console()
review_app = typer.Typer(help="The review queue: list, show, approve, re-OCR, correct or reject.")

ApiOption = Annotated[str | None, typer.Option("--api", help="Search API URL (default PRECEDENTE_API_URL).")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON (for scripts) instead of text.")]
ACTION_DONE = {
    "approve": "approved: it is indexed from its reviewed text",
    "reocr": "sent to OCR again",
    "correct": "page corrected",
    "reject": "rejected: it leaves the queue",
}


def client(api: str | None) -> httpx.Client:
    """Acts as the holder of the CLI's credential (precedente/credentials.py): actions are recorded under it."""
    return api_client(api)


def call(response: httpx.Response) -> Any:
    """The answer; a refusal is its problem document's one line on stderr and exit status 1."""
    return api_errors.check(response).json()


@review_app.callback(invoke_without_command=True)
def review_list(
    ctx: typer.Context,
    api: ApiOption = None,
    reason: Annotated[str | None, typer.Option(help="Only this reason code.")] = None,
    as_json: JsonOption = False,
) -> None:
    """List the documents awaiting review (the default when no sub-command is given)."""
    if ctx.invoked_subcommand is not None:
        return
    with client(api) as http:
        queue = call(http.get("/review", params={"reason_code": reason} if reason else None))
    if as_json:
        sys.stdout.write(json.dumps(queue, ensure_ascii=False, indent=2) + "\n")
        return
    table = Table()
    for column in ("document", "file", "stage", "reason", "weak pages", "confidence"):
        table.add_column(column, overflow="fold")
    for item in queue["items"]:
        confidence = item["ocr_confidence"]
        table.add_row(
            item["document_id"],
            item["filename"],
            item["stage"],
            escape(f"[{item['reason_code']}] {item['reason']}"),
            ", ".join(map(str, item.get("unread_pages") or item["weak_pages"])),
            f"{confidence:.2f}" if confidence is not None else "",
        )
    console.print(table)
    console.print(", ".join(f"{n} {code}" for code, n in queue["counts"].items()) or "the queue is empty")


@review_app.command("show")
def review_show(document_id: str, api: ApiOption = None, as_json: JsonOption = False) -> None:
    """The reason, the pages with their method, confidence and text, and what reviewers did."""
    with client(api) as http:
        detail = call(http.get(f"/review/{document_id}"))
    if as_json:
        sys.stdout.write(json.dumps(detail, ensure_ascii=False, indent=2) + "\n")
        return
    reason = f"[{detail['reason_code']}] {detail['reason']}"
    console.print(f"[bold]{escape(detail['filename'])}[/bold] ({escape(detail['stage'])}): {escape(reason)}")
    for page in detail["pages"]:
        unread = " · unread: not in the index" if page.get("unread") else ""
        console.rule(f"page {page['number']} · {page['method']} · confidence {page['confidence']:.2f}{unread}")
        console.print(page["text"], markup=False)
    for action in detail["actions"]:
        console.print(f"{action['at']} {action['actor']} {action['action']} {action['detail']}", markup=False)


@review_app.command("approve")
def review_approve(document_id: str, api: ApiOption = None, as_json: JsonOption = False) -> None:
    """Index the document from its extracted (and corrected) text."""
    with client(api) as http:
        done(call(http.post(f"/review/{document_id}/approve")), as_json)


@review_app.command("reocr")
def review_reocr(
    document_id: str,
    dpi: Annotated[int | None, typer.Option()] = None,
    psm: Annotated[int | None, typer.Option(help="Tesseract page segmentation mode.")] = None,
    language: Annotated[str | None, typer.Option()] = None,
    api: ApiOption = None,
    as_json: JsonOption = False,
) -> None:
    """Extract the document again with other OCR settings."""
    options = {k: v for k, v in {"dpi": dpi, "psm": psm, "language": language}.items() if v is not None}
    with client(api) as http:
        done(call(http.post(f"/review/{document_id}/reocr", json=options)), as_json)


@review_app.command("correct")
def review_correct(
    document_id: str,
    page: int,
    text_file: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="File with the page's corrected text.")
    ],
    api: ApiOption = None,
    as_json: JsonOption = False,
) -> None:
    """Replace one page's text with a corrected version."""
    text = text_file.read_text()
    with client(api) as http:
        done(call(http.put(f"/review/{document_id}/pages/{page}", json={"text": text})), as_json)


@review_app.command("reject")
def review_reject(
    document_id: str,
    reason: Annotated[str, typer.Option(help="Why it is rejected.")],
    api: ApiOption = None,
    as_json: JsonOption = False,
) -> None:
    """Take the document out of the queue for good."""
    with client(api) as http:
        done(call(http.post(f"/review/{document_id}/reject", json={"reason": reason})), as_json)


def done(result: dict[str, Any], as_json: bool) -> None:
    """What an action did, as a sentence (or its JSON), not a Python dict."""
    if as_json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
        return
    what = ACTION_DONE.get(result.get("action", ""), result.get("action", "done"))
    console.print(f"{result['document_id']}: {what} (now {result['stage']})", markup=False, highlight=False)


def unread_line(report: dict[str, Any]) -> str | None:
    """GET /status's indexed documents with unread pages, as their own line: searchable, so in no review count."""
    unread = report.get("unread_pages") or {}
    if not unread.get("documents"):
        return None
    documents, pages = unread["documents"], unread.get("pages", 0)
    return (
        f"{documents} document{'s' if documents != 1 else ''} indexed with unread pages"
        f" ({pages} page{'s' if pages != 1 else ''}): `precedente review --reason unread_pages`"
    )


def status(api: ApiOption = None) -> None:
    """Documents per stage, review and failure counts per reason, and the latest stopped documents."""
    with client(api) as http:
        report = call(http.get("/status"))
    table = Table("stage", "documents")
    for stage, count in sorted(report["stages"].items()):
        table.add_row(stage, str(count))
    console.print(table)
    for title, counts in (("in review", report["review_reasons"]), ("failed", report["failure_reasons"])):
        if counts:
            console.print(f"{title}: " + ", ".join(f"{n} {code}" for code, n in counts.items()))
    if line := unread_line(report):
        console.print(line, markup=False)
    for item in report["latest_stopped"]:
        line = f"{item['at']} {item['filename']} {item['stage']} [{item['reason_code']}] {item['reason']}"
        console.print(line, markup=False)
