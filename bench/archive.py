"""Archive benchmark: a real folder, or a synthetic archive, through `precedente up`.

With `--folder ../shared/archive` every file of the folder goes through the product as a firm's would:
`precedente ingest FOLDER --wait` against a stack on `precedente up`'s own sizing (its replicas and threads for
this machine's cores; `--extractors N` overrides the extractor count). Without it:

Generates N documents (default 2,000) into a temporary folder outside the repository from the page
texts of ../shared/docs: PDFs of 1 to 40 pages (most short, a long tail), each page a real page's text
under a header that makes the file unique, and a share of scans (`--scan-share`, default 10%) whose
pages are images only (the text page rendered at 150 dpi, grey), which the extractor must OCR. Then,
for each extractor count, a fresh stack ingests the whole archive and the script reports:

- documents/min and pages/min, end to end (first upload to the last document indexed, in review or
  failed) and for the extraction stage alone (first upload to the last document extracted);
- per stage, the median and p95 seconds a document spent there (from the ledger's history: from the
  previous stage's entry to this stage's entry), split into processing (the stage's own log line,
  "<stage>: <id> v1 ok in N s") and queue wait (the rest);
- back-pressure: the highest consumer lag each stage's group reached (messages waiting in the broker)
  and the highest resident memory of each stage's processes, sampled every 2 s;
- per stage, pages/s and chunks/s of its own work (pages or chunks of the documents it handled over the
  seconds its replicas spent on them: per replica), and the share of the run each stage was the limit: at
  each 2 s sample, the stage holding the most documents (waiting or in progress; ties go downstream, where
  the work is heavier), over the samples where any stage held one.

    .venv/bin/python bench/archive.py --folder ../shared/archive
    .venv/bin/python bench/archive.py [--documents 2000] [--extractors 1,2] [--scan-share 0.1] [--seed 7]

On 2 cores the full 2,000 documents take hours per configuration: `--documents 200` gives figures in
minutes. `--keep DIR` keeps the generated archive (and reuses it when it is already there).
"""

import argparse
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

import psutil
import pymupdf

from precedente.harness import RunningStack
from precedente.shared.runtime import pipeline

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
ORDER = [stage.value for stage in pipeline.LEDGER_ORDER]
SERVICE_OF = {stage.output_stage.value: stage.name for stage in pipeline.STAGES}
SERVICES = list(SERVICE_OF.values())
FINAL = ("indexed", "review", "failed")
HANDLED = re.compile(r"(\w+): ([0-9a-f-]{36}) v\d+ (\w+) in ([\d.]+) s")


def page_texts() -> list[str]:
    texts = []
    for path in sorted((SHARED / "docs").glob("*.pdf")):
        with pymupdf.open(path) as doc:
            texts.extend(t for t in (page.get_text() for page in doc) if len(t.strip()) > 300)
    if not texts:
        raise SystemExit(f"no page texts found under {SHARED / 'docs'}")
    return texts


def page_count(rng: random.Random) -> int:
    """1 to 40 pages: median about 4, a long tail of long decisions."""
    return min(40, max(1, int(rng.lognormvariate(1.4, 0.9))))


def generate(folder: Path, count: int, scan_share: float, seed: int) -> list[Path]:
    """Write the archive; returns its files (kept as they are when the folder already holds them)."""
    folder.mkdir(parents=True, exist_ok=True)
    existing = sorted(folder.glob("*.pdf"))
    if len(existing) == count:
        return existing
    texts = page_texts()
    rng = random.Random(seed)
    files = []
    for i in range(count):
        scan = rng.random() < scan_share
        pages = min(page_count(rng), 6) if scan else page_count(rng)
        start = rng.randrange(len(texts))
        text_doc = pymupdf.open()
        for p in range(pages):
            page = text_doc.new_page()
            body = f"Documento sintético {i}, página {p + 1}\n\n{texts[(start + p) % len(texts)]}"
            page.insert_textbox(pymupdf.Rect(50, 50, 545, 800), body, fontsize=9)
        if scan:
            out = pymupdf.open()
            for page in text_doc:
                pix = page.get_pixmap(dpi=150, colorspace=pymupdf.csGRAY)
                out.new_page(width=page.rect.width, height=page.rect.height).insert_image(page.rect, pixmap=pix)
            text_doc.close()
            text_doc = out
        path = folder / f"{i:05}_{'scan' if scan else 'text'}_{pages:02}p.pdf"
        text_doc.save(path, garbage=3, deflate=True)
        text_doc.close()
        files.append(path)
    return files


class Sampler:
    """Every 2 s: the consumer lag per group (GET /status) and the memory of each stage's processes."""

    def __init__(self, stack: RunningStack) -> None:
        self.stack = stack
        self.max_lag: dict[str, int] = defaultdict(int)
        self.max_rss_mb: dict[str, float] = defaultdict(float)
        self.limit_samples: dict[str, int] = defaultdict(int)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        while not self.stop.wait(2):
            try:
                rows = self.stack.client.get("/status", timeout=10).json()["pipeline"]
                for row in rows:
                    self.max_lag[row["service"]] = max(self.max_lag[row["service"]], row["lag"] or 0)
                held = max(rows, key=lambda row: (row["pending"], ORDER.index(row["input_stage"])), default=None)
                if held is not None and held["pending"] > 0:
                    self.limit_samples[held["service"]] += 1
            except Exception:  # noqa: BLE001, S112 - a missed sample is no reason to stop the run
                pass
            for name in SERVICES:
                try:
                    processes = self.stack.service_processes(name)
                    rss = [p.memory_info().rss / 2**20 for p in processes]
                except (psutil.Error, AssertionError):
                    continue
                if rss:
                    self.max_rss_mb[name] = max(self.max_rss_mb[name], max(rss))


def run_configuration(
    files: list[Path],
    extractors: int | None,
    indexers: int | None,
    workdir: Path,
    folder: Path | None = None,
    include: str = "*",
) -> dict:
    """One stack, the files through it; with `folder`, through `precedente ingest FOLDER --wait`."""
    replicas = {name: n for name, n in (("extractor", extractors), ("indexer", indexers)) if n is not None}
    # Only what is asked: an empty PRECEDENTE_UP_REPLICAS would be a configuration (one of each) overriding up's sizing.
    env = {"PRECEDENTE_UP_REPLICAS": json.dumps(replicas)} if replicas else {}
    stack = RunningStack(workdir / f"stack-{extractors or 'up'}x", env)
    stack.start()
    sampler = Sampler(stack)
    try:
        sampler.thread.start()
        started = time.time()
        if folder is None:
            for path in files:
                stack.upload(path, external_id=f"archive:{path.name}")
        else:
            command = [str(Path(sys.executable).with_name("precedente")), "ingest", str(folder), "--wait"]
            ingest = subprocess.run(  # noqa: S603 - our own CLI
                [*command, "--include", include, "--interval", "10", "--timeout", "7200", "--json"],
                env=stack.cli_env(), capture_output=True, text=True, check=False,
            )  # fmt: skip
            if ingest.returncode not in (0, 1):  # 1: some file ended in review or failed, which is reported below
                raise SystemExit(f"precedente ingest exited {ingest.returncode}: {ingest.stderr[-2000:]}")
        uploaded = time.time()
        while True:
            left = int(stack.sql(f"SELECT count(*) FROM documents WHERE stage NOT IN {FINAL}"))
            if left == 0:
                break
            time.sleep(2)
        rows = json.loads(
            stack.sql(
                "SELECT json_agg(json_build_object('id', d.id, 'stage', d.stage, 'pages', d.page_count,"
                " 'chunks', d.chunk_count, 'ocr_pages', cardinality(d.ocr_pages),"
                " 'history', (SELECT json_agg(json_build_array(h.stage,"
                " extract(epoch FROM h.at)) ORDER BY h.at, h.id) FROM document_history h"
                " WHERE h.document_id = d.id AND h.version = d.version))) FROM documents d"
            )
        )
        processing: dict[str, dict[str, float]] = defaultdict(dict)
        for name in SERVICES:
            for log in (stack.data_dir / "logs").glob(f"{name}*.log"):  # one per replica
                for match in HANDLED.finditer(log.read_text(errors="replace")):
                    if match.group(1) == name and match.group(3) == "ok":
                        processing[name][match.group(2)] = float(match.group(4))
    finally:
        sampler.stop.set()
        stack.stop()
        stack.client.close()
    result = summarize(rows, processing, started, uploaded, extractors, sampler)
    return result | {"feeder": "uploads" if folder is None else "precedente ingest --wait"}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def summarize(
    rows: list[dict], processing: dict, started: float, uploaded: float, extractors: int, sampler: Sampler
) -> dict:
    outcome = defaultdict(int)
    spent: dict[str, list[float]] = defaultdict(list)
    waited: dict[str, list[float]] = defaultdict(list)
    worked: dict[str, list[float]] = defaultdict(list)
    handled: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))  # pages, chunks per stage
    last_final, last_extracted, pages, ocr_pages, chunks = started, started, 0, 0, 0
    for row in rows:
        outcome[row["stage"]] += 1
        pages += row["pages"] or 0
        chunks += row.get("chunks") or 0
        ocr_pages += row["ocr_pages"] or 0
        history = row["history"] or []
        last_final = max([last_final, *(at for _, at in history)])
        last_extracted = max([last_extracted, *(at for stage, at in history if stage == "extracted")])
        for (_, before), (stage, after) in zip(history, history[1:], strict=False):
            name = SERVICE_OF.get(stage)
            if name is None:
                continue
            gap = after - before
            spent[name].append(gap)
            work = processing.get(name, {}).get(row["id"])
            if work is not None:
                worked[name].append(work)
                waited[name].append(max(gap - work, 0.0))
                handled[name]["pages"] += row["pages"] or 0
                handled[name]["chunks"] += row.get("chunks") or 0
    wall = last_final - started
    extraction = last_extracted - started
    samples = sum(sampler.limit_samples.values()) or 1

    def per_second(name: str, what: str) -> float | None:
        busy = sum(worked[name])
        return round(handled[name][what] / busy, 2) if busy and handled[name][what] else None

    return {
        "extractors": extractors,
        "documents": len(rows),
        "outcome": dict(outcome),
        "pages": pages,
        "chunks": chunks,
        "ocr_pages": ocr_pages,
        "upload_s": round(uploaded - started, 1),
        "wall_s": round(wall, 1),
        "documents_per_min": round(len(rows) / wall * 60, 1),
        "pages_per_min": round(pages / wall * 60, 1),
        "extraction_wall_s": round(extraction, 1),
        "extracted_documents_per_min": round(len(rows) / extraction * 60, 1),
        "extracted_pages_per_min": round(pages / extraction * 60, 1),
        "stages": {
            name: {
                "documents": len(spent[name]),
                "median_s": round(statistics.median(spent[name]), 2),
                "p95_s": round(percentile(spent[name], 0.95), 2),
                "processing_median_s": round(statistics.median(worked[name]), 2) if worked[name] else None,
                "processing_p95_s": round(percentile(worked[name], 0.95), 2) if worked[name] else None,
                "processing_total_s": round(sum(worked[name]), 1),
                "queue_median_s": round(statistics.median(waited[name]), 2) if waited[name] else None,
                "queue_p95_s": round(percentile(waited[name], 0.95), 2) if waited[name] else None,
                "pages_per_s": per_second(name, "pages"),
                "chunks_per_s": per_second(name, "chunks"),
                "limit_share": round(sampler.limit_samples.get(name, 0) / samples, 3),
            }
            for name in SERVICES
            if spent[name]
        },
        "max_consumer_lag": dict(sampler.max_lag),
        "max_rss_mb": {k: round(v) for k, v in sampler.max_rss_mb.items()},
    }


def report(result: dict) -> None:
    extractors = result["extractors"] or "precedente up's"
    print(
        f"\n== {extractors} extractor process(es): {result['documents']} documents, {result['pages']} pages"
        f" ({result['ocr_pages']} OCR), {result['chunks']} chunks, outcome {result['outcome']}"
    )
    print(
        f"end to end: {result['wall_s']} s = {result['documents_per_min']} documents/min,"
        f" {result['pages_per_min']} pages/min ({result['feeder']} returned after {result['upload_s']} s)"
    )
    print(
        f"extraction: {result['extraction_wall_s']} s = {result['extracted_documents_per_min']} documents/min,"
        f" {result['extracted_pages_per_min']} pages/min"
    )
    header = ["stage", "median", "p95", "work med", "work p95", "work tot", "wait med", "wait p95", "pages/s",
              "chunks/s", "limit"]  # fmt: skip
    print("".join(f"{h:>10}" for h in header))
    for name, s in result["stages"].items():
        cells = [
            s["median_s"],
            s["p95_s"],
            s["processing_median_s"],
            s["processing_p95_s"],
            s["processing_total_s"],
            s["queue_median_s"],
            s["queue_p95_s"],
            s["pages_per_s"],
            s["chunks_per_s"],
            s["limit_share"],
        ]
        print(f"{name:>10}" + "".join(f"{'-' if c is None else f'{c:.2f}':>10}" for c in cells))
    print(f"highest consumer lag (messages held by the broker): {result['max_consumer_lag']}")
    print(f"highest resident memory per stage process, MB: {result['max_rss_mb']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, help="Ingest this folder's files (precedente ingest --wait) instead.")
    parser.add_argument("--include", default="*.pdf", help="With --folder: the files to ingest (a glob).")
    parser.add_argument("--documents", type=int, default=2000)
    parser.add_argument(
        "--extractors", help="Extractor process counts to run, comma-separated (default 1,2; with --folder, up's)."
    )
    parser.add_argument("--indexers", type=int, help="Indexer processes (default precedente up's).")
    parser.add_argument("--scan-share", type=float, default=0.1, help="Share of image-only (OCR) documents.")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="Keep the generated archive here (reused if complete).")
    parser.add_argument("--json", type=Path, help="Also write the results as JSON.")
    parser.add_argument(
        "--data-dir", type=Path, help="Keep the stacks' data here (`precedente up --data-dir` it again to search it)."
    )
    args = parser.parse_args()
    counts = args.extractors or ("" if args.folder else "1,2")
    configurations: list[int | None] = [int(n) for n in counts.split(",") if n] or [None]
    with tempfile.TemporaryDirectory(prefix="precedente-archive-") as tmp:
        began = time.perf_counter()
        if args.folder:
            files = sorted(p for p in args.folder.rglob(args.include) if p.is_file())
            print(f"folder: {len(files)} files, {sum(p.stat().st_size for p in files) / 2**20:.0f} MB in {args.folder}")
        else:
            folder = args.keep or Path(tmp) / "archive"
            files = generate(folder, args.documents, args.scan_share, args.seed)
            scans = sum("_scan_" in f.name for f in files)
            print(
                f"archive: {len(files)} PDFs ({scans} scans) in {folder}, made in {time.perf_counter() - began:.1f} s"
            )
        print(f"load average before: {' '.join(f'{n:.2f}' for n in psutil.getloadavg())}, {psutil.cpu_count()} cores")
        results = []
        for extractors in configurations:
            where = args.data_dir or Path(tmp)
            result = run_configuration(files, extractors, args.indexers, where, args.folder, args.include)
            report(result)
            results.append(result)
        if args.json:
            args.json.write_text(json.dumps(results, indent=2))
    stamp = datetime.now().isoformat(timespec="seconds")
    print(f"\ndone {stamp}, load average {' '.join(f'{n:.2f}' for n in psutil.getloadavg())}")


if __name__ == "__main__":
    main()
