"""Retrieval metrics over judged queries (TREC-style runs and qrels), as JurisTCU's README defines them.

Relevant means a judged score >= 1; nDCG@10 uses the graded score as gain with a log2(rank + 1)
discount and the ideal list built from all judged scores of the query; unjudged documents count as
non-relevant. Metrics are reported per query group and over ALL queries.
"""

import csv
import json
import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

Run = dict[str, list[str]]  # query id -> document ids, best first
Qrels = dict[str, dict[str, int]]  # query id -> document id -> graded score

METRICS = ("ndcg@10", "hit@5", "mrr@10", "recall@20", "recall@100", "judged@10")


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    group: str | None


def read_queries(path: Path) -> list[Query]:
    queries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            queries.append(Query(str(row["_id"]), row["text"], row.get("group")))
    return queries


def read_qrels(path: Path) -> Qrels:
    """BEIR's TSV (`query-id, corpus-id, score`, with a header) or TREC's qrels (`qid iteration docid score`,
    separated by spaces or tabs: what write_qrels writes)."""
    qrels: Qrels = defaultdict(dict)
    with path.open(encoding="utf-8") as handle:
        for row in csv.reader(handle, delimiter="\t"):
            if len(row) == 1:
                row = row[0].split()
            if not row or row[0] == "query-id":
                continue
            if len(row) >= 4:  # TREC: qid iteration docid score
                qrels[row[0]][row[2]] = int(row[3])
            else:
                qrels[row[0]][row[1]] = int(row[2])
    return dict(qrels)


def write_qrels(qrels: Qrels, path: Path) -> None:
    """TREC qrels: `qid 0 docid score`, one judged document per line."""
    with path.open("w", encoding="utf-8") as out:
        for qid, judged in qrels.items():
            for doc, score in judged.items():
                out.write(f"{qid} 0 {doc} {score}\n")


def read_run(path: Path) -> Run:
    """A TREC run file: `qid Q0 docid rank score tag`, ordered by rank within each query."""
    ranked: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) >= 6:
            ranked[parts[0]].append((int(parts[3]), parts[2]))
    return {qid: [doc for _, doc in sorted(docs)] for qid, docs in ranked.items()}


def write_run(run: Run, scores: dict[str, list[float]], path: Path, tag: str) -> None:
    with path.open("w", encoding="utf-8") as out:
        for qid, docs in run.items():
            for rank, (doc, score) in enumerate(zip(docs, scores[qid], strict=True), start=1):
                out.write(f"{qid} Q0 {doc} {rank} {score:.6f} {tag}\n")


def query_metrics(ranking: list[str], judged: dict[str, int]) -> dict[str, float]:
    relevant = {doc for doc, score in judged.items() if score >= 1}
    dcg = sum(judged.get(doc, 0) / math.log2(rank + 1) for rank, doc in enumerate(ranking[:10], start=1))
    ideal_gains = sorted(judged.values(), reverse=True)[:10]
    idcg = sum(gain / math.log2(rank + 1) for rank, gain in enumerate(ideal_gains, start=1))
    first_relevant = next((rank for rank, doc in enumerate(ranking[:10], start=1) if doc in relevant), None)
    return {
        "ndcg@10": dcg / idcg if idcg else 0.0,
        "hit@5": float(any(doc in relevant for doc in ranking[:5])),
        "mrr@10": 1.0 / first_relevant if first_relevant else 0.0,
        "recall@20": len(relevant & set(ranking[:20])) / len(relevant) if relevant else 0.0,
        "recall@100": len(relevant & set(ranking[:100])) / len(relevant) if relevant else 0.0,
        "judged@10": sum(doc in judged for doc in ranking[:10]) / 10,
    }


def evaluate(run: Run, qrels: Qrels, queries: list[Query]) -> dict[str, dict[str, float]]:
    """Mean of each metric per group and over ALL judged queries; a query missing from the run scores 0."""
    per_group: dict[str, list[dict[str, float]]] = defaultdict(list)
    for query in queries:
        if query.id not in qrels:
            continue
        scores = query_metrics(run.get(query.id, []), qrels[query.id])
        per_group["ALL"].append(scores)
        if query.group:
            per_group[query.group].append(scores)
    return {
        group: {metric: sum(s[metric] for s in rows) / len(rows) for metric in METRICS} | {"queries": len(rows)}
        for group, rows in sorted(per_group.items(), key=lambda item: (item[0] == "ALL", item[0]))
    }


def format_table(results: dict[str, dict[str, float]]) -> str:
    header = f"{'group':6} {'queries':>7} " + " ".join(f"{m:>10}" for m in METRICS)
    lines = [header]
    for group, values in results.items():
        cells = " ".join(f"{100 * values[m]:10.1f}" for m in METRICS)
        lines.append(f"{group:6} {int(values['queries']):7d} {cells}")
    return "\n".join(lines)


def unjudged_at(ranking: list[str], judged: dict[str, int], k: int = 5) -> tuple[int, int]:
    """(results of the top k nobody judged, results in the top k): an unjudged list is not a bad one."""
    top = ranking[:k]
    return sum(doc not in judged for doc in top), len(top)


def brier_score(probabilities: list[float], labels: list[bool]) -> float:
    """Mean squared distance of each predicted probability from what the judge said (0 is perfect)."""
    return sum((p - float(y)) ** 2 for p, y in zip(probabilities, labels, strict=True)) / max(len(labels), 1)


def log_loss(probabilities: list[float], labels: list[bool], eps: float = 1e-6) -> float:
    total = 0.0
    for p, y in zip(probabilities, labels, strict=True):
        p = min(max(p, eps), 1 - eps)
        total -= math.log(p) if y else math.log(1 - p)
    return total / max(len(labels), 1)


def _logit(p: float, eps: float = 1e-6) -> float:
    p = min(max(p, eps), 1 - eps)
    return math.log(p / (1 - p))


def _sigmoid(z: float) -> float:
    """1 / (1 + e^-z) without overflow at either end."""
    if z >= 0:
        return 1 / (1 + math.exp(-z))
    e = math.exp(z)
    return e / (1 + e)


def _platt_loss(xs: list[float], ys: list[float], a: float, b: float, l2: float) -> float:
    """The penalised log loss platt_fit minimises (softplus written to stay finite)."""
    total = 0.0
    for x, y in zip(xs, ys, strict=True):
        z = a * x + b
        total += max(z, 0) + math.log1p(math.exp(-abs(z))) - y * z
    return total + l2 * (a - 1.0) ** 2 / 2


def platt_fit(probabilities: list[float], labels: list[bool], l2: float = 1.0) -> tuple[float, float]:
    """(a, b) of p' = sigmoid(a * logit(p) + b), fitted by Newton's method with a light L2 on `a` (as
    bench/calibrate.py fits the grade's model): the recalibration a set of judged results supports when only
    the probabilities, not the features behind them, are known. Each step is halved until the loss falls, so
    probabilities of 0 or 1 (logit about -+14) cannot throw the fit off."""
    xs, ys = [_logit(p) for p in probabilities], [float(y) for y in labels]
    a, b = 1.0, 0.0
    loss = _platt_loss(xs, ys, a, b, l2)
    for _ in range(100):
        ga = gb = haa = hab = hbb = 0.0
        for x, y in zip(xs, ys, strict=True):
            q = _sigmoid(a * x + b)
            ga, gb = ga + (q - y) * x, gb + (q - y)
            w = q * (1 - q)
            haa, hab, hbb = haa + w * x * x, hab + w * x, hbb + w
        ga, haa = ga + l2 * (a - 1.0), haa + l2  # shrunk towards the model as shipped (a = 1, b = 0)
        determinant = haa * hbb - hab * hab
        if abs(determinant) < 1e-12:
            break
        step_a, step_b = (hbb * ga - hab * gb) / determinant, (haa * gb - hab * ga) / determinant
        scale = 1.0
        while scale > 1e-6:
            tried = _platt_loss(xs, ys, a - scale * step_a, b - scale * step_b, l2)
            if tried <= loss:
                break
            scale /= 2
        else:
            break  # no step lowers the loss: at the minimum
        a, b, loss = a - scale * step_a, b - scale * step_b, tried
        if max(abs(scale * step_a), abs(scale * step_b)) < 1e-9:
            break
    return a, b


def platt(p: float, a: float, b: float) -> float:
    return _sigmoid(a * _logit(p) + b)
