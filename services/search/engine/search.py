"""The search engine's orchestrator: one query's candidates from both indexes under the filters and the access list,
ranked by the declared steps (steps.py: fusion, lead, feedback, grouping, grade, ...), the page's cards built
(cards.py), with the facet counts (facets.py).

The caller parses the query once (it embeds the parsed text) and passes the firm's calibration, read from the store:
the engine reads neither the request's raw syntax twice nor the store (but for the firm's thesaurus, which every
search checks for a change: store/thesaurus.py).
"""

import asyncio

import asyncpg
import numpy as np

from precedente.services.search.concepts import in_effect
from precedente.services.search.engine.candidates import CANDIDATES, Candidates, fetch_pool, pool_parameters
from precedente.services.search.engine.cards import card, shown_records
from precedente.services.search.engine.context import pool_context
from precedente.services.search.engine.copies import work_dates
from precedente.services.search.engine.facets import facet_counts, facets_statement, wider_facets
from precedente.services.search.engine.models import SearchPage, SearchRequest
from precedente.services.search.engine.ranking import Ranking, pool_matrix
from precedente.services.search.engine.relevance import Calibration, relevance_model
from precedente.services.search.engine.steps import STEPS, Ranked, Step, run, vague_query
from precedente.services.search.store.thesaurus import firm_index
from precedente.services.search.syntax import ParsedQuery, parse_query

DEFAULT_RANKING = Ranking()


async def hybrid_search(
    db: asyncpg.Pool,
    request: SearchRequest,
    query_vector: np.ndarray,
    groups: list[str],
    candidates: Candidates,
    ranking: Ranking = DEFAULT_RANKING,
    limit: int | None = None,
    *,
    parsed: ParsedQuery | None = None,
    calibration: Calibration | None = None,
    steps: tuple[Step, ...] = STEPS,
) -> SearchPage:
    """The works (decisions, acts, pareceres) that carry the query, one entry each, best first (or newest
    first by each work's best-dated copy), `limit` (default top_k) of them from `offset`, graded, and the facet
    counts of the candidates.

    `parsed`: request.query as parse_query read it (None: read here); `calibration`: the firm's recalibration of
    the grade (services/search/store/relevance.active_calibration; None: the model as shipped); `steps`: the ranking
    (steps.STEPS; bench/ranking_ablation.py leaves one out to measure what it is worth)."""
    limit = limit or request.top_k
    parsed = parsed or parse_query(request.query)
    async with db.acquire() as conn:
        # The firm's thesaurus (store/thesaurus.py): None while the firm has no sets of its own, the shipped
        # concepts alone. A set the query names widens the lexical side with its other names.
        concepts = await firm_index(conn, db)
        expansion = concepts.expansion(parsed.text) if concepts is not None else ""
        lexemes, stats, centring = await pool_context(conn, parsed, query_vector, candidates, db, expansion)

        def parameters(search: SearchRequest) -> dict[str, object]:
            return pool_parameters(
                search, query_vector, groups, candidates, lexemes, stats, parsed, centring.languages, centring.exact
            )

        # The facets' own statements run beside this search's, on connections of their own (awaited once this
        # one is released: a pool of one connection serves them after it).
        wider = asyncio.ensure_future(wider_facets(db, request, parameters, candidates, facets_statement(CANDIDATES)))
        try:
            rows, pool = await fetch_pool(conn, parameters(request), candidates)
            embeddings = pool_matrix(pool) if pool else np.zeros((0, 1))  # ranking's and grouping's, built once
            model = relevance_model().calibrated(calibration)
            vague = vague_query(lexemes, stats)
            dates = await work_dates(conn, (row["work_id"] for row in rows), groups) if request.sort == "date" else {}
            ranked = run(
                Ranked(
                    pool, query_vector, lexemes, stats, ranking, embeddings, centring.centroids,
                    centring.query_language, rows, model, vague, request.sort, work_dates=dates,
                ),
                steps,
            )  # fmt: skip
            works = ranked.works
            shown = ranked.ranked[request.offset : request.offset + limit]
            records = await shown_records(conn, shown, rows, groups)
        except BaseException:
            wider.cancel()
            await asyncio.gather(wider, return_exceptions=True)
            raise
    facets = facet_counts(rows, request, await wider)
    with in_effect(concepts):  # the explanations' concept line and the highlights read the firm's sets too
        results = [card(parsed.text, work, rows, records) for work in shown]
    relevant = sum(work.grade != "fraca" for work in works)
    features = [work.features for work in shown]
    return SearchPage(results, facets, len(works), relevant, relevant == 0, features, vague)
