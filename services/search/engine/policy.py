"""What ranking does after fusion and grouping: each work graded by the calibrated model (all "fraca" for a vague
query), the work whose case number the query names first, a source before the comment that quotes it, and the
newest first when asked."""

from dataclasses import dataclass
from datetime import date

import asyncpg
import numpy as np

from services.search.engine.grouping import WorkGroup
from services.search.engine.ranking import CollectionStatistics, PoolEntry, PoolScores
from services.search.engine.relevance import (
    Grade,
    RelevanceFeatures,
    RelevanceModel,
    coverage,
    idf_weights,
    known_terms,
    specificity,
)
from services.search.explain import GENERIC_STEMS
from shared.legal.codes import DECISION_TYPES


@dataclass(frozen=True)
class GradedWork:
    group: WorkGroup
    features: RelevanceFeatures
    probability: float
    grade: Grade


VAGUE_SHARE = 0.5
"""A query of one word names no subject when the word is one of legal writing's own ("direito", "processo",
"recurso": explain.GENERIC_STEMS) or is in more than half of the chunks: its results are never more than
"fraca". A collection's subject is still one ("arbitragem" in an arbitration practice's archive); two words
or more are left to the model."""


def vague_query(lexemes: list[str], stats: CollectionStatistics) -> bool:
    distinct = set(lexemes)
    if len(distinct) != 1:
        return False
    (lexeme,) = distinct
    common = stats.document_frequency.get(lexeme, 0) > VAGUE_SHARE * max(stats.chunks, 1)
    return common or lexeme[:6] in GENERIC_STEMS


def grade_works(
    groups: list[WorkGroup],
    pool: list[PoolEntry],
    scores: PoolScores,
    lexemes: list[str],
    stats: CollectionStatistics,
    model: RelevanceModel,
    vague: bool = False,
) -> list[GradedWork]:
    """Each work's calibrated grade, from its best passage's features (engine/relevance.py); all
    "fraca" for a vague query."""
    if not groups:
        return []
    weights = idf_weights(lexemes, stats.document_frequency, stats.chunks)
    known = known_terms(weights, stats.document_frequency)
    specific = specificity(weights, stats.document_frequency, stats.chunks)
    background = float(np.median(scores.dense)) if len(scores.dense) else 0.0
    mean, spread = float(scores.fused.mean()), float(scores.fused.std()) or 1.0
    graded = []
    for group in groups:
        i = group.best
        features = RelevanceFeatures(
            similarity=float(scores.dense[i]),
            similarity_gap=float(scores.dense[i]) - background,
            coverage=coverage(weights, pool[i].term_counts),
            lead=float(scores.opening[i]),
            standing=(float(scores.fused[i]) - mean) / spread,
            known_terms=known,
            specificity=specific,
        )
        probability = model.probability(features)
        grade = "fraca" if vague else model.grade(probability)
        graded.append(GradedWork(group, features, probability, grade))
    return graded


def identified_first(works: list[GradedWork], rows: list[asyncpg.Record], strong: float) -> list[GradedWork]:
    """A work whose case number the query names is what the lawyer asked for: first, and "forte"."""
    named = {row["work_id"] for row in rows if row["identified"]}
    if not named:
        return works
    first = [
        GradedWork(w.group, w.features, max(w.probability, strong), "forte")
        for w in works
        if rows[w.group.best]["work_id"] in named
    ]
    return first + [w for w in works if rows[w.group.best]["work_id"] not in named]


# Works that state the law themselves (the decision, the act) and works about them (a comment, a parecer, a
# compilation, a petition quoting them): where one of the latter says what one of the former says, the lawyer cites
# the former. SAME_PASSAGE: the cosine of two best passages that hold the same text (a comment's copy of the ementa
# it comments measured 0.980 to the decision's own, REsp 1.602.076/SP). Over the archive's 23.9 million pairs of an
# about-passage and a source passage of different works, 21 reach it, each a source's text quoted (that ementa, the
# OAB code's preamble, the arbitration law); the 99.99th percentile is 0.917.
SOURCE_TYPES = DECISION_TYPES | {"sumula", "ato_normativo", "ato_administrativo"}
ABOUT_SOURCE_TYPES = frozenset({"doutrina", "jurisprudencia_compilada", "parecer", "peticao", "email"})
SAME_PASSAGE = 0.95


def sources_first(works: list[GradedWork], rows: list[asyncpg.Record], embeddings: np.ndarray) -> list[GradedWork]:
    """A work about a source (a comment quoting the decision's ementa) that outranks the source saying the same
    passage goes right after it: the decision, not the comment on it, is what is cited. Nothing else moves."""

    def kind(work: GradedWork) -> object:
        return rows[work.group.best]["document_type"]

    if not any(kind(w) in ABOUT_SOURCE_TYPES for w in works) or not any(kind(w) in SOURCE_TYPES for w in works):
        return works
    unit = embeddings / np.maximum(np.linalg.norm(embeddings, axis=1, keepdims=True), 1e-12)
    ordered: list[GradedWork] = []
    placed: set[int] = set()
    for i, work in enumerate(works):
        if i in placed:
            continue
        if kind(work) in ABOUT_SOURCE_TYPES:
            about = unit[work.group.best]
            for j in range(i + 1, len(works)):
                source = works[j]
                if j not in placed and kind(source) in SOURCE_TYPES and unit[source.group.best] @ about >= SAME_PASSAGE:
                    ordered.append(source)
                    placed.add(j)
        ordered.append(work)
        placed.add(i)
    return ordered


def by_date(works: list[GradedWork], rows: list[asyncpg.Record]) -> list[GradedWork]:
    """Newest first, the works at least "provável" before the weak ones; undated last in each."""

    def newest(work: GradedWork) -> tuple[bool, date]:
        when = rows[work.group.best]["document_date"]
        return when is not None, when or date.min

    strong = [w for w in works if w.grade != "fraca"]
    weak = [w for w in works if w.grade == "fraca"]
    return sorted(strong, key=newest, reverse=True) + sorted(weak, key=newest, reverse=True)
