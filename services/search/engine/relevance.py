"""A calibrated relevance grade per result: "forte", "provável" or "fraca", and whether anything is strong.

Raw cosine similarity of e5 vectors says little: every passage, even for "xyzzy qwerty", sits between
0.80 and 0.92. The grade is the probability that a judge would call the result relevant, from a logistic
model over features that mean something on any collection: how far the passage's similarity stands above
the query's own background (the median of its candidates), how much of the query's vocabulary it holds
(idf-weighted), whether it opens with the query's words, how far its fused score stands out, and whether
the query's words exist in the collection at all (a nonsense word has no document frequency), and how
specific its rarest known word is ("direito" alone is in half of a legal collection: it says nothing).
The model is fitted by bench/calibrate.py on judged queries (JurisTCU's qrels and tests/data's judged
queries with negative controls) and shipped as services/search/data/relevance.json with its fit report.
A firm's own judgments may recalibrate it (`precedente eval --judgments --apply`, migration 0019): the active
Calibration maps the shipped probability through Platt scaling before the thresholds; none, the model as shipped.
"""

import json
import math
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Literal

import numpy as np

MODEL_FILE = Path(__file__).parents[1] / "data" / "relevance.json"

Grade = Literal["forte", "provável", "fraca"]
FEATURES = ("similarity", "similarity_gap", "coverage", "lead", "standing", "known_terms", "specificity")
"""The shipped model's features, in its coefficients' order."""
CANDIDATE_FEATURES = (*FEATURES, "dense_standing", "agreement")
"""Every feature a model may name (relevance.json "features"): the ones beyond FEATURES are computed for every
graded work so that bench/calibrate.py can fit and compare them; a model reads only those it names."""


@dataclass(frozen=True)
class RelevanceFeatures:
    # cosine of the passage and the query; for a passage in another language than the query's, the cosine a passage
    # in the query's language would have: its own plus this query's language gap (services/search/languages.py,
    # GAP_SHARE of it), so that the model, fitted on same-language queries, reads it on the scale it was fitted on
    similarity: float
    similarity_gap: float  # similarity minus the median similarity of the query's candidates
    coverage: float  # idf-weighted share of the query's lexemes the passage holds (0..1)
    lead: float  # how early it says them (ranking.lead, 0..1)
    standing: float  # fused score in standard deviations above the pool's mean
    known_terms: float  # idf-weighted share of the query's lexemes the collection holds at all (0..1)
    specificity: float  # the rarest known query lexeme's idf over that of a lexeme in one chunk (0..1)
    # Concept-side signals, blind to the query's words: the passage's dense similarity in standard deviations above
    # the query's own candidates (a paraphrase stands out there while sharing no word), and how many of the work's
    # passages are among the pool's ten nearest (several passages of one decision near the question agree).
    dense_standing: float = 0.0
    agreement: float = 0.0

    def vector(self, names: tuple[str, ...] = FEATURES) -> np.ndarray:
        # getattr by name, not dataclasses.astuple (which deep-copies each): one vector per work graded.
        return np.array([getattr(self, name) for name in names], dtype=np.float64)


def _logit(p: float, eps: float = 1e-6) -> float:
    p = min(max(p, eps), 1 - eps)
    return math.log(p / (1 - p))


def platt(p: float, a: float, b: float) -> float:
    """Platt scaling: p' = sigmoid(a * logit(p) + b); a > 0 keeps the order of the results."""
    return _sigmoid(a * _logit(p) + b)


def unplatt(p: float, a: float, b: float) -> float:
    """The probability Platt scaling by (a, b) mapped to p: what the shipped model said of a calibrated one."""
    return _sigmoid((_logit(p) - b) / a)


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


BASIS: dict[str, tuple[str, str]] = {
    # feature: (what a lawyer reads when it raised the grade, when it lowered it); "" says nothing
    "similarity": ("conceito equivalente", "conceito distante da consulta"),
    "similarity_gap": ("conceito equivalente", "conceito distante da consulta"),
    "dense_standing": ("conceito equivalente", "conceito distante da consulta"),
    "coverage": ("palavras da consulta", "poucas palavras da consulta"),
    "lead": ("abre com os termos da consulta", ""),
    "standing": ("destaca-se dos demais resultados", "não se destaca dos demais resultados"),
    "agreement": ("vários trechos da mesma decisão", ""),
    # the query's own (the same on every card of it): they cannot say why this card differs from the next one
    "known_terms": ("", ""),
    "specificity": ("", ""),
}
"""The grade's reasons (RelevanceModel.basis): the concept-side features share one phrase. Read as a lawyer reads
the cards: "consulta de termos comuns" under a "fraca" card of a query whose first card was "forte" said nothing
about that card, so the query-level features name no reason."""
BASIS_MIN = 0.25  # log-odds: a reason smaller than this moved the probability by a few points at most
BASIS_SHOWN = 2
VAGUE_BASIS = ("consulta de uma palavra genérica",)
NAMED_BASIS = ("número do processo citado na consulta",)


@dataclass(frozen=True)
class Calibration:
    """The firm's recalibration of the shipped probability (migration 0019's active row)."""

    id: int
    a: float
    b: float


@dataclass(frozen=True)
class RelevanceModel:
    mean: np.ndarray
    scale: np.ndarray
    coefficients: np.ndarray
    intercept: float
    strong: float  # probability at and above which a result is "forte"
    probable: float  # ... "provável"
    calibration: Calibration | None = None  # applied to the probability before the thresholds
    features: tuple[str, ...] = FEATURES  # what the coefficients weigh, in their order

    def probability(self, features: RelevanceFeatures) -> float:
        z = (features.vector(self.features) - self.mean) / self.scale
        shipped = 1.0 / (1.0 + math.exp(-(float(z @ self.coefficients) + self.intercept)))
        return shipped if self.calibration is None else platt(shipped, self.calibration.a, self.calibration.b)

    def calibrated(self, calibration: Calibration | None) -> "RelevanceModel":
        """This model with the firm's calibration (None: as shipped); the thresholds stay the shipped ones."""
        return self if calibration == self.calibration else replace(self, calibration=calibration)

    def basis(self, features: RelevanceFeatures, grade: Grade) -> tuple[str, ...]:
        """Why the grade is what it is, in a lawyer's words: the model's own reasons. Each feature's share of the
        log-odds against an average judged result (coefficient x standardised value), summed per phrase of BASIS;
        for "forte" and "provável" the phrases that raised the grade, for "fraca" those that lowered it, the largest
        first, at most BASIS_SHOWN, none under BASIS_MIN."""
        share = (features.vector(self.features) - self.mean) / self.scale * self.coefficients
        raised = grade != "fraca"
        weight: dict[str, float] = {}
        for name, value in zip(self.features, share, strict=True):
            phrase = BASIS[name][0 if raised else 1]
            if phrase:
                weight[phrase] = weight.get(phrase, 0.0) + (value if raised else -value)
        shown = sorted((w, phrase) for phrase, w in weight.items() if w >= BASIS_MIN)
        return tuple(phrase for _, phrase in reversed(shown[-BASIS_SHOWN:]))

    def grade(self, probability: float) -> Grade:
        if probability >= self.strong:
            return "forte"
        return "provável" if probability >= self.probable else "fraca"

    def to_json(self) -> dict:
        return {
            "features": list(self.features),
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "coefficients": self.coefficients.tolist(),
            "intercept": self.intercept,
            "thresholds": {"forte": self.strong, "provável": self.probable},
        }

    @classmethod
    def from_json(cls, data: dict) -> "RelevanceModel":
        unknown = set(data["features"]) - set(CANDIDATE_FEATURES)
        if unknown or len(data["features"]) != len(data["coefficients"]):
            raise ValueError(f"relevance model features {data['features']}: not all of {list(CANDIDATE_FEATURES)}")
        return cls(
            features=tuple(data["features"]),
            mean=np.array(data["mean"], dtype=np.float64),
            scale=np.array(data["scale"], dtype=np.float64),
            coefficients=np.array(data["coefficients"], dtype=np.float64),
            intercept=float(data["intercept"]),
            strong=float(data["thresholds"]["forte"]),
            probable=float(data["thresholds"]["provável"]),
        )


@cache
def relevance_model() -> RelevanceModel:
    return RelevanceModel.from_json(json.loads(MODEL_FILE.read_text(encoding="utf-8")))


def idf_weights(lexemes: list[str], document_frequency: dict[str, int], chunks: int) -> dict[str, float]:
    """Lucene's idf of each distinct lexeme (as ranking.bm25 uses it); unknown lexemes count as rarest."""
    total = max(chunks, 1)
    return {
        lexeme: math.log(1 + (total - min(document_frequency.get(lexeme, 0), total) + 0.5)
                         / (min(document_frequency.get(lexeme, 0), total) + 0.5))
        for lexeme in dict.fromkeys(lexemes)
    }  # fmt: skip


def known_terms(weights: dict[str, float], document_frequency: dict[str, int]) -> float:
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    return sum(w for lexeme, w in weights.items() if document_frequency.get(lexeme, 0) > 0) / total


def specificity(weights: dict[str, float], document_frequency: dict[str, int], chunks: int) -> float:
    known = [w for lexeme, w in weights.items() if document_frequency.get(lexeme, 0) > 0]
    if not known:
        return 0.0
    rarest_possible = idf_weights(["_"], {"_": 1}, chunks)["_"]
    return min(max(known) / rarest_possible, 1.0) if rarest_possible > 0 else 0.0


def coverage(weights: dict[str, float], term_counts: dict[str, int]) -> float:
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    return sum(w for lexeme, w in weights.items() if term_counts.get(lexeme, 0) > 0) / total
