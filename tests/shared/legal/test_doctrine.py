"""Authors, venue and year of works of doctrine: a synthetic article and thesis, and real ones of ../shared/archive."""

import pytest

from shared.legal.doctrine import DoctrineInfo, read_doctrine
from shared.legal.document_text import DocumentText
from shared.payloads import Page
from tests.helpers.samples import SHARED_DATA


def work(text: str) -> DoctrineInfo:
    return read_doctrine(DocumentText([Page(number=1, text=text)]))


def test_article_with_running_head_and_marked_authors() -> None:
    info = work(
        "Revista Pensamento Jurídico – São Paulo – Vol. 13, Nº 1, jan./jun. 2019\n"
        "O PRINCÍPIO DA COOPERAÇÃO COMO NORMA FUNDAMENTAL\nMaria Souza Lima1\nJoão Pedro Alves2\n"
        "RESUMO\nO artigo estuda a cooperação."
    )
    assert info.authors == ["Maria Souza Lima", "João Pedro Alves"]
    assert info.venue and info.venue.startswith("Revista Pensamento Jurídico")
    assert info.year == 2019


def test_thesis_cover() -> None:
    info = work(
        "UNIVERSIDADE DE SÃO PAULO\nFACULDADE DE DIREITO\nFERNANDO GEMELLI EICK\nA TEORIA DAS REDES CONTRATUAIS\n"
        "São Paulo\n2021"
    )
    assert info == DoctrineInfo(["Fernando Gemelli Eick"], "UNIVERSIDADE DE SÃO PAULO", 2021)


def test_titles_and_institutions_are_not_authors() -> None:
    info = work("REVISTA DE DIREITO\nTERMOS DE USO DAS REDES SOCIAIS\nProfessor Assistente\nServiço de Biblioteca\n")
    assert info.authors == []


ARCHIVE_WORKS = {
    "i1029": (["Fabiana Junqueira Tamaoki Neves", "Stephanie Karoline Maioli Isogai", "Sandro Marcos Godoy"], 2019),
    "i1064": (["Eduardo Nunes de Souza", "Cássio Monteiro Rodrigues"], 2020),
    "i1076": (["Rafael Induzzi Drews"], 2017),
    "i432": (["Arthur Leopoldino Ferreira Neto", "Paulo Sergio João"], 2019),
    "i286": (["Angelo Antonio Depieri"], 2023),
}


@pytest.mark.parametrize("name", sorted(ARCHIVE_WORKS))
def test_archive_works(name: str) -> None:
    import pymupdf

    with pymupdf.open(SHARED_DATA / "archive" / f"{name}.pdf") as pdf:
        pages = [Page(number=i + 1, text=p.get_text()) for i, p in enumerate(pdf) if i < 3]
    info = read_doctrine(DocumentText(pages))
    assert (info.authors, info.year) == ARCHIVE_WORKS[name]
    assert info.venue or name == "i432"  # "Ano 5 (2019), nº 4, 295-329": the journal's name is printed nowhere
