"""The code/label tables of document types and courts, and the normalisation of what submitters write."""

import re
from pathlib import Path

import pytest

from shared.legal.codes import (
    DOCUMENT_SUBTYPE_LABELS,
    DOCUMENT_SUBTYPES,
    DOCUMENT_TYPE_LABELS,
    DOCUMENT_TYPES,
    court_label,
    document_type_label,
    document_type_of_subtype,
    is_known_court,
    label,
    normalize_court,
    normalize_document_subtype,
    normalize_document_type,
)


def test_codes_and_labels() -> None:
    assert [label("document_type", c) for c in ("acordao", "decisao_monocratica", "email")] == [
        "Acórdão",
        "Decisão monocrática",
        "E-mail",
    ]
    assert set(DOCUMENT_TYPES) == {normalize_document_type(document_type_label(c)) for c in DOCUMENT_TYPES}
    assert [court_label(c) for c in ("stj", "tjsp", "trf3", "trt2", "tre_sp", "tce_mg", "mpmg", "carf", "interno")] == [
        "STJ",
        "TJSP",
        "TRF3",
        "TRT2",
        "TRE-SP",
        "TCE-MG",
        "MPMG",
        "CARF",
        "Escritório (interno)",
    ]
    assert label("court", None) is None


@pytest.mark.parametrize(
    ("written", "code"),
    [
        ("STJ", "stj"),
        ("tj-sp", "tjsp"),
        ("TJ/SP", "tjsp"),
        ("TJSP", "tjsp"),
        ("TRF-3", "trf3"),
        ("TRT 2ª", "trt2"),
        ("TRE-SP", "tre_sp"),
        ("tre_sp", "tre_sp"),
        ("TCE/MG", "tce_mg"),
        ("PGJMG", "mpmg"),
        ("TJDF", "tjdft"),
        ("CARF", "carf"),
        ("Presidência da República", "presidencia"),
        ("presidencia", "presidencia"),
    ],
)
def test_court_hints_normalise(written: str, code: str) -> None:
    assert normalize_court(written) == code


@pytest.mark.parametrize(
    ("written", "code"),
    [
        ("acórdão", "acordao"),
        ("Acórdão", "acordao"),
        ("ACORDAO", "acordao"),
        ("decisão monocrática", "decisao_monocratica"),
        ("Súmula", "sumula"),
        ("e-mail", "email"),
        ("ato normativo", "ato_normativo"),
        ("Doutrina", "doutrina"),
        ("Jurisprudência em Teses", "jurisprudencia_compilada"),
        ("informativo", "jurisprudencia_compilada"),
        ("diretiva", "ato_normativo"),
        ("contestação", "peticao"),
        ("nada", None),
    ],
)
def test_document_type_hints_normalise(written: str, code: str | None) -> None:
    assert normalize_document_type(written) == code


def test_subtypes_are_one_vocabulary_with_the_types() -> None:
    assert label("document_type", "doutrina") == "Doutrina"
    assert label("document_subtype", "diretiva") == "Diretiva (UE)"
    assert label("document_subtype", "jurisprudencia_em_teses") == "Jurisprudência em Teses"
    assert normalize_document_subtype("Petição inicial") == "peticao_inicial"
    assert normalize_document_subtype("TESE") == "tese"
    assert normalize_document_subtype("nada") is None
    assert document_type_of_subtype("provimento") == "ato_normativo"
    assert document_type_of_subtype("informativo") == "jurisprudencia_compilada"
    assert all(document_type_of_subtype(code) in DOCUMENT_SUBTYPES for code in DOCUMENT_SUBTYPE_LABELS)


def test_the_page_names_every_document_type_as_the_codes_do() -> None:
    """The page (TypeScript) lists the types before any search: it must offer every type, with the same label."""
    source = (Path(__file__).parents[3] / "services" / "gateway" / "lib" / "format.ts").read_text(encoding="utf-8")
    block = re.search(r"DOCUMENT_TYPE_LABELS[^{]*\{(.*?)\};", source, re.S)
    assert block is not None
    assert dict(re.findall(r"(\w+):\s*\"([^\"]+)\"", block.group(1))) == DOCUMENT_TYPE_LABELS


def test_the_page_names_every_document_subtype_as_the_codes_do() -> None:
    """A subtype facet's value is labelled before any result of it is shown ("Dissertação de mestrado", never
    "Dissertacao"): the page's map is the vocabulary's."""
    source = (Path(__file__).parents[3] / "services" / "gateway" / "lib" / "format.ts").read_text(encoding="utf-8")
    block = re.search(r"DOCUMENT_SUBTYPE_LABELS[^{]*\{(.*?)\};", source, re.S)
    assert block is not None
    assert dict(re.findall(r"(\w+):\s*\"([^\"]+)\"", block.group(1))) == DOCUMENT_SUBTYPE_LABELS


def test_the_presidency_is_a_known_origin_with_a_label() -> None:
    """Federal decrees and laws are the Presidência da República's: a code of the vocabulary, not a free value."""
    assert is_known_court("presidencia")
    assert label("court", "presidencia") == "Presidência da República"
