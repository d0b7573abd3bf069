"""Facet counts over the candidates, as faceted search gives them: works per value (the population the list's total
counts), a facet with a selection counted over the candidates of every other filter but its own (its own candidate
statement, on a connection of its own, beside the search's), so its other values stay reachable."""

import asyncio
from collections.abc import Callable, Mapping

import asyncpg

from precedente.services.search.engine.candidates import POOL, Candidates, fetch_candidates
from precedente.services.search.engine.models import SearchRequest
from precedente.shared.legal.codes import name_value

FACET_FIELDS = (
    "document_type", "document_subtype", "court", "relator", "judging_body", "procedural_class", "qualified_precedent",
)  # fmt: skip
"""Each a value per candidate row, but qualified_precedent: the kinds the row's document is (a list, often empty)."""
NAMED_FACETS = ("procedural_class", "judging_body")
"""Counted by name_value: values stored in English and in Portuguese under one label are one value (the filter
matches either, candidates.pool_parameters)."""


def work_counts(rows: list[asyncpg.Record], fields: tuple[str, ...] = FACET_FIELDS) -> dict[str, dict[str, int]]:
    """Works per value of each facet among the candidates: the population `total` counts, so "Acórdão (2)" beside
    the filter means two of the works listed, whatever number of files (copies) each has.

    The works are group_by_work's: one per work_id among the rows (it makes a group of every candidate's work,
    whatever it keeps of the passages). A work carries a value when one of its candidate passages does, so one
    whose files disagree (a PDF typed acórdão, its extract typed decisão monocrática; a copy filed under another
    court) is counted under each value it has. That is the filters' own rule: a filter keeps a work when one of
    its candidate passages passes, so ticking a value keeps every work counted under it (with the same
    candidates, the total it then shows is the count it showed). Counting a work under its best file's value
    only would hide a work the filter still returns, and needs the wider candidates ranked. Hence a facet whose
    values are one per work sums to `total` less the works without a value; where files disagree, to more.
    """
    works: dict[str, dict[str, set[str]]] = {facet: {} for facet in fields}
    for row in rows:
        work = row["work_id"]
        for facet in fields:
            value = row[facet]
            for one in value if isinstance(value, list) else () if value is None else (value,):
                one = name_value(one) if facet in NAMED_FACETS else one
                works[facet].setdefault(one, set()).add(work)
    return {facet: _by_count({value: len(ids) for value, ids in values.items()}) for facet, values in works.items()}


def _by_count(counts: dict[str, int]) -> dict[str, int]:
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def without_own_selection(request: SearchRequest, facet: str) -> SearchRequest:
    """The request with one facet's selection dropped, every other filter kept: what that facet counts over."""
    return request.model_copy(update={"filters": request.filters.model_copy(update={facet: None})})


def facets_statement(candidates_sql: str) -> str:
    """A candidate statement as a facet count reads it: the pool's own statement as a subquery, the same
    parameters, only the work and the facet columns read."""
    columns = ", ".join(f"pool.{name}" for name in ("work_id", *FACET_FIELDS))
    return f"{candidates_sql}SELECT {columns} FROM ({POOL}) pool"


async def wider_facets(
    db: asyncpg.Pool,
    request: SearchRequest,
    parameters: Callable[[SearchRequest], Mapping[str, object]],
    candidates: Candidates,
    sql: str,
) -> dict[str, dict[str, int]]:
    """Each facet with a selection counted over the candidates of every other filter but its own: one more
    candidate statement per such facet (none, the usual case, costs nothing), each on a connection of its own,
    all at once: at 1M chunks with court and type ticked they were two statements of ~50 ms after the search's."""

    async def one(facet: str) -> tuple[str, dict[str, int]]:
        async with db.acquire() as conn:
            rows = await fetch_candidates(conn, sql, parameters(without_own_selection(request, facet)), candidates)
        return facet, work_counts(rows, (facet,))[facet]

    selected = [facet for facet in FACET_FIELDS if getattr(request.filters, facet)]
    return dict(await asyncio.gather(*(one(facet) for facet in selected)))


def facet_counts(
    rows: list[asyncpg.Record], request: SearchRequest, wider: dict[str, dict[str, int]]
) -> dict[str, dict[str, int]]:
    """Facet counts as faceted search gives them (works, as work_counts counts them): a facet without a selection is
    counted over this search's rows; one with a selection over the candidates of every other filter but its
    own (`wider`), so its other values stay reachable (STJ selected, TJSP still offered with its count), except its
    selected values, counted over this search's rows: the count beside a ticked value is how many of the listed
    works carry it (one value ticked: the search's total). The wider candidates are not those of the search, so
    their count of a selected value can fall short of what the selected search finds (its nearest and full-text
    lists reach further under the filter)."""
    facets = work_counts(rows)
    for facet, others in wider.items():
        # This search's rows carry only selected values (the filter and the facet read the same column).
        selected = set(getattr(request.filters, facet)) | set(facets[facet])
        facets[facet] = _by_count({value: n for value, n in others.items() if value not in selected} | facets[facet])
    return facets
