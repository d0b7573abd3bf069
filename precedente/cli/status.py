"""`precedente status` and `precedente recusadas`: the ingestion's state by stage, and the messages the stages
refused."""

import json
import sys
from typing import Annotated

import httpx
import typer

from precedente.cli.common import ApiOption, console, stage_word, wrapped_table
from precedente.cli.review import unread_line
from precedente.credentials import auth_headers
from precedente.shared.settings import Settings


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
    table = wrapped_table(
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
    stages = wrapped_table("situação", "documentos")
    for stage, count in sorted(report["stages"].items()):
        stages.add_row(stage_word(stage, count), str(count))
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
        slow = wrapped_table(
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
