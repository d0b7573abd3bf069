"""The `precedente` command: run the stack or one service, ingest files, search."""

import asyncio
import enum
import fnmatch
import json
import logging
import os
import re
import shutil
import sys
import textwrap
import time
import traceback
from collections import Counter
from collections.abc import Callable
from datetime import date, timedelta
from functools import partial
from pathlib import Path
from typing import Annotated, Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import httpx  # noqa: E402
import pydantic  # noqa: E402
import typer  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn  # noqa: E402
from rich.progress import Progress as RichProgress  # noqa: E402
from rich.table import Table  # noqa: E402
from typer._click import exceptions as click_errors  # noqa: E402 - typer's own click: what it raises

from precedente import api_errors  # noqa: E402
from precedente.admin_cli import audit_command, keys_app, password_command, users_app  # noqa: E402
from precedente.credentials import api_client, auth_headers  # noqa: E402
from precedente.folders_cli import pastas_app  # noqa: E402
from precedente.panel_command import panel_app  # noqa: E402
from precedente.research_cli import alerts_app, history_app, saved_app  # noqa: E402
from precedente.review_cli import review_app, unread_line  # noqa: E402
from precedente.thesaurus_cli import thesaurus_app  # noqa: E402
from shared import pipeline  # noqa: E402
from shared.contracts import EVERYONE, FINAL  # noqa: E402
from shared.legal.codes import (  # noqa: E402
    AGENCIES,
    DECISION_TYPES,
    DOCUMENT_SUBTYPE_LABELS,
    DOCUMENT_SUBTYPES,
    DOCUMENT_TYPE_LABELS,
    DOCUMENT_TYPES,
    FIXED_COURT_LABELS,
    is_known_court,
    label,
    normalize_court,
    normalize_document_subtype,
    normalize_document_type,
)
from shared.legal.sections import section_label  # noqa: E402
from shared.settings import Settings  # noqa: E402
from shared.wording import plural, unread_pages_note  # noqa: E402

app = typer.Typer(
    help="Precedente: busca semântica na base de conhecimento do escritório.",
    epilog=api_errors.exit_codes_help()
    + "\n\nOs comandos que chamam a API agem como PRECEDENTE_API_KEY, senão como a chave de administrador que o"
    " `precedente up` guarda na pasta de dados (PRECEDENTE_DATA_DIR, padrão ./.precedente); `precedente whoami` diz"
    " qual, e seus grupos. --api URL (ou PRECEDENTE_API_URL) os aponta para outra instalação.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
)
app.add_typer(review_app, name="review")
app.add_typer(users_app, name="users")
app.add_typer(keys_app, name="keys")
app.add_typer(panel_app, name="panel")
app.add_typer(history_app, name="historico")
app.add_typer(saved_app, name="pesquisas")
app.add_typer(alerts_app, name="alertas")
app.add_typer(pastas_app, name="pastas")
app.add_typer(thesaurus_app, name="tesauro")
console = Console()
err_console = Console(stderr=True)
STATUS_BATCH = 200  # ids per GET /documents?id=...: the route answers at most 200 a page (limit)

# Ledger stages and upload outcomes in the words the pages use (services/gateway/lib/labels.ts): one and many.
WORDS = {
    "submitted": ("recebido", "recebidos"),
    "extracted": ("texto extraído", "textos extraídos"),
    "cleaned": ("texto limpo", "textos limpos"),
    "chunked": ("dividido em trechos", "divididos em trechos"),
    "annotated": ("com metadados", "com metadados"),
    "indexed": ("indexado", "indexados"),
    "review": ("em revisão", "em revisão"),
    "failed": ("não processado", "não processados"),
    "deleted": ("excluído", "excluídos"),
    "new": ("novo", "novos"),
    "new_version": ("nova versão", "novas versões"),
    "duplicate": ("já recebido", "já recebidos"),
    "unchanged": ("sem mudança", "sem mudança"),
    "retry": ("enviado de novo", "enviados de novo"),
}


PERMISSION_WORDS = {"search": "buscar", "ingest": "enviar", "review": "revisar", "admin": "administrar"}


def _word(code: str, n: int = 1) -> str:
    """A stage or upload outcome as the pages say it ("indexados"); the code itself when unknown."""
    one, many = WORDS.get(code, (code, code))
    return one if n == 1 else many


ApiOption = Annotated[str | None, typer.Option("--api", help="Endereço da API de busca (padrão: PRECEDENTE_API_URL).")]
GroupsOption = Annotated[
    str | None,
    typer.Option(
        "--groups",
        help="Grupos, separados por vírgula, que podem ver os arquivos (padrão: todos); só pessoas e chaves desses"
        " grupos os encontram.",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Imprime JSON (para scripts) em vez de texto.")]
INGEST_EPILOG = (
    "Exemplos: `precedente ingest ../shared/docs --include '*.pdf' --wait` (só os PDFs, também nas subpastas);"
    " `precedente ingest export/ --exclude 'README*' --exclude '*.txt'`. Um arquivo enviado de novo não é indexado"
    " duas vezes."
)


class Sort(enum.StrEnum):
    relevance = "relevance"
    date = "date"


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
    where = (data_dir or settings.data_dir).resolve()
    try:
        run_up(settings, where, port or settings.api_port)
    except (RuntimeError, TimeoutError, OSError) as err:  # a start that fails: what failed, and where to read more
        if os.environ.get("PRECEDENTE_DEBUG"):
            traceback.print_exc()
        api_errors.fail(f"could not start: {' '.join(str(err).split())} (the services' logs are in {where / 'logs'})")


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


def _table(*columns: str, title: str | None = None) -> Table:
    """A table whose cells wrap (long file names folded) instead of ending in "…" on a narrow terminal."""
    table = Table(title=title)
    for column in columns:
        table.add_column(column, overflow="fold")
    return table


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


def _groups_text(groups: list[str]) -> str:
    return ", ".join(groups) if groups else "nenhum (encontra só documentos abertos a todos)"


def _outside_warning(me: dict[str, Any] | None, groups: str | None) -> str | None:
    """The warning for files the caller will not find: their access list shares no group with the caller's."""
    if me is None or not groups:
        return None
    wanted = [g.strip() for g in groups.split(",") if g.strip()]
    if EVERYONE in wanted or set(wanted) & set(me.get("groups", [])):
        return None
    return (
        f"aviso: {me['user']} não está em {', '.join(wanted)} (seus grupos: {_groups_text(me.get('groups', []))}):"
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


@app.command(epilog=INGEST_EPILOG)
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
        table = _table(*columns)
        for row in rows:
            name = Path(row["file"]).name
            if wait:
                table.add_row(name, _word(row["stage"]), str(row["chunk_count"] or ""), row["error"] or "")
            else:
                table.add_row(name, _word(row["outcome"]), row["document_id"])
        console.print(table)
        summary = ", ".join(f"{n} {_word(stage, n)}" for stage, n in sorted(counts.items()))
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


def _choice(kind: str, codes: dict[str, str], normalize: Callable[[str], str | None]) -> Callable[..., list[str]]:
    """A callback that turns labels into codes ("Acórdão" -> "acordao") and refuses an unknown value, naming the
    valid ones."""

    def convert(values: list[str] | None) -> list[str]:
        out = []
        for value in values or []:
            code = normalize(value)
            if code is None or code not in codes:
                raise typer.BadParameter(f"{value!r} is not a {kind}; valid: {', '.join(codes)}")
            out.append(code)
        return out

    return convert


def _courts(values: list[str] | None) -> list[str]:
    out = []
    for value in values or []:
        code = normalize_court(value)
        if code is None or not is_known_court(code):
            raise typer.BadParameter(f"{value!r} is not a court or origin; valid: {COURT_HELP}")
        out.append(code)
    return out


def _parse_date(value: str, end: bool) -> date:
    """2019-03-12, 12/03/2019, 03/2019 or 2019 (a year or month: its first day, or its last with --to)."""
    text = value.strip()
    try:
        if re.fullmatch(r"\d{4}", text):
            return date(int(text), 12, 31) if end else date(int(text), 1, 1)
        if match := re.fullmatch(r"(\d{1,2})/(\d{4})", text):
            month, year = int(match[1]), int(match[2])
            first = date(year, month, 1)
            return (date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)) if end else first
        if match := re.fullmatch(r"(\d{1,2})/(\d{1,2})/(\d{4})", text):
            return date(int(match[3]), int(match[2]), int(match[1]))
        return date.fromisoformat(text)
    except ValueError as err:
        raise typer.BadParameter(f"{value!r} is not a date; write 2019-03-12, 12/03/2019, 03/2019 or 2019") from err


def _date_from(value: str | None) -> str | None:
    return _parse_date(value, end=False).isoformat() if value else None


def _date_to(value: str | None) -> str | None:
    return _parse_date(value, end=True).isoformat() if value else None


TYPES_HELP = ", ".join(DOCUMENT_TYPES)
SUBTYPES_HELP = "; ".join(f"{kind}: {', '.join(group)}" for kind, group in DOCUMENT_SUBTYPES.items())
COURT_HELP = (
    f"{', '.join(sorted(c for c in FIXED_COURT_LABELS if c not in AGENCIES))}; trf1-trf6, trt1-trt24, tj+UF (tjsp),"
    f" tre_+UF (tre_sp), tce_+UF (tce_mg), mp+UF (mpmg); agencies {', '.join(AGENCIES)}"
)
SEARCH_EPILOG = (
    "Valores válidos (códigos; nomes e siglas como se escrevem também valem: Acórdão, TJ-SP, TRE/SP).\n\n"
    f"--type: {TYPES_HELP}.\n\n"
    f"--subtype: {SUBTYPES_HELP}.\n\n"
    f"--court: {COURT_HELP}.\n\n"
    "--from/--to: 2019-03-12, 12/03/2019, 03/2019 ou 2019. --relator, --judging-body, --class: nomes como impressos"
    " (Nancy Andrighi; Terceira Turma; Recurso Especial). --cited-law: Lei 8.078/1990, CDC, art. 14, CPC.\n\n"
    "Vários valores de um filtro (repita a opção) aceitam qualquer um deles; filtros diferentes valem todos juntos."
)
MultiOption = list[str] | None


@app.command(epilog=SEARCH_EPILOG)
def search(
    ctx: typer.Context,
    query: Annotated[str | None, typer.Argument(help="O que você procura, com suas palavras.")] = None,
    similar: Annotated[
        int | None,
        typer.Option(
            "--similar",
            metavar="PASSAGE_ID",
            help="Em vez de consulta: trechos parecidos com este (o 'trecho N' de um resultado), fora a própria"
            " decisão.",
            min=1,
        ),
    ] = None,
    api: ApiOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Imprime a resposta JSON da API.")] = False,
    top_k: Annotated[int, typer.Option("--top-k", help="Resultados por página.", min=1, max=200)] = 5,
    page: Annotated[int, typer.Option("--page", help="Qual página de resultados (1 é a primeira).", min=1)] = 1,
    offset: Annotated[
        int | None, typer.Option("--offset", help="Resultados a pular (em vez de --page).", min=0, max=1000)
    ] = None,
    sort: Annotated[
        Sort, typer.Option("--sort", help="relevance (relevância) ou date (data, mais recentes primeiro).")
    ] = Sort.relevance,
    document_type: Annotated[
        MultiOption,
        typer.Option(
            "--type",
            metavar="TYPE",
            help="Tipo de documento, por exemplo acordao; repetível (valores válidos abaixo).",
            callback=_choice("document type", DOCUMENT_TYPE_LABELS, normalize_document_type),
        ),
    ] = None,
    subtype: Annotated[
        MultiOption,
        typer.Option(
            "--subtype",
            metavar="SUBTYPE",
            help="Qual ato, obra ou peça, por exemplo lei; repetível.",
            callback=_choice("document subtype", DOCUMENT_SUBTYPE_LABELS, normalize_document_subtype),
        ),
    ] = None,
    court: Annotated[
        MultiOption,
        typer.Option(
            "--court", metavar="COURT", help="Tribunal ou origem, por exemplo stj, tjsp; repetível.", callback=_courts
        ),
    ] = None,
    date_from: Annotated[
        str | None, typer.Option("--from", metavar="DATE", help="Datado em ou depois de.", callback=_date_from)
    ] = None,
    date_to: Annotated[
        str | None, typer.Option("--to", metavar="DATE", help="Datado em ou antes de.", callback=_date_to)
    ] = None,
    relator: Annotated[MultiOption, typer.Option("--relator", metavar="NAME", help="O relator, como impresso.")] = None,
    judging_body: Annotated[
        MultiOption,
        typer.Option("--judging-body", metavar="NAME", help="Órgão julgador, por exemplo 'Terceira Turma'."),
    ] = None,
    cited_law: Annotated[
        MultiOption,
        typer.Option("--cited-law", metavar="LAW", help="Uma lei ou artigo citado, por exemplo 'CDC, art. 14'."),
    ] = None,
    procedural_class: Annotated[
        MultiOption,
        typer.Option(
            "--class", metavar="CLASS", help="Classe processual como extraída, por exemplo 'Recurso Especial'."
        ),
    ] = None,
) -> None:
    """Busca na base, com todos os filtros da API.

    Busca como o dono da credencial da linha de comando (PRECEDENTE_API_KEY ou a chave de administrador local):
    os grupos dela decidem o que se encontra (`precedente whoami` os mostra). Com --similar, as obras mais
    próximas daquele trecho, com os mesmos filtros e grupos."""
    if query is None and similar is None:
        raise click_errors.MissingParameter(
            "Dê uma consulta, ou --similar PASSAGE_ID.", ctx=ctx, param_hint="'QUERY'", param_type="argument"
        )
    if query is not None and similar is not None:
        raise typer.BadParameter(
            "dê uma consulta ou --similar PASSAGE_ID, não os dois", ctx=ctx, param_hint="'--similar'"
        )
    start, end = date.fromisoformat(date_from) if date_from else None, date.fromisoformat(date_to) if date_to else None
    if start and end and start > end:
        raise typer.BadParameter(f"--from {start} é depois de --to {end}", ctx=ctx, param_hint="'--from'")
    filters: dict[str, Any] = {
        "document_type": document_type,
        "document_subtype": subtype,
        "court": court,
        "date_from": start.isoformat() if start else None,
        "date_to": end.isoformat() if end else None,
        "relator": relator,
        "judging_body": judging_body,
        "cited_law": cited_law,
        "procedural_class": procedural_class,
    }
    skip = offset if offset is not None else (page - 1) * top_k
    body: dict[str, Any] = {
        "top_k": top_k,
        "offset": skip,
        "sort": sort.value,
        "filters": {k: v for k, v in filters.items() if v},
    }
    body |= {"passage_id": similar} if similar is not None else {"query": query}
    with api_client(api) as client:
        answer = api_errors.check(client.post("/search" if similar is None else "/search/similar", json=body)).json()
    if as_json:
        sys.stdout.write(json.dumps(answer, ensure_ascii=False, indent=2) + "\n")
        return
    write_results(answer, top_k, sort.value)


def _br_date(value: str | None) -> str:
    return f"{value[8:10]}/{value[5:7]}/{value[:4]}" if value and len(value) >= 10 else ""


def result_lines(rank: int, item: dict[str, Any], width: int) -> list[str]:
    """One result as lines of at most `width` characters: wrapped, never cut, so the title, the dates and the
    pages are all there at 80 columns."""
    source = item.get("citation") or ", ".join(
        part
        for part in (
            item.get("document_title"),
            item.get("document_type_label") or item.get("document_type"),
            item.get("court_label") or item.get("court"),
        )
        if part
    )
    pages = f"p. {item['page_number']}" + (
        f"-{item['page_end']}" if item.get("page_end") and item["page_end"] != item["page_number"] else ""
    )
    dates = [
        f"{'julgado em' if item.get('document_type') in DECISION_TYPES else 'de'} {_br_date(item.get('judgment_date'))}"
        if item.get("judgment_date")
        else "",
        f"publicado em {_br_date(item.get('publication_date'))}" if item.get("publication_date") else "",
    ]
    if not any(dates):
        dates = [f"data {_br_date(item.get('document_date'))}" if item.get("document_date") else "sem data"]
    where = " · ".join(
        part
        for part in (
            item.get("relator") and f"Rel. {item['relator']}",
            label("judging_body", item.get("judging_body")),  # in Portuguese, one stored in English before too
            *dates,
            pages,
            section_label(item.get("section_path")),
            item.get("passage_id") and f"trecho {item['passage_id']}",
        )
        if part
    )
    indent = " " * 4
    fill = partial(textwrap.wrap, width=width, subsequent_indent=indent, break_long_words=True, break_on_hyphens=False)
    text = " ".join(item.get("chunk_text", "").split())
    grade = item.get("relevance", "?")
    if basis := item.get("relevance_basis"):
        grade += ": " + ", ".join(basis)
    lines = fill(f"{rank}. [{grade}] {source}")
    lines += fill(where, initial_indent=indent)
    lines += fill(text[:600] + ("…" if len(text) > 600 else ""), initial_indent=indent)
    if item.get("relevance_explanation"):
        lines += fill(f"por quê: {item['relevance_explanation']}", initial_indent=indent)
    others = item.get("other_passages") or []
    if others:
        lines += fill(f"outros trechos: {other_pages_text(others)}", initial_indent=indent)
    if item.get("copies"):
        lines += fill("cópias: " + ", ".join(map(copy_text, item["copies"])), initial_indent=indent)
    if item.get("unread_pages"):
        lines += fill(unread_pages_note(item["unread_pages"]), initial_indent=indent)
    return lines


def copy_text(copy: dict[str, Any]) -> str:
    """ "i641.pdf (inteiro teor)", "i1078.pdf (só a ementa)": a copy's file and what it holds, as the page says it
    (DocumentCopy.full_text; nothing when its parts do not tell)."""
    extent = {True: " (inteiro teor)", False: " (só a ementa)"}.get(copy.get("full_text"), "")
    return copy["filename"] + extent


def other_pages_text(others: list[dict[str, Any]]) -> str:
    """ "p. 7, p. 17 (2 trechos)": each page once, in the API's order, with how many passages it holds. Two
    passages on one page printed "p. 17, p. 17" (issue 36)."""
    per_page = Counter(o["page_number"] for o in others)
    return ", ".join(
        f"p. {page}" + (f" ({plural(n, 'trecho', 'trechos')})" if n > 1 else "") for page, n in per_page.items()
    )


def write_results(answer: dict[str, Any], top_k: int, sort: str) -> None:
    """The results, sized to the terminal (shutil.get_terminal_size; 80 columns when it cannot tell)."""
    width = max(shutil.get_terminal_size((80, 24)).columns - 1, 40)
    results = answer.get("results", [])
    total, first = answer.get("total", len(results)), answer.get("offset", 0) + 1
    out: list[str] = []
    if not results:
        out.append("Nenhum resultado." if first == 1 else f"Nenhum resultado a partir do {first}º (total {total}).")
    else:
        last = first + len(results) - 1
        pages = max(-(-total // top_k), 1)
        shown = f"{first}-{last}" if last > first else f"{first}"
        header = (
            f"{plural(total, 'resultado', 'resultados')} ({answer.get('relevant_total', 0)} com relevância forte ou"
            f" provável) · {shown}"
            f" · página {(first - 1) // top_k + 1} de {pages} · ordem: "
            + ("relevância" if sort == "relevance" else "data, mais recentes primeiro")
        )
        out += textwrap.wrap(header, width=width)
        if source := answer.get("similar_to"):
            name = source.get("citation") or source.get("title")
            out += textwrap.wrap(f"Parecidos com o trecho {source['passage_id']} (p. {source['page_number']}, {name}).",
                                 width=width)  # fmt: skip
        if answer.get("vague_query"):
            out += textwrap.wrap("Consulta vaga (uma palavra genérica): diga mais sobre o assunto.", width=width)
        elif answer.get("no_strong_match"):
            out += textwrap.wrap(
                "Nada claramente relevante foi encontrado; os resultados abaixo são apenas os mais próximos.",
                width=width,
            )
        for rank, item in enumerate(results, start=first):
            out.append("")
            out += result_lines(rank, item, width)
        if last < total:
            out.append("")
            out += textwrap.wrap(f"próxima página: --page {(first - 1) // top_k + 2}", width=width)
    sys.stdout.write("\n".join(out) + "\n")


@app.command()
def whoami(api: ApiOption = None, as_json: JsonOption = False) -> None:
    """Como quem a linha de comando age: seus grupos e permissões.

    A credencial é PRECEDENTE_API_KEY, senão a chave de administrador local do `precedente up`; um documento só
    é encontrado por quem está em um dos grupos dele."""
    with api_client(api) as client:
        me = api_errors.check(client.get("/auth/me")).json()
    if as_json:
        sys.stdout.write(json.dumps(me, ensure_ascii=False, indent=2) + "\n")
        return
    lines = [
        f"{me['user']} ({me['kind']})",
        f"grupos: {_groups_text(me.get('groups', []))}",
        f"permissões: {', '.join(PERMISSION_WORDS.get(p, p) for p in me.get('permissions', [])) or 'nenhuma'}",
    ]
    if not me.get("groups") and me.get("auth_mode") != "none":
        lines.append(
            "arquivos enviados com --groups X são encontrados por pessoas e chaves do grupo X, não por esta"
            " credencial (`precedente keys create --scope search,ingest --groups X` cria uma que os encontra)"
        )
    width = max(shutil.get_terminal_size((80, 24)).columns - 1, 40)
    sys.stdout.write("\n".join(w for line in lines for w in textwrap.wrap(line, width=width)) + "\n")


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
    corpus: Annotated[
        Path | None, typer.Option(exists=True, dir_okay=False, help="JSON lines: {_id, title, text}.")
    ] = None,
    queries: Annotated[
        Path | None, typer.Option(exists=True, dir_okay=False, help="JSON lines: {_id, text, group}.")
    ] = None,
    qrels: Annotated[
        Path | None, typer.Option(exists=True, dir_okay=False, help="TSV: query-id, corpus-id, score.")
    ] = None,
    run: Annotated[Path | None, typer.Option("--run", help="Write the ranking in TREC run format.")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the metrics as JSON.")] = None,
    config: Annotated[str, typer.Option(help="A name for this configuration (the run tag).")] = "default",
    api: Annotated[str | None, typer.Option("--api", help="Use a running instance instead of a fresh one.")] = None,
    judgments: Annotated[
        bool,
        typer.Option(
            "--judgments",
            help="Measure on the firm's judgments (POST /judgments) of a running instance; needs an admin key.",
        ),
    ] = False,
    trec: Annotated[
        Path | None,
        typer.Option("--trec", help="With --judgments: write them as TREC qrels (and FILE's .queries.jsonl, .run)."),
    ] = None,
    apply: Annotated[
        bool,
        typer.Option(
            "--apply",
            help="With --judgments (admin): make the refit the relevance grade's active calibration; needs 200"
            " judged results, else nothing changes.",
        ),
    ] = False,
    reset: Annotated[
        bool, typer.Option("--reset", help="With --judgments (admin): the relevance grade as shipped again.")
    ] = False,
) -> None:
    """Ingest a judged corpus through the pipeline and score every query through POST /search; or, with
    --judgments, re-run every query the firm's lawyers judged and measure the ranking on their judgments."""
    _logging()
    logging.getLogger("httpx").setLevel(logging.WARNING)
    if judgments:
        from precedente.eval_command import reset_calibration, run_judged_eval

        if apply and reset:
            raise typer.BadParameter("--apply or --reset, not both")
        try:
            if reset:
                reset_calibration(api=api, console=console)
            else:
                run_judged_eval(api=api, json_path=json_out, trec_path=trec, console=console, apply=apply)
        except httpx.HTTPError as err:
            api_errors.fail(api_errors.explain(err))
        return
    if apply or reset:
        raise typer.BadParameter("--apply and --reset go with --judgments")
    if corpus is None or queries is None or qrels is None:
        raise typer.BadParameter("--corpus, --queries and --qrels are needed (or --judgments)")
    from precedente.eval_command import run_eval

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
    as_json: Annotated[bool, typer.Option("--json", help="Imprime o JSON de GET /status como veio.")] = False,
) -> None:
    """Por etapa: documentos na fila, em andamento, prontos, em revisão e não processados, e o atraso da fila;
    os documentos mais lentos da última hora; a fila de revisão e as falhas por motivo (GET /status)."""
    base = (api or Settings().api_url).rstrip("/")
    response = httpx.get(f"{base}/status", headers=auth_headers(), timeout=30)
    response.raise_for_status()  # main() says what went wrong, in one line
    report = response.json()
    if as_json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False, indent=2) + "\n")
        return
    table = _table(
        "etapa",
        "na fila",
        "em andamento",
        "prontos",
        "em revisão",
        "não processados",
        "atraso",
        "réplicas",
        title="etapas",
    )
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
    stages = _table("situação", "documentos")
    for stage, count in sorted(report["stages"].items()):
        stages.add_row(_word(stage, count), str(count))
    console.print(stages)
    # the review queue by GET /review's rule where the API counts it (issue 36): the review stage alone left out
    # documents indexed with unread pages and those that failed while being read
    queue = report.get("review_queue", report["review_reasons"])
    for title, counts in (("aguardando revisão", queue), ("não processados", report["failure_reasons"])):
        if counts:
            console.print(f"{title}: " + ", ".join(f"{n} {code}" for code, n in counts.items()), highlight=False)
    if line := unread_line(report):
        console.print(line, markup=False)
    if report.get("slowest"):
        slow = _table(
            "documento", "arquivo", "total s", "etapa mais lenta", "s dela", title="mais lentos da última hora"
        )
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


@app.command("recusadas")
def refused_command(
    limit: Annotated[int, typer.Option(min=1, max=200, help="Quantas mostrar, as mais novas primeiro.")] = 20,
    offset: Annotated[int, typer.Option(min=0, help="Quantas pular antes das mostradas.")] = 0,
    api: ApiOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Imprime o JSON de GET /refused-messages como veio.")] = False,
) -> None:
    """Mensagens recusadas pelas etapas por não seguirem o contrato (GET /refused-messages, só administradores):
    quando, quem recusou, o tópico, o motivo, o documento (quando a mensagem diz qual) e o começo da mensagem.
    Inclui as que não dizem documento nenhum, que só iam para o tópico de mensagens mortas."""
    base = (api or Settings().api_url).rstrip("/")
    response = httpx.get(
        f"{base}/refused-messages", params={"limit": limit, "offset": offset}, headers=auth_headers(), timeout=30
    )
    response.raise_for_status()  # main() says what went wrong, in one line
    report = response.json()
    if as_json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False, indent=2) + "\n")
        return
    total, shown = report["total"], len(report["messages"])
    if total == 0:
        console.print("Nenhuma mensagem recusada.", markup=False)
        return
    kept = f"{total} mensagem recusada guardada" if total == 1 else f"{total} mensagens recusadas guardadas"
    window = f"; mostrando {offset + 1}–{offset + shown}" if shown and shown < total else ""
    console.print(f"{kept} (no máximo {report['kept_at_most']}, as mais antigas saem){window}", markup=False)
    for item in report["messages"]:
        document = item["document_id"] or "nenhum (a mensagem não diz qual)"
        console.print(
            f"\n{item['at'][:19].replace('T', ' ')}  {item['consumer']} recusou uma mensagem de {item['topic']}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        console.print(f"  documento: {document}", markup=False, highlight=False, soft_wrap=True)
        console.print(f"  motivo: {item['reason']}", markup=False, highlight=False, soft_wrap=True)
        console.print(f"  começo: {item['message_start']}", markup=False, highlight=False, soft_wrap=True)


app.command("audit")(audit_command)
app.command("password")(password_command)


def _configuration_error(err: pydantic.ValidationError) -> str:
    """ "PRECEDENTE_API_PORT: Input should be a valid integer": the variable to fix, not pydantic's report."""
    problems = [
        f"PRECEDENTE_{'_'.join(map(str, e['loc'])).upper()}: {e['msg']}" if e.get("loc") else e["msg"]
        for e in err.errors()
    ]
    return f"invalid configuration: {'; '.join(problems)} (docs/configuration.md lists the settings)"


def main(args: list[str] | None = None) -> None:
    """Every failure a person meets is one line on stderr, `precedente: ...`, with the fix where there is one, and
    an exit status of api_errors.EXIT_CODES; never a traceback (PRECEDENTE_DEBUG=1 prints one for a bug)."""
    command = typer.main.get_command(app)
    try:
        status = command.main(args=args, prog_name="precedente", standalone_mode=False)
    except click_errors.NoArgsIsHelpError as err:
        err.show()
        status = api_errors.EXIT_USAGE
    except click_errors.UsageError as err:
        hint = f" (see `{err.ctx.command_path} --help`)" if err.ctx is not None else ""
        path = f"{err.ctx.command_path.partition(' ')[2]}: " if err.ctx is not None and err.ctx.parent else ""
        api_errors.fail(f"{path}{' '.join(err.format_message().split())}{hint}", api_errors.EXIT_USAGE)
    except click_errors.ClickException as err:
        api_errors.fail(" ".join(err.format_message().split()), err.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        api_errors.fail("interrupted", api_errors.EXIT_INTERRUPTED)
    except httpx.HTTPError as err:
        api_errors.fail(api_errors.explain(err))
    except pydantic.ValidationError as err:
        api_errors.fail(_configuration_error(err), api_errors.EXIT_USAGE)
    except OSError as err:
        where = f" {err.filename}" if err.filename else ""
        api_errors.fail(f"cannot use{where}: {err.strerror or err}")
    except Exception as err:  # noqa: BLE001 - a bug still reaches a person as one line, with how to report it
        if os.environ.get("PRECEDENTE_DEBUG"):
            traceback.print_exc()
        api_errors.fail(
            f"unexpected error: {type(err).__name__}: {' '.join(str(err).split())[:300]} (a bug: run it again with"
            " PRECEDENTE_DEBUG=1 for the traceback, and report it)"
        )
    sys.exit(status if isinstance(status, int) else 0)


if __name__ == "__main__":
    main()
