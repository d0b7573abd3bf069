"""`precedente review`: the review queue in a terminal; and the line on unread pages that `precedente status`
prints too."""

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
from precedente.shared.wording import plural

console = Console()
review_app = typer.Typer(
    help="A fila de revisão: listar, mostrar, aprovar, ler as páginas de novo, corrigir ou rejeitar."
)

ApiOption = Annotated[str | None, typer.Option("--api", help="Endereço da API de busca (padrão: PRECEDENTE_API_URL).")]
JsonOption = Annotated[bool, typer.Option("--json", help="Imprime JSON (para scripts) em vez de texto.")]
ACTION_DONE = {
    "approve": "aprovado: é indexado pelo texto revisado",
    "reocr": "enviado para nova leitura das páginas",
    "correct": "página corrigida",
    "reject": "rejeitado: sai da fila",
}

METHOD_WORDS = {"text": "texto do arquivo", "ocr": "lida da imagem (OCR)", "manual": "corrigida à mão"}


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
    reason: Annotated[
        str | None, typer.Option(help="Só este código de motivo (por exemplo low_ocr_confidence, unread_pages).")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Lista os documentos aguardando revisão (o padrão quando não se dá um subcomando)."""
    if ctx.invoked_subcommand is not None:
        return
    with client(api) as http:
        queue = call(http.get("/review", params={"reason_code": reason} if reason else None))
    if as_json:
        sys.stdout.write(json.dumps(queue, ensure_ascii=False, indent=2) + "\n")
        return
    table = Table()
    for column in ("documento", "arquivo", "situação", "motivo", "páginas com leitura fraca", "confiança"):
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
    console.print(", ".join(f"{n} {code}" for code, n in queue["counts"].items()) or "a fila está vazia")


@review_app.command("show")
def review_show(document_id: str, api: ApiOption = None, as_json: JsonOption = False) -> None:
    """O motivo, as páginas com o modo de leitura, a confiança e o texto, e o que os revisores fizeram."""
    with client(api) as http:
        detail = call(http.get(f"/review/{document_id}"))
    if as_json:
        sys.stdout.write(json.dumps(detail, ensure_ascii=False, indent=2) + "\n")
        return
    reason = f"[{detail['reason_code']}] {detail['reason']}"
    console.print(f"[bold]{escape(detail['filename'])}[/bold] ({escape(detail['stage'])}): {escape(reason)}")
    for page in detail["pages"]:
        unread = " · não lida: fora do índice" if page.get("unread") else ""
        method = METHOD_WORDS.get(page["method"], page["method"])
        console.rule(f"página {page['number']} · {method} · confiança {page['confidence']:.2f}{unread}")
        console.print(page["text"], markup=False)
    for action in detail["actions"]:
        console.print(f"{action['at']} {action['actor']} {action['action']} {action['detail']}", markup=False)


@review_app.command("approve")
def review_approve(document_id: str, api: ApiOption = None, as_json: JsonOption = False) -> None:
    """Indexa o documento pelo texto extraído (e corrigido)."""
    with client(api) as http:
        done(call(http.post(f"/review/{document_id}/approve")), as_json)


@review_app.command("reocr")
def review_reocr(
    document_id: str,
    dpi: Annotated[int | None, typer.Option(help="Resolução da nova leitura em dpi (300, 400, 600).")] = None,
    psm: Annotated[int | None, typer.Option(help="Modo de segmentação de página do Tesseract.")] = None,
    language: Annotated[str | None, typer.Option(help="Idiomas do Tesseract, por exemplo por+eng.")] = None,
    api: ApiOption = None,
    as_json: JsonOption = False,
) -> None:
    """Lê as páginas de novo (OCR), com outra resolução ou outros ajustes."""
    options = {k: v for k, v in {"dpi": dpi, "psm": psm, "language": language}.items() if v is not None}
    with client(api) as http:
        done(call(http.post(f"/review/{document_id}/reocr", json=options)), as_json)


@review_app.command("correct")
def review_correct(
    document_id: str,
    page: int,
    text_file: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="Arquivo com o texto corrigido da página.")
    ],
    api: ApiOption = None,
    as_json: JsonOption = False,
) -> None:
    """Troca o texto de uma página pela versão corrigida."""
    text = text_file.read_text()
    with client(api) as http:
        done(call(http.put(f"/review/{document_id}/pages/{page}", json={"text": text})), as_json)


@review_app.command("reject")
def review_reject(
    document_id: str,
    reason: Annotated[str, typer.Option(help="Por que é rejeitado.")],
    api: ApiOption = None,
    as_json: JsonOption = False,
) -> None:
    """Tira o documento da fila de vez."""
    with client(api) as http:
        done(call(http.post(f"/review/{document_id}/reject", json={"reason": reason})), as_json)


def done(result: dict[str, Any], as_json: bool) -> None:
    """What an action did, as a sentence (or its JSON), not a Python dict."""
    if as_json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
        return
    what = ACTION_DONE.get(result.get("action", ""), result.get("action", "feito"))
    console.print(f"{result['document_id']}: {what} (agora {result['stage']})", markup=False, highlight=False)


def unread_line(report: dict[str, Any]) -> str | None:
    """GET /status's indexed documents with unread pages, as their own line: searchable, so in no review count."""
    unread = report.get("unread_pages") or {}
    if not unread.get("documents"):
        return None
    documents, pages = unread["documents"], unread.get("pages", 0)
    return (
        f"{plural(documents, 'documento indexado', 'documentos indexados')} com páginas não lidas"
        f" ({plural(pages, 'página', 'páginas')}): `precedente review --reason unread_pages`"
    )
