"""What the command modules share: the consoles, the common options, the stages in the pages' words, tables that
wrap, and the services' log format."""

import logging
from datetime import UTC, datetime, timedelta
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from precedente import api_errors
from precedente.credentials import api_client

console = Console()
err_console = Console(stderr=True)

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


def stage_word(code: str, n: int = 1) -> str:
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


def groups_text(groups: list[str]) -> str:
    """A credential's groups as `whoami` and the ingest warning say them; none means it finds only open documents."""
    return ", ".join(groups) if groups else "nenhum (encontra só documentos abertos a todos)"


def wrapped_table(*columns: str, title: str | None = None) -> Table:
    """A table whose cells wrap (long file names folded) instead of ending in "…" on a narrow terminal."""
    table = Table(title=title)
    for column in columns:
        table.add_column(column, overflow="fold")
    return table


def configure_logging() -> None:
    """The services' log lines for the commands that run them in this process (up, serve, eval, watch)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("aiokafka").setLevel(logging.WARNING)


def fetch_page(api: str | None, path: str, page: int, per_page: int) -> dict:
    """Page `page` (from 1) of a paged list of the API (`limit`/`offset`: history, saved searches, the thesaurus)."""
    with api_client(api) as client:
        params = {"limit": per_page, "offset": (page - 1) * per_page}
        return api_errors.check(client.get(path, params=params)).json()


SINCE_HELP = "ISO date/time, or a span back from now: 30m, 12h, 7d."


def moment_since(value: str | None) -> datetime | None:
    """An ISO date or time, or a span back from now: 30m, 12h, 7d (what --since takes)."""
    if not value:
        return None
    units = {"m": "minutes", "h": "hours", "d": "days"}
    if value[-1] in units and value[:-1].isdigit():
        return datetime.now(UTC) - timedelta(**{units[value[-1]]: int(value[:-1])})
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as err:
        raise typer.BadParameter(f"{value!r}: an ISO date/time or a span such as 30m, 12h, 7d") from err
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
