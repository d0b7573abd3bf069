"""`precedente ingest` and `precedente watch`: send files to the search, and follow them to the end of the
pipeline; or mirror a folder."""

import fnmatch
import json
import logging
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress

from precedente import api_errors
from precedente.cli.common import (
    ApiOption,
    GroupsOption,
    JsonOption,
    configure_logging,
    console,
    err_console,
    groups_text,
    stage_word,
    wrapped_table,
)
from precedente.credentials import api_client, auth_headers
from precedente.shared.contracts import EVERYONE, FINAL
from precedente.shared.settings import Settings
from precedente.shared.wording import plural

STATUS_BATCH = 200  # ids per GET /documents?id=...: the route answers at most 200 a page (limit)


INGEST_EPILOG = (
    "Exemplos: `precedente ingest ../shared/docs --include '*.pdf' --wait` (só os PDFs, também nas subpastas);"
    " `precedente ingest export/ --exclude 'README*' --exclude '*.txt'`. Um arquivo enviado de novo não é indexado"
    " duas vezes."
)


def _selected(path: Path, root: Path, include: list[str], exclude: list[str]) -> bool:
    """Whether a file passes the --include/--exclude globs, matched against its name and its path under the
    folder given ("scanned/*.txt" or "*.txt")."""
    names = {path.name, path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name}
    if include and not any(fnmatch.fnmatch(n, pattern) for n in names for pattern in include):
        return False
    return not any(fnmatch.fnmatch(n, pattern) for n in names for pattern in exclude)


def _files(
    paths: list[Path],
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    ctx: typer.Context | None = None,
) -> list[Path]:
    """The files to upload: those named, and those under the folders named (hidden ones skipped), that pass the
    globs."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            candidates = sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
            found.extend(p for p in candidates if _selected(p, path, include or [], exclude or []))
        elif path.is_file():
            if _selected(path, path.parent, include or [], exclude or []):
                found.append(path)
        else:
            raise typer.BadParameter(
                f"{path} does not exist (looked in {Path.cwd()})",
                ctx=ctx,
                param_hint="PATHS",
            )
    return found


def _caller(client: httpx.Client) -> dict[str, Any] | None:
    """Who the CLI's credential is (GET /auth/me), refused credentials failing here before any upload; None
    from an API without the route."""
    response = client.get("/auth/me")
    if response.status_code == 404:
        return None
    return api_errors.check(response).json()


def _outside_warning(me: dict[str, Any] | None, groups: str | None) -> str | None:
    """The warning for files the caller will not find: their access list shares no group with the caller's."""
    if me is None or not groups:
        return None
    wanted = [g.strip() for g in groups.split(",") if g.strip()]
    if EVERYONE in wanted or set(wanted) & set(me.get("groups", [])):
        return None
    return (
        f"aviso: {me['user']} não está em {', '.join(wanted)} (seus grupos: {groups_text(me.get('groups', []))}):"
        f" você não encontrará estes arquivos nas suas buscas; pessoas e chaves desses grupos encontrarão"
        f" (`precedente keys create --scope search --groups {','.join(wanted)}` cria uma chave assim)"
    )


class Progress:
    """Ingestion progress that moves: on a terminal a bar with the counts and the elapsed time, elsewhere (a log,
    a pipe) one line each time the counts change. Written to stderr, so --json's stdout stays JSON."""

    def __init__(self, total: int, what: str) -> None:
        self.total, self.what = total, what
        self.started = time.monotonic()
        self.last = ""
        self.live: RichProgress | None = None
        if err_console.is_terminal:
            self.live = RichProgress(
                TextColumn("{task.description}"),
                BarColumn(bar_width=20),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=err_console,
                transient=False,
            )
            self.live.start()
            self.task = self.live.add_task(what, total=total)

    def update(self, done: int, detail: str = "") -> None:
        text = f"{self.what} {done}/{self.total}" + (f": {detail}" if detail else "")
        if self.live is not None:
            self.live.update(self.task, completed=done, description=f"{self.what}" + (f" ({detail})" if detail else ""))
        elif text != self.last:
            elapsed = int(time.monotonic() - self.started)
            err_console.print(
                f"[{elapsed // 60}:{elapsed % 60:02d}] {text}", markup=False, highlight=False, soft_wrap=True
            )
        self.last = text

    def close(self) -> None:
        if self.live is not None:
            self.live.stop()


def _count_text(statuses: dict[str, dict[str, Any]], total: int) -> tuple[int, str]:
    """How many are final, and "3 indexados, 1 em revisão, 0 não processados, 6 em andamento"."""
    stages = [s.get("stage") for s in statuses.values()]
    done = sum(1 for stage in stages if stage in FINAL)
    indexed = stages.count("indexed")
    failed = stages.count("failed")
    review = done - indexed - failed
    return (
        done,
        f"{plural(indexed, 'indexado', 'indexados')}, {review} em revisão,"
        f" {plural(failed, 'não processado', 'não processados')}, {total - done} em andamento",
    )


def poll_statuses(
    client: httpx.Client, pending: list[str], per_document: bool
) -> tuple[dict[str, dict[str, Any]], bool]:
    """The status of the pending documents in one request (GET /documents?id=..., up to STATUS_BATCH ids a
    request), or one request each from an API without that route; and whether it had to be per document."""
    found: dict[str, dict[str, Any]] = {}
    if not per_document:
        for start in range(0, len(pending), STATUS_BATCH):
            batch = pending[start : start + STATUS_BATCH]
            response = client.get("/documents", params=[("id", i) for i in batch] + [("limit", str(len(batch)))])
            if response.status_code in (404, 405):  # an older API: only /documents/{id}/status
                per_document = True
                break
            for item in api_errors.check(response).json()["documents"]:
                found[str(item["document_id"])] = item
        else:
            return found, False
    for document_id in pending:
        found[document_id] = api_errors.check(client.get(f"/documents/{document_id}/status")).json()
    return found, per_document


def ingest(
    ctx: typer.Context,
    paths: Annotated[list[Path], typer.Argument(help="Arquivos e pastas (percorridas com as subpastas) a enviar.")],
    api: ApiOption = None,
    groups: GroupsOption = None,
    include: Annotated[
        list[str] | None,
        typer.Option("--include", help="Só arquivos cujo nome ou caminho casa com o padrão ('*.pdf'); repetível."),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option("--exclude", help="Pula arquivos cujo nome ou caminho casa com o padrão ('README*'); repetível."),
    ] = None,
    wait: Annotated[
        bool, typer.Option(help="Espera cada arquivo ser indexado, ir para revisão ou não ser processado.")
    ] = False,
    timeout: Annotated[float, typer.Option(help="Segundos de espera com --wait (depois, saída 3).")] = 1800,
    interval: Annotated[
        float, typer.Option(help="Segundos entre as consultas com --wait (uma só para todos os arquivos).", min=0.1)
    ] = 2.0,
    as_json: JsonOption = False,
) -> None:
    """Envia arquivos para a busca; com --wait, acompanha-os até o fim.

    --wait diz como terminou cada arquivo, perguntando à API uma vez a cada --interval por todos eles. Saída 1
    quando um envio ou um documento falhou, 3 quando o --wait esgotou o tempo."""
    files = _files(paths, include, exclude, ctx)
    if not files:
        raise typer.BadParameter(
            f"nenhum arquivo a enviar em {', '.join(map(str, paths))}"
            + (" (--include/--exclude não deixaram nenhum)" if include or exclude else ""),
            ctx=ctx,
            param_hint="PATHS",
        )
    submitted: dict[str, tuple[Path, str]] = {}
    upload_errors: list[dict[str, str]] = []
    statuses: dict[str, dict[str, Any]] = {}
    unfinished = False
    with api_client(api, timeout=120) as client:
        warning = _outside_warning(_caller(client), groups)
        if warning:
            err_console.print(warning, markup=False, highlight=False, soft_wrap=True)
        bar = Progress(len(files), "enviados")
        try:
            for number, path in enumerate(files, start=1):
                data = {"external_id": f"cli:{path.resolve()}", "source": "cli"}
                if groups:
                    data["access_groups"] = groups
                with path.open("rb") as handle:
                    response = client.post("/documents", files={"file": (path.name, handle)}, data=data)
                if response.status_code == 401 or (response.status_code == 403 and "permission" in response.text):
                    api_errors.check(response)  # the credential is refused: so would every other file be
                if response.status_code >= 400:
                    upload_errors.append({"file": str(path), "error": api_errors.problem_message(response)})
                    if not as_json:
                        err_console.print(
                            f"envio recusado {path}: {upload_errors[-1]['error']}",
                            markup=False,
                            highlight=False,
                            soft_wrap=True,
                        )
                else:
                    body = response.json()
                    submitted[str(body["document_id"])] = (path, body["outcome"])
                bar.update(number, f"{len(upload_errors)} recusados" if upload_errors else "")
        finally:
            bar.close()
        if wait and submitted:
            bar = Progress(len(submitted), "processados")
            deadline, per_document = time.monotonic() + timeout, False
            try:
                while True:
                    pending = [d for d in submitted if statuses.get(d, {}).get("stage") not in FINAL]
                    found, per_document = poll_statuses(client, pending, per_document)
                    statuses.update(found)
                    done, detail = _count_text(statuses, len(submitted))
                    bar.update(done, detail)
                    if done == len(submitted):
                        break
                    if time.monotonic() + interval > deadline:
                        unfinished = True
                        break
                    time.sleep(interval)
            finally:
                bar.close()
    rows = [
        {
            "file": str(path),
            "document_id": document_id,
            "outcome": outcome,
            **(
                {
                    "stage": statuses.get(document_id, {}).get("stage", "unknown"),
                    "chunk_count": statuses.get(document_id, {}).get("chunk_count"),
                    "error": statuses.get(document_id, {}).get("error"),
                }
                if wait
                else {}
            ),
        }
        for document_id, (path, outcome) in submitted.items()
    ]
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.get("stage", row["outcome"])] = counts.get(row.get("stage", row["outcome"]), 0) + 1
    if as_json:
        out = {"documents": rows, "counts": counts, "upload_errors": upload_errors, "timed_out": unfinished}
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
    else:
        columns = ["arquivo", "situação", "trechos", "motivo"] if wait else ["arquivo", "envio", "documento"]
        table = wrapped_table(*columns)
        for row in rows:
            name = Path(row["file"]).name
            if wait:
                table.add_row(name, stage_word(row["stage"]), str(row["chunk_count"] or ""), row["error"] or "")
            else:
                table.add_row(name, stage_word(row["outcome"]), row["document_id"])
        console.print(table)
        summary = ", ".join(f"{n} {stage_word(stage, n)}" for stage, n in sorted(counts.items()))
        console.print(f"{summary or 'nada enviado'}, {len(upload_errors)} envios recusados", highlight=False)
        if unfinished:
            left = sum(n for stage, n in counts.items() if stage not in FINAL)
            console.print(
                f"{left} ainda em andamento depois de {timeout:.0f} s: `precedente status` os acompanha, ou rode"
                " de novo com um --timeout maior (os arquivos já enviados não são enviados duas vezes)",
                highlight=False,
            )
    if upload_errors or counts.get("failed"):
        raise typer.Exit(api_errors.EXIT_FAILED)
    if unfinished:
        raise typer.Exit(api_errors.EXIT_UNFINISHED)


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

    configure_logging()
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
