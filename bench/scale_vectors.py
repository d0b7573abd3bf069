"""On a database bench/search_scale.py kept (--keep): halfvec against float HNSW, the statistics' refresh while
documents arrive, and the plan of the per-language nearest-passage list.

halfvec: an HNSW index over (embedding::halfvec(384)) halfvec_cosine_ops beside today's float one (vectors stay
float in the table, so the pool re-scores them exactly). Exact nearest passages are computed in numpy over every
chunk's float vector (checked against PostgreSQL's sequential scan, ORDER BY embedding <=> q, on a few queries);
each index's list of 100 (the search's dense candidates, hnsw.ef_search 200 as the engine sets it) is compared with
them raw and after the exact re-score. Queries: JurisTCU's 150, and sentences of the base texts up to --queries.

refresh: shared/infra/lexicon.py refresh_statistics() timed idle, then while a writer copies documents' chunks into the
indexed table (as the indexer does, a few hundred at a time); those chunks are English-labelled, so the language list
(services/search/languages.py) is then explained with the search's own SQL, and they are deleted at the end.

    .venv/bin/python bench/scale_vectors.py --keep /tmp/scale-1m [--what halfvec,refresh] [--queries 200]
"""

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import asyncpg  # noqa: E402
import numpy as np  # noqa: E402
import psutil  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import search_scale  # noqa: E402

from precedente.services.search.engine import candidates as pool_statement  # noqa: E402
from precedente.services.search.engine import context  # noqa: E402
from precedente.services.search.engine.models import SearchFilters, SearchRequest  # noqa: E402
from precedente.shared.embeddings.embedders import get_embedder  # noqa: E402
from precedente.shared.infra.db import create_pool  # noqa: E402
from precedente.shared.infra.embedded import EmbeddedPostgres  # noqa: E402
from precedente.shared.infra.lexicon import refresh_statistics  # noqa: E402
from precedente.shared.settings import Settings  # noqa: E402

MIB = 1024 * 1024
HALF_INDEX = "bench_chunks_embedding_half"
DENSE, EF_SEARCH = 100, 200  # engine/candidates.py: Candidates.dense 100, hnsw.ef_search = 2 x dense
FLOAT_SQL = "SELECT id FROM chunks c WHERE {where} ORDER BY c.embedding <=> $1 LIMIT $2"
HALF_SQL = "SELECT id FROM chunks c WHERE {where} ORDER BY c.embedding::halfvec(384) <=> $1::halfvec(384) LIMIT $2"
WRITER_TAG = "bench-writer:"


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


async def all_vectors(conn: asyncpg.Connection) -> tuple[np.ndarray, np.ndarray]:
    """Every chunk's id and float vector, by binary COPY: fixed-size rows parsed as one numpy array."""
    started = time.perf_counter()
    parts: list[bytes] = []

    async def sink(data: bytes) -> None:
        parts.append(data)

    await conn.copy_from_query("SELECT id, embedding FROM chunks ORDER BY id", output=sink, format="binary")
    data = b"".join(parts)
    parts.clear()
    row = np.dtype([("n", ">i2"), ("l1", ">i4"), ("id", ">i8"), ("l2", ">i4"), ("dim", ">i2"), ("unused", ">i2"),
                    ("v", ">f4", 384)])  # fmt: skip
    count = (len(data) - 19 - 2) // row.itemsize
    rows = np.frombuffer(data, dtype=row, count=count, offset=19)
    assert (rows["dim"] == 384).all() and (rows["n"] == 2).all()
    ids, vectors = rows["id"].astype(np.int64), rows["v"].astype(np.float32)
    print(f"  {len(ids)} vectors read in {time.perf_counter() - started:.0f} s", flush=True)
    return ids, vectors


async def nearest(conn: asyncpg.Connection, sql: str, vector: np.ndarray, limit: int) -> tuple[list[int], float]:
    """One index's nearest list as the search asks for it (ef_search, iterative scan), and its time (ms)."""
    async with conn.transaction():
        await conn.execute(f"SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = {EF_SEARCH}")
        started = time.perf_counter()
        rows = await conn.fetch(sql, vector, limit)
        return [r[0] for r in rows], _ms(started)


def summary(values: list[float]) -> str:
    v = np.array(values)
    return f"p50 {np.percentile(v, 50):6.1f}  p95 {np.percentile(v, 95):6.1f}  p99 {np.percentile(v, 99):6.1f} ms"


async def halfvec(conn: asyncpg.Connection, args: argparse.Namespace) -> None:
    settings = Settings()
    embedder = get_embedder(settings)
    lines = (search_scale.SHARED / "bench" / "juristcu" / "queries.jsonl").read_text().splitlines()
    texts = [json.loads(line)["text"] for line in lines][: args.queries]
    base, _ = search_scale.load_base(settings)
    rng = random.Random(7)
    while len(texts) < args.queries:  # more queries: sentences of the real texts, read as queries
        sentences = [s for s in rng.choice(base.sentences) if 40 <= len(s) <= 300]
        if sentences:
            texts.append(rng.choice(sentences))
    vectors = [np.asarray(embedder.query(t), dtype=np.float32) for t in texts]
    print(f"  {len(vectors)} query vectors", flush=True)

    exists = await conn.fetchval("SELECT to_regclass($1) IS NOT NULL", HALF_INDEX)
    if not exists:
        await conn.execute(f"SET maintenance_work_mem = '{args.maintenance_work_mem}'")
        started = time.perf_counter()
        await conn.execute(
            f"CREATE INDEX {HALF_INDEX} ON chunks USING hnsw ((embedding::halfvec(384)) halfvec_cosine_ops)"
        )
        print(f"  halfvec HNSW built in {time.perf_counter() - started:.0f} s (load {os.getloadavg()[0]:.1f})")
    for name in ("chunks_embedding", HALF_INDEX):
        size = await conn.fetchval("SELECT pg_relation_size($1::regclass)", name)
        print(f"  {name}: {size / MIB:.0f} MiB", flush=True)
    for label, sql in (("float", FLOAT_SQL), ("halfvec", HALF_SQL)):
        plan = await conn.fetch("EXPLAIN " + sql.format(where="true"), vectors[0], DENSE)
        print(f"  {label} plan: " + re.sub(r"'\[[-0-9.e,]+\]'", "'[q]'", " / ".join(r[0].strip() for r in plan[:3])))

    ids, matrix = await all_vectors(conn)
    position = {int(i): n for n, i in enumerate(ids)}
    q = np.stack(vectors)
    exact = []
    for start in range(0, len(q), 20):
        scores = q[start : start + 20] @ matrix.T
        top = np.argpartition(-scores, 100, axis=1)[:, :100]
        for row, cand in zip(scores, top, strict=True):
            exact.append(ids[cand[np.argsort(-row[cand])]].tolist())
    async with conn.transaction():  # the numpy exact list is the sequential scan's, on a few queries
        await conn.execute("SET LOCAL enable_indexscan = off")
        for i in range(3):
            started = time.perf_counter()
            rows = await conn.fetch("SELECT id FROM chunks ORDER BY embedding <=> $1 LIMIT 10", vectors[i])
            agree = len({r[0] for r in rows} & set(exact[i][:10]))
            print(f"  sequential scan, query {i}: {agree}/10 of numpy's exact top 10 ({_ms(started):.0f} ms)")

    def rescored(found: list[int], qi: int) -> list[int]:
        rows = [position[i] for i in found]
        scores = matrix[rows] @ q[qi]
        return [found[j] for j in np.argsort(-scores)]

    def recall(found: list[int], truth: list[int], k: int) -> float:
        return len(set(found[:k]) & set(truth[:k])) / k

    filters = {
        "no filter": ("true", []),
        "court stj": ("c.court = 'stj'", []),
        "selective (stj acordao 2015-19)": (
            "c.court = 'stj' AND c.document_type = 'acordao' AND c.document_date BETWEEN '2015-01-01' AND '2019-12-31'",
            [],
        ),
    }
    for mode, (where, _) in filters.items():
        truth = exact
        if where != "true":  # exact under the filter: the filtered rows' vectors
            keep = await conn.fetch(f"SELECT id FROM chunks c WHERE {where}")
            rows = np.array(sorted(position[r[0]] for r in keep))
            sub, sub_ids = matrix[rows], ids[rows]
            truth = []
            for start in range(0, len(q), 20):
                scores = q[start : start + 20] @ sub.T
                top = np.argpartition(-scores, 100, axis=1)[:, :100]
                truth += [sub_ids[c[np.argsort(-r[c])]].tolist() for r, c in zip(scores, top, strict=True)]
            print(f"\n  {mode}: {len(rows)} chunks pass ({len(rows) / len(ids):.1%})")
        else:
            print(f"\n  {mode}")
        found: dict[str, list[list[int]]] = {"float": [], "halfvec": []}
        times: dict[str, list[float]] = {"float": [], "halfvec": []}
        for warm in (True, False):
            for vector in vectors:
                for label, sql in (("float", FLOAT_SQL), ("halfvec", HALF_SQL)):
                    got, ms = await nearest(conn, sql.format(where=where), vector, DENSE)
                    if not warm:
                        found[label].append(got)
                        times[label].append(ms)
        for label in ("float", "halfvec"):
            raw = found[label]
            fixed = [rescored(f, i) for i, f in enumerate(raw)]
            line = [f"{label:8}", summary(times[label]), f"short {sum(len(f) < DENSE for f in raw)}"]
            for k in (10, 50):
                line.append(
                    f"recall@{k} raw {statistics.mean(recall(f, t, k) for f, t in zip(raw, truth, strict=True)):.4f}"
                )
                line.append(
                    f"re-scored {statistics.mean(recall(f, t, k) for f, t in zip(fixed, truth, strict=True)):.4f}"
                )
            print("    " + "  ".join(line), flush=True)
        same10 = statistics.mean(
            recall(rescored(h, i), rescored(f, i), 10)
            for i, (h, f) in enumerate(zip(found["halfvec"], found["float"], strict=True))
        )
        print(f"    halfvec's re-scored top 10 against float HNSW's: {same10:.4f}", flush=True)


async def writer(pool: asyncpg.Pool, corpus: search_scale.Corpus, stop: asyncio.Event, counts: list[int]) -> None:
    """Documents of ~20 chunks copied one at a time into the indexed table, as the indexer writes them."""
    leftover: list = []
    async with pool.acquire() as conn:
        while not stop.is_set():
            documents, chunks = corpus.take(200, leftover)
            for d in documents:
                d["external_id"] = WRITER_TAG + d["external_id"]
                d["language"] = "en"
            for c in chunks:
                c["language"] = "en"
            if documents:
                columns, rows = search_scale.records(documents, list(documents[0]))
                await conn.copy_records_to_table("documents", columns=columns, records=rows)
            await search_scale.copy_chunks(conn, "chunks", chunks)
            counts.append(len(chunks))


async def refresh(pool: asyncpg.Pool, base: search_scale.Base, lengths: list[int], args: argparse.Namespace) -> None:
    if not args.skip_idle:
        started = time.perf_counter()
        await refresh_statistics(pool)
        print(f"  refresh, idle: {time.perf_counter() - started:.1f} s (load {os.getloadavg()[0]:.1f})", flush=True)
    corpus = search_scale.Corpus(base, lengths, rng=random.Random(99), noise=np.random.default_rng(99))
    stop, counts = asyncio.Event(), []
    task = asyncio.create_task(writer(pool, corpus, stop, counts))
    started = time.perf_counter()
    while sum(counts) < args.warm_writes:  # enough English passages for a centroid (MIN_CHUNKS 200)
        await asyncio.sleep(1)
    rate = sum(counts) / (time.perf_counter() - started)
    print(f"  writer: {sum(counts)} chunks in {time.perf_counter() - started:.0f} s ({rate:.1f} chunks/s)", flush=True)
    before = sum(counts)
    started = time.perf_counter()
    await refresh_statistics(pool)
    took = time.perf_counter() - started
    written = sum(counts) - before
    print(f"  refresh while the writer copies: {took:.1f} s; {written} chunks written meanwhile"
          f" ({written / took:.1f} chunks/s; load {os.getloadavg()[0]:.1f})", flush=True)  # fmt: skip
    stop.set()
    await task
    async with pool.acquire() as conn:  # the planner sees the English rows (autovacuum would, in time)
        await conn.execute("ANALYZE chunks")


async def languages(pool: asyncpg.Pool) -> None:
    """The search's SQL with the other languages' lists ($18 by the HNSW index, $19 read exactly): which index
    serves each?"""
    settings = Settings()
    embedder = get_embedder(settings)
    candidates = pool_statement.Candidates(settings.search_candidates, settings.search_lexical_candidates).at_least(5)
    groups = search_scale.GROUPS_HEADER.split(",")
    async with pool.acquire() as conn:
        counts = await conn.fetch("SELECT language, chunks FROM language_centroids ORDER BY language")
        print("  centroids: " + ", ".join(f"{r[0]} {r[1]}" for r in counts))
    for text, filters in (
        ("responsabilidade solidária do tomador de serviços", SearchFilters()),
        ("dano moral", SearchFilters(court=["stj"], document_type=["acordao"])),
    ):
        request = SearchRequest(query=text, filters=filters, top_k=5)
        vector = embedder.query(text)
        async with pool.acquire() as conn:
            lexemes, stats = await context.query_terms(conn, text)
            centring = await context.centring(conn, text, vector, candidates=candidates)
        arguments = pool_statement.pool_parameters(
            request, vector, groups, candidates, lexemes, stats, None, centring.languages, centring.exact
        )
        plan = await search_scale.explain(pool, pool_statement.CANDIDATES + pool_statement.POOL, arguments, candidates)
        print(f"\n  {text!r} {filters.model_dump(exclude_none=True)}: languages {centring.languages},"
              f" {plan['Execution Time']:.1f} ms")  # fmt: skip
        for sub in walk(plan["Plan"]):
            if sub.get("Subplan Name") == "CTE dense_languages" or sub.get("Subplan Name") == "CTE dense":
                print("    " + "\n    ".join(describe(sub, 0)))


def walk(node: dict):
    yield node
    for child in node.get("Plans", []):
        yield from walk(child)


def describe(node: dict, depth: int) -> list[str]:
    what = node["Node Type"] + "".join(
        f" {key}={node[key]}" for key in ("Subplan Name", "Relation Name", "Index Name", "Sort Key", "Filter",
                                          "Order By") if key in node)  # fmt: skip
    what = re.sub(r"'\[[-0-9.e,]+\]'", "'[q]'", what)  # the query vector, 384 numbers
    what += f" (rows {node.get('Actual Rows')} x {node.get('Actual Loops')}, {node.get('Actual Total Time')} ms)"
    lines = ["  " * depth + what]
    for child in node.get("Plans", []):
        lines += describe(child, depth + 1)
    return lines


async def cleanup(pool: asyncpg.Pool) -> None:
    async with pool.acquire() as conn:
        started = time.perf_counter()
        n = await conn.fetchval(
            "WITH gone AS (DELETE FROM documents WHERE starts_with(external_id, $1) RETURNING 1) SELECT count(*)"
            " FROM gone",
            WRITER_TAG,
        )
        await conn.execute("VACUUM ANALYZE chunks")
        print(f"  {n} writer documents deleted, chunks vacuumed in {time.perf_counter() - started:.0f} s")
    await refresh_statistics(pool)


async def run(url: str, args: argparse.Namespace) -> None:
    pool = await create_pool(url, max_size=4)
    try:
        if "halfvec" in args.what:
            print("\n== halfvec", flush=True)
            async with pool.acquire() as conn:
                await halfvec(conn, args)
        if "refresh" in args.what:
            print("\n== statistics refresh while documents arrive", flush=True)
            base, lengths = search_scale.load_base(Settings())
            await refresh(pool, base, lengths, args)
            print("\n== the per-language nearest-passage list", flush=True)
            await languages(pool)
            if not args.keep_writes:
                await cleanup(pool)
    finally:
        await pool.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keep", type=Path, required=True, help="the folder search_scale.py --keep built")
    parser.add_argument("--what", default="halfvec,refresh")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--maintenance-work-mem", default="3GB")
    parser.add_argument("--warm-writes", type=int, default=600, help="chunks written before the timed refresh")
    parser.add_argument("--skip-idle", action="store_true", help="no idle refresh first (search_scale.py timed one)")
    parser.add_argument("--keep-writes", action="store_true", help="leave the writer's English chunks in")
    args = parser.parse_args()
    postgres = EmbeddedPostgres(args.keep)
    url = postgres.start()
    try:
        asyncio.run(run(url, args))
        print(f"  Python RSS peak {psutil.Process().memory_info().rss / MIB:.0f} MiB")
    finally:
        postgres.stop()


if __name__ == "__main__":
    main()
