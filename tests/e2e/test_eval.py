"""`precedente eval` on a slice of JurisTCU: its own stack, the real pipeline, POST /search, TREC output."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from precedente.evaluation import read_qrels, read_run
from tests.helpers.samples import SHARED_DATA

pytestmark = pytest.mark.e2e

JURISTCU = SHARED_DATA / "bench" / "juristcu"


def juristcu_slice(folder: Path, query_ids: list[str], extra_documents: int) -> tuple[Path, Path, Path]:
    """The chosen queries, every document judged for them, and some unjudged ones as distractors."""
    qrels = read_qrels(JURISTCU / "qrels.tsv")
    judged = {doc for qid in query_ids for doc in qrels[qid]}
    corpus_lines = (JURISTCU / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    chosen, extras = [], 0
    for line in corpus_lines:
        doc_id = json.loads(line)["_id"]
        if doc_id in judged:
            chosen.append(line)
        elif extras < extra_documents:
            chosen.append(line)
            extras += 1
    query_lines = [
        line
        for line in (JURISTCU / "queries.jsonl").read_text(encoding="utf-8").splitlines()
        if json.loads(line)["_id"] in query_ids
    ]
    query_lines.append(json.dumps({"_id": "999", "text": "consulta sem grupo"}))  # counts in ALL only
    (folder / "corpus.jsonl").write_text("\n".join(chosen) + "\n", encoding="utf-8")
    (folder / "queries.jsonl").write_text("\n".join(query_lines) + "\n", encoding="utf-8")
    qrel_rows = ["query-id\tcorpus-id\tscore"] + [
        f"{qid}\t{doc}\t{score}" for qid in query_ids for doc, score in qrels[qid].items()
    ]
    qrel_rows.append(f"999\t{json.loads(chosen[0])['_id']}\t1")
    (folder / "qrels.tsv").write_text("\n".join(qrel_rows) + "\n", encoding="utf-8")
    return folder / "corpus.jsonl", folder / "queries.jsonl", folder / "qrels.tsv"


def test_eval_ingests_through_the_pipeline_and_scores_every_query(tmp_path: Path) -> None:
    corpus, queries, qrels = juristcu_slice(tmp_path, ["2", "60", "120"], extra_documents=20)
    run_file, json_file = tmp_path / "run.trec", tmp_path / "metrics.json"
    result = subprocess.run(
        [sys.executable, "-m", "precedente.cli", "eval", "--corpus", str(corpus), "--queries", str(queries),
         "--qrels", str(qrels), "--run", str(run_file), "--json", str(json_file), "--config", "teste"],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "ndcg@10" in result.stdout and "ALL" in result.stdout

    report = json.loads(json_file.read_text())
    metrics = report["metrics"]
    assert report["corpus_entries"] == len(corpus.read_text().splitlines())
    assert report["documents"] <= report["corpus_entries"]  # identical texts are one document
    assert metrics["ALL"]["queries"] == 4 and {"G1", "G2", "G3"} <= set(metrics)
    # Three real queries over their own judged documents: the product finds relevant ones on top.
    assert metrics["G2"]["hit@5"] == 1.0 and metrics["G3"]["hit@5"] == 1.0
    assert metrics["ALL"]["ndcg@10"] > 0.3

    run = read_run(run_file)
    corpus_ids = {json.loads(line)["_id"] for line in corpus.read_text().splitlines()}
    assert set(run) == {"2", "60", "120", "999"}
    assert all(set(docs) <= corpus_ids and len(docs) == len(set(docs)) for docs in run.values())
    first = run_file.read_text().splitlines()[0].split()
    assert first[1] == "Q0" and first[3] == "1" and first[5] == "teste"
