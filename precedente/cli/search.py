"""`precedente search`: a search with every filter of the API, its results sized to the terminal; the dates and
the results' lines that `precedente historico` and `pesquisas` share."""

import enum
import json
import re
import shutil
import sys
import textwrap
from collections import Counter
from collections.abc import Callable
from datetime import date, timedelta
from functools import partial
from typing import Annotated, Any

import typer
from typer._click import exceptions as click_errors  # typer's own click: what it raises

from precedente import api_errors
from precedente.cli.common import ApiOption
from precedente.credentials import api_client
from precedente.shared.legal.codes import (
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
from precedente.shared.legal.sections import section_place
from precedente.shared.wording import plural, unread_pages_note


class Sort(enum.StrEnum):
    relevance = "relevance"
    date = "date"


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


def parse_date(value: str, end: bool) -> date:
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
    return parse_date(value, end=False).isoformat() if value else None


def _date_to(value: str | None) -> str | None:
    return parse_date(value, end=True).isoformat() if value else None


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
    if place := section_place(item.get("section_path")):
        pages += f", {place}"  # "p. 4, na ementa": the part as a place, not a second type ("p. 4 · Acórdão")
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
            judges(item),
            label("judging_body", item.get("judging_body")),  # in Portuguese, one stored in English before too
            *dates,
            pages,
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


def judges(item: dict[str, Any]) -> str:
    """ "Rel. Marco Aurélio, Red. p/ o acórdão Roberto Barroso": who wrote the acórdão beside the relator, as the
    citation names them, when the API gives a redator other than the relator (a defeated relator's case)."""
    relator, redator = item.get("relator"), item.get("redator")
    title = "Juiz(a)" if item.get("judged_alone") else "Rel."
    named = [
        f"{title} {relator}" if relator else "",
        f"Red. p/ o acórdão {redator}" if redator and redator != relator else "",
    ]
    return ", ".join(part for part in named if part)


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
