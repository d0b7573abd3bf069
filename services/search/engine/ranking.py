"""Stage-1 ranking of the candidate pool: BM25 and dense similarity fused, then dense pseudo-relevance feedback.

The pool is the union of the dense and the lexical candidates, so both scores are known for every
candidate and can be fused on their values (z-scores over the pool) rather than on ranks alone. Each
choice here was measured on JurisTCU (see the issue notes): BM25 with Anserini's defaults (k1 0.9,
b 0.4) beats PostgreSQL's ts_rank; z-score fusion at 0.7 dense beats reciprocal ranks; moving the
query vector towards the mean of the top five (Rocchio, weight 0.5) lifts real users' short queries;
a passage that opens with the query's words (the lead: an ementa or enunciado states its subject
first, a section its heading) outranks one that mentions them in passing. The dense score is centred on
the query's language (services/search/languages.py): a passage in another language loses its language's
share of the cosine and gets the query language's, so an English directive that answers a Portuguese query
is no longer 0.02-0.03 behind every Portuguese passage; one in the query's language keeps its raw cosine.
Lexical feedback and the concept layer as query expansion were measured too and lost.
"""

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from precedente.shared.settings import Settings

RRF_K = 60


@dataclass(frozen=True)
class PoolEntry:
    """One candidate with what ranking needs: its vector, its length, its count of each query lexeme,
    where each first occurs (word position from 1, as in its tsvector) and its language (chunks.language)."""

    id: int
    embedding: np.ndarray
    lexemes: int
    term_counts: dict[str, int]
    first_positions: dict[str, int] = field(default_factory=dict)
    language: str = "pt"


@dataclass(frozen=True)
class CollectionStatistics:
    chunks: int
    mean_lexemes: float
    document_frequency: dict[str, int]


@dataclass(frozen=True)
class Ranking:
    fusion: Literal["weighted", "rrf"] = "weighted"
    dense_weight: float = 0.7
    bm25_k1: float = 0.9
    bm25_b: float = 0.4
    feedback_docs: int = 5
    feedback_weight: float = 0.5
    lead_weight: float = 0.3
    lead_words: float = 10.0
    lead_max_lexemes: int = 0  # the lead orders only queries of at most this many distinct lexemes; 0: every query
    authority_binding: float = 0.0  # steps.authority: added for a work that is a binding precedent; 0: off
    authority_ementa: float = 0.0  # steps.authority: added for a passage of the ementa; 0: off
    long_document_weight: float = 0.2  # steps.long_documents: times ln(the file's passages) subtracted; 0: off


def ranking_from(settings: Settings) -> Ranking:
    return Ranking(
        fusion=settings.search_fusion,
        dense_weight=settings.search_dense_weight,
        bm25_k1=settings.search_bm25_k1,
        bm25_b=settings.search_bm25_b,
        feedback_docs=settings.search_feedback_docs,
        feedback_weight=settings.search_feedback_weight,
        lead_weight=settings.search_lead_weight,
        lead_words=settings.search_lead_words,
        lead_max_lexemes=settings.search_lead_max_lexemes,
        authority_binding=settings.search_authority_binding,
        authority_ementa=settings.search_authority_ementa,
        long_document_weight=settings.search_long_document_weight,
    )


def bm25(pool: list[PoolEntry], lexemes: list[str], stats: CollectionStatistics, k1: float, b: float) -> np.ndarray:
    """Okapi BM25 (Lucene's idf) of each candidate for the query's lexemes, from the collection statistics.

    Statistics a little older than the newest chunks are fine; a lexeme they do not know yet counts as
    rare (document frequency 0).
    """
    if not pool:
        return np.zeros(0)
    total = max(stats.chunks, len(pool))
    mean_length = stats.mean_lexemes or float(np.mean([entry.lexemes for entry in pool])) or 1.0
    scores = np.zeros(len(pool))
    # Per lexeme over the whole pool at once, each term in the order (and so to the bit) of the scalar formula
    # idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / mean_length)).
    norm = k1 * (1 - b + b * np.array([entry.lexemes for entry in pool], dtype=np.float64) / mean_length)
    for lexeme in dict.fromkeys(lexemes):
        idf = _idf(min(stats.document_frequency.get(lexeme, 0), total), total)
        tf = np.array([entry.term_counts.get(lexeme, 0) for entry in pool], dtype=np.float64)
        held = tf > 0
        scores[held] += idf * tf[held] * (k1 + 1) / (tf[held] + norm[held])
    return scores


def _idf(frequency: int, total: int) -> float:
    return math.log(1 + (total - frequency + 0.5) / (frequency + 0.5))


def lead(pool: list[PoolEntry], lexemes: list[str], stats: CollectionStatistics, words: float) -> np.ndarray:
    """How early each candidate says the query's words: per lexeme 1 / (1 + words before it / `words`),
    0 when absent, averaged with idf weights (a rare term opening the passage says most about its subject).
    """
    total = max(stats.chunks, len(pool))
    weights = {
        lexeme: _idf(min(stats.document_frequency.get(lexeme, 0), total), total) for lexeme in dict.fromkeys(lexemes)
    }
    norm = sum(weights.values()) or 1.0
    scores = np.zeros(len(pool))
    for lexeme, weight in weights.items():  # lexeme by lexeme, as each candidate's sum adds them
        positions = [entry.first_positions.get(lexeme) for entry in pool]
        held = np.array([position is not None for position in positions], dtype=bool)
        if held.any():
            first = np.array([position for position in positions if position is not None], dtype=np.float64)
            scores[held] += weight / (1 + (first - 1) / words)
    return scores / norm


def _z(values: np.ndarray) -> np.ndarray:
    spread = values.std()
    return (values - values.mean()) / spread if spread > 0 else np.zeros_like(values)


def _reciprocal_ranks(values: np.ndarray) -> np.ndarray:
    ranks = np.empty(len(values))
    ranks[np.argsort(-values, kind="stable")] = np.arange(1, len(values) + 1)
    return 1.0 / (RRF_K + ranks)


def fuse(dense: np.ndarray, lexical: np.ndarray, ranking: Ranking, opening: np.ndarray | None = None) -> np.ndarray:
    """Dense and BM25 fused; the lead (`opening`) is added on the same scale, weighted by lead_weight."""
    if ranking.fusion == "rrf":
        fused = _reciprocal_ranks(dense) + _reciprocal_ranks(lexical)
    else:
        weight = min(max(ranking.dense_weight, 0.0), 1.0)
        fused = weight * _z(dense) + (1 - weight) * _z(lexical)
    return fused if opening is None else fused + lead_term(opening, ranking)


LEAD_FULL_SHARE = 0.7
"""The lead counts in full when the best opening holds this share of the query (idf-weighted, at its start), and in
proportion below it. Standardised over the pool, a heading holding two words of a paraphrase's eight ("2.10.5 Cartão
de crédito" for "juros abusivos em cartão de crédito rotativo: limite da taxa média do Bacen") was lifted as far as an
ementa opening with all of a keyword query's. bench/ranking_ablation.py, nDCG@10 / MRR@10 without the scale -> with it
(2026-12-06; 0.5 to 0.8 read alike, 1.0 lost JurisTCU G1 2 points): JurisTCU G1 60.1 / 82.8 -> 60.2 / 83.8, ALL 67.5
/ 94.3 -> 67.9 / 94.6, the firm's judged set 94.4 / 96.1 -> 95.1 / 97.6, paraphrase train 74.2 / 70.6 -> 79.4 /
76.7; the frozen test split, read after, 71.9 / 68.4 -> 73.7 / 70.2 (hit@5 88.7 -> 87.3, one query)."""


def lead_term(opening: np.ndarray, ranking: Ranking) -> np.ndarray:
    """The lead on the fused scores' own scale (reciprocal ranks or z-scores), weighted by lead_weight and by how
    much of the query the best opening holds (LEAD_FULL_SHARE)."""
    share = min(1.0, float(opening.max()) / LEAD_FULL_SHARE) if opening.size else 0.0
    return ranking.lead_weight * share * (_reciprocal_ranks(opening) if ranking.fusion == "rrf" else _z(opening))


@dataclass(frozen=True)
class PoolScores:
    """The fused score of each candidate and the parts the relevance grade reads, aligned with the pool."""

    fused: np.ndarray
    dense: np.ndarray  # cosine to the query as asked (before feedback), centred on the query's language
    opening: np.ndarray  # the lead, 0..1 (zeros when the lead is off)


def pool_matrix(pool: list[PoolEntry]) -> np.ndarray:
    """The pool's embeddings, row i for pool entry i, float32: one array built in C (np.vstack makes each row
    2-D first, a Python call per candidate)."""
    return np.array([entry.embedding for entry in pool], dtype=np.float32)
