"""Authors, venue and year of works of doctrine: a synthetic article and thesis, and real ones of ../shared/archive."""

import pytest

from shared.legal.doctrine import DoctrineInfo, is_byline, read_doctrine
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


def test_supervisor_and_examiners_are_not_authors() -> None:
    """A cover names the author, then "Orientador: Professor Doutor Frederico Henrique Viegas de Lima" wrapped."""
    info = work(
        "UNIVERSIDADE DE BRASÍLIA\nMARCELO CAMA PROENÇA FERNANDES\nA EFICÁCIA DOS CONTRATOS\n"
        "Tese apresentada como requisito parcial à obtenção do título de Doutor em Direito.\nOrientador:\n"
        "Professor Doutor Frederico\nHenrique Viegas de Lima\nMembros:\nProfessora Doutora Ana de Oliveira Frazão\n"
        "BRASÍLIA-DF\n2012"
    )
    assert info.authors == ["Marcelo Cama Proença Fernandes"]
    assert work("FERNANDO GEMELLI EICK\nVERSÃO CORRIGIDA\nSão Paulo\n2021").authors == ["Fernando Gemelli Eick"]


def test_running_heads_of_the_raw_text_name_the_journal() -> None:
    """The cleaner drops running heads as page furniture; read from the raw pages they name the journal,
    without the page number printed beside it, and its year even on the line below."""
    body = "O texto do artigo segue aqui, longo o bastante para ser corpo e não cabeçalho de página."
    raw = DocumentText(
        [
            Page(
                number=1,
                text=f"Ano 1 (2015), nº 1, 1761-1870\nO PRINCÍPIO DA COOPERAÇÃO\nPedro Gomes de Queiroz2\n{body}",
            ),
            Page(number=2, text=f"1762 |          RJLB, Ano 1 (2015), nº 1\n{body}\n{body}"),
            Page(number=3, text=f"RJLB, Ano 1 (2015), nº 1            | 1763\n{body}\n{body}"),
        ]
    )
    clean = DocumentText(
        [Page(number=1, text=f"O PRINCÍPIO DA COOPERAÇÃO\nPedro Gomes de Queiroz2\n{body}")]
        + [Page(number=n, text=f"{body}\n{body}") for n in (2, 3)]
    )
    assert read_doctrine(clean).venue is None
    info = read_doctrine(clean, raw)
    assert (info.venue, info.year, info.authors) == ("RJLB, Ano 1 (2015), nº 1", 2015, ["Pedro Gomes de Queiroz"])
    pages = [f"{n}\nRevista Eletrônica\nJaneiro / Fevereiro de 2013\n{body}" for n in (211, 212, 213)]
    magazine = DocumentText([Page(number=i + 1, text=t) for i, t in enumerate(pages)])
    assert (read_doctrine(magazine).venue, read_doctrine(magazine).year) == ("Revista Eletrônica", 2013)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Deusdedith Brasil (*)", True),
        ("Pedro Gomes de Queiroz2", True),
        ("Deusdedith Brasil", False),  # no footnote sign: could be anything
        ("O ADVOGADO TEM FÉ PÚBLICA1", False),  # a title with its footnote
        ("Universidade de São Paulo1", False),
    ],
)
def test_byline(line: str, expected: bool) -> None:
    assert is_byline(line) is expected


CLEANED_AND_RAW = {
    # file: (authors, venue, year), read by hand from the first pages
    "i1052": (["Karin Sein"], "JURIDICA INTERNATIONAL XVIII/2011", 2011),
    "i1062": (["Pedro Gomes de Queiroz"], "RJLB, Ano 1 (2015), nº 1", 2015),
    "i1053": (["Marcelo Cama Proença Fernandes"], "UNIVERSIDADE DE BRASÍLIA", None),
}


@pytest.mark.parametrize("name", sorted(CLEANED_AND_RAW))
def test_archive_works_as_the_annotator_reads_them(name: str) -> None:
    """Cleaned pages with the raw ones beside them, as services.annotator reads them."""
    import pymupdf

    from services.cleaner.logic import clean_pages

    with pymupdf.open(SHARED_DATA / "archive" / f"{name}.pdf") as pdf:
        raw = [Page(number=i + 1, text=p.get_text()) for i, p in enumerate(pdf) if i < 6]
    info = read_doctrine(DocumentText(clean_pages(raw)), DocumentText(raw))
    authors, venue, year = CLEANED_AND_RAW[name]
    assert (info.authors, info.venue) == (authors, venue)
    assert year is None or info.year == year
