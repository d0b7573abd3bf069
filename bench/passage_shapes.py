"""Passages that are not prose among the results: tables of numbers (steps.tables_last) and bibliographies
(steps.references_last), with all the steps and with each of those two left out, on the firm's queries.

    nice -n 10 .venv/bin/python bench/passage_shapes.py --firm-db postgresql://...  [extra queries ...]

Runs every query of tests/data/judged_queries.jsonl and paraphrase_queries.jsonl (and any given) through
hybrid_search as POST /search does, on a database holding ../shared/docs and ../shared/archive (read only), the
queries embedded by the model the index holds (ranking_sweep.index_embedder). Prints how many passages of each
shape the archive holds (the pool's own candidates.TABLE_LIKE, and chunks.reference_list), then per configuration
how many results in the top 5 and at rank 1 show a passage of each shape, each such result, and the positive queries'
nDCG@10 and hit@5 (binary gains; the ideal list is the query's relevant files, at most 10: comparable between the
runs, not with bench/ranking_ablation.py's, whose ideal is the relevant works indexed).
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ranking_sweep import index_embedder  # noqa: E402  (bench/ is this script's folder)

from precedente.services.search.engine.candidates import TABLE_LIKE, Candidates  # noqa: E402
from precedente.services.search.engine.models import SearchRequest  # noqa: E402
from precedente.services.search.engine.search import hybrid_search  # noqa: E402
from precedente.services.search.engine.steps import STEPS, references_last, tables_last  # noqa: E402
from precedente.services.search.syntax import parse_query  # noqa: E402
from precedente.shared.infra.db import create_pool  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
QUERIES = (REPO / "tests" / "data" / "judged_queries.jsonl", REPO / "tests" / "data" / "paraphrase_queries.jsonl")
DEPTH = 10
SHAPES = ("table_like", "reference_list")
SHAPE_OF = f"SELECT c.id, shape.table_like, c.reference_list FROM chunks c {TABLE_LIKE} WHERE c.id = ANY($1)"
COUNTS = (
    "SELECT count(*) FILTER (WHERE shape.table_like) AS table_like,"
    f" count(*) FILTER (WHERE c.reference_list) AS reference_list, count(*) AS chunks FROM chunks c {TABLE_LIKE}"
)


def ndcg(hits: list[bool], ideal: int) -> float:
    gain = sum(1 / math.log2(i + 2) for i, hit in enumerate(hits[:10]) if hit)
    best = sum(1 / math.log2(i + 2) for i in range(min(ideal, 10)))
    return gain / best if best else 0.0


async def main(url: str, extra: list[str]) -> None:
    pool = await create_pool(url)
    embedder = await index_embedder(pool)
    counts = await pool.fetchrow(COUNTS)
    print(f"{counts['chunks']} chunks: " + ", ".join(f"{counts[shape]} {shape}" for shape in SHAPES), flush=True)
    rows = [json.loads(line) for path in QUERIES for line in path.read_text(encoding="utf-8").splitlines() if line]
    rows += [{"query": q, "kind": "extra"} for q in extra]
    vectors = {row["query"]: embedder.query(parse_query(row["query"]).text) for row in rows}
    names = {r["id"]: Path(r["filename"]).name for r in await pool.fetch("SELECT id::text, filename FROM documents")}
    configurations = {
        "STEPS": STEPS,
        "without tables_last": tuple(s for s in STEPS if s is not tables_last),
        "without references_last": tuple(s for s in STEPS if s is not references_last),
    }
    for label, steps in configurations.items():
        top5 = dict.fromkeys(SHAPES, 0)
        first = dict.fromkeys(SHAPES, 0)
        scores: list[tuple[float, float]] = []
        for row in rows:
            request = SearchRequest(query=row["query"], top_k=DEPTH)
            vector, wide = vectors[row["query"]], Candidates().at_least(DEPTH)
            page = await hybrid_search(pool, request, vector, [], wide, steps=steps)
            shapes = {r["id"]: r for r in await pool.fetch(SHAPE_OF, [r.passage_id for r in page.results[:5]])}
            for rank, result in enumerate(page.results[:5], 1):
                for shape in SHAPES:
                    if shapes[result.passage_id][shape]:
                        top5[shape] += 1
                        first[shape] += rank == 1
                        print(
                            f"  {label}: {shape} {rank}. [{result.relevance}] {row['query']!r} ->"
                            f" {result.document_title[:40]!r} p. {result.page_number}"
                        )
            if row.get("kind") == "positive" and row.get("relevant"):
                relevant = set(row["relevant"])
                hits = [
                    any(names.get(d) in relevant for d in [r.document_id, *(c.document_id for c in r.copies)])
                    for r in page.results
                ]
                scores.append((ndcg(hits, len(relevant)), float(any(hits[:5]))))
        n = max(len(scores), 1)
        shown = "; ".join(f"{shape} {top5[shape]} in the top 5, {first[shape]} at rank 1" for shape in SHAPES)
        print(
            f"{label} ({len(rows)} queries): {shown}; positives' nDCG@10 {100 * sum(s for s, _ in scores) / n:.1f},"
            f" hit@5 {100 * sum(h for _, h in scores) / n:.1f} ({n})",
            flush=True,
        )
    await pool.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--firm-db", required=True, help="PostgreSQL URL of a database holding docs and archive")
    parser.add_argument("queries", nargs="*", help="more queries to run")
    args = parser.parse_args()
    asyncio.run(main(args.firm_db, args.queries))
