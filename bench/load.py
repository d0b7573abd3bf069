"""Load: 20 lawyers searching at once for 2 minutes against a 10,000-document index, while ingestion runs.

A real `precedente up` (every service, embedded PostgreSQL and broker, authentication on) gets 10,000 synthetic
documents written straight into its database (bench/search_scale.py's corpus: real legal sentences recombined, real
vectors mixed; chunks per document as a firm's base has them, about 20 on average), then people made through the admin
API sign in and search in closed loops with JurisTCU's queries (each its own account and groups, with an optional think
time between searches), while the real PDFs of ../shared/docs go through the whole pipeline (--archive: the 94 of
../shared/archive, all uploaded at once; --no-ingest: none). Reports throughput, p50/p95/p99 latency, errors by status,
CPU per search, the statements PostgreSQL's busy backends ran (sampled), and what ingestion did meanwhile (chunks
indexed during the searches, and the time the stages yielded to search: shared/runtime/search_load.py,
PRECEDENTE_ADMISSION_ENABLED=false turns it off to compare). Prints the CPU, its flags and the load average first: the
figures depend on them. Target (issues #15, #31): p95 <= 1.5 s and no errors, with and without ingestion.

    .venv/bin/python bench/load.py [--documents 10000] [--searchers 20] [--seconds 120] [--think 0]
        [--no-ingest | --archive [--warmup 120]]
"""

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import asyncpg  # noqa: E402
import httpx  # noqa: E402
import psutil  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import search_scale  # noqa: E402

from precedente.harness import FINAL, RunningStack  # noqa: E402
from precedente.shared.embeddings.openvino_e5 import cpu_flags  # noqa: E402
from precedente.shared.infra.db import create_pool  # noqa: E402
from precedente.shared.infra.lexicon import refresh_statistics  # noqa: E402
from precedente.shared.settings import Settings  # noqa: E402
from precedente.stack import usable_cores  # noqa: E402

SHARED = search_scale.SHARED
GROUP_SETS = [["contencioso"], ["tributario"], ["trabalhista"], ["contencioso", "diretoria"], []]


async def build_index(database_url: str, documents: int) -> tuple[int, int]:
    """Write `documents` synthetic documents and their chunks into the stack's database; (documents, chunks)."""
    base, lengths = search_scale.load_base(Settings())
    corpus = search_scale.Corpus(base, lengths)
    made_documents, made_chunks = [], []
    for _ in range(documents):
        document, chunks = corpus.document()
        made_documents.append(document)
        made_chunks += chunks
    pool = await create_pool(database_url, max_size=2)
    try:
        async with pool.acquire() as conn:
            await conn.execute("SET maintenance_work_mem = '1GB'")
            timings = await search_scale.load(conn, made_documents, made_chunks, "after")
        await refresh_statistics(pool)
    finally:
        await pool.close()
    print("  " + ", ".join(f"{what} {seconds:.0f} s" for what, seconds in timings.items()), flush=True)
    return len(made_documents), len(made_chunks)


FLAGS = ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_bf16", "amx_int8")
SERVICES_THAT_YIELD = ("extractor", "cleaner", "chunker", "annotator", "indexer")


def machine() -> str:
    """The CPU, the flags its kernels depend on, the cores this process may use and the load average now."""
    model = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")),
        "unknown CPU",
    )  # fmt: skip
    flags = ", ".join(flag for flag in FLAGS if flag in cpu_flags()) or "none of " + ", ".join(FLAGS)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    admission = Settings().admission_enabled
    return f"{model}; {flags}; {usable_cores()} usable cores; load average {load}; admission control {admission}"


def yields(stack: RunningStack) -> tuple[int, float]:
    """How often and how long the pipeline's stages yielded to search so far, from their logs
    (shared/runtime/search_load.py logs each wait that happened)."""
    count, seconds = 0, 0.0
    for name in SERVICES_THAT_YIELD:
        for replica in range(8):
            for line in stack.service_log(name, replica).splitlines():
                if ": yielded " in line and " s to search" in line:
                    count += 1
                    seconds += float(line.split(": yielded ", 1)[1].split(" s to search", 1)[0])
    return count, seconds


def ingest_in_background(stack: RunningStack, stop: threading.Event, report: dict, archive: bool) -> None:
    """Upload the real sample PDFs (again and again, each time as new content) until told to stop; with
    `archive`, every PDF of ../shared/archive once, at once, as a firm's drive arrives: the pipeline stays busy
    (OCR, embedding) for the whole run."""
    files = sorted((SHARED / ("archive" if archive else "docs")).glob("*.pdf"))
    ids: dict[str, None] = {}
    with httpx.Client(base_url=stack.url, timeout=120, headers=stack.client.headers) as client:
        for round_ in [0] if archive else itertools.count():
            for path in files:
                if stop.is_set():
                    break
                data = path.read_bytes()
                if not archive:
                    data += f"\n%% load round {round_}\n".encode()  # a new version each round
                answer = client.post(
                    "/documents",
                    files={"file": (path.name, data, "application/pdf")},
                    data={"external_id": f"load:{round_}:{path.name}"},
                )
                if answer.status_code in (200, 202):
                    ids[answer.json()["document_id"]] = None
                else:
                    report.setdefault("upload_errors", Counter())[answer.status_code] += 1
                if not archive:
                    time.sleep(2)
            if stop.is_set():
                break
    report["uploaded"] = len(ids)
    report["ids"] = list(ids)


def cpu_seconds(stack: RunningStack) -> dict[tuple[str, int], float]:
    """CPU time so far, per process, of the search service, of the PostgreSQL backends serving it (found by
    their client's port among the search service's sockets) and of the rest of the stack's PostgreSQL (its
    postmaster, the backends of ingestion's services, autovacuum...): what a search costs the database, told
    apart from what ingestion's writes cost it. Keyed by (what, pid): a backend started meanwhile counts whole."""
    search = stack.service_processes("search")
    spent = {("search", p.pid): sum(p.cpu_times()[:2]) for p in search}
    search_ports = set()
    for process in search:
        with contextlib.suppress(psutil.Error):
            search_ports |= {c.laddr.port for c in process.net_connections("tcp") if c.raddr}
    for process in psutil.process_iter(["cmdline"]):
        try:
            if str(stack.data_dir) not in " ".join(process.info["cmdline"] or []) or "postgres" not in process.name():
                continue
            for backend in [process, *process.children()]:
                with contextlib.suppress(psutil.Error):
                    clients = {c.raddr.port for c in backend.net_connections("tcp") if c.raddr}
                    what = "postgres for search" if clients & search_ports else "postgres other"
                    spent[what, backend.pid] = sum(backend.cpu_times()[:2])
        except psutil.Error:
            continue
    return spent


def cpu_spent(before: dict[tuple[str, int], float], after: dict[tuple[str, int], float]) -> dict[str, float]:
    """CPU seconds spent between two cpu_seconds snapshots, by what spent them."""
    spent: Counter = Counter({"search": 0.0, "postgres for search": 0.0, "postgres other": 0.0})
    for (what, pid), seconds in after.items():
        spent[what] += seconds - before.get((what, pid), 0.0)
    return dict(spent)


def sample_activity(database_url: str, stop: threading.Event, seen: Counter, every: float = 0.2) -> None:
    """What PostgreSQL's busy backends are running, sampled every `every` seconds until told to stop: the share
    of samples per statement (its first words) says where the database's time goes (search's candidates, the
    indexer's writes, the statistics' refresh...) without pg_stat_statements."""

    async def run() -> None:
        conn = await asyncpg.connect(database_url)
        try:
            while not stop.is_set():
                rows = await conn.fetch(
                    "SELECT query FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid()"
                    " AND backend_type = 'client backend'"
                )
                for row in rows:
                    seen[" ".join((row["query"] or "?").split())[:70]] += 1
                seen["(samples)"] += 1
                await asyncio.sleep(every)
        finally:
            await conn.close()

    asyncio.run(run())


async def searcher(url: str, token: str, queries: list[str], until: float, think: float, seed: int) -> list:
    rng = random.Random(seed)
    outcomes = []
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=60) as client:
        if think:  # people do not all press Enter in the same instant: start spread over one think time
            await asyncio.sleep(rng.uniform(0, think))
        while time.monotonic() < until:
            started = time.perf_counter()
            try:
                answer = await client.post("/search", json={"query": rng.choice(queries), "top_k": 5})
                outcomes.append((time.perf_counter() - started, answer.status_code))
            except httpx.HTTPError as err:
                outcomes.append((time.perf_counter() - started, type(err).__name__))
            if think:
                await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
    return outcomes


def search_phase(
    stack: RunningStack, tokens: list[str], queries: list[str], args: argparse.Namespace, label: str
) -> None:
    """Every searcher in its closed loop for args.seconds, then the phase's figures printed under `label`."""
    stop, activity = threading.Event(), Counter()
    load_before, cpu_before = os.getloadavg()[0], cpu_seconds(stack)
    sampler = threading.Thread(target=sample_activity, args=(stack.owner_database_url(), stop, activity), daemon=True)
    sampler.start()

    async def run_all() -> list:
        until = time.monotonic() + args.seconds
        runs = [searcher(stack.url, t, queries, until, args.think, i) for i, t in enumerate(tokens)]
        return [o for outcome in await asyncio.gather(*runs) for o in outcome]

    began = time.perf_counter()
    outcomes = asyncio.run(run_all())
    wall = time.perf_counter() - began
    load_after, cpu_after = os.getloadavg()[0], cpu_seconds(stack)
    stop.set()
    sampler.join(timeout=5)
    latencies = [seconds * 1000 for seconds, status in outcomes if status == 200]
    errors = Counter(str(status) for _, status in outcomes if status != 200)
    print(f"\n{label}: {args.searchers} searchers, {wall:.0f} s, think time {args.think} s, "
          f"load average {load_before:.1f} -> {load_after:.1f} ({usable_cores()} cores)")  # fmt: skip
    print(f"searches: {len(outcomes)} ({len(outcomes) / wall:.1f}/s), errors: {dict(errors) or 0}")
    per_search = {
        what: 1000 * seconds / max(len(outcomes), 1) for what, seconds in cpu_spent(cpu_before, cpu_after).items()
    }
    print("CPU per search: " + ", ".join(f"{what} {ms:.0f} ms" for what, ms in per_search.items()))
    if latencies:
        spread = search_scale.summary(latencies)
        print(f"latency ms: p50 {spread['p50']:.0f}  p95 {spread['p95']:.0f}  p99 {spread['p99']:.0f}"
              f"  max {max(latencies):.0f}")  # fmt: skip
    samples = activity.pop("(samples)", 0) or 1
    print("PostgreSQL's busy backends, mean per sample, by statement:")
    for statement, n in activity.most_common(6):
        print(f"  {n / samples:5.2f}  {statement}")


async def chunk_count(database_url: str) -> int:
    conn = await asyncpg.connect(database_url)
    try:
        return int(await conn.fetchval("SELECT count(*) FROM chunks"))
    finally:
        await conn.close()


def ingestion_stages(stack: RunningStack, ingestion: dict) -> Counter:
    return Counter(stack.status(i)["stage"] for i in ingestion.get("ids", []))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=10_000)
    parser.add_argument("--searchers", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--think", type=float, default=0.0, help="mean seconds between a searcher's searches")
    parser.add_argument("--no-ingest", action="store_true", help="searchers only, to tell their cost from ingestion's")
    parser.add_argument("--archive", action="store_true", help="ingest ../shared/archive (94 PDFs) instead of docs/")
    parser.add_argument("--warmup", type=float, default=5, help="seconds of ingestion before the searchers start")
    parser.add_argument(
        "--after", action="store_true", help="with --archive: search again once it is all ingested (same index)"
    )
    args = parser.parse_args()
    lines = (SHARED / "bench" / "juristcu" / "queries.jsonl").read_text().splitlines()
    queries = [json.loads(line)["text"] for line in lines]
    with (
        tempfile.TemporaryDirectory(prefix="precedente-load-") as folder,
        RunningStack(Path(folder) / "stack") as stack,
    ):
        print(f"machine: {machine()}", flush=True)
        print(f"stack up at {stack.url}; writing {args.documents} documents into its index", flush=True)
        started = time.perf_counter()
        documents, chunks = asyncio.run(build_index(stack.owner_database_url(), args.documents))
        print(f"index: {documents} documents, {chunks} chunks in {time.perf_counter() - started:.0f} s", flush=True)
        tokens = []
        for n in range(args.searchers):
            groups = ",".join(GROUP_SETS[n % len(GROUP_SETS)])
            header = stack.headers(groups or None, user=f"advogado{n:02d}", roles=())
            tokens.append(header["Authorization"].removeprefix("Bearer "))
        stop, ingestion = threading.Event(), {}
        uploader = threading.Thread(
            target=ingest_in_background, args=(stack, stop, ingestion, args.archive), daemon=True
        )
        if not args.no_ingest:
            uploader.start()
            time.sleep(args.warmup)  # ingestion under way before the searchers start
        label = "without ingestion" if args.no_ingest else "while ingesting"
        indexed_before, yields_before = asyncio.run(chunk_count(stack.owner_database_url())), yields(stack)
        began = time.perf_counter()
        search_phase(stack, tokens, queries, args, f"{label} ({documents} documents, {chunks} chunks)")
        indexed = asyncio.run(chunk_count(stack.owner_database_url())) - indexed_before
        seconds = time.perf_counter() - began
        yielded = [after - before for after, before in zip(yields(stack), yields_before, strict=True)]
        print(f"ingestion during the searches: {indexed} chunks indexed in {seconds:.0f} s ({indexed / seconds:.2f}/s);"
              f" stages yielded to search {yielded[0]:.0f} times, {yielded[1]:.0f} s in all")  # fmt: skip
        if not args.archive:
            stop.set()
        if uploader.is_alive():
            uploader.join(timeout=600)
        stages = ingestion_stages(stack, ingestion)
        finished = sum(n for stage, n in stages.items() if stage in FINAL)
        print(f"ingestion meanwhile: {ingestion.get('uploaded', 0)} PDFs uploaded, stages at the end {dict(stages)}"
              f" ({finished} finished), upload errors {dict(ingestion.get('upload_errors', {})) or 0}")  # fmt: skip
        if args.after and args.archive:
            waited = time.monotonic()
            final = stack.wait_final(dict.fromkeys(ingestion.get("ids", [])), timeout=3600)
            stages = Counter(status["stage"] for status in final.values())
            total = asyncio.run(chunk_count(stack.owner_database_url()))
            print(f"\narchive ingested {time.monotonic() - waited:.0f} s later: {dict(stages)}, {total} chunks")
            search_phase(stack, tokens, queries, args, "after ingestion (same index, archive in it)")


if __name__ == "__main__":
    main()
