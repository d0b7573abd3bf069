"""OCR on real scans: accuracy targets, orientation, garbage text layers, time limits, `precedente inspect`.

Targets (ground truths in ../shared/docs/scanned, metrics in services/extractor/ocr_metrics.py, CER
and word recall without the running letterhead and footer): the easy scan, all 9 pages, CER <= 1.5%
and word recall >= 99%; the hard scan, its upside-down page 2 and three pages with stamps or a 2-3
degree skew, CER <= 5% and word recall >= 97%. bench/ocr_cer.py gives the figures for every page.
"""

import json
import math
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pymupdf
import pytest

from precedente.services.extractor.logic import extract
from precedente.services.extractor.ocr import text_from_tesseract
from precedente.services.extractor.ocr_metrics import body, is_running_line, score, truth_pages
from precedente.services.extractor.policy import review_reasons, review_verdict
from precedente.services.extractor.preprocess import (
    capped_dpi,
    deskew,
    find_stamps,
    page_image,
    remove_stamps,
    rotate_quarter,
    skew_angle,
)
from precedente.services.extractor.text_layer import garbled_reason
from precedente.shared.payloads import PAGE_SEPARATOR, ExtractedDocument, Page
from precedente.shared.settings import Settings

REPO = Path(__file__).resolve().parents[3]
DOCS = REPO.parent / "shared" / "docs"
SCANNED = DOCS / "scanned"
EASY = SCANNED / "stj_resp_1433940_mg_scan.pdf"
HARD = SCANNED / "stj_resp_1543564_sp_scan_hard.pdf"
NATIVE = DOCS / "stj_resp_1602076_sp_acordao.pdf"

HARD_PAGES = [2, 7, 10, 17]
"""Page 2 is upside down; 7 and 10 carry a stamp over a paragraph; 17 is skewed ~2.5 degrees."""


def truth(pdf: Path) -> list[str]:
    return truth_pages(pdf.with_suffix(".groundtruth.txt"))


def subset(source: Path, numbers: list[int]) -> bytes:
    out = pymupdf.open()
    with pymupdf.open(source) as src:
        for number in numbers:
            out.insert_pdf(src, from_page=number - 1, to_page=number - 1)
    return out.tobytes()


def scan_of(source: Path, index: int, dpi: int = 150) -> pymupdf.Pixmap:
    with pymupdf.open(source) as src:
        return src[index].get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)


# ---------------------------------------------------------------------------------------------
# Accuracy on the sample scans
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_easy_scan_meets_the_targets():
    doc = extract(EASY.read_bytes(), EASY.name)

    assert [p.method for p in doc.pages] == ["ocr"] * 9
    result = score([p.text for p in doc.pages], truth(EASY))
    assert result.cer_body <= 0.015, result
    assert result.word_recall_body >= 0.99, result
    assert doc.confidence >= Settings().ocr_confidence_bar
    assert review_reasons(doc, Settings()) == []


@pytest.mark.slow
def test_hard_scan_pages_meet_the_targets_upside_down_page_included():
    doc = extract(subset(HARD, HARD_PAGES), "hard.pdf")

    expected = truth(HARD)
    result = score([p.text for p in doc.pages], [expected[n - 1] for n in HARD_PAGES])
    assert result.cer_body <= 0.05, result
    assert result.word_recall_body >= 0.97, result
    upside_down = doc.pages[0]
    assert "RECURSO ESPECIAL PROVIDO" in upside_down.text.upper() or "ACÓRDÃO" in upside_down.text
    assert upside_down.confidence > 0.85
    assert min(p.confidence for p in doc.pages) > 0.85


def test_sideways_page_is_turned_upright():
    pix = scan_of(EASY, 2)
    sideways = cv2.rotate(np.frombuffer(pix.samples, np.uint8).reshape(pix.height, pix.width), cv2.ROTATE_90_CLOCKWISE)
    ok, png = cv2.imencode(".png", sideways)
    assert ok
    pdf = pymupdf.open()
    page = pdf.new_page(width=842, height=595)  # landscape sheet, portrait text lying on its side
    page.insert_image(page.rect, stream=png.tobytes())

    doc = extract(pdf.tobytes(), "deitado.pdf")

    result = score([doc.pages[0].text], [truth(EASY)[2]])
    assert result.cer_body < 0.03, result
    assert doc.pages[0].confidence > 0.85


# ---------------------------------------------------------------------------------------------
# Page by page: garbage text layers are OCR'd, good ones are not
# ---------------------------------------------------------------------------------------------


def _garbage_page(pdf: pymupdf.Document, lines: list[str], fontname: str, encoding: str | None = None) -> None:
    """A scan of page 3 of the acórdão with an invisible text layer that says something else."""
    page = pdf.new_page(width=595, height=842)
    page.insert_image(page.rect, pixmap=scan_of(NATIVE, 2))
    for row, line in enumerate(lines):
        page.insert_text((36, 40 + row * 11), line, fontname=fontname, fontsize=9, render_mode=3)
    if encoding:
        xref = next(font[0] for font in page.get_fonts() if font[4] == fontname)
        pdf.xref_set_key(xref, "Encoding", encoding)


@pytest.mark.slow
def test_pages_with_garbage_text_layers_are_ocrd_and_good_pages_are_not():
    with pymupdf.open(NATIVE) as src:
        real_lines = [line for line in src[2].get_text().splitlines() if line.strip()]
    pdf = pymupdf.open()
    pdf.insert_pdf(pymupdf.open(NATIVE), from_page=2, to_page=2)  # 1: a good text layer
    # 2: a font whose encoding maps every code to a private-use glyph (a broken font table)
    private = " ".join(f"/uniE{code:03X}" for code in range(33, 127))
    _garbage_page(pdf, real_lines, "helv", f"<< /BaseEncoding /WinAnsiEncoding /Differences [33 {private}] >>")
    # 3: letters mapped to the next letter's glyph ("pt ejsfjupt")
    upper, lower = (" ".join(f"/{chr(code + 1)}" for code in range(ord(a), ord(a) + 25)) for a in "Aa")
    _garbage_page(pdf, real_lines, "tiro", f"<< /BaseEncoding /WinAnsiEncoding /Differences [65 {upper} 97 {lower}] >>")
    # 4: the words run together, 5: mojibake (UTF-8 read as Windows-1252)
    _garbage_page(pdf, ["".join(line.split()) for line in real_lines], "cour")
    _garbage_page(pdf, [line.encode("utf-8").decode("cp1252", "replace") for line in real_lines], "cour")
    # 6: a scan without any text layer
    page = pdf.new_page(width=595, height=842)
    page.insert_image(page.rect, pixmap=scan_of(NATIVE, 2))
    data = pdf.tobytes()
    with pymupdf.open("pdf", data) as check:  # the layers really are garbage, and say why
        assert [garbled_reason(check[i].get_text()) is None for i in range(5)] == [True, False, False, False, False]

    doc = extract(data, "camada-ruim.pdf")

    assert [p.method for p in doc.pages] == ["text", "ocr", "ocr", "ocr", "ocr", "ocr"]
    assert doc.pages[0].confidence == 1.0
    for page in doc.pages[1:]:
        assert page.confidence > 0.85, page.number
        for expected in ("ODONTOLOGIA", "NOROESTE", "NANCY ANDRIGHI", "franquia"):
            assert expected in page.text, (page.number, expected)


def test_good_text_layers_of_every_sample_decision_are_kept():
    for path in sorted(DOCS.glob("*.pdf")):
        with pymupdf.open(path) as doc:
            flagged = [(path.name, p.number + 1, garbled_reason(p.get_text())) for p in doc]
        assert [f for f in flagged if f[2]] == []


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("\ue043\ue075\ue069 " * 30, "private-use"),
        ("\ufffd\ufffd \ufffd" * 30, "private-use"),
        ("AÃ§Ã£o de indenizaÃ§Ã£o por danos morais e responsabilidade civil " * 3, "mojibake"),
        ("Responsabilidadesolidáriadotomadoredoprestadordeserviço " * 4, "spaces"),
        ("#$%&'()*+,-./ !\"#$%&'()* " * 8, "letters"),
        ("pt ejsfjupt ep dpotvnjeps tbp hbsboujept qfmb mfj " * 6, "common words"),
    ],
)
def test_garbled_reason_names_the_problem(text, why):
    reason = garbled_reason(text)
    assert reason is not None and why in reason


def test_short_or_numeric_text_layers_are_not_judged_garbage():
    assert garbled_reason("fls. 12") is None
    assert garbled_reason("1.234.567,89 2.345.678,90 3.456.789,01 " * 10) is None
    assert garbled_reason("The parties agree that the contract is void " * 5) is None


# ---------------------------------------------------------------------------------------------
# Bounds: time per page, pixels per page; confidence and the review rule
# ---------------------------------------------------------------------------------------------


def test_page_past_the_time_limit_fails_alone_and_is_named_for_review():
    pdf = pymupdf.open()
    pdf.insert_pdf(pymupdf.open(NATIVE), from_page=0, to_page=0)
    pdf.insert_pdf(pymupdf.open(EASY), from_page=2, to_page=2)

    doc = extract(pdf.tobytes(), "lento.pdf", ocr_page_timeout_s=0.2)

    text_page, slow_page = doc.pages
    assert text_page.method == "text" and "RECURSO ESPECIAL" in text_page.text
    assert (slow_page.method, slow_page.text, slow_page.confidence) == ("ocr", "", 0.0)
    assert "0.2 s" in slow_page.error
    verdict = review_verdict(doc, Settings())
    assert verdict.needed and verdict.code == "ocr_page_failed" and verdict.weak_pages == [2]
    assert "page 2" in verdict.reasons[0]


def test_review_rule_names_weak_pages_and_passes_good_documents():
    settings = Settings(ocr_confidence_bar=0.85)
    good = ExtractedDocument(pages=[Page(number=1, text="x" * 50, method="ocr", confidence=0.93)])
    weak = ExtractedDocument(
        pages=[
            Page(number=1, text="texto " * 100, method="text"),
            Page(number=2, text="x" * 500, method="ocr", confidence=0.95),
            Page(number=3, text="x" * 500, method="ocr", confidence=0.40),
        ]
    )
    assert review_reasons(good, settings) == []
    verdict = review_verdict(weak, settings)
    assert verdict.code == "low_ocr_confidence" and verdict.weak_pages == [3]
    assert verdict.reasons == [
        "OCR confidence 0.68 is below the bar of 0.85 (weak pages: 3); check the scan or correct the text"
    ]


def test_very_large_pages_are_rendered_within_the_pixel_cap():
    assert capped_dpi(8.27, 11.69, 300) == 300  # A4 stays at 300 dpi
    assert capped_dpi(46.8, 33.1, 300, max_pixels=40_000_000) == 160  # A0 is made at 160 dpi
    pdf = pymupdf.open()
    page = pdf.new_page(width=72 * 60, height=72 * 40)  # a 60 x 40 inch plan
    page.insert_text((72, 72), "PLANTA BAIXA", fontsize=200)

    image = page_image(pdf[0], 300, max_pixels=2_000_000)

    assert image.size <= 2_000_000 and image.dtype == np.uint8


def test_noise_lines_are_left_out_but_still_count_in_the_confidence():
    data = {
        "block_num": [1, 1, 1, 2, 2],
        "par_num": [1, 1, 1, 1, 1],
        "line_num": [1, 1, 1, 1, 1],
        "text": ["Sefronio", "Aóleeneed", "Lestipa", "Recurso", "provido."],
        "conf": [0, 10, 0, 95, 91],
    }
    assert text_from_tesseract(data, min_line_confidence=30) == ("Recurso provido.", pytest.approx(196 / 5 / 100))
    assert text_from_tesseract(data)[0] == "Sefronio Aóleeneed Lestipa\n\nRecurso provido."


# ---------------------------------------------------------------------------------------------
# Preprocessing steps on their own
# ---------------------------------------------------------------------------------------------


def test_skew_is_measured_and_removed():
    with pymupdf.open(NATIVE) as src:
        straight = page_image(src[2], 150, native=False)
    height, width = straight.shape
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), -2.0, 1.0)
    tilted = cv2.warpAffine(straight, matrix, (width, height), borderValue=255)

    assert skew_angle(straight) == 0.0
    assert math.isclose(skew_angle(tilted), 2.0, abs_tol=0.15)
    assert abs(skew_angle(deskew(tilted))) <= 0.1


def test_round_stamps_are_found_and_erased_and_text_is_left_alone():
    with pymupdf.open(HARD) as hard, pymupdf.open(EASY) as easy:
        stamped = page_image(hard[9], 300)
        clean = page_image(easy[2], 300)

    stamps = find_stamps(stamped)
    assert len(stamps) == 1
    x, y, radius = stamps[0]
    assert 150 < radius < 260 and x < stamped.shape[1] / 2 and y > stamped.shape[0] * 0.75
    assert find_stamps(remove_stamps(stamped)) == []
    assert find_stamps(clean) == [] and remove_stamps(clean) is clean


def test_quarter_turns_are_clockwise_like_tesseract_osd():
    image = np.arange(6, dtype=np.uint8).reshape(2, 3)
    assert rotate_quarter(image, 90).tolist() == [[3, 0], [4, 1], [5, 2]]
    assert rotate_quarter(rotate_quarter(image, 90), 270).tolist() == image.tolist()
    assert rotate_quarter(image, 0) is image


def test_running_lines_are_recognised_in_the_metrics():
    assert is_running_line("Superior Tribunal de Justiça")
    assert is_running_line("SUPERIOR TRIBUNAL DE JUST IÇA")
    assert is_running_line("Documento: 1640283 - Inteiro Teor do Acórdão - Site certificado - DJe: 02/10/2017")
    assert is_running_line("Página  3 de 9")
    assert not is_running_line("a Terceira Turma do Superior Tribunal de Justiça, por unanimidade, deu provimento")
    assert body("Superior Tribunal de Justiça\nRECURSO ESPECIAL\nPágina 1 de 9") == "RECURSO ESPECIAL"


# ---------------------------------------------------------------------------------------------
# precedente inspect
# ---------------------------------------------------------------------------------------------


def inspect(path: Path, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "precedente.cli", "inspect", str(path), *options],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_inspect_json_of_a_native_pdf():
    run = inspect(DOCS / "stj_resp_1433940_mg_acordao.pdf", "--json")

    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert set(out) == {"pages", "text", "review", "metadata", "sections", "chunks"}
    pages = [(p["number"], p["method"], p["confidence"]) for p in out["pages"]]
    assert pages == [(n, "text", 1.0) for n in range(1, 10)]
    assert out["text"] == PAGE_SEPARATOR.join(p["text"] for p in out["pages"])
    assert "RECURSO ESPECIAL" in out["pages"][0]["text"]
    assert out["review"] == {
        "needed": False,
        "reasons": [],
        "disposition": None,
        "outcome": "pass",
        "unread_pages": [],
        "unread_reason": None,
    }
    # The chunker's and annotator's view, from the same code the services run.
    metadata = out["metadata"]
    assert (metadata["document_type"], metadata["court"]) == ("acordao", "stj")
    assert metadata["process_number"] and metadata["relator"] and metadata["judgment_date"]
    tops = [s["path"].split(" > ")[0] for s in out["sections"]]
    assert {"ementa", "relatorio", "voto"} <= set(tops)
    assert all(1 <= s["first_page"] <= s["last_page"] <= 9 for s in out["sections"])
    assert sum(c["is_ementa"] for c in out["chunks"]) == 1
    assert all(c["token_count"] <= 512 and c["text"] in out["text"] for c in out["chunks"])


@pytest.mark.slow
def test_inspect_of_a_mixed_pdf_shows_each_page_and_a_bad_file_its_disposition(tmp_path):
    mixed = tmp_path / "misto.pdf"
    pdf = pymupdf.open()
    pdf.insert_pdf(pymupdf.open(NATIVE), from_page=2, to_page=2)
    page = pdf.new_page(width=595, height=842)
    page.insert_image(page.rect, pixmap=scan_of(NATIVE, 2))
    pdf.save(mixed)

    run = inspect(mixed, "--json")

    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    text_page, ocr_page = out["pages"]
    assert (text_page["method"], text_page["confidence"]) == ("text", 1.0)
    assert ocr_page["method"] == "ocr" and 0.85 < ocr_page["confidence"] < 1.0
    assert "NANCY ANDRIGHI" in ocr_page["text"]
    assert out["review"]["needed"] is False

    readable = inspect(mixed)
    assert readable.returncode == 0, readable.stderr
    assert "page 2 · ocr · confidence 0." in readable.stdout and "no review needed" in readable.stdout

    empty = tmp_path / "vazio.pdf"
    empty.write_bytes(b"")
    out = json.loads(inspect(empty, "--json").stdout)
    assert out["pages"] == [] and out["review"]["needed"] is True
    assert out["review"]["disposition"] == "deadletter" and "empty" in out["review"]["reasons"][0]
