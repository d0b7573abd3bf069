"""The code/label tables of document types and courts, and the normalisation of what submitters write."""

import re
from pathlib import Path

import pytest

from precedente.shared.legal.codes import (
    DOCUMENT_SUBTYPE_LABELS,
    DOCUMENT_SUBTYPES,
    DOCUMENT_TYPE_LABELS,
    DOCUMENT_TYPES,
    EU_ENGLISH_NAMES,
    FIXED_COURT_LABELS,
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


def _page_map(name: str) -> dict[str, str]:
    source = (Path(__file__).parents[3] / "services" / "gateway" / "lib" / "format.ts").read_text(encoding="utf-8")
    block = re.search(rf"{name}[^{{]*\{{(.*?)\}};", source, re.S)
    assert block is not None
    return dict(re.findall(r"\"?(\w[\w ]*?)\"?:\s*\"([^\"]+)\"", block.group(1)))


def test_every_facet_value_has_a_portuguese_label() -> None:
    """A TJUE judgment in English stood in the class facet as "Reference for a preliminary ruling" (issue 36): a class
    or body the EU Court names in English is labelled (and now stored) by the name its judgments in Portuguese give;
    a Portuguese one stays as it is. The page labels facet values no shown result carries with the same maps."""
    assert label("procedural_class", "Reference for a preliminary ruling") == "Pedido de decisão prejudicial"
    assert label("procedural_class", "Action for annulment") == "Recurso de anulação"
    assert label("judging_body", "Grand Chamber") == "Grande Secção"
    assert label("judging_body", "Third Chamber") == "3ª Secção"
    assert label("procedural_class", "Recurso Especial") == "Recurso Especial"
    assert label("judging_body", "3ª Turma") == "3ª Turma"
    english = re.compile(r"\b(?:of|for|the|and|Chamber|Court|Action|Reference|ruling)\b")
    assert not any(english.search(name) for name in EU_ENGLISH_NAMES.values())
    assert _page_map("EU_ENGLISH_NAMES") == EU_ENGLISH_NAMES
    spelled = {code: text for code, text in FIXED_COURT_LABELS.items() if text != code.upper().replace("_", "-")}
    assert _page_map("COURT_LABELS") == spelled
    for code in (*DOCUMENT_TYPE_LABELS, *DOCUMENT_SUBTYPE_LABELS):
        assert label("document_type", code) != code or label("document_subtype", code) != code
