"""`precedente pastas`: folders per matter at the terminal, through the API (services/search/routers/folders.py and
export.py): list them, create one, show one's items with their citations, passages and notes, export one to DOCX
or to plain text. What it shows is what the API shows the credential: only documents it may see now."""

import json
import shutil
import sys
import textwrap
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from precedente import api_errors
from precedente.credentials import api_client

pastas_app = typer.Typer(
    help="Pastas por caso: resultados guardados com a citação, o trecho e a nota; exportação para DOCX ou texto.",
    no_args_is_help=True,
)
console = Console()
PAGE = 200  # the API's largest page of folders and of items

ApiOption = Annotated[str | None, typer.Option("--api", help="URL da API de busca (padrão PRECEDENTE_API_URL).")]
JsonOption = Annotated[bool, typer.Option("--json", help="Imprime a resposta da API em JSON.")]


def _check(response: Any) -> Any:
    return api_errors.check(response).json()


def _items(n: int) -> str:
    return "1 item" if n == 1 else f"{n} itens"


def _when(value: str) -> str:
    return datetime.fromisoformat(value).strftime("%d/%m/%Y %H:%M")


def _all(client: Any, path: str, key: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Every page of a paged list: the first answer and the rows of all pages."""
    first = _check(client.get(path, params={"limit": PAGE, "offset": 0}))
    rows = list(first[key])
    while len(rows) < first["total"]:
        page = _check(client.get(path, params={"limit": PAGE, "offset": len(rows)}))
        if not page[key]:
            break
        rows += page[key]
    return first, rows


def _write_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


@pastas_app.command("list")
def list_command(api: ApiOption = None, as_json: JsonOption = False) -> None:
    """Lista as suas pastas e as compartilhadas com os seus grupos."""
    with api_client(api) as client:
        _, folders = _all(client, "/folders", "folders")
    if as_json:
        _write_json(folders)
        return
    if not folders:
        console.print("Nenhuma pasta. Crie uma com: precedente pastas create NOME", markup=False, soft_wrap=True)
        return
    table = Table(title=f"{len(folders)} pasta{'s' if len(folders) != 1 else ''}")
    # The id whole on one line, to be copied into `pastas show ID`, and the name read whole on an 80-column terminal
    # (up to 30 characters on its first line): the other columns wrap first.
    name_width = min(30, max(len(f["name"]) for f in folders))
    for column in ("id", "nome", "itens", "dona(o)", "grupos", "alterada em"):
        table.add_column(
            column,
            justify="right" if column == "itens" else "left",
            no_wrap=column == "id",
            min_width=name_width if column == "nome" else None,
            overflow="fold",
        )
    for f in folders:
        owner = "você" if f["mine"] else f["owner"]
        table.add_row(f["id"], f["name"], str(f["items"]), owner, ", ".join(f["shared_groups"]) or "-",
                      _when(f["updated_at"]))  # fmt: skip
    console.print(table)


@pastas_app.command("create")
def create_command(
    name: Annotated[str, typer.Argument(help='O nome da pasta: "Cliente Acme: rescisão".')],
    share: Annotated[
        str | None, typer.Option("--compartilhar", help="Grupos (separados por vírgula) que podem ler e incluir.")
    ] = None,
    api: ApiOption = None,
    as_json: JsonOption = False,
) -> None:
    """Cria uma pasta (e a compartilha com grupos, se pedido)."""
    with api_client(api) as client:
        folder = _check(client.post("/folders", json={"name": name}))
        if share:
            groups = [g.strip() for g in share.split(",") if g.strip()]
            folder = _check(client.patch(f"/folders/{folder['id']}", json={"shared_groups": groups}))
    if as_json:
        _write_json(folder)
        return
    shared = f", compartilhada com {', '.join(folder['shared_groups'])}" if folder["shared_groups"] else ""
    console.print(f"Pasta {folder['id']} criada: {folder['name']}{shared}.", markup=False, soft_wrap=True)
    console.print(f"Para ver: precedente pastas show {folder['id']}", markup=False, soft_wrap=True)


def item_lines(n: int, item: dict[str, Any], width: int) -> list[str]:
    """One kept result: the citation (or title), the page, the passage quoted and the note, wrapped to `width`."""
    wrap = textwrap.TextWrapper(width=width, initial_indent="   ", subsequent_indent="   ")
    pages = f"p. {item['page_number']}" + (f"-{item['page_end']}" if item["page_end"] > item["page_number"] else "")
    lines = textwrap.wrap(f"{n}. {item['citation'] or item['document_title']}", width, subsequent_indent="   ")
    lines += wrap.wrap(f"“{' '.join(item['passage'].split())}” ({pages})")
    if item["note"]:
        lines += wrap.wrap(f"Nota: {item['note']}")
    lines.append(f"   incluído por {item['added_by']} em {_when(item['added_at'])}")
    return lines


@pastas_app.command("show")
def show_command(
    folder_id: Annotated[str, typer.Argument(help="O id da pasta (precedente pastas list).")],
    api: ApiOption = None,
    as_json: JsonOption = False,
) -> None:
    """Mostra os itens de uma pasta: citação, trecho com a página e nota."""
    with api_client(api) as client:
        first, items = _all(client, f"/folders/{folder_id}", "items")
    folder = first["folder"]
    if as_json:
        _write_json({"folder": folder, "items": items})
        return
    width = min(shutil.get_terminal_size((100, 24)).columns, 100)
    shared = f"; compartilhada com {', '.join(folder['shared_groups'])}" if folder["shared_groups"] else ""
    console.print(f"{folder['name']} ({folder['id']}): {_items(len(items))}{shared}", markup=False, soft_wrap=True)
    for n, item in enumerate(items, start=1):
        console.print("", markup=False, soft_wrap=True)
        for line in item_lines(n, item, width):
            console.print(line, markup=False, soft_wrap=True)


@pastas_app.command("export")
def export_command(
    folder_id: Annotated[str, typer.Argument(help="O id da pasta.")],
    docx: Annotated[Path | None, typer.Option("--docx", dir_okay=False, help="Grava um documento Word aqui.")] = None,
    text: Annotated[
        Path | None, typer.Option("--texto", dir_okay=False, help="Grava o texto para colar na petição aqui.")
    ] = None,
    api: ApiOption = None,
) -> None:
    """Exporta a pasta para DOCX (--docx ARQUIVO) ou texto (--texto ARQUIVO; sem opção, o texto sai na tela)."""
    if docx is not None and text is not None:
        raise typer.BadParameter("escolha --docx ou --texto, não os dois")
    kind = "docx" if docx is not None else "text"
    with api_client(api) as client:
        answer = api_errors.check(client.get(f"/folders/{folder_id}/export", params={"format": kind}))
    target = docx or text
    if target is None:
        sys.stdout.write(answer.text)
        return
    target.write_bytes(answer.content)
    console.print(
        f"Pasta {folder_id} exportada para {target} ({len(answer.content):,} bytes).", markup=False, soft_wrap=True
    )


# The same commands under their Portuguese names, as a lawyer may type them.
for _name, _command in (("listar", list_command), ("criar", create_command), ("mostrar", show_command),
                        ("exportar", export_command)):  # fmt: skip
    pastas_app.command(_name, hidden=True)(_command)
