"""Citations from metadata: the 8 hand-annotated documents (expected strings written by hand from the
texts), acts of each kind, and the cases where a field is missing or unknown, which must never be guessed."""

import json
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from precedente.shared.legal.citing import ACT_TYPES, CitationFields, abnt_author, format_citation, judged_alone

GOLD = Path(__file__).resolve().parents[2] / "data" / "metadata_gold.json"

EXPECTED = {
    "stj_resp_1602076_sp_acordao.pdf": (
        "STJ, REsp 1.602.076/SP, Rel. Min. Nancy Andrighi, Terceira Turma, j. 15/09/2016, DJe 30/09/2016"
    ),
    "stj_resp_1543564_sp_acordao.pdf": (
        "STJ, REsp 1.543.564/SP, Rel. Min. Marco Aurélio Bellizze, Terceira Turma, j. 25/09/2018, DJe 01/10/2018"
    ),
    "stj_resp_1433940_mg_acordao.pdf": (
        "STJ, REsp 1.433.940/MG, Rel. Min. Ricardo Villas Bôas Cueva, Terceira Turma, j. 26/09/2017, DJe 02/10/2017"
    ),
    "stj_agint_aresp_2560760_se_acordao.pdf": (
        "STJ, AgInt no AREsp 2.560.760/SE, Rel. Min. Carlos Cini Marchionatti, Terceira Turma, j. 24/02/2025,"
        " DJe 28/02/2025"
    ),
    "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf": (
        "TJRJ, Agravo de Instrumento 0017387-33.2017.8.19.0000, Rel. Des. Cláudio Dell'Orto, 18ª Câmara Cível,"
        " j. 07/06/2017"
    ),
    "tjsp_sentenca_vara_empresarial_arbitragem.pdf": (
        "TJSP, 1ª Vara Empresarial e Conflitos de Arbitragem, Cumprimento de Sentença 1048106-30.2024.8.26.0100,"
        " Juiz(a) Larissa Gaspar Tunala, j. 07/08/2024"
    ),
    "parecer_pgjmg_procon_16-2022.pdf": "MPMG, Parecer nº 16/2022 - PGJMG/PROCON-MG/SECP/ASJUP, 21/09/2022",
    "mp_acao_civil_publica_peticao_inicial.pdf": (
        "AÇÃO CIVIL PÚBLICA CONSUMERISTA com pedido de liminar, MPRJ, 13/09/2022"
    ),
}


def gold_fields() -> dict[str, CitationFields]:
    documents = json.loads(GOLD.read_text(encoding="utf-8"))["documents"]
    return {d["file"]: CitationFields.from_mapping(d | {"filename": d["file"]}) for d in documents}


def test_the_gold_documents_are_cited_as_lawyers_write_them() -> None:
    fields = gold_fields()
    assert sorted(fields) == sorted(EXPECTED)
    for name, expected in EXPECTED.items():
        assert format_citation(fields[name]) == expected, name


def test_a_citation_never_says_none_or_more_than_the_metadata() -> None:
    for cited in gold_fields().values():
        empty = CitationFields(title=cited.title, document_type=cited.document_type)
        text = format_citation(empty)
        assert text is not None and "None" not in text
        assert "Rel." not in text and "j." not in text and "DJe" not in text


def test_missing_fields_are_left_out() -> None:
    stj = gold_fields()["stj_resp_1602076_sp_acordao.pdf"]
    assert format_citation(replace(stj, relator=None)) == (
        "STJ, REsp 1.602.076/SP, Terceira Turma, j. 15/09/2016, DJe 30/09/2016"
    )
    assert format_citation(replace(stj, judgment_date=None, publication_date=None, judging_body=None)) == (
        "STJ, REsp 1.602.076/SP, Rel. Min. Nancy Andrighi"
    )
    # Without the court nothing says the rapporteur is a minister or the journal a DJe.
    assert format_citation(replace(stj, court=None)) == (
        "REsp 1.602.076/SP, Rel. Nancy Andrighi, 3ª Turma, j. 15/09/2016, publ. 30/09/2016"
    )
    # Without a process number the title names the case.
    assert format_citation(replace(stj, process_number=None, title="REsp 1.602.076/SP")) == (
        "STJ, REsp 1.602.076/SP, Rel. Min. Nancy Andrighi, Terceira Turma, j. 15/09/2016, DJe 30/09/2016"
    )
    tjrj = gold_fields()["tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf"]
    assert format_citation(replace(tjrj, procedural_class=None, judgment_date=None)) == (
        "TJRJ, 0017387-33.2017.8.19.0000, Rel. Des. Cláudio Dell'Orto, 18ª Câmara Cível"
    )
    parecer = gold_fields()["parecer_pgjmg_procon_16-2022.pdf"]
    assert (
        format_citation(replace(parecer, judgment_date=None)) == "MPMG, Parecer nº 16/2022 - PGJMG/PROCON-MG/SECP/ASJUP"
    )
    assert format_citation(replace(parecer, judgment_date=None, publication_date=date(2022, 9, 30))) == (
        "MPMG, Parecer nº 16/2022 - PGJMG/PROCON-MG/SECP/ASJUP, publ. 30/09/2022"
    )


def test_a_title_that_is_the_file_name_is_no_title() -> None:
    bare = CitationFields(title="scan_0001", filename="scan_0001.pdf", document_type="outro", court="stj")
    assert format_citation(bare) is None
    assert format_citation(replace(bare, document_type="acordao")) is None
    assert format_citation(replace(bare, document_type="acordao", process_number="REsp 1.602.076/SP")) == (
        "STJ, REsp 1.602.076/SP"
    )
    assert format_citation(CitationFields(title="  ")) is None


def test_relator_titles_and_bodies_follow_each_court() -> None:
    trf = CitationFields(
        title="Apelação",
        document_type="acordao",
        court="trf3",
        procedural_class="Apelação Cível",
        process_number="5001234-12.2020.4.03.6100",
        relator="Desembargador Federal Fulano de Tal",  # a title already in the field is not repeated
        judging_body="3ª Turma",
    )
    assert format_citation(trf) == "TRF3, Apelação Cível 5001234-12.2020.4.03.6100, Rel. Des. Fulano de Tal, 3ª Turma"
    stf = CitationFields(
        title="ADI 1.234/DF", document_type="acordao", court="stf", relator="Min. Luiz Fux", judging_body="Plenario"
    )
    assert format_citation(stf) == "STF, ADI 1.234/DF, Rel. Min. Luiz Fux, Plenário"
    assert (
        format_citation(replace(stf, judging_body="1ª Turma"))
        == "STF, ADI 1.234/DF, Rel. Min. Luiz Fux, Primeira Turma"
    )
    tre = CitationFields(title="RE 1-23", document_type="acordao", court="tre_sp", relator="Beltrano Souza")
    # judges and jurists sit there: no title guessed
    assert format_citation(tre) == "TRE-SP, RE 1-23, Rel. Beltrano Souza"
    monocratic = CitationFields(
        title="AREsp 1.234/SP",
        document_type="decisao_monocratica",
        court="stj",
        relator="Ministra Nancy Andrighi",
        publication_date=date(2021, 3, 1),
    )
    assert (
        format_citation(monocratic)
        == "STJ, AREsp 1.234/SP, Rel. Min. Nancy Andrighi, decisão monocrática, DJe 01/03/2021"
    )
    vara = CitationFields(
        title="Decisão",
        document_type="decisao_monocratica",
        court="tjsp",
        process_number="1000000-00.2020.8.26.0100",
        procedural_class="Procedimento Comum Cível",
        relator="Fulano de Tal",
        judging_body="2ª Vara Cível",
        judgment_date=date(2020, 5, 4),
    )
    assert format_citation(vara) == (
        "TJSP, 2ª Vara Cível, Procedimento Comum Cível 1000000-00.2020.8.26.0100, Juiz(a) Fulano de Tal, decisão,"
        " j. 04/05/2020"
    )


def test_court_codes_absent_from_the_labels() -> None:
    ccbc = CitationFields(title="Sentença Arbitral 12/2020", document_type="outro", court="ccbc")
    assert format_citation(ccbc) == "Sentença Arbitral 12/2020, CCBC"  # a short code reads as its acronym
    long_code = replace(ccbc, court="camara_de_comercio_brasil_canada")  # a folded name would print misspelt
    assert format_citation(long_code) == "Sentença Arbitral 12/2020"
    acordao = CitationFields(
        title="Apelação 1",
        document_type="acordao",
        court="camara_de_comercio",
        relator="Fulano de Tal",
        judgment_date=date(2020, 1, 2),
    )
    assert format_citation(acordao) == "Apelação 1, Rel. Fulano de Tal, j. 02/01/2020"


def test_an_unknown_type_falls_back_to_origin_title_date() -> None:
    laudo = CitationFields(
        title="Laudo pericial contábil", document_type="laudo_pericial", court="tjsp", judgment_date=date(2023, 4, 5)
    )
    assert format_citation(laudo) == "TJSP, Laudo pericial contábil, 05/04/2023"
    assert format_citation(replace(laudo, court=None, judgment_date=None)) == "Laudo pericial contábil"
    assert format_citation(CitationFields(title="Súmula 7", document_type="sumula", court="stj")) == "STJ, Súmula 7"


def test_statutes_with_their_dates() -> None:
    assert {"ato_normativo", "ato_administrativo"} == ACT_TYPES
    lei = CitationFields(title="LEI Nº 8.078, DE 11 DE SETEMBRO DE 1990.", document_type="ato_normativo")
    assert format_citation(lei) == "Lei nº 8.078, de 11 de setembro de 1990"
    dated = CitationFields(title="Lei nº 8.078/1990", document_type="ato_normativo", judgment_date=date(1990, 9, 11))
    assert format_citation(dated) == "Lei nº 8.078, de 11 de setembro de 1990"
    # A date that contradicts the number's year is not written.
    assert format_citation(replace(dated, judgment_date=date(1991, 9, 11))) == "Lei nº 8.078/1990"
    assert format_citation(replace(dated, judgment_date=None)) == "Lei nº 8.078/1990"
    first = CitationFields(
        title="Lei Complementar nº 123", document_type="ato_normativo", judgment_date=date(2006, 12, 1)
    )
    assert format_citation(first) == "Lei Complementar nº 123, de 1º de dezembro de 2006"
    # Statutes carry no issuer, even when the metadata names one.
    decreto = CitationFields(
        title="DECRETO Nº 8.660, DE 29 DE JANEIRO DE 2016", document_type="ato_normativo", court="cnj"
    )
    assert format_citation(decreto) == "Decreto nº 8.660, de 29 de janeiro de 2016"


def test_normative_acts_name_their_issuer() -> None:
    provimento = CitationFields(
        title="PROVIMENTO N. 100, DE 26 DE MAIO DE 2020.", document_type="ato_normativo", court="cnj"
    )
    assert format_citation(provimento) == "Provimento CNJ nº 100, de 26 de maio de 2020"
    resolucao = CitationFields(
        title="RESOLUÇÃO 228, DE 22 DE JUNHO DE 2016.", document_type="ato_normativo", court="cnj"
    )
    assert format_citation(resolucao) == "Resolução CNJ nº 228, de 22 de junho de 2016"
    corregedoria = CitationFields(
        title="PROVIMENTO/CGJ N. 2, DE 6 DE JANEIRO DE 2023.", document_type="ato_administrativo", court="tjrr"
    )
    assert format_citation(corregedoria) == "TJRR, Provimento/CGJ nº 2, de 6 de janeiro de 2023"
    # An act type whose title is no designation: origin, title, date.
    other = CitationFields(
        title="Código de Ética e Disciplina da OAB", document_type="ato_normativo", judgment_date=date(2015, 10, 19)
    )
    assert format_citation(other) == "Código de Ética e Disciplina da OAB, 19/10/2015"


@pytest.mark.parametrize(
    ("title", "signed", "expected"),
    [
        ("REGULAMENTO (UE) N.º 524/2013", None, "Regulamento (UE) n.º 524/2013"),
        (
            "Regulamento (UE) n.º 524/2013 do Parlamento Europeu e do Conselho, de 21 de maio de 2013, sobre a"
            " resolução de litígios de consumo em linha",
            None,
            "Regulamento (UE) n.º 524/2013 do Parlamento Europeu e do Conselho, de 21 de maio de 2013",
        ),
        (
            "DIRECTIVA 2005/29/CE DO PARLAMENTO EUROPEU E DO CONSELHO",
            date(2005, 5, 11),
            "Directiva 2005/29/CE do Parlamento Europeu e do Conselho, de 11 de maio de 2005",
        ),
        (
            "REGULATION (EU) No 524/2013 OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL of 21 May 2013 on online"
            " dispute resolution",
            None,
            "Regulation (EU) No 524/2013 of the European Parliament and of the Council of 21 May 2013",
        ),
    ],
)
def test_eu_acts(title: str, signed: date | None, expected: str) -> None:
    act = CitationFields(title=title, document_type="ato_normativo", court="ue", judgment_date=signed)
    assert format_citation(act) == expected


def test_an_act_is_cited_by_type_number_date_and_issuer_from_its_fields() -> None:
    """A title that is the act's subject, not its designation: the subtype and number the annotator read cite it."""
    resolucao = CitationFields(
        title="Política Judiciária Nacional de tratamento adequado dos conflitos de interesses",
        document_type="ato_normativo",
        document_subtype="resolucao",
        act_number="125",
        court="cnj",
        document_date=date(2010, 11, 29),
    )
    assert format_citation(resolucao) == "Resolução CNJ nº 125, de 29 de novembro de 2010"
    # No court stored: the issuing body, by its acronym when it is a known one, else by its name, leads.
    by_body = replace(resolucao, court=None, issuing_body="CNJ")
    assert format_citation(by_body) == "Resolução CNJ nº 125, de 29 de novembro de 2010"
    named = replace(resolucao, court=None, issuing_body="Conselho Federal da Ordem dos Advogados do Brasil")
    assert format_citation(named) == (
        "Conselho Federal da Ordem dos Advogados do Brasil, Resolução nº 125, de 29 de novembro de 2010"
    )
    lei = replace(resolucao, document_subtype="lei", act_number="nº 13.140", document_date=date(2015, 6, 26))
    assert format_citation(lei) == "Lei nº 13.140, de 26 de junho de 2015"  # a statute names no issuer
    assert format_citation(replace(resolucao, document_date=None)) == "Resolução CNJ nº 125"
    # Without a number the act is cited as any document: origin, title, date.
    assert format_citation(replace(resolucao, act_number=None)) == (
        "CNJ, Política Judiciária Nacional de tratamento adequado dos conflitos de interesses"
    )
    # The title's own designation wins over the fields (its date too).
    titled = replace(resolucao, title="RESOLUÇÃO Nº 125, DE 29 DE NOVEMBRO DE 2010", document_date=None)
    assert format_citation(titled) == "Resolução CNJ nº 125, de 29 de novembro de 2010"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Pedro Gomes de Queiroz", "QUEIROZ, Pedro Gomes de"),
        ("Deusdedith Brasil", "BRASIL, Deusdedith"),
        ("JOÃO DA SILVA FILHO", "SILVA FILHO, João da"),
        ("Queiroz, Pedro Gomes de", "QUEIROZ, Pedro Gomes de"),
        ("Nelson Nery Junior", "NERY JUNIOR, Nelson"),
        ("Kazuo Watanabe²", "WATANABE, Kazuo"),
        ("  ", None),
    ],
)
def test_authors_are_written_as_abnt_writes_them(name: str, expected: str | None) -> None:
    assert abnt_author(name) == expected


def test_doctrine_is_cited_by_authors_title_venue_and_year() -> None:
    artigo = CitationFields(
        title="A cláusula compromissória nos contratos de adesão",
        document_type="doutrina",
        document_subtype="artigo",
        authors=("Pedro Gomes de Queiroz", "Maria Helena Diniz"),
        venue="Revista Pensamento Jurídico",
        year=2019,
    )
    assert format_citation(artigo) == (
        "QUEIROZ, Pedro Gomes de; DINIZ, Maria Helena. A cláusula compromissória nos contratos de adesão."
        " Revista Pensamento Jurídico, 2019."
    )
    tese = replace(artigo, document_subtype="tese", authors=("ANA PAULA DE SOUZA",), venue="Universidade de São Paulo")
    assert format_citation(tese) == (
        "SOUZA, Ana Paula de. A cláusula compromissória nos contratos de adesão."
        " Tese (Doutorado) – Universidade de São Paulo, 2019."
    )
    many = replace(artigo, authors=("Ana Lima", "Bruno Costa", "Carla Dias", "Davi Reis"))
    assert format_citation(many) == (
        "LIMA, Ana et al. A cláusula compromissória nos contratos de adesão. Revista Pensamento Jurídico, 2019."
    )
    # A venue that prints the year already is not followed by it once more.
    issue = replace(artigo, venue="Pensar, Fortaleza, v. 25, n. 3, p. 1-14, jul./set. 2019")
    assert format_citation(issue).endswith("adesão. Pensar, Fortaleza, v. 25, n. 3, p. 1-14, jul./set. 2019.")  # type: ignore[union-attr]
    volume = replace(artigo, venue="Revista de Processo, v. 201")  # only the year as a whole number counts
    assert format_citation(volume).endswith("Revista de Processo, v. 201, 2019.")  # type: ignore[union-attr]
    # What the metadata does not say is left out, never written as "None".
    bare = replace(artigo, authors=(), venue=None, year=None, title="Arbitragem e consumo?")
    assert format_citation(bare) == "Arbitragem e consumo?"
    assert format_citation(replace(artigo, venue=None)).endswith("adesão. 2019.")  # type: ignore[union-attr]
    # A title that is only the file name: nothing to cite.
    assert format_citation(replace(artigo, title="artigo.pdf", filename="artigo.pdf")) is None
    # From a documents row: the authors column is a text[] (a list).
    row = {"title": artigo.title, "document_type": "doutrina", "authors": ["Maria Helena Diniz"], "year": 2019}
    assert format_citation(CitationFields.from_mapping(row)) == (
        "DINIZ, Maria Helena. A cláusula compromissória nos contratos de adesão. 2019."
    )


def test_compiled_case_law_is_led_by_its_origin() -> None:
    teses = CitationFields(
        title="Jurisprudência em Teses - Edição 100", document_type="jurisprudencia_compilada", court="stj"
    )
    assert format_citation(replace(teses, publication_date=date(2018, 3, 2))) == (
        "STJ, Jurisprudência em Teses - Edição 100, publ. 02/03/2018"
    )


def test_a_tjue_judgment_names_its_juiz_relator_and_national_courts_keep_their_titles() -> None:
    """The TJUE's code starts with "tj" but it has no desembargadores: its judgments name a juiz-relator."""
    tjue = CitationFields(
        title="ASTURCOM TELECOMUNICACIONES",
        document_type="acordao",
        court="tjue",
        process_number="C-40/08",
        relator="A. Tizzano",
        judging_body="1ª Secção",
        judgment_date=date(2009, 10, 6),
    )
    got = format_citation(tjue)
    assert got == "TJUE, C-40/08, juiz-relator A. Tizzano, 1ª Secção, j. 06/10/2009"
    assert "Des." not in got and "Min." not in got
    state = replace(tjue, court="tjsp", process_number="1000000-00.2020.8.26.0100", procedural_class="Apelação Cível")
    assert "Rel. Des. A. Tizzano" in format_citation(state)
    assert "Rel. Des. A. Tizzano" in format_citation(replace(state, court="tjdft"))
    assert "Rel. Min. A. Tizzano" in format_citation(replace(tjue, court="stj", process_number="REsp 1.602.076/SP"))
    assert "Rel. Min. A. Tizzano" in format_citation(replace(tjue, court="stf", process_number="RE 657.718/MG"))


# --- every field verified: what is not a person, a title or a designation is left out ------------------------


def test_a_party_or_a_court_stored_as_relator_is_left_out() -> None:
    base = CitationFields(
        title="Apelação Cível 0700000-00.2020.8.07.0001",
        document_type="acordao",
        court="tjdft",
        process_number="0700000-00.2020.8.07.0001",
        judgment_date=date(2021, 3, 4),
    )
    for party in (
        "Distribuidora Exemplo de Veiculos S/a e Outra Veiculos Ltda",  # two companies joined by "e"
        "Comercial Fictícia Ltda",
        "Banco Imaginário S.A.",
        "Fulano de Tal e Beltrana da Silva",  # two parties
        "Terceira Turma Cível",
        "EMENTA",
        "Beltrano",  # one word: no name a relator label gives
    ):
        got = format_citation(replace(base, relator=party))
        assert got == "TJDFT, 0700000-00.2020.8.07.0001, j. 04/03/2021", party
    person = format_citation(replace(base, relator="Desembargadora Fulana de Tal Souza"))
    assert person == "TJDFT, 0700000-00.2020.8.07.0001, Rel. Des. Fulana de Tal Souza, j. 04/03/2021"


def test_a_section_heading_is_never_the_case_cited() -> None:
    heading = CitationFields(title="EMENTA", document_type="acordao", court="stj", relator="Nancy Andrighi")
    assert format_citation(heading) is None  # no case: no citation, rather than "STJ, EMENTA, ..."
    assert format_citation(replace(heading, title="A C Ó R D Ã O")) is None


def test_an_opinion_is_cited_by_its_designation_or_subject_never_its_first_sentence() -> None:
    numbered = CitationFields(
        title="Parecer nº 12/2023 - Assessoria Jurídica",
        document_type="parecer",
        court="mpmg",
        judgment_date=date(2023, 5, 6),
    )
    assert format_citation(numbered) == "MPMG, Parecer nº 12/2023 - Assessoria Jurídica, 06/05/2023"
    subject = replace(numbered, title="PARECER — Publicidade de serviços advocatícios em redes sociais")
    assert format_citation(subject) == (
        "MPMG, Parecer — Publicidade de serviços advocatícios em redes sociais, 06/05/2023"
    )
    sentence = replace(
        numbered,
        title="PARECER — Trata-se de Consulta formulada pelo advogado Fulano de Tal, inscrito na OAB/SP sob o nº"
        " 123.456 e no CPF sob o nº 111.222.333-96, acerca de",
    )
    got = format_citation(sentence)
    assert got == "MPMG, Parecer, 06/05/2023"


def test_a_petition_cover_table_is_no_title() -> None:
    cover = CitationFields(
        title="Fulana de Tal (AUTOR) | Beltrano Advogado (ADVOGADO) | |",
        document_type="peticao",
        court="tjrj",
        judgment_date=date(2020, 6, 24),
    )
    assert format_citation(cover) is None  # neither a title nor a case of its own
    cut = replace(cover, title="Fulana de Tal Beltrano Advogado 24/06/")
    assert format_citation(cut) is None
    with_case = replace(cover, process_number="0801234-56.2020.8.19.0001", procedural_class="Procedimento Comum Cível")
    assert format_citation(with_case) == (
        "Petição, Procedimento Comum Cível 0801234-56.2020.8.19.0001, TJRJ, 24/06/2020"
    )


def test_no_personal_identifier_reaches_a_citation() -> None:
    opinion = CitationFields(
        title="Parecer nº 3/2024 - consulente Fulano de Tal, CPF 111.222.333-96, fulano@exemplo.com.br",
        document_type="parecer",
        court="oab",
        judgment_date=date(2024, 2, 1),
    )
    got = format_citation(opinion) or ""
    assert "111.222.333-96" not in got and "@" not in got
    assert got.startswith("OAB, Parecer nº 3/2024 - consulente Fulano de Tal")


def test_a_leading_case_is_cited_with_the_tema_it_fixes() -> None:
    """The Tema a decision fixes is part of its name; a precedent it only applies, or a Tema without its number,
    is not (migration 0026's list, as the documents row holds it)."""
    repetitivo = CitationFields.from_mapping(
        {
            "title": "Recurso Especial",
            "document_type": "acordao",
            "court": "stj",
            "process_number": "REsp 1.234.567/SP",
            "judgment_date": date(2021, 3, 10),
            "qualified_precedents": [
                {"kind": "repetitivo", "court": "STJ", "number": "1046", "role": "is"},
                {"kind": "sumula", "court": "STJ", "number": "7", "role": "applies"},
            ],
        }
    )
    assert format_citation(repetitivo) == "STJ, REsp 1.234.567/SP (Tema 1.046, repetitivo), j. 10/03/2021"
    rg = CitationFields(
        title="x",
        document_type="acordao",
        court="stf",
        process_number="ED no RE 855.178/SE",
        qualified_precedents=({"kind": "repercussao_geral", "court": "STF", "number": "793", "role": "is"},),
    )
    assert format_citation(rg) == "STF, ED no RE 855.178/SE (Tema 793, repercussão geral)"
    applies = replace(rg, qualified_precedents=({"kind": "repercussao_geral", "number": "793", "role": "applies"},))
    unnumbered = replace(rg, qualified_precedents=({"kind": "repercussao_geral", "number": None, "role": "is"},))
    assert format_citation(applies) == format_citation(unnumbered) == "STF, ED no RE 855.178/SE"


def test_a_judge_decided_alone_at_a_sentenca_or_a_varas_decision_never_at_an_acordao() -> None:
    """judged_alone: the card labels the judge "Juiz(a)", as the citation does, not "Relator(a)"."""
    assert judged_alone("sentenca", "1ª Vara Empresarial e Conflitos de Arbitragem")
    assert judged_alone("sentenca", None)
    assert judged_alone("decisao_monocratica", "2ª Vara Cível")
    assert not judged_alone("decisao_monocratica", "Terceira Turma")  # a minister's monocratic decision: relator
    assert not judged_alone("acordao", "18ª Câmara Cível")
    assert not judged_alone("acordao", "Juizado Especial Cível")  # a turma recursal's acórdão still has a relator


def test_a_decision_without_a_number_is_named_by_a_title_only_when_it_names_a_case() -> None:
    """LeNER-Br's STM habeas corpus (../shared/corpus) were cited by a party's caption line and by the ementa's cut
    words; a TST acórdão by its part heading."""
    base = CitationFields(
        title=None, court="stm", document_type="acordao", relator="Fulano de Tal", judgment_date=date(2018, 2, 1)
    )
    cut = "DE INTIMAÇÃO PESSOAL DA ADVOGADA. ART. 288 DO CPPM"
    for title in ("PACIENTE: FULANO DE TAL SOUZA.", cut, "Habeas Corpus"):
        assert format_citation(replace(base, title=title)) is None
    assert format_citation(replace(base, court="tst", title="A C Ó R D Ã O SBDI-1")) is None
    assert format_citation(replace(base, title="AgR na Ação Cível Originária 2.821")) == (
        "STM, AgR na Ação Cível Originária 2.821, Rel. Min. Fulano de Tal, j. 01/02/2018"
    )
