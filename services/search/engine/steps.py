"""The ranking, declared once: STEPS is the ordered list of what happens to one search's candidate pool, from fusion
to the page's order, each step a function whose docstring says what it does and the measurement that justifies it.
The LLM stage (llm_stage) follows, in the router, on the first page ordered by relevance only.

    fusion -> lead -> feedback -> authority -> long_documents -> tables_last -> grouping -> grade
    -> sources_before_comments -> named_case_first -> newest_first
    (-> llm_stage)

newest_first orders by date only when the lawyer asks for it (sort "date"); its dates are the works' (each work's
best-dated copy, read by the caller before the steps run: copies.work_dates).

The steps read and rewrite one Ranked, the search's pool and what the steps so far made of it. The figures are
JurisTCU's (nDCG@10 and hit@5 of its G1 group of real users' short queries, ALL over its three groups) and the
judged firm set's (tests/data/judged_queries.jsonl), as measured by the commits that introduced each step.
"""

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

import asyncpg
import numpy as np

from precedente.services.search.engine.grouping import Passage, WorkGroup, group_by_work
from precedente.services.search.engine.models import SearchResult
from precedente.services.search.engine.ranking import (
    CollectionStatistics,
    PoolEntry,
    PoolScores,
    Ranking,
    bm25,
    fuse,
    lead_term,
    pool_matrix,
)
from precedente.services.search.engine.ranking import lead as lead_scores
from precedente.services.search.engine.relevance import (
    NAMED_BASIS,
    VAGUE_BASIS,
    Grade,
    RelevanceFeatures,
    RelevanceModel,
    coverage,
    idf_weights,
    known_terms,
    specificity,
)
from precedente.services.search.explain import GENERIC_STEMS
from precedente.services.search.languages import centred_scores
from precedente.services.search.llm_rerank import llm_rerank
from precedente.shared.legal.codes import DECISION_TYPES
from precedente.shared.settings import Settings


@dataclass(frozen=True)
class GradedWork:
    group: WorkGroup
    features: RelevanceFeatures
    probability: float
    grade: Grade
    basis: tuple[str, ...] = ()  # why the grade is what it is (RelevanceModel.basis), shown beside it


AGREEMENT_NEAREST = 10  # the pool's nearest passages in which a work's own are counted (the agreement feature)
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
    work_of: list[str] | None = None,
) -> list[GradedWork]:
    """Each work's calibrated grade, from its best passage's features (engine/relevance.py); all
    "fraca" for a vague query. `work_of` is each pool entry's work id (the agreement feature counts a work's
    passages among the pool's AGREEMENT_NEAREST nearest)."""
    if not groups:
        return []
    weights = idf_weights(lexemes, stats.document_frequency, stats.chunks)
    known = known_terms(weights, stats.document_frequency)
    specific = specificity(weights, stats.document_frequency, stats.chunks)
    background = float(np.median(scores.dense)) if len(scores.dense) else 0.0
    mean, spread = float(scores.fused.mean()), float(scores.fused.std()) or 1.0
    dense_mean, dense_spread = float(scores.dense.mean()), float(scores.dense.std()) or 1.0
    nearest_rows = np.argsort(-scores.dense, kind="stable")[:AGREEMENT_NEAREST]
    nearest = Counter(work_of[i] for i in nearest_rows) if work_of else Counter()
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
            dense_standing=(float(scores.dense[i]) - dense_mean) / dense_spread,
            agreement=float(nearest.get(work_of[i], 0)) if work_of else 0.0,
        )
        probability = model.probability(features)
        grade = "fraca" if vague else model.grade(probability)
        basis = VAGUE_BASIS if vague else model.basis(features, grade)
        graded.append(GradedWork(group, features, probability, grade, basis))
    return graded


def identified_first(works: list[GradedWork], rows: list[asyncpg.Record], strong: float) -> list[GradedWork]:
    """A work whose case number the query names is what the lawyer asked for: first, and "forte"."""
    named = {row["work_id"] for row in rows if row["identified"]}
    if not named:
        return works
    first = [
        GradedWork(w.group, w.features, max(w.probability, strong), "forte", NAMED_BASIS)
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
    best = embeddings[[w.group.best for w in works]]
    unit = best / np.maximum(np.linalg.norm(best, axis=1, keepdims=True), 1e-12)
    sources = np.array([kind(w) in SOURCE_TYPES for w in works])
    # Each about-work's later sources that say its best passage, from one product of the works' best passages (a loop
    # of vector products over a pool of a few hundred works took 4% of a search's CPU).
    same = np.triu((unit @ unit.T) >= SAME_PASSAGE, k=1) & sources[np.newaxis, :]
    ordered: list[GradedWork] = []
    placed: set[int] = set()
    for i, work in enumerate(works):
        if i in placed:
            continue
        if kind(work) in ABOUT_SOURCE_TYPES:
            for j in np.flatnonzero(same[i]).tolist():
                if j not in placed:
                    ordered.append(works[j])
                    placed.add(j)
        ordered.append(work)
        placed.add(i)
    return ordered


def by_date(
    works: list[GradedWork], rows: list[asyncpg.Record], dates: dict[str, date] | None = None
) -> list[GradedWork]:
    """Newest first by each work's date (`dates`: copies.work_dates, the best-dated file the caller may see; a work
    missing there, its best passage's file's date), undated last; the grade does not order, and equal dates keep
    the order given (relevance)."""

    def newest(work: GradedWork) -> tuple[bool, date]:
        row = rows[work.group.best]
        when = (dates or {}).get(row["work_id"]) or row["document_date"]
        return when is not None, when or date.min

    return sorted(works, key=newest, reverse=True)


@dataclass
class Ranked:
    """One search's pool as the steps read and rewrite it: the candidates (`pool`, and their `rows` as the pool
    statement returned them), the query, then each step's output (the fused scores, the works, their order)."""

    pool: list[PoolEntry]
    query_vector: np.ndarray
    lexemes: list[str]
    stats: CollectionStatistics
    ranking: Ranking
    vectors: np.ndarray  # the pool's embeddings (pool_matrix), row i of pool[i]
    centroids: dict[str, np.ndarray] | None = None  # languages.language_statistics: the dense score centred
    query_language: str | None = None
    rows: list[asyncpg.Record] = field(default_factory=list)
    model: RelevanceModel | None = None
    vague: bool = False
    sort: str = "relevance"
    lexical: np.ndarray = field(default_factory=lambda: np.zeros(0))
    dense: np.ndarray = field(default_factory=lambda: np.zeros(0))
    opening: np.ndarray | None = None
    fused: np.ndarray = field(default_factory=lambda: np.zeros(0))
    # the fused scores before tables_last moved the tables down: what the grade's standing reads (it was fitted on
    # them), so that an order rule does not widen the pool's spread and lower every other work's grade
    graded_fused: np.ndarray | None = None
    groups: list[WorkGroup] = field(default_factory=list)
    works: list["GradedWork"] = field(default_factory=list)  # graded, in STEPS' order so far
    ranked: list["GradedWork"] = field(default_factory=list)  # the page's order (works, or newest first)
    work_dates: dict[str, date] = field(default_factory=dict)  # sort "date": copies.work_dates of the pool's works

    def similarity(self, vector: np.ndarray) -> np.ndarray:
        """Cosine of each candidate to `vector`, centred on the query's language (languages.centred_scores)."""
        languages = [entry.language for entry in self.pool]
        return centred_scores(self.vectors, languages, vector, self.centroids or {}, self.query_language)

    def leads(self) -> bool:
        """Whether the lead orders this query (the grade reads it either way): Ranking.lead_max_lexemes."""
        limit = self.ranking.lead_max_lexemes
        return self.opening is not None and (limit <= 0 or len(set(self.lexemes)) <= limit)

    def scores(self) -> PoolScores:
        opening = self.opening if self.opening is not None else np.zeros(len(self.pool))
        return PoolScores(self.fused if self.graded_fused is None else self.graded_fused, self.dense, opening)


def fusion(r: Ranked) -> None:
    """BM25 (Anserini's k1 0.9, b 0.4, from the indexer's collection statistics) and the dense cosine fused on their
    z-scores over the pool, 0.7 dense (or reciprocal ranks, Ranking.fusion "rrf"). Measured on JurisTCU with dense
    feedback (commit 8c745c9): G1 nDCG@10 50.3 -> 53.7, hit@5 90 -> 98, ALL 61.9 -> 64.9; BM25 beats ts_rank, z-score
    fusion at 0.7 beats reciprocal ranks."""
    if not r.pool:
        return
    r.lexical = bm25(r.pool, r.lexemes, r.stats, r.ranking.bm25_k1, r.ranking.bm25_b)
    r.dense = r.similarity(r.query_vector)
    r.fused = fuse(r.dense, r.lexical, r.ranking)


def lead(r: Ranked) -> None:
    """A passage that opens with the query's words (an ementa or enunciado states its subject first, a section its
    heading) outranks one that mentions them in passing: per lexeme 1 / (1 + words before it / 10), idf-weighted,
    added at 0.3 on the fused scale, in proportion to the share of the query the best opening holds below
    ranking.LEAD_FULL_SHARE (figures there). JurisTCU (commit f604d08): G1 nDCG@10 53.2 -> 58.8, hit@5 98 -> 100, ALL
    65.3 -> 67.1. Off with Ranking.lead_weight 0."""
    if not r.pool or r.ranking.lead_weight <= 0:
        return
    r.opening = lead_scores(r.pool, r.lexemes, r.stats, r.ranking.lead_words)
    if r.leads():
        r.fused = r.fused + lead_term(r.opening, r.ranking)


def feedback(r: Ranked) -> None:
    """Dense pseudo-relevance feedback (Rocchio): the query vector moves towards the mean of the five best (weight
    0.5) and the pool is fused again, the lead kept. It lifts real users' short queries: measured with fusion
    (commit 8c745c9, figures there); lexical feedback and the concept layer as query expansion were measured too
    and lost. Off with Ranking.feedback_docs 0."""
    if not r.pool or r.ranking.feedback_docs <= 0 or r.ranking.feedback_weight <= 0:
        return
    top = np.argsort(-r.fused, kind="stable")[: r.ranking.feedback_docs]
    moved = r.query_vector + r.ranking.feedback_weight * r.vectors[top].mean(axis=0)
    moved /= np.linalg.norm(moved) or 1.0
    fused = fuse(r.similarity(moved), r.lexical, r.ranking)
    r.fused = fused + lead_term(r.opening, r.ranking) if r.opening is not None and r.leads() else fused


# The kinds of qualified precedent that bind or that courts follow as settled (CPC art. 927; documents.qualified_kinds,
# what a decision itself IS, never what it applies); the Jurisprudência em Teses entries only guide. A document filed
# as a súmula is one too.
BINDING_KINDS = frozenset({"repercussao_geral", "repetitivo", "sumula_vinculante", "sumula", "irdr", "iac"})


def authority_prior(rows: list[asyncpg.Record], binding_weight: float, ementa_weight: float) -> np.ndarray:
    """Each pool row's prior on the fused scale: `binding_weight` when its work is a binding precedent
    (BINDING_KINDS among its qualified_precedent kinds, or a document of type "sumula"), plus `ementa_weight` when
    the passage is the ementa's own statement (POOL's in_ementa)."""
    prior = np.zeros(len(rows))
    for i, row in enumerate(rows):
        kinds = row.get("qualified_precedent") or ()
        if binding_weight and (BINDING_KINDS.intersection(kinds) or row.get("document_type") == "sumula"):
            prior[i] += binding_weight
        if ementa_weight and row.get("in_ementa"):
            prior[i] += ementa_weight
    return prior


def authority(r: Ranked) -> None:
    """A prior for authority, added to the fused scores: a work that IS a binding precedent (a thesis of repercussão
    geral or of a recurso repetitivo, a súmula, an IRDR, an IAC) rises by Ranking.authority_binding, and a passage
    of the ementa (the court's own statement of what it decided) by Ranking.authority_ementa. The STF's own search
    ranks matches in the ementa and repercussão geral higher.

    Off by default (both 0): it did not help. bench/ranking_ablation.py --authority on copies of the indexed stacks
    (adapted e5, 2026-12-03), the weights read on the TRAIN material only (JurisTCU, the firm judged set, the
    paraphrase train split), nDCG@10:
    - JurisTCU G1 60.0, G2 72.9, G3 69.5, ALL 67.5 at every weight tried: its stack marks no passage as ementa and
      no work as a qualified precedent (each "outro", one passage), so nothing moves;
    - binding 0.1 / 0.3 / 0.6: firm judged 94.2 / 94.2 / 93.9 (off 94.2), paraphrase train 68.0 / 68.0 / 67.9
      (off 68.3): the archive's two works that are repercussão geral (RE 657.718, RE 855.178 ED) rise over works
      that were asked for;
    - ementa 0.05 to 0.4: no change; 0.8: judged 94.5, train 68.6 but hit@5 81.9 -> 80.9; 1.5: judged 94.5, train
      69.2 but hit@5 81.9 -> 78.7: a gain of one or two queries' order, bought with first-five hits.
    The frozen test split, read after: off 67.8; binding 0.3 67.3; ementa 0.8 68.2."""
    weights = r.ranking.authority_binding, r.ranking.authority_ementa
    if not r.pool or len(r.rows) != len(r.pool) or not any(weights):
        return
    r.fused = r.fused + authority_prior(r.rows, *weights)


def long_documents(r: Ranked) -> None:
    """A file of many passages (a compilation of ementas, a provimento, a commented exam) offers the query
    many draws: its best passage stands out by chance more often than a short decision's, and one entry per work
    shows only that best. Each passage's fused score loses Ranking.long_document_weight x ln(its file's passages), so
    a work is first for what it says, not for how much it says. On the archive's paraphrase train split (its first 113
    queries) six files were the first result 33 times and the one sought 5 of them; among them the longest files (the
    OAB tribunal's 2014 ementário, 1,456 passages; two provimentos, 376 and 388; an exam commentary, 168; the median
    file holds 34). The grade reads the scores without it (graded_fused), as it was fitted.

    bench/ranking_ablation.py --long-documents 0.05,0.1,0.2,0.3 (2026-12-04, adapted e5), the weight read on the TRAIN
    material only, nDCG@10: firm judged 93.6 -> 94.0 / 94.3 / 94.7 / 94.9, paraphrase train 71.6 -> 72.7 / 73.8 /
    75.2 / 74.4 (hit@5 86.3 -> 88.0 at 0.2); JurisTCU G1 60.2, ALL 67.5 at every weight (its documents are one
    passage each). 0.2. The frozen test split, read after: 71.3 -> 73.1, hit@5 87.0 -> 89.9, MRR@10 66.2 -> 68.6."""
    weight = r.ranking.long_document_weight
    if not r.pool or len(r.rows) != len(r.pool) or weight <= 0:
        return
    passages = np.array([max(row.get("document_chunks") or 1, 1) for row in r.rows], dtype=np.float64)
    if r.graded_fused is None:
        r.graded_fused = r.fused
    r.fused = r.fused - weight * np.log(passages)


def tables_last(r: Ranked) -> None:
    """A passage that is a table of numbers and references (POOL's table_like: a directive's correlation table,
    "Article 117 Article 119 Article 120(1) and (2) ...") shares a query's number ("licença-maternidade de 120 dias")
    and nothing of its sense: it ranks below every other passage of the pool, so the prose of its own work or of
    another work comes first, and a table is shown only where nothing else was found. On the archive such a table
    was the first result of "mãe adotante tem direito a licença-maternidade de 120 dias?" (graded "provável") and of
    "multa por atraso na mensalidade da escola acima de 2% pode?". bench/table_rows.py (now passage_shapes.py) on the
    archive's database: of the firm's 271 judged and paraphrase queries none shows a table in its top 5 (8 without
    this step, 2 at rank 1); the positives' nDCG@10 64.1 either way, hit@5 90.0 -> 90.5."""
    _below_the_rest(r, "table_like")


def references_last(r: Ranked) -> None:
    """A passage that is a bibliography (POOL's reference_list: "MARQUES, Claudia Lima. Contratos no Código de Defesa
    do Consumidor. São Paulo: RT, 2011.") names the works a text read, not what it says: it ranks below every other
    passage of the pool, so its work is shown by its prose, or further down when only its bibliography matched.
    On the archive a dissertation's REFERÊNCIAS were the passage shown for "casa própria como garantia constitucional:
    por que é fundamental", graded "provável"; 289 of the archive's and docs' 9,667 chunks are such lists.
    bench/passage_shapes.py (2026-12-06, the firm's 371 judged and paraphrase queries): bibliographies in the top 5
    44 -> 0, at rank 1 7 -> 0; the positives' nDCG@10 68.6 -> 68.5, hit@5 90.8 either way. bench/ranking_ablation.py,
    nDCG@10 / hit@5 / MRR@10: paraphrase train 74.3 / 88.3 / 70.6 -> 74.2 / 88.3 / 70.6, the frozen test 72.0 / 88.7
    / 68.8 -> 71.8 / 88.7 / 68.4: where a bibliography alone had matched, the work now shows its own prose."""
    _below_the_rest(r, "reference_list")


def _below_the_rest(r: Ranked, mark: str) -> None:
    """The pool rows marked `mark` ranked below every other passage (unless every row is); the grade keeps reading the
    scores from before (graded_fused)."""
    if not r.pool or len(r.rows) != len(r.pool):
        return
    marked = np.array([bool(row.get(mark)) for row in r.rows])
    if marked.any() and not marked.all():
        if r.graded_fused is None:  # long_documents may have kept them already
            r.graded_fused = r.fused  # measured: moved with them, the frozen split's "told nothing" went 19.3% -> 36.8%
        r.fused = r.fused - (float(r.fused.max() - r.fused.min()) + 1.0) * marked  # below every other passage


def grouping(r: Ranked) -> None:
    """One entry per work (grouping.py): a decision held as its PDF, a scan and an ementa-only extract is one result,
    its best passage and up to two others that say something else (a repeat: cosine >= 0.95, or more than half of it
    shared inside one document). A lawyer wants five decisions, not one decision five times."""
    order = [int(i) for i in np.argsort(-r.fused, kind="stable")]
    passages = [
        Passage(i, row["work_id"], str(row["document_id"]), row["char_start"], row["char_end"])
        for i, row in enumerate(r.rows)
    ]
    r.groups = group_by_work(order, passages, r.vectors)


def grade(r: Ranked) -> None:
    """Each work's calibrated grade ("forte", "provável", "fraca") from its best passage (relevance.py), fitted by
    bench/calibrate.py on JurisTCU's 811 judged results and 830 of the judged firm set's (5-fold cross-validated
    by query: Brier 0.060, services/search/data/relevance.json); all "fraca" for a vague query (vague_query)."""
    if r.model is None:
        raise ValueError("grading needs the relevance model")
    work_of = [str(row["work_id"]) for row in r.rows] if len(r.rows) == len(r.pool) else None
    r.works = grade_works(r.groups, r.pool, r.scores(), r.lexemes, r.stats, r.model, r.vague, work_of)


def sources_before_comments(r: Ranked) -> None:
    """A comment, parecer or compilation whose best passage is a decision's or act's own text (cosine >= 0.95: the
    ementa it quotes) ranks right after that source, not above it (sources_first; commit c022c1d): of the archive's
    23.9 million pairs of an about-passage and a source passage of different works, 21 reach 0.95, each a source's
    quoted text (the 99.99th percentile is 0.917); REsp 1.602.076/SP now ranks above the doctrine comment on it."""
    r.works = sources_first(r.works, r.rows, r.vectors)


def named_case_first(r: Ranked) -> None:
    """A work whose CNJ case number the query names is what the lawyer asked for: first, and "forte"
    (identified_first). A rule, not a measured trade-off: the number identifies the case."""
    if r.model is None:
        raise ValueError("naming a case first needs the model's 'forte' threshold")
    r.works = identified_first(r.works, r.rows, r.model.strong)


def newest_first(r: Ranked) -> None:
    """sort "date": newest first by the work's date (its best-dated copy's, r.work_dates), undated last, the grade
    shown but not ordering (by_date), as the lawyer asked: ordering "forte" and "provável" first read 2024, 2022,
    2016, 2009, 2005, then 2025 to outside testers. By relevance, the order the steps before made."""
    r.ranked = by_date(r.works, r.rows, r.work_dates) if r.sort == "date" else r.works


Step = Callable[[Ranked], None]
POOL_STEPS: tuple[Step, ...] = (fusion, lead, feedback)
STEPS: tuple[Step, ...] = (
    *POOL_STEPS, authority, long_documents, tables_last, references_last, grouping, grade, sources_before_comments,
    named_case_first, newest_first,
)  # fmt: skip


def run(r: Ranked, steps: tuple[Step, ...] = STEPS) -> Ranked:
    for step in steps:
        step(r)
    return r


def score_pool(
    pool: list[PoolEntry],
    query_vector: np.ndarray,
    lexemes: list[str],
    stats: CollectionStatistics,
    ranking: Ranking,
    vectors: np.ndarray | None = None,
    centroids: dict[str, np.ndarray] | None = None,
    query_language: str | None = None,
) -> PoolScores:
    """The pool's scores after POOL_STEPS (fusion, lead, feedback), aligned with the pool. `vectors`: the pool's
    embeddings as one float32 matrix, when the caller has it already (pool_matrix). `centroids`
    (languages.language_statistics) and `query_language`: the dense score, and its feedback's, centred on the
    query's language; none, the raw cosine."""
    if not pool:
        return PoolScores(np.zeros(0), np.zeros(0), np.zeros(0))
    vectors = pool_matrix(pool) if vectors is None else vectors
    ranked = Ranked(pool, query_vector, lexemes, stats, ranking, vectors, centroids, query_language)
    return run(ranked, POOL_STEPS).scores()


async def llm_stage(query: str, results: list[SearchResult], settings: Settings, top_k: int) -> list[SearchResult]:
    """The last step, in the router: an LLM picks and orders the top min(top_k, 5) among the first page's candidates
    (PRECEDENTE_RERANK_LLM_CANDIDATES), validated (llm_rerank.py); a timeout or any failure keeps the order above.
    Optional (PRECEDENTE_RERANK_LLM_PROVIDER, off by default) and not measured on JurisTCU in this repository."""
    chosen = await llm_rerank(query, results, settings, top_n=min(top_k, 5))
    if not chosen:
        return results
    picked = {result.work_id for result in chosen}
    return chosen + [r for r in results if r.work_id not in picked]
