"""`precedente historico`, `precedente pesquisas` and `precedente alertas` (issue 34, items 5 and 1): research that
lasts beyond one query, at the terminal.

`historico` and `pesquisas` act through the API as the command line's credential (its own history and saved
searches, nobody else's); `alertas enviar` is the daily digest job, run by cron or deploy/k8s's CronJob: it reads
the database itself (PRECEDENTE_DATABASE_URL) and mails through PRECEDENTE_SMTP_*.
"""

import asyncio
import json
import shutil
import sys
import textwrap
from datetime import datetime
from typing import Annotated, Any

import typer

from precedente import api_errors
from precedente.cli.common import fetch_page
from precedente.cli.search import parse_date, write_results
from precedente.credentials import api_client
from precedente.shared.legal.codes import court_label, document_type_label
from precedente.shared.settings import Settings

ApiOption = Annotated[str | None, typer.Option("--api", help="Endereço da API de busca (padrão: PRECEDENTE_API_URL).")]
JsonOption = Annotated[bool, typer.Option("--json", help="Imprime a resposta JSON da API.")]
Page = Annotated[int, typer.Option("--page", help="Qual página (1 é a primeira).", min=1)]

history_app = typer.Typer(
    help="Suas pesquisas recentes: ver, repetir e apagar. Só você as vê.", invoke_without_command=True
)
saved_app = typer.Typer(
    help="Pesquisas salvas: salvar, listar com os novos desde a última visita, ver os novos e apagar.",
    invoke_without_command=True,
)
alerts_app = typer.Typer(help="Alertas das pesquisas salvas por e-mail (o resumo diário).", no_args_is_help=True)

ORDER_WORDS = {"relevance": "relevância", "date": "data"}
FILTER_WORDS = {
    "document_type": "tipo",
    "document_subtype": "subtipo",
    "court": "tribunal",
    "date_from": "de",
    "date_to": "até",
    "relator": "relator",
    "judging_body": "órgão",
    "procedural_class": "classe",
    "cited_law": "lei",
}


def _width() -> int:
    return max(shutil.get_terminal_size((80, 24)).columns - 1, 40)


def _when(value: str) -> str:
    """An API timestamp as a lawyer reads it, in the machine's time zone: 03/12/2026 14:05."""
    return datetime.fromisoformat(value).astimezone().strftime("%d/%m/%Y %H:%M")


def _label(key: str, value: str) -> str:
    if key == "court":
        return court_label(value) or value
    if key == "document_type":
        return document_type_label(value) or value
    if key in ("date_from", "date_to"):
        return f"{value[8:10]}/{value[5:7]}/{value[:4]}"
    return value


def filters_text(filters: dict[str, Any], sort: str) -> str:
    """ "tribunal: STJ; de: 01/01/2020; ordem: data" (empty filters: only the order, when it is the date)."""
    parts = []
    for key, value in filters.items():
        values = value if isinstance(value, list) else [value]
        parts.append(f"{FILTER_WORDS.get(key, key)}: {', '.join(_label(key, str(v)) for v in values)}")
    if sort == "date":
        parts.append("ordem: data")
    return "; ".join(parts)


def _write(lines: list[str]) -> None:
    width = _width()
    sys.stdout.write("\n".join(w for line in lines for w in (textwrap.wrap(line, width=width) or [""])) + "\n")


def _dump(answer: Any) -> None:
    sys.stdout.write(json.dumps(answer, ensure_ascii=False, indent=2) + "\n")


@history_app.callback()
def history_list(
    ctx: typer.Context,
    api: ApiOption = None,
    as_json: JsonOption = False,
    page: Page = 1,
    per_page: Annotated[int, typer.Option("--per-page", help="Pesquisas por página.", min=1, max=100)] = 20,
) -> None:
    """Suas pesquisas recentes, a mais recente primeiro (`precedente historico repetir N` roda a de número N)."""
    if ctx.invoked_subcommand is not None:
        return
    answer = fetch_page(api, "/history", page, per_page)
    if as_json:
        _dump(answer)
        return
    if not answer["items"]:
        _write(["Nenhuma pesquisa no seu histórico." if page == 1 else "Nada nesta página do histórico."])
        return
    lines = [f"{answer['total']} pesquisas no seu histórico (guardadas por {answer['retention_days']} dias):"]
    for entry in answer["items"]:
        found = "1 resultado" if entry["results"] == 1 else f"{entry['results']} resultados"
        extra = filters_text(entry["filters"], entry["sort"])
        lines += ["", f"[{entry['id']}] {_when(entry['at'])} · {found}", f"  {entry['query']}"]
        if extra:
            lines.append(f"  {extra}")
    if answer["offset"] + len(answer["items"]) < answer["total"]:
        lines += ["", f"próxima página: --page {page + 1}"]
    _write(lines)


@history_app.command("repetir")
def history_rerun(
    entry_id: Annotated[int, typer.Argument(help="O número da pesquisa no histórico.", min=1)],
    api: ApiOption = None,
    as_json: JsonOption = False,
    top_k: Annotated[int, typer.Option("--top-k", help="Resultados por página.", min=1, max=200)] = 5,
) -> None:
    """Roda de novo uma pesquisa do histórico, com os mesmos filtros e ordem."""
    with api_client(api) as client:
        entry = api_errors.check(client.get(f"/history/{entry_id}")).json()
        body = {"query": entry["query"], "filters": entry["filters"], "sort": entry["sort"], "top_k": top_k}
        answer = api_errors.check(client.post("/search", json=body)).json()
    if as_json:
        _dump(answer)
        return
    _write([f"Pesquisa: {entry['query']}", *([f"Filtros: {f}"] if (f := filters_text(entry["filters"], "")) else [])])
    write_results(answer, top_k, entry["sort"])


@history_app.command("apagar")
def history_clear(
    entry_id: Annotated[int | None, typer.Argument(help="Só esta pesquisa (sem número: o histórico todo).")] = None,
    api: ApiOption = None,
) -> None:
    """Apaga uma pesquisa do seu histórico, ou todas."""
    with api_client(api) as client:
        if entry_id is not None:
            api_errors.check(client.delete(f"/history/{entry_id}"))
            _write([f"Pesquisa {entry_id} apagada do histórico."])
            return
        deleted = api_errors.check(client.delete("/history")).json()["deleted"]
    _write([f"Histórico apagado: {deleted} {'pesquisa' if deleted == 1 else 'pesquisas'}."])


def _saved_line(item: dict[str, Any]) -> list[str]:
    new = item.get("new_count")
    count = "" if new is None else (" · nenhum novo" if new == 0 else f" · {new} {'novo' if new == 1 else 'novos'}")
    lines = [f"[{item['id']}] {item['name']}{count}", f"  {item['query']}"]
    if extra := filters_text(item["filters"], item["sort"]):
        lines.append(f"  {extra}")
    lines.append(
        f"  última visita: {_when(item['last_visited_at'])}" + (f" · e-mail: {item['email']}" if item["email"] else "")
    )
    return lines


@saved_app.callback()
def saved_list(
    ctx: typer.Context,
    api: ApiOption = None,
    as_json: JsonOption = False,
    page: Page = 1,
    per_page: Annotated[int, typer.Option("--per-page", help="Pesquisas por página.", min=1, max=50)] = 10,
) -> None:
    """Suas pesquisas salvas, cada uma com os novos desde a sua última visita (relevância forte ou provável)."""
    if ctx.invoked_subcommand is not None:
        return
    answer = fetch_page(api, "/saved-searches", page, per_page)
    if as_json:
        _dump(answer)
        return
    if not answer["items"]:
        _write(["Nenhuma pesquisa salva." if page == 1 else "Nada nesta página."])
        return
    lines = [f"{answer['total']} {'pesquisa salva' if answer['total'] == 1 else 'pesquisas salvas'}:"]
    for item in answer["items"]:
        lines += ["", *_saved_line(item)]
    if answer["offset"] + len(answer["items"]) < answer["total"]:
        lines += ["", f"próxima página: --page {page + 1}"]
    _write(lines)


MultiOption = list[str] | None


@saved_app.command("salvar")
def saved_create(
    name: Annotated[str, typer.Argument(help="O nome da pesquisa.")],
    query: Annotated[str, typer.Argument(help="A consulta, com suas palavras.")],
    api: ApiOption = None,
    as_json: JsonOption = False,
    sort: Annotated[str, typer.Option("--sort", help="relevance (relevância) ou date (data).")] = "relevance",
    document_type: Annotated[MultiOption, typer.Option("--type", metavar="TYPE", help="Tipo de documento.")] = None,
    court: Annotated[MultiOption, typer.Option("--court", metavar="COURT", help="Tribunal ou origem.")] = None,
    date_from: Annotated[str | None, typer.Option("--from", metavar="DATE", help="Datado em ou depois de.")] = None,
    date_to: Annotated[str | None, typer.Option("--to", metavar="DATE", help="Datado em ou antes de.")] = None,
    relator: Annotated[MultiOption, typer.Option("--relator", metavar="NAME", help="O relator.")] = None,
    cited_law: Annotated[MultiOption, typer.Option("--cited-law", metavar="LAW", help="Lei ou artigo citado.")] = None,
    email: Annotated[
        str | None, typer.Option("--email", help="Receber os novos por e-mail, uma vez por dia, neste endereço.")
    ] = None,
) -> None:
    """Salva uma pesquisa com seus filtros e ordem; os filtros são os de `precedente search`."""
    if sort not in ORDER_WORDS:
        raise typer.BadParameter("use relevance ou date", param_hint="'--sort'")
    filters = {
        "document_type": document_type,
        "court": court,
        "date_from": parse_date(date_from, end=False).isoformat() if date_from else None,
        "date_to": parse_date(date_to, end=True).isoformat() if date_to else None,
        "relator": relator,
        "cited_law": cited_law,
    }
    body = {"name": name, "query": query, "sort": sort, "filters": {k: v for k, v in filters.items() if v}}
    if email:
        body["email"] = email
    with api_client(api) as client:
        saved = api_errors.check(client.post("/saved-searches", json=body)).json()
    if as_json:
        _dump(saved)
        return
    _write([f"Pesquisa salva: [{saved['id']}] {saved['name']}. Os novos contam a partir de agora."])


@saved_app.command("ver")
def saved_news(
    saved_id: Annotated[int, typer.Argument(help="O número da pesquisa salva.", min=1)],
    api: ApiOption = None,
    as_json: JsonOption = False,
    keep: Annotated[
        bool, typer.Option("--manter", help="Não zerar a contagem de novos (não conta como visita).")
    ] = False,
) -> None:
    """Os novos de uma pesquisa salva desde a sua última visita; vê-los conta como visita e zera a contagem."""
    with api_client(api) as client:
        answer = api_errors.check(client.get(f"/saved-searches/{saved_id}")).json()
        if not keep:
            api_errors.check(client.post(f"/saved-searches/{saved_id}/visit"))
    if as_json:
        _dump(answer)
        return
    search, new = answer["search"], answer["new"]
    since = _when(search["last_visited_at"])
    lines = [f"{search['name']}: {search['query']}"]
    if not new:
        lines.append(f"Nada novo desde a sua última visita ({since}).")
    else:
        lines.append(f"{len(new)} {'novo' if len(new) == 1 else 'novos'} desde a sua última visita ({since}):")
    for work in new:
        where = ", ".join(x for x in (work.get("court_label"), _br(work.get("document_date"))) if x)
        lines += ["", f"- {work.get('citation') or work['title']}{f' ({where})' if where else ''}"]
        if work.get("citation") and work["title"] != work["citation"]:
            lines.append(f"  {work['title']}")
        lines.append(
            f"  relevância {work['relevance']} · indexado em {_when(work['indexed_at'])} · {work['document_id']}"
        )
    _write(lines)


def _br(value: str | None) -> str:
    return f"{value[8:10]}/{value[5:7]}/{value[:4]}" if value else ""


@saved_app.command("apagar")
def saved_delete(
    saved_id: Annotated[int, typer.Argument(help="O número da pesquisa salva.", min=1)], api: ApiOption = None
) -> None:
    """Apaga uma pesquisa salva (e seus alertas)."""
    with api_client(api) as client:
        api_errors.check(client.delete(f"/saved-searches/{saved_id}"))
    _write([f"Pesquisa salva {saved_id} apagada."])


@alerts_app.command("enviar")
def alerts_send() -> None:
    """Envia o resumo diário: a cada pessoa, os novos de suas pesquisas salvas com e-mail desde a última visita ou o
    último resumo. Lê o banco (PRECEDENTE_DATABASE_URL) e envia por PRECEDENTE_SMTP_HOST; rode uma vez por dia
    (cron, ou o CronJob de deploy/k8s)."""
    from precedente.services.search.alerts import send_digest
    from precedente.services.search.engine.ranking import ranking_from
    from precedente.shared.embeddings.embedders import IndexGuard, QueryCache, get_embedder
    from precedente.shared.infra.db import create_pool

    settings = Settings()
    if not settings.database_url:
        api_errors.fail("alertas: defina PRECEDENTE_DATABASE_URL (o banco do Precedente)", api_errors.EXIT_USAGE)
    if not settings.smtp_host:
        api_errors.fail(
            "alertas: SMTP não configurado (defina PRECEDENTE_SMTP_HOST); nada enviado", api_errors.EXIT_USAGE
        )

    async def run() -> Any:
        pool = await create_pool(settings.database_url, max_size=4)
        try:
            embedder = await asyncio.to_thread(get_embedder, settings)
            if problem := await IndexGuard(embedder).problem(pool):
                api_errors.fail(f"alertas: {problem}")
            return await send_digest(pool, settings, QueryCache(embedder), ranking_from(settings))
        finally:
            await pool.close()

    report = asyncio.run(run())
    lines = [
        f"E-mails enviados: {report.messages} ({report.searches} pesquisas, {report.works} novos).",
    ]
    if report.skipped:
        lines.append(f"Pesquisas de contas removidas ou desativadas, não enviadas: {report.skipped}.")
    if report.failed:
        lines.append(f"E-mails recusados ou sem servidor: {report.failed} (tentados de novo na próxima vez).")
    _write(lines)
    if report.failed:
        raise typer.Exit(api_errors.EXIT_FAILED)
