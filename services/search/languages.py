"""Each language's mean passage vector, taken out of the dense score so that a query meets passages of every language.

multilingual-e5 shares one space across languages but not evenly: for a Portuguese query every Portuguese
passage sits 0.02-0.06 closer than an English one, whatever either says, so an English directive that answers
the query ranked 43rd by dense similarity. The language's share of a passage's similarity to query q is about
its language's mean vector mu_l dotted with q; a passage in another language than the query's gets back
(a share of) the difference,

    score(e) = e·q + GAP_SHARE * (mu_query - mu_l)·q,

and one in the query's language keeps its raw cosine: the shipped relevance calibration keeps its meaning, and
JurisTCU (all Portuguese) ranks and grades exactly as before. The means hold each language's subjects as well as
the language, so the gap also lets English passages that only share the legal register into Portuguese queries'
results: GAP_SHARE says how much of it is given back. Centring both sides, (e - mu_l)·(q - mu_query), was measured
too and loses 16.6 nDCG@10 on JurisTCU (bench/cross_language.py).
The order this makes does not depend on which language the query is read as (only the level of every score
does), so a short query the language detector cannot read costs nothing but that level.

The centroids are a table the indexer refreshes with the lexical statistics (migration 0023, shared/infra/lexicon.py). A
language with fewer than MIN_CHUNKS passages gets none: its mean says more about its few documents than about its
language, and its passages keep their raw cosine."""

import asyncpg
import numpy as np

from precedente.shared.legal.language import detect_language

MIN_CHUNKS = 200
# The share of the centroids' gap given back. The centroids' difference holds each language's subjects as well as
# the language itself (a firm's Portuguese archive is its practice, its English one what else it kept), so it also
# lifts English passages that only share the legal register. Hybrid search, measured (bench/cross_language.py and
# the issue notes): the archive's Portuguese queries with English answers, recall@10 0.11 raw, 0.27 at 0.5, 0.38
# at 0.75, 0.78 at 1.0; JurisTCU with the archive's English chunks mixed in, G1 nDCG@10 -0.6, -1.7, -2.7 (JurisTCU
# alone: 0 at any share). The lower, the safer for a mixed index and the fewer English answers found.
GAP_SHARE = 1.0
DEFAULT_LANGUAGE = "pt"  # what a query is read as when the detector cannot tell (query.QUERY_LANGUAGE says the same)

_CENTROIDS = "SELECT language, centroid, chunks FROM language_centroids WHERE chunks >= $1 ORDER BY language"


async def language_statistics(
    conn: asyncpg.Connection | asyncpg.Pool,
) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """The mean passage vector of each language with at least MIN_CHUNKS passages, and how many passages it is of,
    as last refreshed: the count decides how the search reads that language's own nearest passages (query.py)."""
    rows = await conn.fetch(_CENTROIDS, MIN_CHUNKS)
    centroids = {row["language"]: np.asarray(row["centroid"].to_numpy(), dtype=np.float32) for row in rows}
    return centroids, {row["language"]: int(row["chunks"]) for row in rows}


def query_language(text: str, centroids: dict[str, np.ndarray]) -> str | None:
    """The language to read the query as: the detected one if the index has a centroid of it, else Portuguese
    if it has one of that, else None (no centring). Only the level of the scores depends on it, not their order."""
    detected = detect_language(text)
    for language in (detected, DEFAULT_LANGUAGE):
        if language in centroids:
            return language
    return None


def language_offsets(
    languages: list[str],
    query_vector: np.ndarray,
    centroids: dict[str, np.ndarray],
    query_language: str | None,
    share: float | None = None,
) -> np.ndarray:
    """What to add to each passage's cosine: share * (mu_query - mu_l)·q (share: GAP_SHARE); 0 for the query's
    language, for a language without a centroid, and for all when the query's language has none."""
    offsets = np.zeros(len(languages), dtype=np.float64)
    home = centroids.get(query_language) if query_language is not None else None
    if home is None:
        return offsets
    q = np.asarray(query_vector, dtype=np.float64)
    weight = GAP_SHARE if share is None else share
    gap = {language: weight * float((home - centroid) @ q) for language, centroid in centroids.items()}
    for i, language in enumerate(languages):
        offsets[i] = gap.get(language, 0.0)
    return offsets


def centred_scores(
    vectors: np.ndarray,
    languages: list[str],
    query_vector: np.ndarray,
    centroids: dict[str, np.ndarray],
    query_language: str | None,
    share: float | None = None,
) -> np.ndarray:
    """Each passage's dense score with its language's share taken out: raw cosine in the query's language, the
    in-language equivalent in the others (module docstring). `vectors`: one unit row per passage."""
    raw = vectors @ query_vector
    if len(languages) != len(raw):
        raise ValueError(f"{len(languages)} languages for {len(raw)} vectors")
    offsets = language_offsets(languages, query_vector, centroids, query_language, share)
    return raw + offsets if offsets.any() else raw  # one language: the raw cosine, to the last bit


def language_query_vectors(
    query_vector: np.ndarray, centroids: dict[str, np.ndarray], query_language: str | None
) -> dict[str, np.ndarray]:
    """The vector to give pgvector's HNSW, per language other than the query's, so that each language's own best
    passages enter the candidate pool (the one nearest-neighbour list is the query language's, mostly).

    Within one language the offset is a constant, so its best passages by centred score are its nearest by cosine
    to the query vector itself (normalised): every language gets that vector. None when nothing is centred (no
    centroid of the query's language, or one language only): the one dense list is the right pool then.
    """
    if query_language is None or query_language not in centroids or len(centroids) < 2:
        return {}
    q = np.asarray(query_vector, dtype=np.float32)
    unit = q / (float(np.linalg.norm(q)) or 1.0)
    return {language: unit for language in centroids if language != query_language}
