"""Authors, venue and year of works of doctrine: a synthetic article and thesis, and real ones of ../shared/archive."""

import pytest

from precedente.shared.legal.doctrine import DoctrineInfo, is_byline, read_doctrine
from precedente.shared.legal.document_text import DocumentText
from precedente.shared.payloads import Page
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
    "i332": (["Ana Carolina Zaina"], "Revista Eletrônica", 2013),  # introduced down a side column: "Zaina é ..."
}


@pytest.mark.parametrize("name", sorted(CLEANED_AND_RAW))
def test_archive_works_as_the_annotator_reads_them(name: str) -> None:
    """Cleaned pages with the raw ones beside them, as precedente.services.annotator reads them."""
    import pymupdf

    from precedente.services.cleaner.logic import clean_pages

    with pymupdf.open(SHARED_DATA / "archive" / f"{name}.pdf") as pdf:
        raw = [Page(number=i + 1, text=p.get_text()) for i, p in enumerate(pdf) if i < 6]
    info = read_doctrine(DocumentText(clean_pages(raw)), DocumentText(raw))
    authors, venue, year = CLEANED_AND_RAW[name]
    assert (info.authors, info.venue) == (authors, venue)
    assert year is None or info.year == year


def test_authors_marked_before_their_names_or_by_what_follows_them() -> None:
    """A footnote sign before the name; an institution under a run of names; "Mestrado em" or "Pós-graduada" under
    a name; a name above the supervisor's line; a roman numeral glued to the name; a surname that ends as nouns
    do ("Trindade") among four names."""
    assert work("TÍTULO DO ARTIGO\n*Maria Laura Lopes Nunes Santos\n** Luciano Nunes Santos Filho\nRESUMO").authors == [
        "Maria Laura Lopes Nunes Santos",
        "Luciano Nunes Santos Filho",
    ]
    assert work("Rev Saúde Pública 2007;41(2):214-22\nFabiola Sulpino Vieira\nPaola Zucchi\nCentro Paulista de "
                "Economia da Saúde.").authors == ["Fabiola Sulpino Vieira", "Paola Zucchi"]  # fmt: skip
    assert work("A anulação da sentença\nÍris Maria Pereira Paixão\nMestrado em Direito\n2024").authors == [
        "Íris Maria Pereira Paixão"
    ]
    assert work("TÍTULO\nAristhéa Totti Silva Castelo Branco de Alencar\nPós-graduada em Direito Público").authors == [
        "Aristhéa Totti Silva Castelo Branco de Alencar"
    ]
    assert work("A EFICÁCIA PROBATÓRIA\nIgor Matheus Alves da Cunha\nN.º USP: 10340072\nProf. Orientador: Marcelo "
                "José Magalhães Bonizzi").authors == ["Igor Matheus Alves da Cunha"]  # fmt: skip
    assert work("Judicialização e direito à saúde\nFabiola Sulpino VieiraI\nI Instituto de Pesquisa").authors == [
        "Fabiola Sulpino Vieira"
    ]
    assert work("O RECONHECIMENTO DOS CONTRATOS\nPaulo Junior Trindade dos Santos1\nRESUMO:").authors == [
        "Paulo Junior Trindade dos Santos"
    ]
    assert work("A TUTELA DA VULNERABILIDADE CONTRATUAL\nTutela da Vulnerabilidade Contratual1\nRESUMO").authors == []


def test_the_work_s_reference_to_itself_names_authors_venue_year_and_title() -> None:
    info = work(
        "Information & Communications Technology Law\nNo harm no foul: how harms caused by dark\npatterns are "
        "conceptualised\nCristiana Santos, Viktorija Morozovaite & Silvia De Conca\nTo cite this article: Cristiana "
        "Santos, Viktorija Morozovaite & Silvia De Conca (2025) No harm\nno foul: how harms caused by dark patterns "
        "are conceptualised, Information & Communications Technology Law,\n34:3, 329-375, DOI: 10.1080/13600834"
    )
    assert info == DoctrineInfo(
        ["Cristiana Santos", "Viktorija Morozovaite", "Silvia De Conca"],
        "Information & Communications Technology Law",
        2025,
        "No harm no foul: how harms caused by dark patterns are conceptualised",
    )
    info = work(
        "A Judicialização Do Direito À Saúde\nARTIGO ORIGINAL\nBARBOSA, Diego Cury-Rad\nBARBOSA, Diego Cury-Rad. A "
        "Judicialização Do Direito À Saúde. Revista Científica\nMultidisciplinar Núcleo do Conhecimento. Ano 06, Ed. "
        "05, Vol. 02, pp. 163-173. Maio de 2021."
    )
    assert (info.authors, info.venue, info.year) == (
        ["Diego Cury-Rad Barbosa"],
        "Revista Científica Multidisciplinar Núcleo do Conhecimento",
        2021,
    )
    # a reference to another work (its title is not this one's) says nothing about this one
    assert work("O DIREITO À SAÚDE\nSILVA, José. Outro Título Qualquer. Revista X. 2001.").authors == []
    comment = work("STJ – REsp 1.602.076/SP – Comentário por Patrícia Cândido Alves Ferreira.\nRevista de Direito")
    assert (comment.authors, comment.title) == (
        ["Patrícia Cândido Alves Ferreira"],
        "STJ – REsp 1.602.076/SP – Comentário",
    )


def test_abbreviated_journals_years_at_a_cover_s_foot_and_serial_numbers() -> None:
    """ "Rev. Ciên. Jur." and "Rev Saúde Pública" are journals; a year is read from a cover's last line or an issue's
    "Ano 5 (2019)", not from a paragraph that discusses 1957; an e-ISSN is no part of a venue."""
    unipar = work("IOCOHAMA et al.\nRev. Ciên. Jur. e Soc. da Unipar, v. 12, n. 1 p. 81-100, jan./jun. 2009\nTÍTULO")
    assert (unipar.venue, unipar.year) == (
        "Rev. Ciên. Jur. e Soc. da Unipar, v. 12, n. 1 p. 81-100, jan./jun. 2009",
        2009,
    )
    assert work("UNIVERSIDADE FEDERAL DO CEARÁ\nRENÚNCIA DE ALIMENTOS\nFortaleza - Ceará\n2006").year == 2006
    assert work("TÍTULO\nAs diretivas eram baseadas no Tratado de Roma, na versão original de 1957.").year is None
    assert work("Ano 5 (2019), nº 4, 295-329\nA PROVA DOCUMENTAL").year == 2019
    serial = work("Revista Brasileira de Direito Civil | e-ISSN: 2526-0243| Encontro Virtual |\nTÍTULO")
    assert serial.venue == "Revista Brasileira de Direito Civil | Encontro Virtual"


def test_a_journal_named_on_its_even_pages_and_the_issue_under_its_name() -> None:
    """Running heads alternate: the journal on pages 2 and 4, the article's short title on page 3; a journal's name
    on one line and its issue ("v. 9 | n. 1 | Jan/Jun. 2023.") on the next give the year."""
    body = "O texto do artigo segue aqui, longo o bastante para ser corpo e não cabeçalho de página."
    pages = [
        f"TÍTULO DO ARTIGO\nRegina Rocha1\n{body}",
        f"146 |  Estudos, Nº 14, 2010\nEstudos – Revista de Ciências Humanas\n{body}",
        f"147 | Arbitragem, Regina Rocha, p. 145-171.\nUniversidade de Marília\n{body}",
        f"148 |  Estudos, Nº 14, 2010\nEstudos – Revista de Ciências Humanas\n{body}",
    ]
    info = read_doctrine(DocumentText([Page(number=i + 1, text=t) for i, t in enumerate(pages)]))
    assert (info.venue, info.year) == ("Estudos – Revista de Ciências Humanas", 2010)
    issue = work("Revista Brasileira de Direito Civil em Perspectiva\nv. 9 | n. 1 | p. 01 – 16 | Jan/Jun. 2023.\nTEMA")
    assert (issue.venue, issue.year) == ("Revista Brasileira de Direito Civil em Perspectiva", 2023)


def test_a_book_is_read_from_its_catalogue_card_when_its_cover_holds_no_text() -> None:
    """A proceedings volume: an image cover, then the CIP card: title, organisers, publisher and year from it."""
    card = (
        "Dados Internacionais de Catalogação na Publicação (CIP)\n"
        "Encontro de Internacionalização do CONPEDI (1. : 2015 : Barcelona, ES)\n"
        "I Encontro de Internacionalização do CONPEDI / organizadores: João Marcelo \n"
        "de Lima Assafim, Monica Navarro Michel. – Barcelona : Ediciones Laborum, 2015.\n"
        "V. 7\nInclui bibliografia\nISBN (Internacional): 978-84-92602-86-5\n"
    )
    doc = DocumentText([Page(number=1, text=""), Page(number=2, text=card), Page(number=3, text="Diretoria - Conpedi")])
    work = read_doctrine(doc, doc)
    assert work.title == "I Encontro de Internacionalização do CONPEDI"
    assert work.authors == ["João Marcelo de Lima Assafim", "Monica Navarro Michel"]
    assert (work.venue, work.year) == ("Ediciones Laborum", 2015)
    # Without the card's heading the same words are only a page of text.
    assert read_doctrine(DocumentText([Page(number=1, text=card.split("\n", 1)[1])])).title is None


def test_an_author_introduced_in_a_sentence_down_a_side_column_or_on_one_line() -> None:
    """No byline marked otherwise: the work says who wrote it, "<name> é <role>", down a narrow side column one or
    two words a line, or on one line; the name's own "e" ("Maria e Silva") is no "é", and a role is needed."""
    side = "Artigos\nValor Probante do Documento:\nsua aceitação\nAna\nCarolina\nZaina é\nDesembargadora\nFederal do"
    assert work(side + " Trabalho do Tribunal Regional do Trabalho da 9ª Região. Mestre em Direito").authors == [
        "Ana Carolina Zaina"
    ]
    assert work("O PROCESSO ELETRÔNICO\nJoão Batista Pereira é professor de Direito Processual").authors == [
        "João Batista Pereira"
    ]
    assert work("O PROCESSO ELETRÔNICO\nJoão Pereira e Silva Desembargador aposentado").authors == []
    assert work("O PROCESSO ELETRÔNICO\nAna Carolina Zaina é autora de outros livros").authors == []
