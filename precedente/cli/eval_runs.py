"""`precedente eval`: ingest a judged corpus through the real pipeline, run every query through POST /search.

The corpus is uploaded like any file (one plain-text document per JSON line, its `_id` kept as the
external id), so what is measured is the product itself: extraction, cleaning, chunking, annotation,
indexing and the search service's own ranking. Chunk results are turned into a document ranking by
each document's best chunk.

`--judgments` measures the ranking on the firm's own judgments instead (POST /judgments): every judged query
re-run, precision@5 as the seed counted it (a query scores when one of its top 5 is judged relevant), nDCG@10
over the judged passages, the share of the top 5 nobody judged, and the relevance grade's calibration: the
shipped model's beside the firm's (the active one of GET /relevance/calibration, else a cross-validated refit).
`--apply` stores the refit as the active calibration (PUT /relevance/calibration; search applies it), and
`--reset` returns to the shipped model (DELETE).
"""

import hashlib
import json
import tempfile
import time
from collections import Counter, defaultdict
from contextlib import ExitStack, nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
from rich.console import Console
from rich.progress import Progress

from precedente.credentials import api_client
from precedente.evaluation import (
    Run,
    brier_score,
    evaluate,
    format_table,
    log_loss,
    platt,
    platt_fit,
    query_metrics,
    read_qrels,
    read_queries,
    unjudged_at,
    write_qrels,
    write_run,
)
from precedente.harness import RunningStack
from precedente.shared.contracts import FINAL

if TYPE_CHECKING:
    from precedente.services.search.engine.relevance import RelevanceModel

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


# `precedente eval --judgments`: the firm's own judgments (POST /judgments), measured as the seed measured them.

TOP_K = 10
REFIT_MINIMUM = 200  # judged results before the relevance grade is recalibrated from them
GRADES = ("forte", "provável", "fraca")


@dataclass
class Topic:
    """One judged query as it is re-run: its normalised text, filters and sort; the votes on each passage."""

    id: str
    query: str
    filters: dict[str, Any]
    sort: str
    votes: dict[str, list[bool]] = field(default_factory=dict)
    judges: set[str] = field(default_factory=set)
    practice_groups: set[str] = field(default_factory=set)
    types: Counter = field(default_factory=Counter)

    def qrels(self) -> dict[str, int]:
        """A passage is relevant (1) when more of its judges said relevant than not."""
        return {passage: int(2 * sum(v) > len(v)) for passage, v in self.votes.items()}

    def document_type(self) -> str | None:
        """The type the query is about: its filter's, when it names one; else the judged documents' commonest."""
        named = self.filters.get("document_type") or []
        if len(named) == 1:
            return named[0]
        return min(self.types, key=lambda t: (-self.types[t], t)) if self.types else None


def topic_id(query_key: str, filters: dict[str, Any], sort: str) -> str:
    """Stable across runs and machines: the normalised query, its filters and its sort."""
    text = json.dumps({"query": query_key, "filters": filters, "sort": sort}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def fetch_judgments(
    client: httpx.Client, since: datetime | None = None, page: int = 1000
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every judgment, or those made or changed since `since` (the credential must be an administrator's to read
    everyone's), and the ranking now."""
    found: list[dict[str, Any]] = []
    window = {"since": since.isoformat()} if since else {}
    while True:
        response = client.get("/judgments", params={"limit": page, "offset": len(found), **window})
        response.raise_for_status()
        body = response.json()
        found.extend(body["judgments"])
        if not body["judgments"] or len(found) >= body["total"]:
            return found, body["ranking"]


def topics_of(judgments: list[dict[str, Any]]) -> list[Topic]:
    topics: dict[str, Topic] = {}
    for j in judgments:
        tid = topic_id(j["query_key"], j["filters"], j["sort"])
        topic = topics.setdefault(tid, Topic(tid, j["query"], j["filters"], j["sort"]))
        topic.votes.setdefault(str(j["passage_id"]), []).append(bool(j["relevant"]))
        topic.judges.add(j["judge"])
        topic.practice_groups.update(j["judge_groups"])
        if j.get("document_type"):
            topic.types[j["document_type"]] += 1
    return list(topics.values())


def result_key(result: dict[str, Any], judged: dict[str, int]) -> str:
    """The passage a result stands for: a judged one among those it shows (the best judged, its own first),
    else its own. A work is one result; a lawyer who judged any of its passages judged it."""
    shown = [str(result["passage_id"]), *(str(p["passage_id"]) for p in result.get("other_passages", []))]
    known = [p for p in shown if p in judged]
    return max(known, key=lambda p: (judged[p], p == shown[0])) if known else shown[0]


@dataclass(frozen=True)
class Graded:
    topic: str
    grade: str
    probability: float
    relevant: bool


def calibration(examples: list[Graded], probabilities: list[float] | None = None) -> dict[str, Any]:
    """Share judged relevant per grade, and how reliable the probability is (Brier score, log loss)."""
    probabilities = probabilities if probabilities is not None else [e.probability for e in examples]
    labels = [e.relevant for e in examples]
    per_grade: dict[str, dict[str, float]] = {}
    for grade in GRADES:
        inside = [e.relevant for e in examples if e.grade == grade]
        per_grade[grade] = {"results": len(inside), "relevant": sum(inside) / len(inside) if inside else 0.0}
    return {
        "results": len(examples),
        "grades": per_grade,
        "brier": brier_score(probabilities, labels),
        "log_loss": log_loss(probabilities, labels),
        "mean_probability": sum(probabilities) / max(len(probabilities), 1),
        "observed_relevant": sum(labels) / max(len(labels), 1),
    }


def regrade(model: "RelevanceModel", example: Graded, probability: float) -> str:
    """The grade search would give at `probability`: the model's thresholds, but a result search held at "fraca"
    above them (a vague query, vague_query) stays "fraca"."""
    if example.grade == "fraca" and model.grade(example.probability) != "fraca":
        return "fraca"
    return model.grade(probability)


def shipped_examples(served: list[Graded], active: dict[str, Any] | None) -> list[Graded]:
    """What the shipped model said of each judged result: the served probability itself, or, under an active
    calibration (a, b), the probability it was mapped from (search rounds to 3 decimals: clamped to half of that,
    so a served 0.000 reads as 0.0005)."""
    if active is None:
        return served
    from precedente.services.search.engine.relevance import relevance_model, unplatt

    model = relevance_model()
    shipped = []
    for e in served:
        p = unplatt(min(max(e.probability, 0.0005), 0.9995), active["a"], active["b"])
        shipped.append(Graded(e.topic, regrade(model, e, p), p, e.relevant))
    return shipped


def calibration_to_apply(examples: list[Graded], minimum: int = REFIT_MINIMUM) -> tuple[dict[str, Any] | None, str]:
    """The body of PUT /relevance/calibration for these judged results (their shipped probabilities), or None and
    why not: fewer than `minimum` of them, or a refit that is no more reliable than the shipped model out of
    sample (cross-validated Brier score)."""
    if len(examples) < minimum:
        return None, f"needs {minimum} judged results in the top {TOP_K} (have {len(examples)})"
    before, after = calibration(examples), recalibrated(examples)
    if after["brier"] >= before["brier"]:
        return None, (f"the refit is no more reliable than the shipped model (Brier {before['brier']:.4f} shipped,"
                      f" {after['brier']:.4f} refitted, cross-validated)")  # fmt: skip
    body = {"a": after["a"], "b": after["b"], "judged_results": len(examples), "brier_before": before["brier"],
            "brier_after": after["brier"]}  # fmt: skip
    return body, platt_formula(after["a"], after["b"])


def recalibrated(examples: list[Graded], folds: int = 5) -> dict[str, Any]:
    """The probability refitted on the judgments (Platt scaling), its reliability measured by cross-validation
    over queries (each query's results predicted by a fit that never saw it), and the fit on all of them."""
    from precedente.services.search.engine.relevance import relevance_model

    model = relevance_model()
    topics = sorted({e.topic for e in examples})
    fold_of = {t: int(hashlib.sha256(t.encode()).hexdigest(), 16) % folds for t in topics}
    predicted = [0.0] * len(examples)
    for k in range(folds):
        train = [e for e in examples if fold_of[e.topic] != k]
        a, b = platt_fit([e.probability for e in train], [e.relevant for e in train])
        for i, e in enumerate(examples):
            if fold_of[e.topic] == k:
                predicted[i] = platt(e.probability, a, b)
    regraded = [Graded(e.topic, regrade(model, e, p), p, e.relevant) for e, p in zip(examples, predicted, strict=True)]
    a, b = platt_fit([e.probability for e in examples], [e.relevant for e in examples])
    return calibration(regraded) | {"method": "platt", "a": a, "b": b, "folds": folds}


def _group_rows(rows: dict[str, list[dict[str, float]]]) -> dict[str, dict[str, float]]:
    summary = {}
    for group, scores in sorted(rows.items(), key=lambda item: (item[0] != "ALL", item[0])):
        shown = sum(s["shown@5"] for s in scores)
        summary[group] = {
            "queries": len(scores),
            "precision@5": sum(s["hit@5"] for s in scores) / len(scores),
            "ndcg@10": sum(s["ndcg@10"] for s in scores) / len(scores),
            "unjudged@5": sum(s["unjudged@5"] for s in scores) / shown if shown else 0.0,
        }
    return summary


def format_judged_table(summary: dict[str, dict[str, float]]) -> str:
    width = max([5, *(len(group) for group in summary)])
    lines = [f"{'group':{width}} {'queries':>7} {'precision@5':>11} {'ndcg@10':>8} {'unjudged@5':>10}"]
    for group, row in summary.items():
        lines.append(
            f"{group:{width}} {int(row['queries']):7d} {100 * row['precision@5']:11.1f} {100 * row['ndcg@10']:8.1f}"
            f" {100 * row['unjudged@5']:10.1f}"
        )
    return "\n".join(lines)


def platt_formula(a: float, b: float) -> str:
    return f"p' = sigmoid({a:.3f} * logit(p) {'-' if b < 0 else '+'} {abs(b):.3f})"


def format_calibrations(columns: list[tuple[str, dict[str, Any]]]) -> str:
    """The calibrations side by side (the shipped model first): Brier score, log loss, mean probability against
    the share judged relevant, and per grade how many results and how many of them judged relevant."""
    width = max(12, *(len(name) for name, _ in columns))
    lines = [f"{'':28}" + "".join(f" {name:>{width}}" for name, _ in columns)]

    def line(label: str, cell: Any) -> None:
        lines.append(f"{label:28}" + "".join(f" {cell(figures):>{width}}" for _, figures in columns))

    line("judged results", lambda f: str(f["results"]))
    line("Brier score", lambda f: f"{f['brier']:.4f}")
    line("log loss", lambda f: f"{f['log_loss']:.4f}")
    line("mean probability", lambda f: f"{100 * f['mean_probability']:.1f}%")
    line("judged relevant", lambda f: f"{100 * f['observed_relevant']:.1f}%")
    for grade in GRADES:

        def share(f: dict[str, Any], g: str = grade) -> str:
            return f"{100 * f['grades'][g]['relevant']:.1f}% of {int(f['grades'][g]['results'])}"

        line(f"{grade}: relevant/results", share)
    return "\n".join(lines)


def fetch_calibration(client: httpx.Client) -> dict[str, Any] | None:
    """GET /relevance/calibration; None where the credential may not read it (not an administrator's)."""
    response = client.get("/relevance/calibration")
    if response.status_code in (403, 404):
        return None
    response.raise_for_status()
    return response.json()


def reset_calibration(*, api: str | None, console: Console, client: httpx.Client | None = None) -> dict[str, Any]:
    """`precedente eval --judgments --reset`: back to the shipped model (DELETE /relevance/calibration)."""
    with api_client(api, timeout=120) if client is None else nullcontext(client) as client:
        response = client.delete("/relevance/calibration")
        response.raise_for_status()
        state = response.json()
    console.print("relevance grade: the shipped model (no calibration active)", markup=False, highlight=False)
    return state


def run_judged_eval(
    *,
    api: str | None,
    json_path: Path | None,
    trec_path: Path | None,
    console: Console,
    apply: bool = False,
    since: datetime | None = None,
    client: httpx.Client | None = None,
) -> dict[str, Any]:
    """Re-run every judged query (its filters and sort) through POST /search with the CLI's credential, and
    measure the lists against the judgments. The searches see what the credential's groups see: use an admin
    key with the judges' groups, or judged passages behind a wall count as not found. With `apply`, the refit
    becomes the active calibration (at least REFIT_MINIMUM judged results; else nothing changes). `since`: only the
    judgments made or changed since then (after a change of the ranking, say). `client`: an open client of the API
    instead of one made for `api` with the CLI's credential."""
    with api_client(api, timeout=120) if client is None else nullcontext(client) as client:
        judgments, ranking = fetch_judgments(client, since)
        state = fetch_calibration(client)
        active = state["active"] if state else None
        topics = topics_of(judgments)
        run: Run = {}
        served: list[Graded] = []  # as search graded them now (under the active calibration, if any)
        rows: dict[str, list[dict[str, float]]] = defaultdict(list)
        per_query = []
        for topic in topics:
            judged = topic.qrels()
            response = client.post(
                "/search", json={"query": topic.query, "filters": topic.filters, "sort": topic.sort, "top_k": TOP_K}
            )
            response.raise_for_status()
            results = response.json()["results"]
            ranked = [result_key(r, judged) for r in results]
            run[topic.id] = ranked
            for key, result in zip(ranked, results, strict=True):
                if key in judged:
                    served.append(
                        Graded(topic.id, result["relevance"], result["relevance_probability"], judged[key] == 1)
                    )
            metrics = query_metrics(ranked, judged)
            unjudged, shown = unjudged_at(ranked, judged, 5)
            scores = {
                "hit@5": metrics["hit@5"],
                "ndcg@10": metrics["ndcg@10"],
                "unjudged@5": unjudged,
                "shown@5": shown,
            }
            groups = ["ALL"]
            if kind := topic.document_type():
                groups.append(f"type:{kind}")
            groups += [f"group:{g}" for g in sorted(topic.practice_groups)]
            for group in groups:
                rows[group].append(scores)
            per_query.append({"id": topic.id, "query": topic.query, "filters": topic.filters, "sort": topic.sort,
                              "judged": len(judged), "relevant": sum(judged.values()), "groups": groups[1:],
                              "precision@5": metrics["hit@5"], "ndcg@10": metrics["ndcg@10"],
                              "unjudged@5": unjudged / shown if shown else 0.0, "top": ranked})  # fmt: skip
        examples = shipped_examples(served, active)
        applied: dict[str, Any] | None = None
        if apply:
            body, why = calibration_to_apply(examples)
            if body is not None:
                response = client.put("/relevance/calibration", json=body)
                response.raise_for_status()
                applied = response.json()["active"]
    summary = _group_rows(rows) if rows else {}
    before = calibration(examples)
    refit = recalibrated(examples) if len(examples) >= REFIT_MINIMUM else None
    stored = None
    if active is not None:
        stored = calibration(served) | {"method": "platt", "a": active["a"], "b": active["b"], "id": active["id"],
                                        "fitted_on": active["judged_results"]}  # fmt: skip
    after = stored if stored is not None else refit
    under = Counter(j["ranking_id"] for j in judgments)
    judges = {j["judge"] for j in judgments}

    def say(text: str) -> None:
        console.print(text, markup=False, highlight=False, soft_wrap=True)

    say(
        f"{len(judgments)} judgments{f' since {since.isoformat()}' if since else ''} by {len(judges)} judges on"
        f" {len(topics)} queries; ranking now {ranking['id']}"
        f" (judged under {', '.join(f'{k}: {v}' for k, v in under.most_common()) or 'none'})"
    )
    say(format_judged_table(summary))
    columns = [("before: shipped", before)]
    if stored is not None:
        columns.append((f"after: active #{stored['id']}", stored))
    if refit is not None:
        columns.append(("refit (5-fold CV)", refit))
    say("calibration before (the shipped model) and after:")
    say(format_calibrations(columns))
    if stored is not None:
        say(f"  active #{stored['id']}: {platt_formula(stored['a'], stored['b'])}, fitted on"
            f" {stored['fitted_on']} judged results by {active['created_by']} at {active['created_at']}")  # fmt: skip
    elif state is None:
        say("  (the active calibration needs an administrator's key to read: probabilities taken as served)")
    if refit is not None:
        say(f"  refit: {platt_formula(refit['a'], refit['b'])} on {refit['results']} results")
    else:
        say(
            f"calibration after: a refit needs {REFIT_MINIMUM} judged results in the top {TOP_K} (have {len(examples)})"
        )
    if apply:
        if applied is not None:
            say(f"applied: calibration #{applied['id']} is active, {why}; search grades with it now")
        else:
            say(f"--apply: {why}; nothing changed")
    if trec_path:
        write_trec(topics, run, trec_path)
        say(f"qrels in {trec_path}, queries in {queries_path_of(trec_path)}, run in {run_path_of(trec_path)}")
    report: dict[str, Any] = {
        "judgments": len(judgments),
        "since": since.isoformat() if since else None,
        "judges": len(judges),
        "queries": len(topics),
        "ranking": ranking,
        "judged_under": dict(under),
        "metrics": summary,
        "calibration": {
            "before": before,
            "after": after,
            "active": stored,
            "refit": refit,
            "applied": applied,
            "refit_minimum": REFIT_MINIMUM,
        },
        "per_query": per_query,
    }
    if json_path:
        json_path.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    return report


def queries_path_of(trec_path: Path) -> Path:
    return trec_path.with_name(trec_path.stem + ".queries.jsonl")


def run_path_of(trec_path: Path) -> Path:
    return trec_path.with_name(trec_path.stem + ".run")


def write_trec(topics: list[Topic], run: Run, trec_path: Path) -> None:
    """The judgments as TREC qrels (query id: topic_id; document id: the passage), the queries as JSON lines
    (read_queries: `_id`, `text`, `group` the document type, and the filters and sort to re-run them) and this
    run (write_run), so evaluation.py's metrics run on the firm's set as on JurisTCU."""
    write_qrels({t.id: t.qrels() for t in topics}, trec_path)
    with queries_path_of(trec_path).open("w", encoding="utf-8") as out:
        for t in topics:
            row = {"_id": t.id, "text": t.query, "group": t.document_type(), "filters": t.filters, "sort": t.sort}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    scores = {qid: [1.0 / rank for rank in range(1, len(docs) + 1)] for qid, docs in run.items()}
    write_run(run, scores, run_path_of(trec_path), "judged")
