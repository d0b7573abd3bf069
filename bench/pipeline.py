"""End-to-end benchmark: ingest ../shared/docs through `precedente up`, then time 100 searches.

Prints the wall time from first upload to the last document indexed (or in review), the time each
stage spent per document (from the ledger's history), the indexer's chunks/s, and search latency
p50/p95 over 100 real user queries (JurisTCU's query texts) through POST /search.

    .venv/bin/python bench/pipeline.py [--queries 100]
"""

import argparse
import json
import statistics
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

from precedente.harness import RunningStack
from precedente.shared.runtime import pipeline

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
ORDER = [stage.value for stage in pipeline.LEDGER_ORDER]
STAGE_OF = {stage.output_stage.value: stage.name for stage in pipeline.STAGES}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    files = sorted((SHARED / "docs").rglob("*.pdf"))
    with tempfile.TemporaryDirectory() as tmp:
        stack = RunningStack(Path(tmp) / "stack")
        stack.start()
        try:
            started = time.perf_counter()
            ids = {stack.upload(path, external_id=f"bench:{path.name}")["document_id"]: path for path in files}
            statuses = stack.wait_final({d: None for d in ids}, timeout=3600)
            wall = time.perf_counter() - started
            pages = sum(s["page_count"] or 0 for s in statuses.values())
            chunks = sum(s["chunk_count"] or 0 for s in statuses.values())
            print(f"ingested {len(files)} PDFs, {pages} pages, {chunks} chunks in {wall:.1f} s wall")
            for document_id, status in statuses.items():
                print(f"  {ids[document_id].name:55} {status['stage']:8} pages={status['page_count']} "
                      f"chunks={status['chunk_count']} ocr={status['ocr_confidence']:.2f}")  # fmt: skip
            report_stage_times(statuses)
            report_search(stack, args.queries)
        finally:
            stack.stop()


def report_stage_times(statuses: dict[str, dict]) -> None:
    """Time between a document's consecutive stages: the stage's work plus its queue wait."""
    spent: dict[str, list[float]] = defaultdict(list)
    first_annotated, last_indexed, total_chunks = None, None, 0
    for status in statuses.values():
        at = {h["stage"]: datetime.fromisoformat(h["at"]) for h in status["history"]}
        for previous, stage in zip(ORDER, ORDER[1:], strict=False):
            if previous in at and stage in at:
                seconds = (at[stage] - at[previous]).total_seconds()
                spent[STAGE_OF[stage]].append(seconds)
        if "annotated" in at and "indexed" in at:
            first_annotated = min(filter(None, [first_annotated, at["annotated"]]))
            last_indexed = max(filter(None, [last_indexed, at["indexed"]]))
            total_chunks += status["chunk_count"]
    print("per stage, seconds per document (queue wait included): mean / max")
    for stage in STAGE_OF.values():
        if spent[stage]:
            print(f"  {stage:10} {statistics.mean(spent[stage]):7.2f} / {max(spent[stage]):7.2f}")
    if first_annotated and last_indexed:
        busy = (last_indexed - first_annotated).total_seconds()
        print(
            f"indexer: {total_chunks} chunks in {busy:.1f} s = {total_chunks / busy:.2f} chunks/s "
            "(all indexer replicas, embedding + insert, from the first document annotated to the last indexed)"
        )


def report_search(stack: RunningStack, count: int) -> None:
    lines = (SHARED / "bench" / "juristcu" / "queries.jsonl").read_text().splitlines()
    queries = [json.loads(line)["text"] for line in lines][:count]
    stack.search(queries[0])  # warm the connection pool
    latencies = []
    for query in queries:
        started = time.perf_counter()
        stack.search(query, top_k=5)
        latencies.append((time.perf_counter() - started) * 1000)
    latencies.sort()
    p95 = latencies[max(int(len(latencies) * 0.95) - 1, 0)]
    print(f"search over {len(latencies)} queries: p50 {statistics.median(latencies):.1f} ms, p95 {p95:.1f} ms")


if __name__ == "__main__":
    main()
