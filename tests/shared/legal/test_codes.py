"""The code/label tables of document types and courts, and the normalisation of what submitters write."""

import pytest

from shared.legal.codes import (
    DOCUMENT_TYPES,
    court_label,
    document_type_label,
    label,
    normalize_court,
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
        ("nada", None),
    ],
)
def test_document_type_hints_normalise(written: str, code: str | None) -> None:
    assert normalize_document_type(written) == code
