"""The `precedente` command: run the stack or one service, ingest files, search."""

import asyncio
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Annotated

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import httpx  # noqa: E402
import typer  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.markup import escape  # noqa: E402
from rich.progress import Progress  # noqa: E402
from rich.table import Table  # noqa: E402

from precedente import api_errors  # noqa: E402
from precedente.admin_cli import audit_command, keys_app, password_command, users_app  # noqa: E402
from precedente.credentials import auth_headers  # noqa: E402
from precedente.harness import FINAL  # noqa: E402
from precedente.review_cli import review_app  # noqa: E402
from shared import pipeline  # noqa: E402
from shared.settings import Settings  # noqa: E402

app = typer.Typer(help="Precedente: semantic search over a law firm's knowledge base.", no_args_is_help=True)
app.add_typer(review_app, name="review")
app.add_typer(users_app, name="users")
app.add_typer(keys_app, name="keys")
console = Console()

ApiOption = Annotated[str | None, typer.Option("--api", help="Search API URL (default PRECEDENTE_API_URL).")]
GroupsOption = Annotated[
    str | None,
    typer.Option("--groups", help="Comma-separated groups allowed to see the files (default: everyone)."),
]


def _logging() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("aiokafka").setLevel(logging.WARNING)


@app.command()
def up(
    data_dir: Annotated[Path | None, typer.Option(help="Where the database and logs live.")] = None,
    port: Annotated[int | None, typer.Option(help="Port of the search API.")] = None,
    no_auth: Annotated[
        bool, typer.Option("--no-auth", help="No sign-in: everyone is one anonymous user. Local demos only.")
    ] = False,
) -> None:
    """Start the database, the broker, every service and the search API; Ctrl-C stops them all."""
    from precedente.stack import run_up

    _logging()
    if no_auth:
        os.environ["PRECEDENTE_AUTH_MODE"] = "none"  # the services inherit it
    settings = Settings()
    run_up(settings, data_dir or settings.data_dir, port or settings.api_port)


@app.command()
def serve(
    service: Annotated[str, typer.Argument(help=f"{', '.join(pipeline.NAMES)} or search")],
) -> None:
    """Run one service in the foreground (its own consumer group; run more copies to scale out)."""
    _logging()
    settings = Settings()
    if service == "search":
        import uvicorn

        from services.search.app import create_app

        uvicorn.run(create_app(settings), host=settings.api_host, port=settings.api_port, log_level="info")
        return
    if service not in pipeline.NAMES:
        raise typer.BadParameter(f"unknown service {service!r}; choose from {', '.join([*pipeline.NAMES, 'search'])}")
    from shared.stage import build_app

    asyncio.run(build_app(pipeline.load_service(service), settings).run())


@app.command("migrate")
def migrate_command() -> None:
    """Apply database migrations as the schema's owner (PRECEDENTE_DATABASE_OWNER_URL, else PRECEDENTE_DATABASE_URL),
    granting PRECEDENTE_DATABASE_URL's role what the services need when it is another role."""
    from shared.db import migrate_for

    settings = Settings()
    applied = asyncio.run(migrate_for(settings.owner_database_url, settings.database_url))
    console.print(f"applied: {', '.join(applied) or 'nothing, schema is current'}")


@app.command()
def reembed(
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only say what would be re-embedded.")] = False,
    batch_size: Annotated[
        int | None, typer.Option(help="Chunks per batch (default PRECEDENTE_EMBEDDING_BATCH_SIZE).")
    ] = None,
) -> None:
    """Re-embed the stored chunks with the configured embedding model (PRECEDENTE_EMBEDDING_*), from their
    stored text; resumable, and search keeps serving the old vectors until the switch."""
    from precedente.reembed import ReembedError, run

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        run(Settings(), console, dry_run=dry_run, batch_size=batch_size)
    except ReembedError as err:
        console.print(f"[red]reembed:[/red] {err}")
        raise typer.Exit(1) from err


@app.command()
def topics(resume: Annotated[bool, typer.Option(help="Also re-publish unfinished documents.")] = False) -> None:
    """Create the Kafka topics (PRECEDENTE_KAFKA_BOOTSTRAP), idempotently."""
    from shared.broker import ensure_topics
    from shared.recovery import resume_unfinished

    settings = Settings()
    created = asyncio.run(ensure_topics(settings))
    console.print(f"created: {', '.join(created) or 'none, all exist'}")
    if resume:
        console.print(f"resumed: {asyncio.run(resume_unfinished(settings))} documents")


def _files(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith(".")))
        elif path.is_file():
            found.append(path)
        else:
            raise typer.BadParameter(f"{path} does not exist")
    return found


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files and folders to ingest.")],
    api: ApiOption = None,
    groups: GroupsOption = None,
    wait: Annotated[bool, typer.Option(help="Wait until every file is indexed, in review or failed.")] = False,
    timeout: Annotated[float, typer.Option(help="Seconds to wait with --wait.")] = 1800,
) -> None:
    """Upload files to a running instance; with --wait, report how each one ended."""
    base = (api or Settings().api_url).rstrip("/")
    files = _files(paths)
    submitted: dict[str, tuple[Path, str]] = {}
    failures = 0
    with httpx.Client(base_url=base, timeout=120, headers=auth_headers()) as client, Progress(console=console) as bar:
        task = bar.add_task("uploading", total=len(files))
        for path in files:
            data = {"external_id": f"cli:{path.resolve()}", "source": "cli"}
            if groups:
                data["access_groups"] = groups
            try:
                with path.open("rb") as handle:
                    response = client.post("/documents", files={"file": (path.name, handle)}, data=data)
                response.raise_for_status()
                body = response.json()
                submitted[body["document_id"]] = (path, body["outcome"])
            except httpx.HTTPStatusError as err:
                if err.response.status_code == 401:  # the credential is refused: so would every other file be
                    raise
                failures += 1
                console.print(
                    f"[red]upload failed[/red] {escape(str(path))}: {escape(api_errors.problem_message(err.response))}"
                )
            bar.advance(task)
        if not wait:
            for document_id, (path, outcome) in submitted.items():
                console.print(f"{document_id}  {outcome:12}  {path}")
            raise typer.Exit(1 if failures else 0)
        statuses: dict[str, dict] = {}
        progress = bar.add_task("processing", total=len(submitted))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for document_id in submitted:
                if statuses.get(document_id, {}).get("stage") in FINAL:
                    continue
                statuses[document_id] = client.get(f"/documents/{document_id}/status").raise_for_status().json()
            done = sum(1 for s in statuses.values() if s.get("stage") in FINAL)
            bar.update(progress, completed=done)
            if done == len(submitted):
                break
            time.sleep(1)
    table = Table("file", "stage", "chunks", "reason")
    counts: dict[str, int] = {}
    for document_id, (path, _) in submitted.items():
        status = statuses.get(document_id, {})
        stage = status.get("stage", "unknown")
        counts[stage] = counts.get(stage, 0) + 1
        table.add_row(path.name, stage, str(status.get("chunk_count") or ""), status.get("error") or "")
    console.print(table)
    console.print(", ".join(f"{n} {stage}" for stage, n in sorted(counts.items())) + f", {failures} upload errors")
    unfinished = sum(n for stage, n in counts.items() if stage not in FINAL)
    raise typer.Exit(1 if failures or counts.get("failed") or unfinished else 0)


@app.command()
def search(
    query: Annotated[str, typer.Argument()],
    api: ApiOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the raw JSON response.")] = False,
    top_k: Annotated[int, typer.Option("--top-k")] = 5,
    document_type: Annotated[str | None, typer.Option("--type")] = None,
    court: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Search a running instance, as the holder of the CLI's credential (PRECEDENTE_API_KEY or the local admin key):
    its groups decide what is found."""
    base = (api or Settings().api_url).rstrip("/")
    filters = {k: v for k, v in {"document_type": document_type, "court": court}.items() if v}
    response = httpx.post(
        f"{base}/search",
        json={"query": query, "top_k": top_k, "filters": filters},
        headers=auth_headers(),
        timeout=60,
    )
    response.raise_for_status()
    body = response.json()
    if as_json:
        sys.stdout.write(json.dumps(body, ensure_ascii=False, indent=2) + "\n")
        return
    if body["results"] and body.get("no_strong_match"):
        console.print("Nada claramente relevante foi encontrado; os resultados abaixo são apenas os mais próximos.")
    for rank, item in enumerate(body["results"], start=1):
        source = item.get("citation") or (
            f"{item['document_title']} — {item['document_type_label'] or '?'}, {item['court_label'] or '?'}, "
            f"{item['document_date'] or 's/d'}"
        )
        console.rule(escape(f"{rank}. [{item.get('relevance', '?')}] {source}, p. {item['page_number']}"), style="dim")
        console.print(item["chunk_text"][:600], markup=False)
        console.print(item["relevance_explanation"], style="dim", markup=False)
        if item.get("copies"):
            console.print("cópias: " + ", ".join(c["filename"] for c in item["copies"]), style="dim", markup=False)
    if not body["results"]:
        console.print("no results")


@app.command("inspect")
def inspect_command(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="The file to read.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a report.")] = False,
) -> None:
    """Extract and clean one file here (no broker, no database): each page's method, confidence and text,
    and whether the extractor would send it to review, and why."""
    from precedente.inspect import inspect_file, inspection_json, print_inspection

    inspection = inspect_file(file, Settings())
    if as_json:
        sys.stdout.write(json.dumps(inspection_json(inspection), ensure_ascii=False) + "\n")
    else:
        print_inspection(inspection, console)


@app.command("eval")
def eval_command(
    corpus: Annotated[Path, typer.Option(exists=True, dir_okay=False, help="JSON lines: {_id, title, text}.")],
    queries: Annotated[Path, typer.Option(exists=True, dir_okay=False, help="JSON lines: {_id, text, group}.")],
    qrels: Annotated[Path, typer.Option(exists=True, dir_okay=False, help="TSV: query-id, corpus-id, score.")],
    run: Annotated[Path | None, typer.Option("--run", help="Write the ranking in TREC run format.")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the metrics as JSON.")] = None,
    config: Annotated[str, typer.Option(help="A name for this configuration (the run tag).")] = "default",
    api: Annotated[str | None, typer.Option("--api", help="Use a running instance instead of a fresh one.")] = None,
) -> None:
    """Ingest a judged corpus through the pipeline and score every query through POST /search."""
    from precedente.eval_command import run_eval

    _logging()
    logging.getLogger("httpx").setLevel(logging.WARNING)
    run_eval(corpus, queries, qrels, api=api, run_path=run, json_path=json_out, config=config, console=console)


@app.command("watch")
def watch_command(
    folder: Annotated[Path, typer.Argument(exists=True, file_okay=False, help="The folder to mirror.")],
    api: ApiOption = None,
    interval: Annotated[float, typer.Option(help="Seconds between scans.")] = 5.0,
    access_groups: Annotated[
        str | None, typer.Option("--access-groups", help="Comma-separated access list of the files (default: all).")
    ] = None,
    namespace: Annotated[
        str | None, typer.Option(help="Prefix of the documents' external ids (default: the folder's name).")
    ] = None,
    state_file: Annotated[
        Path | None, typer.Option(help="Where to remember what was sent (default DIR/.precedente-watch.json).")
    ] = None,
    settle: Annotated[float, typer.Option(help="Skip files modified less than this many seconds ago.")] = 1.0,
    once: Annotated[bool, typer.Option("--once", help="Scan once and exit.")] = False,
) -> None:
    """Mirror a folder (a DMS export): upload new and changed files, delete the documents of removed ones."""
    from precedente.watch import ApiClient, default_state_file, watch

    _logging()
    logging.getLogger("httpx").setLevel(logging.WARNING)
    settings = Settings()
    root = folder.resolve()
    client = ApiClient(api or settings.api_url, namespace or root.name, access_groups, auth_headers(settings))
    try:
        watch(root, client, state_file or default_state_file(root), interval=interval, settle=settle, once=once)
    except KeyboardInterrupt:
        pass
    finally:
        client.close()


@app.command("docs")
def docs_command(
    out: Annotated[Path, typer.Option(help="Folder to write into.")] = Path("docs"),
    check: Annotated[bool, typer.Option("--check", help="Only say whether the files are current.")] = False,
) -> None:
    """Generate docs/asyncapi.json, docs/openapi.json and docs/configuration.md from the code."""
    from precedente.docs_gen import generate, stale

    if check:
        outdated = stale(out)
        for name in outdated:
            console.print(f"[red]out of date:[/red] {out / name} (run `precedente docs`)")
        raise typer.Exit(1 if outdated else 0)
    for path in generate(out):
        console.print(f"wrote {path}")


@app.command("status")
def status_command(
    api: ApiOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the raw JSON of GET /status.")] = False,
) -> None:
    """Per pipeline stage: documents waiting, in progress, done, in review and failed, and the consumer lag;
    the slowest documents of the last hour; review and failure counts per reason (GET /status)."""
    base = (api or Settings().api_url).rstrip("/")
    response = httpx.get(f"{base}/status", headers=auth_headers(), timeout=30)
    response.raise_for_status()  # main() says what went wrong, in one line
    report = response.json()
    if as_json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False, indent=2) + "\n")
        return
    table = Table("stage", "waiting", "in progress", "done", "in review", "failed", "lag", "replicas", title="pipeline")
    for row in report.get("pipeline", []):
        unknown = "?"
        table.add_row(
            row["service"],
            str(row["waiting"]),
            unknown if row["in_progress"] is None else str(row["in_progress"]),
            str(row["done"]),
            str(row["in_review"]),
            str(row["failed"]),
            unknown if row["lag"] is None else str(row["lag"]),
            unknown if row["members"] is None else str(row["members"]),
        )
    console.print(table)
    if report.get("lag_error"):
        console.print(f"[yellow]{report['lag_error']}[/yellow]", markup=True)
    stages = Table("ledger stage", "documents")
    for stage, count in sorted(report["stages"].items()):
        stages.add_row(stage, str(count))
    console.print(stages)
    for title, counts in (("in review", report["review_reasons"]), ("failed", report["failure_reasons"])):
        if counts:
            console.print(f"{title}: " + ", ".join(f"{n} {code}" for code, n in counts.items()))
    if report.get("slowest"):
        slow = Table("document", "file", "total s", "slowest stage", "its s", title="slowest of the last hour")
        for item in report["slowest"]:
            slow.add_row(
                item["document_id"][:8],
                item["filename"],
                f"{item['total_seconds']:.1f}",
                item["slowest_stage"] or "",
                "" if item["slowest_stage_seconds"] is None else f"{item['slowest_stage_seconds']:.1f}",
            )
        console.print(slow)
    for item in report["latest_stopped"]:
        line = f"{item['at']} {item['filename']} {item['stage']} [{item['reason_code']}] {item['reason']}"
        console.print(line, markup=False)


app.command("audit")(audit_command)
app.command("password")(password_command)


def main() -> None:
    """Every command that calls the API: a refusal it did not handle, or an API that cannot be reached, is one
    line on stderr and exit status 1, not a traceback."""
    try:
        app()
    except httpx.HTTPError as err:
        api_errors.fail(api_errors.explain(err))


if __name__ == "__main__":
    main()
