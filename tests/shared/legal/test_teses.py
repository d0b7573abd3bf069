"""The citation of a "Jurisprudência em Teses" passage: its edition, subject and tese, on the STJ's booklets of
../shared/archive as the pipeline cleans and chunks them (i168.pdf holds Edições 107 and 110 in one file)."""

import re

import pymupdf
import pytest

from precedente.services.chunker.logic import chunk_document
from precedente.services.cleaner.logic import clean_pages
from precedente.services.search.engine.cards import passage_citation
from precedente.shared.legal.teses import tese_citation
from precedente.shared.payloads import Chunk, Page
from tests.helpers.samples import SHARED_DATA

ARCHIVE = SHARED_DATA / "archive"


def chunks_of(name: str) -> list[Chunk]:
    path = ARCHIVE / name
    assert path.exists(), f"archive file {path} is missing: ../shared must sit beside the checkout"
    with pymupdf.open(path) as pdf:
        pages = [Page(number=i + 1, text=page.get_text()) for i, page in enumerate(pdf)]
    return chunk_document(clean_pages(pages), lambda text: len(text.split()), "jurisprudencia_compilada")


def test_each_tese_is_cited_by_its_own_edition_and_number() -> None:
    """The file's title names Edição 107, the first it opens with; a tese on pages 8-12 is Edição 110's, and its
    number is the one the tese prints (a card once cited the whole file as "Edição 107")."""
    title = "Jurisprudência em Teses — EDIÇÃO N. 107: DOS CONTRATOS DE PROMESSA DE COMPRA E VENDA E DE COMPRA E VENDA"
    teses = [c for c in chunks_of("i168.pdf") if (c.section_path or "").endswith(tuple(f"Tese {n}" for n in range(30)))]
    assert len(teses) >= 20
    for chunk in teses:
        citation = tese_citation(chunk.section_path, title, "stj", chunk.text)
        assert citation is not None
        edition = 107 if chunk.page_start < 8 else 110
        assert citation.startswith(f"STJ, Jurisprudência em Teses, Edição {edition}: Dos Contratos de Promessa")
        printed = re.search(r"^(\d{1,2})\. ", chunk.text, re.M)
        assert printed is not None and citation.endswith(f", tese {printed[1]}"), (citation, chunk.text[:80])
    opening = next(c for c in teses if c.page_start == 8)  # the tese under the edition's heading prints it whole
    assert tese_citation(opening.section_path, title, "stj", opening.text) == (
        "STJ, Jurisprudência em Teses, Edição 110: Dos Contratos de Promessa de Compra e Venda e de Compra e Venda de"
        " Bens Imóveis - II, tese 1"
    )


@pytest.mark.parametrize(
    ("name", "edition", "subject"), [("i259.pdf", 77, "Alimentos - II"), ("i260.pdf", 65, "Alimentos")]
)
def test_a_booklet_of_one_edition(name: str, edition: int, subject: str) -> None:
    teses = [c for c in chunks_of(name) if "Tese " in (c.section_path or "")]
    assert teses
    citation = tese_citation(teses[0].section_path, None, "stj", teses[0].text)
    assert citation == f"STJ, Jurisprudência em Teses, Edição {edition}: {subject}, tese 1"


def test_the_card_cites_the_passage_of_a_booklet_and_the_work_otherwise() -> None:
    """engine/cards.passage_citation: a booklet's tese by its edition; its cover (no edition in the path) and any
    other kind of document by the work's citation (None here)."""
    booklet = {"document_subtype": "jurisprudencia_em_teses", "title": "Jurisprudência em Teses", "court": "stj"}
    tese = {"section_path": "EDIÇÃO N. 77: ALIMENTOS - II > Tese 3", "text": "3. Os alimentos ..."}
    assert passage_citation(booklet, tese) == "STJ, Jurisprudência em Teses, Edição 77: Alimentos - II, tese 3"
    assert passage_citation(booklet, {"section_path": "abertura", "text": "SUMÁRIO"}) is None
    decision = {"document_subtype": None, "title": "REsp", "court": "stj"}
    assert passage_citation(decision, tese) is None
