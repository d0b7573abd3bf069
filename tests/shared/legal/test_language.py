"""Language detection on the firm-like archive's real files: EU directives and regulations in English and in
Portuguese, STJ and TJUE decisions, articles; and the text search configuration each language is indexed with."""

import pymupdf
import pytest

from precedente.services.annotator.logic import annotate
from precedente.shared.legal.language import SIMPLE_CONFIG, TS_CONFIGS, UNDETERMINED, detect_language, ts_config
from precedente.shared.payloads import Page
from tests.helpers.samples import SHARED_DATA

ARCHIVE = SHARED_DATA / "archive"

# Read from the files (see ../shared/archive/README.md): what each is and the language it is written in.
ENGLISH = {
    "i1039.pdf": "Directive 2002/22/EC (universal service), English",
    "i1042.pdf": "Directive 2011/83/EU (consumer rights), English",
    "i1043.pdf": "Regulation (EU) 524/2013 (online dispute resolution), English",
    "i1091.pdf": "TJUE, Mostaza Claro (C-168/05), English",
    "i1052.pdf": "article, Juridica International",
    "i570.pdf": "Basic Law of Israel, English translation",
}
PORTUGUESE = {
    "i1040.pdf": "Directiva 2005/29/CE (práticas comerciais desleais), European Portuguese",
    "i1045.pdf": "Regulamento (UE) 2022/1925, Portuguese",
    "i1093.pdf": "TJUE, processo C-40/08, Portuguese",
    "i1034.pdf": "STJ, REsp 1.602.076/SP (ementa-only copy, 2 pages)",
    "i1046.pdf": "Universidade Católica Portuguesa thesis",
    "i254.pdf": "Código de Ética e Disciplina da OAB",
}


def pages_of(name: str, limit: int = 6) -> list[Page]:
    path = ARCHIVE / name
    if not path.exists():
        pytest.fail(f"{path} is not beside the checkout (../shared/archive)")
    with pymupdf.open(path) as doc:
        return [Page(number=i + 1, text=doc[i].get_text()) for i in range(min(limit, doc.page_count))]


@pytest.mark.parametrize(
    ("name", "language"), [*((n, "en") for n in ENGLISH), *((n, "pt") for n in PORTUGUESE)], ids=lambda v: str(v)
)
def test_archive_files_are_detected_in_their_language(name: str, language: str) -> None:
    text = "\n".join(page.text for page in pages_of(name))
    assert detect_language(text) == language


def test_the_annotator_records_the_language() -> None:
    english = annotate(pages_of("i1042.pdf"), "i1042.pdf")
    portuguese = annotate(pages_of("i1040.pdf"), "i1040.pdf")
    assert (english.language, portuguese.language) == ("en", "pt")
    assert english.sources["language"] == "rules"


def test_a_directive_page_alone_is_enough() -> None:
    """One page of each (the English directive's recitals, the Portuguese one's articles) is read right."""
    assert detect_language(pages_of("i1042.pdf")[2].text) == "en"
    assert detect_language(pages_of("i1040.pdf")[2].text) == "pt"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        (
            "El tribunal desestima el recurso de casación interpuesto por la parte demandada y condena en costas a "
            "la recurrente, de conformidad con lo dispuesto en la Ley de Enjuiciamiento Civil.",
            "es",
        ),
        (
            "La Cour rejette le pourvoi formé par la société défenderesse et la condamne aux dépens, conformément "
            "aux dispositions du code de procédure civile.",
            "fr",
        ),
        (
            "Das Gericht weist die Revision der Beklagten zurück und legt ihr die Kosten des Verfahrens auf, "
            "gemäß den Vorschriften der Zivilprozessordnung.",
            "de",
        ),
        (
            "La Corte rigetta il ricorso proposto dalla società convenuta e la condanna al pagamento delle spese "
            "del giudizio, secondo le norme del codice di procedura civile.",
            "it",
        ),
    ],
)
def test_the_other_languages_of_a_firm(text: str, language: str) -> None:
    assert detect_language(text) == language


@pytest.mark.parametrize("text", ["", "   \n\f\n ", "12/03/2019 — fls. 261 — 0017387-33.2017.8.19.0000", "STJ"])
def test_too_little_text_is_undetermined(text: str) -> None:
    assert detect_language(text) == UNDETERMINED


def test_a_long_text_is_read_from_its_start_middle_and_end() -> None:
    """An English abstract on the cover of a Portuguese thesis does not make it English."""
    english = "This thesis examines the enforcement of arbitral awards against consumers in Brazil. " * 20
    portuguese = pages_of("i1046.pdf", 40)
    body = "\n".join(page.text for page in portuguese)
    assert len(body) > 30_000
    assert detect_language(english + body) == "pt"


def test_each_language_has_its_stemmer_and_the_rest_none() -> None:
    assert ts_config("pt") == "public.pt_unaccent"
    assert ts_config("en") == "public.en_unaccent"
    assert {ts_config(code) for code in ("es", "fr", "de", "it")} == {
        "public.es_unaccent",
        "public.fr_unaccent",
        "public.de_unaccent",
        "public.it_unaccent",
    }
    assert ts_config("nl") == ts_config(UNDETERMINED) == SIMPLE_CONFIG
    assert ts_config(None) == TS_CONFIGS["pt"]  # what documents indexed before detection were


def test_archive_figure_every_file() -> None:
    """All 94 files of the archive, by their first pages: 76 Portuguese and 18 English, read by hand."""
    if not ARCHIVE.exists():
        pytest.fail("the archive is not beside the checkout (../shared/archive)")
    found: dict[str, str] = {}
    for path in sorted(ARCHIVE.glob("*.pdf")):
        found[path.name] = detect_language("\n".join(page.text for page in pages_of(path.name, 4)))
    english = {name for name, language in found.items() if language == "en"}
    assert english == {
        *("i1030.pdf", "i1032.pdf", "i1039.pdf", "i1042.pdf", "i1043.pdf", "i1044.pdf", "i1048.pdf", "i1052.pdf"),
        *("i1057.pdf", "i1060.pdf", "i1089.pdf", "i1091.pdf", "i1099.pdf", "i1122.pdf", "i1344.pdf", "i446.pdf"),
        *("i455.pdf", "i570.pdf"),
    }
    assert {language for name, language in found.items() if name not in english} == {"pt"}
