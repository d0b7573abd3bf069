"""`precedente tesauro` (issue 34, item 4): the firm's thesaurus at the terminal, for administrators.

Lists, adds, edits and removes the firm's equivalence sets through the API (`/thesaurus`, the `admin` permission);
`base` lists the general concepts shipped with the code, which stay under the firm's sets. A change takes effect on
the next search of every replica.
"""

import json
import shutil
import sys
import textwrap
from datetime import datetime
from typing import Annotated, Any

import typer

from precedente import api_errors
from precedente.cli.common import fetch_page
from precedente.credentials import api_client

ApiOption = Annotated[str | None, typer.Option("--api", help="Endereço da API de busca (padrão: PRECEDENTE_API_URL).")]
JsonOption = Annotated[bool, typer.Option("--json", help="Imprime a resposta JSON da API.")]
Page = Annotated[int, typer.Option("--page", help="Qual página (1 é a primeira).", min=1)]
PerPage = Annotated[int, typer.Option("--per-page", help="Conjuntos por página.", min=1, max=200)]
Names = Annotated[
    list[str],
    typer.Argument(help='Os nomes do mesmo conceito, cada um entre aspas: "Contrato Jatobá" "built to suit".'),
]
SetId = Annotated[int, typer.Argument(help="O número do conjunto (o de `precedente tesauro`).", min=1)]

thesaurus_app = typer.Typer(
    help="O tesauro do escritório: conjuntos de nomes do mesmo conceito que a busca trata como equivalentes"
    " (só administradores). Vale na próxima busca, sem reiniciar nada.",
    invoke_without_command=True,
)


def _write(lines: list[str]) -> None:
    width = max(shutil.get_terminal_size((80, 24)).columns - 1, 40)
    sys.stdout.write("\n".join(w for line in lines for w in (textwrap.wrap(line, width=width) or [""])) + "\n")


def _dump(answer: Any) -> None:
    sys.stdout.write(json.dumps(answer, ensure_ascii=False, indent=2) + "\n")


def _when(value: str) -> str:
    return datetime.fromisoformat(value).astimezone().strftime("%d/%m/%Y %H:%M")


def set_line(item: dict[str, Any]) -> str:
    """[3] Contrato Jatobá = locação built to suit (ana, 03/12/2026 14:05)"""
    return f"[{item['id']}] {' = '.join(item['names'])} ({item['updated_by']}, {_when(item['updated_at'])})"


def _more(answer: dict[str, Any], page: int) -> list[str]:
    return (
        ["", f"próxima página: --page {page + 1}"] if answer["offset"] + len(answer["items"]) < answer["total"] else []
    )


@thesaurus_app.callback()
def listar(
    ctx: typer.Context, api: ApiOption = None, as_json: JsonOption = False, page: Page = 1, per_page: PerPage = 50
) -> None:
    """Os conjuntos do escritório, na ordem em que foram incluídos (o mesmo que `precedente tesauro listar`)."""
    if ctx.invoked_subcommand is None:
        _list(api, as_json, page, per_page)


@thesaurus_app.command("listar")
def list_command(api: ApiOption = None, as_json: JsonOption = False, page: Page = 1, per_page: PerPage = 50) -> None:
    """Os conjuntos do escritório, na ordem em que foram incluídos."""
    _list(api, as_json, page, per_page)


def _list(api: str | None, as_json: bool, page: int, per_page: int) -> None:
    answer = fetch_page(api, "/thesaurus", page, per_page)
    if as_json:
        _dump(answer)
        return
    if not answer["items"]:
        empty = "O tesauro do escritório está vazio: a busca usa só os conceitos gerais (`precedente tesauro base`)."
        _write([empty if page == 1 else "Nada nesta página."])
        return
    total = answer["total"]
    lines = [f"{total} {'conjunto' if total == 1 else 'conjuntos'} no tesauro do escritório:", ""]
    lines += [set_line(item) for item in answer["items"]]
    _write(lines + _more(answer, page))


@thesaurus_app.command("adicionar")
def add_command(names: Names, api: ApiOption = None, as_json: JsonOption = False) -> None:
    """Inclui um conjunto: `precedente tesauro adicionar "Contrato Jatobá" "locação built to suit"`."""
    with api_client(api) as client:
        added = api_errors.check(client.post("/thesaurus", json={"names": names})).json()
    if as_json:
        _dump(added)
        return
    _write([f"Incluído no tesauro: {set_line(added)}"])


@thesaurus_app.command("editar")
def edit_command(set_id: SetId, names: Names, api: ApiOption = None, as_json: JsonOption = False) -> None:
    """Troca os nomes de um conjunto: `precedente tesauro editar 3 "Contrato Jatobá" "built to suit"`."""
    with api_client(api) as client:
        edited = api_errors.check(client.put(f"/thesaurus/{set_id}", json={"names": names})).json()
    if as_json:
        _dump(edited)
        return
    _write([f"Conjunto alterado: {set_line(edited)}"])


@thesaurus_app.command("remover")
def remove_command(set_id: SetId, api: ApiOption = None) -> None:
    """Remove um conjunto do tesauro do escritório."""
    with api_client(api) as client:
        api_errors.check(client.delete(f"/thesaurus/{set_id}"))
    _write([f"Conjunto {set_id} removido do tesauro."])


@thesaurus_app.command("base")
def base_command(api: ApiOption = None, as_json: JsonOption = False, page: Page = 1, per_page: PerPage = 50) -> None:
    """Os conceitos gerais que vêm com o Precedente (siglas, nomes populares de leis, latim): a base, que fica sob os
    conjuntos do escritório e não se edita aqui."""
    answer = fetch_page(api, "/thesaurus/base", page, per_page)
    if as_json:
        _dump(answer)
        return
    lines = [f"{answer['total']} conceitos gerais:", ""]
    lines += [" = ".join(item["names"]) for item in answer["items"]]
    _write(lines + _more(answer, page))
