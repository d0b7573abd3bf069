"""OCR corrections: the data files, the guard that keeps correct words, the contextual rules, and the
effect on real OCR output of the sample scans, scored against their ground truth."""

import os
import re
import shutil
from difflib import SequenceMatcher
from pathlib import Path

import pymupdf
import pytest

from precedente.services.cleaner.corrections import CORRECTIONS_FILE, VOCABULARY_FILE, correct_ocr, load
from precedente.services.cleaner.logic import CleanedDocument, clean_document
from precedente.services.extractor.ocr_metrics import truth_pages, word_errors
from precedente.shared.payloads import Page

SHARED = Path(__file__).resolve().parents[3].parent / "shared"
DOCS = SHARED / "docs"
SCANS = DOCS / "scanned"
EASY, HARD = "stj_resp_1433940_mg_scan", "stj_resp_1543564_sp_scan_hard"
# Pages to OCR: three of the easy scan (a running footer to find across pages) and one of the hard one.
OCR_PAGES = {EASY: [1, 2, 3], HARD: [4]}
OCR_DPI = 300  # the extractor's default (PRECEDENTE_OCR_DPI)


# ------------------------------------------------------------------------------ data files


def test_correction_list_is_a_commented_tsv_of_at_least_200_entries() -> None:
    text = CORRECTIONS_FILE.read_text(encoding="utf-8")
    assert text.startswith("# ")
    rows = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert len(rows) >= 200
    assert all(line.count("\t") == 1 for line in rows)
    table = load()
    assert len(table.entries) == len(rows)
    for example, right in [("acordao", "acórdão"), ("jurisprudencia", "jurisprudência"), ("Iei", "lei")]:
        assert table.entries[example] == right
    assert table.entries["arf."] == "art." and table.entries["rnérito"] == "mérito"
    assert table.entries["tribuna1"] == "tribunal"


def test_every_entry_can_fire_and_no_entry_replaces_a_known_word() -> None:
    table = load()
    for wrong, right in table.entries.items():
        assert all(part in table.vocabulary for part in re.findall(r"[^\W\d_]+", right.lower())), right
        if wrong.isalpha():
            assert wrong.lower() not in table.vocabulary, wrong


def test_vocabulary_is_a_shipped_word_list() -> None:
    text = VOCABULARY_FILE.read_text(encoding="utf-8")
    assert text.startswith("# ")
    words = load().vocabulary
    assert len(words) > 4000
    assert {"acórdão", "jurisprudência", "lei", "mérito", "tribunal", "art", "compromissória"} <= words
    assert not {"acordao", "iei", "rnérito", "fis"} & words


# --------------------------------------------------------------------------------- the guard


def test_correct_words_are_never_changed() -> None:
    words = sorted(load().vocabulary)
    for text in (" ".join(words), " ".join(w.upper() for w in words), " ".join(w.capitalize() for w in words)):
        assert correct_ocr(text) == (text, 0)


def test_native_text_layers_are_never_corrected_and_would_only_lose_typos() -> None:
    vocabulary = load().vocabulary
    for path in sorted(DOCS.glob("*.pdf")):
        with pymupdf.open(path) as doc:
            pages = [Page(number=i + 1, text=p.get_text()) for i, p in enumerate(doc)]
        cleaned = clean_document(pages)
        assert cleaned.corrections == [0] * len(pages), path.name  # a text layer is what the author typed
        for page in cleaned.pages:  # were they OCR, only tokens that are not words would change
            fixed, _ = correct_ocr(page.text)
            for before, after in zip(page.text.split(), fixed.split(), strict=True):
                if before != after:
                    assert not all(w in vocabulary for w in re.findall(r"[^\W\d_]+", before.lower())), before


def test_a_correction_applies_to_an_ocr_page_but_not_to_a_native_page() -> None:
    text = "O rnérito da Iei, conforme o arf. 4º, $ 2º, da Lei 9.307/96 e a jurisprudencia do Tribuna1."
    ocr = clean_document([Page(number=1, text=text, method="ocr", confidence=0.8)])
    assert ocr.pages[0].text == (
        "O mérito da lei, conforme o art. 4º, § 2º, da Lei 9.307/96 e a jurisprudência do Tribunal."
    )
    assert ocr.corrections == [6]
    native = clean_document([Page(number=1, text=text)])
    assert native.pages[0].text == text and native.corrections == [0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("nos termos do art. 85, 8 2º, do Código", "nos termos do art. 85, § 2º, do Código"),
        ("conferida ao & 1º do art. 162", "conferida ao § 1º do art. 162"),
        ("art. 4º, S 1º, da Lei", "art. 4º, § 1º, da Lei"),
        ("no $ único do artigo 5º", "no § único do artigo 5º"),
        ("o art. 21, $$ 1º e 2º", "o art. 21, §§ 1º e 2º"),
        ("art. 535, incisos | e Il, do Código", "art. 535, incisos I e II, do Código"),
        ("nos termos do art. 267, Vil, do CPC", "nos termos do art. 267, VII, do CPC"),
        ("o inciso Ill do art. 105", "o inciso III do art. 105"),
        ("(i) a legitimidade; (li) o interesse", "(i) a legitimidade; (ii) o interesse"),
        ("Compreendendo-sé que", "Compreendendo-se que"),
        ("EMENTA: AÇÃO ANULATÓRIA. AUSENCIA DE INTERESSE.", "EMENTA: AÇÃO ANULATÓRIA. AUSÊNCIA DE INTERESSE."),
        ("Nao conheço do recurso; a decisao", "Não conheço do recurso; a decisão"),
        ("(e-STJ fis. 835-836)", "(e-STJ fls. 835-836)"),
    ],
)
def test_contextual_and_listed_corrections(text: str, expected: str) -> None:
    assert correct_ocr(text)[0] == expected


@pytest.mark.parametrize(
    "text",
    [
        "R$ 1.000,00 e US$ 20",  # money, not a section sign
        "os itens 8 2º e 3º da lista",  # no article or statute around
        "um ato vil e torpe",  # "vil" is a word; a roman numeral only after "inciso" or "art. N,"
        "FISCHER AMERICA COMUNICACAO TOTAL S.A.",  # unaccented capitals of a registered name stay
        "Publica-se. Intimem-se. O juiz analise o pedido e publique.",  # verb forms, not lost accents
        "a sumula vinculante que o tribunal sumula",  # "sumula" is also a verb: not listed
        "(l) a alínea ele",  # one letter between brackets is an item, not a numeral
        "nos arts. 5, 11 e 12 da Lei",  # article numbers after "arts. N,": not numerals
        "a hipótese (xl) do rol",  # forty, as written
    ],
)
def test_correct_text_is_left_alone(text: str) -> None:
    assert correct_ocr(text) == (text, 0)


# ------------------------------------------------------------------------ real OCR output


def ground_truth(name: str) -> list[str]:
    return truth_pages(SCANS / f"{name}.groundtruth.txt")


@pytest.fixture(scope="module")
def ocr_pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Page]]:
    """OCR of a few scanned pages with Tesseract (por), one thread, as the extractor does it."""
    import pytesseract

    assert shutil.which("tesseract") and "por" in pytesseract.get_languages(), "run `make install` (tesseract-ocr-por)"
    assert all((SCANS / f"{name}.pdf").exists() for name in OCR_PAGES), f"scanned samples missing in {SCANS}"
    os.environ["OMP_THREAD_LIMIT"] = "1"
    tmp = tmp_path_factory.mktemp("ocr")
    out: dict[str, list[Page]] = {}
    for name, numbers in OCR_PAGES.items():
        with pymupdf.open(SCANS / f"{name}.pdf") as doc:
            out[name] = []
            for n in numbers:
                image = tmp / f"{name}-{n}.pgm"
                doc.load_page(n - 1).get_pixmap(dpi=OCR_DPI, colorspace=pymupdf.csGRAY, alpha=False).save(image)
                text = pytesseract.image_to_string(str(image), lang="por")
                out[name].append(Page(number=n, text=text, method="ocr", confidence=0.9))
    return out


def as_native(pages: list[Page]) -> list[Page]:
    return [p.model_copy(update={"method": "text", "confidence": 1.0}) for p in pages]


def test_corrections_fix_real_ocr_errors_and_never_add_any(ocr_pages: dict[str, list[Page]]) -> None:
    fixed_words: list[tuple[str, str]] = []
    errors_before = errors_after = 0
    for name, pages in ocr_pages.items():
        truth = ground_truth(name)
        reference = clean_document(as_native([Page(number=p.number, text=truth[p.number - 1]) for p in pages]))
        corrected = clean_document(pages)
        uncorrected = clean_document(as_native(pages))  # same cleaning, no corrections
        assert sum(corrected.corrections) > 0 and sum(uncorrected.corrections) == 0
        for ref, before, after in zip(reference.pages, uncorrected.pages, corrected.pages, strict=True):
            ref_words, old, new = ref.text.split(), before.text.split(), after.text.split()
            e_before, e_after = word_errors(ref_words, old), word_errors(ref_words, new)
            assert e_after <= e_before, (name, ref.number)
            errors_before, errors_after = errors_before + e_before, errors_after + e_after
            changed = [
                (o, n)
                for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
                if tag == "replace"
                for o, n in zip(old[i1:i2], new[j1:j2], strict=False)
            ]
            # a word is only ever changed into one the ground truth has, or from one it does not have
            for wrong, right in changed:
                assert right in ref_words or wrong not in ref_words, (name, ref.number, wrong, right)
            fixed_words += changed
    print(f"word errors {errors_before} -> {errors_after}; changes: {fixed_words}")
    assert errors_after < errors_before
    fixes = {right for _, right in fixed_words}
    assert {"fls.", "§"} <= fixes, fixed_words  # e-SAJ sheet marks and the section sign, real errors here
    assert len(fixed_words) >= 5, fixed_words


def test_the_running_footer_of_ocr_pages_goes(ocr_pages: dict[str, list[Page]]) -> None:
    pages = ocr_pages[EASY]
    assert all("Site certificado" in p.text for p in pages)
    doc: CleanedDocument = clean_document(pages)
    for page in doc.pages:
        assert "Site certificado" not in page.text and "Inteiro Teor" not in page.text, page.number
    assert "RECURSO ESPECIAL Nº 1.433.940 - MG" in doc.pages[0].text
