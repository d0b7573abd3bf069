"""Folding and title case (precedente.shared.legal.text): golden cases, and proof that each caller's former private fold
is the same function as what it calls now, on every character of the Basic Multilingual Plane and on real text."""

import re
import unicodedata

import pytest

from precedente.shared.legal.text import (
    ascii_letters,
    fold,
    fold_lower,
    strip_accents,
    strip_marks,
    title_case,
    title_case_plain,
)
from tests.helpers.samples import read_pages

BMP = "".join(chr(cp) for cp in range(0x10000) if not 0xD800 <= cp <= 0xDFFF)
PORTUGUESE = "AÇÃO CIVIL PÚBLICA — Acórdão nº 1º/2ª: é, à, ê, ô, õ, ü; Vistos, relatados e discutidos. Ç ç Ñ"


# The definitions the callers had before precedente.shared.legal.text, copied verbatim as references.
def old_annotator_fold(text: str) -> str:  # services/annotator/logic.py fold, shared/legal_codes.py fold
    out = []
    for ch in text:
        base = "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c))
        out.append(base if len(base) == 1 else ch)
    return "".join(out)


def old_cleaner_fold(text: str) -> str:  # services/cleaner/logic.py _fold
    decomposed = unicodedata.normalize("NFD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).strip()


def old_corrections_strip(text: str) -> str:  # services/cleaner/corrections.py _strip_accents
    return unicodedata.normalize(
        "NFC", "".join(ch for ch in unicodedata.normalize("NFD", text) if not unicodedata.combining(ch))
    )


def old_layout_fold(key: str) -> str:  # services/cleaner/layout.py _is_section_name
    return "".join(ch for ch in unicodedata.normalize("NFD", key) if not unicodedata.combining(ch))


def old_explain_fold(text: str) -> str:  # services/search/explain.py _fold
    return "".join(ch for ch in unicodedata.normalize("NFD", text.lower()) if unicodedata.category(ch) != "Mn")


def old_explain_folded(text: str) -> str:  # services/search/explain.py _folded (its _FoldTable)
    out = []
    for char in text:
        lower = char.lower()
        out.append(old_annotator_fold(lower) if len(lower) == 1 else char)
    return "".join(out)


def old_works_letters(text: str) -> bytes:  # shared/legal/works.py _letters
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return re.sub(r"[^a-z]+", "", decomposed.encode("ascii", "ignore").decode()).encode()


def old_llm_role_fold(value: str) -> str:  # services/annotator/llm.py _role
    return "".join(c for c in unicodedata.normalize("NFD", value) if not unicodedata.combining(c)).lower()


@pytest.fixture(scope="module")
def real_text() -> str:
    return "\n".join(p.text for p in read_pages("stj_resp_1602076_sp_acordao.pdf"))


@pytest.mark.parametrize(
    ("written", "folded"),
    [
        ("ACÓRDÃO", "ACORDAO"),
        ("Acórdão", "Acordao"),
        ("Ação Civil Pública", "Acao Civil Publica"),
        ("Nº 1º 2ª", "Nº 1º 2ª"),  # ordinal indicators have no canonical base: kept
        ("ﬁm", "ﬁm"),  # a ligature is no accent
        ("a\u0301", "a\u0301"),  # a standalone combining mark is kept: one character out for every one in
        ("", ""),
    ],
)
def test_fold_golden(written: str, folded: str) -> None:
    assert fold(written) == folded and len(fold(written)) == len(written)


def test_the_other_folds_golden() -> None:
    assert fold_lower("ACÓRDÃO İ") == "acordao İ"  # "İ".lower() is two characters: kept, offsets hold
    assert strip_accents("Ação a\u0301") == "Acao a" and strip_accents("ﬁ") == "ﬁ"
    assert strip_marks("Ação a\u0301") == "Acao a"
    assert ascii_letters("Ação nº 12, ﬁm!") == "acaonoﬁm".replace("ﬁ", "fi")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (old_annotator_fold, fold),
        (old_cleaner_fold, lambda t: strip_accents(t.lower()).strip()),
        (old_corrections_strip, lambda t: unicodedata.normalize("NFC", strip_accents(t))),
        (old_layout_fold, strip_accents),
        (old_explain_fold, lambda t: strip_marks(t.lower())),
        (old_explain_folded, fold_lower),
        (old_works_letters, lambda t: ascii_letters(t).encode()),
        (old_llm_role_fold, lambda t: strip_accents(t).lower()),
    ],
    ids=["fold", "cleaner", "corrections", "layout", "explain-stem", "explain-passage", "works-letters", "llm-role"],
)
def test_each_caller_keeps_its_exact_fold(old, new, real_text: str) -> None:
    for sample in (BMP, PORTUGUESE, real_text, "a\u0301 e\u0327\u0301 İ ǅ ﬁ ﹩ ª"):
        assert new(sample) == old(sample)
    assert all(new(ch) == old(ch) for ch in BMP)  # char by char too: the whole-string forms reorder marks


def test_the_folds_agree_on_portuguese_text(real_text: str) -> None:
    """Where they differ (standalone marks, a few non-Latin marks) is outside what legal documents hold."""
    for text in (PORTUGUESE, real_text):
        assert fold(text) == strip_accents(text) == strip_marks(text)
        assert fold_lower(text) == fold(text.lower()) == fold(text).lower()
        ordinals = fold(text).lower().replace("º", "o").replace("ª", "a")  # NFKD reads "nº" as "no"
        assert ascii_letters(text) == re.sub(r"[^a-z]+", "", ordinals)
    assert fold("a\u0301") != strip_accents("a\u0301")
    tibetan = "\u0f43"  # its decomposition holds a mark of combining class 0 that is still category Mn
    assert strip_accents(tibetan) != strip_marks(tibetan)


def test_fold_lower_and_fold_keep_offsets(real_text: str) -> None:
    for text in (real_text, BMP):
        assert len(fold(text)) == len(text) and len(fold_lower(text)) == len(text)


@pytest.mark.parametrize(
    ("written", "names", "plain"),
    [
        ("AGRAVO DE INSTRUMENTO", "Agravo de Instrumento", "Agravo de Instrumento"),
        ("RECURSO ESPECIAL", "Recurso Especial", "Recurso Especial"),
        ("CLÁUDIO LUIZ BRAGA DELL´ORTO", "Cláudio Luiz Braga Dell'Orto", "Cláudio Luiz Braga Dell´orto"),
        ("AÇÃO DE ALIMENTOS AOS FILHOS OU NETOS", "Ação de Alimentos aos Filhos ou Netos",
         "Ação de Alimentos Aos Filhos Ou Netos"),
        ("de cujus", "De Cujus", "De Cujus"),  # the first word is always capitalised
        ("", "", ""),
    ],
)  # fmt: skip
def test_title_cases(written: str, names: str, plain: str) -> None:
    assert title_case(written) == names
    assert title_case_plain(written) == plain
