"""`precedente eval`: ingest a judged corpus through the real pipeline, run every query through POST /search.

The corpus is uploaded like any file (one plain-text document per JSON line, its `_id` kept as the
external id), so what is measured is the product itself: extraction, cleaning, chunking, annotation,
indexing and the search service's own ranking. Chunk results are turned into a document ranking by
each document's best chunk.
"""

import json
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.progress import Progress

from precedente.credentials import api_client
from precedente.evaluation import Run, evaluate, format_table, read_qrels, read_queries, write_run
from precedente.harness import FINAL, RunningStack

RUN_DEPTH = 100


def ingest_corpus(client: httpx.Client, corpus: Path, console: Console) -> dict[str, list[str]]:
    """Upload every corpus document; returns our document id -> the corpus `_id`s it holds.

    Identical texts under two `_id`s are one document to the ledger (content hash), so one of ours
    may stand for several of theirs; the run lists each of them.
    """
    lines = [line for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    ids: dict[str, list[str]] = {}
    with Progress(console=console, transient=True) as bar:
        task = bar.add_task("uploading corpus", total=len(lines))
        for line in lines:
            row = json.loads(line)
            text = "\n\n".join(part for part in (row.get("title") or "", row["text"]) if part)
            response = client.post(
                "/documents",
                files={"file": (f"{row['_id']}.txt", text.encode("utf-8"), "text/plain")},
                data={"external_id": f"eval:{row['_id']}", "source": "cli"},
            )
            response.raise_for_status()
            ids.setdefault(response.json()["document_id"], []).append(str(row["_id"]))
            bar.advance(task)
    return ids


def wait_indexed(
    client: httpx.Client, ids: dict[str, list[str]], console: Console, timeout: float = 7200
) -> dict[str, int]:
    pending = set(ids)
    stages: dict[str, int] = {}
    deadline = time.monotonic() + timeout
    with Progress(console=console, transient=True) as bar:
        task = bar.add_task("indexing", total=len(ids))
        while pending and time.monotonic() < deadline:
            for document_id in list(pending):
                stage = client.get(f"/documents/{document_id}/status").json()["stage"]
                if stage in FINAL:
                    pending.discard(document_id)
                    stages[stage] = stages.get(stage, 0) + 1
            bar.update(task, completed=len(ids) - len(pending))
            if pending:
                time.sleep(1)
    if pending:
        raise TimeoutError(f"{len(pending)} corpus documents were not indexed in time")
    return stages


def rank_documents(client: httpx.Client, query: str, ids: dict[str, list[str]]) -> tuple[list[str], list[float]]:
    """The corpus ids in the order of their work's best passage, each work's copies right after it (they
    are one entry for the lawyer); the score is the reciprocal of that rank.

    Asking for RUN_DEPTH results keeps the candidate pool what a lawyer's search ranks (the pool is
    never smaller than top_k, and search_candidates defaults to RUN_DEPTH), so the run measures the
    default ranking and not a wider one.
    """
    response = client.post("/search", json={"query": query, "top_k": RUN_DEPTH})
    response.raise_for_status()
    ranking: list[str] = []
    for result in response.json()["results"]:
        for document_id in [result["document_id"], *(copy["document_id"] for copy in result.get("copies", []))]:
            for corpus_id in ids.get(document_id, []):
                if corpus_id not in ranking:
                    ranking.append(corpus_id)
    ranking = ranking[:RUN_DEPTH]
    return ranking, [1.0 / rank for rank in range(1, len(ranking) + 1)]


def run_eval(
    corpus: Path,
    queries_path: Path,
    qrels_path: Path,
    *,
    api: str | None,
    run_path: Path | None,
    json_path: Path | None,
    config: str,
    console: Console,
) -> dict[str, dict[str, float]]:
    queries = read_queries(queries_path)
    qrels = read_qrels(qrels_path)
    with ExitStack() as stack:
        if api is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="precedente-eval-")))
            running = RunningStack(folder / "stack")
            console.print(f"starting an embedded stack in {folder}")
            running.start()
            stack.callback(running.stop)
            client = running.client
        else:
            client = stack.enter_context(api_client(api, timeout=120))
        started = time.perf_counter()
        ids = ingest_corpus(client, corpus, console)
        stages = wait_indexed(client, ids, console)
        corpus_size = sum(len(v) for v in ids.values())
        console.print(
            f"corpus: {corpus_size} entries as {len(ids)} documents {stages} in {time.perf_counter() - started:.0f} s"
        )
        run: Run = {}
        scores: dict[str, list[float]] = {}
        latencies = []
        for query in queries:
            began = time.perf_counter()
            run[query.id], scores[query.id] = rank_documents(client, query.text, ids)
            latencies.append(time.perf_counter() - began)
    results = evaluate(run, qrels, queries)
    median_ms = 1000 * sorted(latencies)[len(latencies) // 2]
    console.print(f"configuration: {config}; {len(queries)} queries through POST /search, median {median_ms:.0f} ms")
    console.print(format_table(results), markup=False, highlight=False)
    if run_path:
        write_run(run, scores, run_path, config)
    if json_path:
        report: dict[str, Any] = {
            "config": config,
            "corpus_entries": corpus_size,
            "documents": len(ids),
            "metrics": results,
        }
        json_path.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return results
