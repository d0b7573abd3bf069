"""Titles and case captions (precedente.shared.legal.titles): golden cases on short openings."""

import pytest

from precedente.shared.legal.document_text import DocumentText
from precedente.shared.legal.titles import caption, guess_title
from precedente.shared.payloads import Page


def doc(text: str) -> DocumentText:
    return DocumentText([Page(number=1, text=text)])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "RECURSO ESPECIAL Nº 1.602.076 - SP (2016/0134010-1)\nRELATORA : MINISTRA NANCY ANDRIGHI",
            "REsp 1.602.076/SP",
        ),
        ("AgInt no AGRAVO EM RECURSO ESPECIAL Nº 2560760 - SE\n(2024/0031011-1)", "AgInt no AREsp 2.560.760/SE"),
        # the STF's captions: no "Nº", the state in words (sometimes run onto the next line), recursos abbreviated
        (
            "Ementa e Acórdão\n22/05/2019\nPLENÁRIO\nRECURSO EXTRAORDINÁRIO 657.718 MINAS GERAIS\nRELATOR",
            "RE 657.718/MG",
        ),
        (
            "PLENÁRIO\nSEGUNDOS EMB.DECL. NO RECURSO EXTRAORDINÁRIO 1.366.243 SANTA\nCATARINA\nRELATOR",
            "Segundos ED no RE 1.366.243/SC",
        ),
        ("AG.REG. NO HABEAS CORPUS 180.000 RIO DE JANEIRO", "AgR no HC 180.000/RJ"),
    ],
)
def test_decision_titles(text: str, expected: str) -> None:
    assert guess_title(doc(text), "acordao") == expected


def test_caption_keeps_the_recursos_for_the_class() -> None:
    found = caption(doc("EMB.DECL. NO RECURSO EXTRAORDINÁRIO 855.178 SERGIPE\nRELATOR"))
    assert found is not None
    assert (found.prefix, found.short, found.number, found.uf, found.line) == ("ED no ", "RE", "855.178", "SE", 0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "DECRETO Nº 8.660, DE 29 DE JANEIRO DE 2016\nPromulga a Convenção",
            "DECRETO Nº 8.660, DE 29 DE JANEIRO DE 2016",
        ),
        # an EU act's heading, without the date and subject the cleaner joined to it
        (
            "DIRECTIVES\nDIRECTIVE 2011/83/EU OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL of 25 October 2011 on "
            "consumer rights, amending Council Directive 93/13/EEC",
            "DIRECTIVE 2011/83/EU OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL",
        ),
        (
            "REGULAMENTO (UE) 2022/1925 DO PARLAMENTO EUROPEU E DO CONSELHO de 14 de setembro de 2022 relativo à",
            "REGULAMENTO (UE) 2022/1925 DO PARLAMENTO EUROPEU E DO CONSELHO",
        ),
    ],
)
def test_act_titles(text: str, expected: str) -> None:
    assert guess_title(doc(text), "ato_normativo") == expected


def test_a_wrapped_heading_is_joined_but_not_its_author() -> None:
    text = (
        "Revista Pensamento Jurídico – São Paulo – Vol. 13, Nº 1, jan./jun. 2019\n"
        "O PRINCÍPIO DA COOPERAÇÃO COMO NORMA FUNDAMENTAL DO\nPROCESSO CIVIL E SEUS REFLEXOS NA ARBITRAGEM\n"
        "FABIANA JUNQUEIRA TAMAOKI NEVES 1\n"
    )
    expected = "O PRINCÍPIO DA COOPERAÇÃO COMO NORMA FUNDAMENTAL DO PROCESSO CIVIL E SEUS REFLEXOS NA ARBITRAGEM"
    assert guess_title(doc(text), "doutrina") == expected
    hyphenated = "VULNERABILIDADE DIGITAL NOS MODELOS ZERO-\nPRICE: A CESSÃO DE DADOS NOS\nTERMOS DE USO\nFULANO DE TAL"
    assert (
        guess_title(doc(hyphenated), "doutrina")
        == "VULNERABILIDADE DIGITAL NOS MODELOS ZERO-PRICE: A CESSÃO DE DADOS NOS TERMOS DE USO"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the journal's running head, review dates and the authors (with their footnote marks) are skipped
        (
            "civilistica.com || a. 11. n. 3. 2022 || 1\nVulnerabilidade na era digital: um estudo sobre os fatores\n"
            "Claudia Lima MARQUES*\nRESUMO\nTexto.",
            "Vulnerabilidade na era digital: um estudo sobre os fatores",
        ),
        (
            "171\nSubsídios para implantação de\nPolítica de Assinatura Digital na RFB\nMenção Honrosa\n"
            "ANTONIO TREVISAN*",
            "Subsídios para implantação de Política de Assinatura Digital na RFB",
        ),
        (
            "Revista X, v. 13, n. 1, p. 2, 2019\nRecebido em: 01.07.2023\n"
            "A cooperação no Novo CPC: da armadilha à ética.\nFulano Beltrano1",
            "A cooperação no Novo CPC: da armadilha à ética",
        ),
    ],
)
def test_work_titles(text: str, expected: str) -> None:
    assert guess_title(doc(text), "doutrina") == expected


def pages(*texts: str) -> DocumentText:
    return DocumentText([Page(number=i + 1, text=t) for i, t in enumerate(texts)])


def test_a_compilation_is_titled_by_its_name_and_edition_not_its_table_of_contents() -> None:
    """STJ's Jurisprudência em Teses opens with its name, then "SUMÁRIO" and a section heading."""
    text = (
        "Jurisprudência em Teses\nSUMÁRIO\nDIREITO CIVIL\n0000\nEDIÇÃO N. 107: DOS CONTRATOS DE PROMESSA DE COMPRA\n"
        "E VENDA DE BENS IMÓVEIS - I\n0000\nEdição n. 107 Brasília, 10 de agosto de 2018"
    )
    title = guess_title(doc(text), "jurisprudencia_compilada")
    assert (
        title
        == "Jurisprudência em Teses — EDIÇÃO N. 107: DOS CONTRATOS DE PROMESSA DE COMPRA E VENDA DE BENS IMÓVEIS - I"
    )
    commented = "Direito à Moradia - Jurisprudência Comentada\n05/02/2023\nTJSP - APELAÇÃO - Município de Jundiaí"
    assert guess_title(doc(commented), "jurisprudencia_compilada") == "Direito à Moradia - Jurisprudência Comentada"
    # a sentence naming the periodical is not a title, but its issue number is: the first heading is a section
    informativo = "Este periódico destaca teses jurisprudenciais.\nNúmero 736\nRECURSOS REPETITIVOS\nPROCESSO"
    assert guess_title(doc(informativo), "jurisprudencia_compilada") == "Informativo de Jurisprudência nº 736"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a title in capitals with its footnote mark, above a byline
        (
            "O ADVOGADO TEM FÉ PÚBLICA1\nDeusdedith Brasil (*)\nO precedente legal valoriza o advogado.",
            "O ADVOGADO TEM FÉ PÚBLICA",
        ),
        # the author's credentials under the name are not the title
        (
            "Karin Sein\nDocent of Civil Law\nUniversity of Tartu\n"
            "Protection of Consumers against Unfair Jurisdiction\n1. Introduction",
            "Protection of Consumers against Unfair Jurisdiction",
        ),
        # a title wrapped before a connective, then its author
        (
            "O PRINCÍPIO DA COOPERAÇÃO E A EXIBIÇÃO\nDE DOCUMENTO OU COISA NO PROCESSO\nPedro Gomes de Queiroz2",
            "O PRINCÍPIO DA COOPERAÇÃO E A EXIBIÇÃO DE DOCUMENTO OU COISA NO PROCESSO",
        ),
        # a thesis cover: program, the author's name in capitals, then the title and its subtitle after a colon
        (
            "UNIVERSIDADE DE BRASÍLIA\nDOUTORADO EM DIREITO, ESTADO E CONSTITUIÇÃO\nMARCELO CAMA PROENÇA FERNANDES\n"
            "A EFICÁCIA DOS CONTRATOS:\nUM EXAME DO PRINCÍPIO DA RELATIVIDADE\nBRASÍLIA-DF\n2012",
            "A EFICÁCIA DOS CONTRATOS: UM EXAME DO PRINCÍPIO DA RELATIVIDADE",
        ),
        # a bilingual title: the translation after the bar is dropped
        (
            "A JUDICIALIZAÇÃO DO ACESSO À SAÚDE: PERSPECTIVAS\nEM UMA REVISÃO DE LITERATURA | THE JUDICIALIZATION\n"
            "ELIANA DE JESUS LOPES",
            "A JUDICIALIZAÇÃO DO ACESSO À SAÚDE: PERSPECTIVAS EM UMA REVISÃO DE LITERATURA",
        ),
        # a mixed-case title wrapped before its subtitle's colon, its footnote mark after the last word, then authors
        (
            "Rev. Adm. Pública — Rio de Janeiro 48(5):1191-1206, set./out. 2014\n"
            "Os impactos da judicialização da saúde no município de São\n"
            "Paulo: gasto público e organização federativa1\n"
            "Daniel Wei L. Wang\nLondon School of Economics and Political Science",
            "Os impactos da judicialização da saúde no município de São Paulo: gasto público e organização federativa",
        ),
    ],
)
def test_work_titles_of_archive_openings(text: str, expected: str) -> None:
    assert guess_title(doc(text), "doutrina") == expected


def test_front_matter_headings_are_no_titles() -> None:
    """A commented exam opens with its "APRESENTAÇÃO"; a thesis with its "SUMÁRIO": parts of it, not its name."""
    text = (
        "APRESENTAÇÃO\nOlá, pessoal, tudo certo?!\nPROVA COMENTADA TJRJ\nEste material visa a auxiliá-los na revisão."
    )
    assert guess_title(doc(text), "outro") == "PROVA COMENTADA TJRJ"


@pytest.mark.parametrize(
    ("text", "document_type", "expected"),
    [
        # a title wrapped at the page's width, without a connective at the break; its translation is not joined
        (
            "ANÁLISE COMPARATIVA DOS EFEITOS JURÍDICOS DAS CLÁUSULAS\nABUSIVAS NOS CONTRATOS NO BRASIL E NA UNIÃO\n"
            "EUROPÉIA\nCOMPARATIVE ANALYSIS OF THE LEGAL EFFECTS OF UNFAIR TERMS\n*Maria Laura Santos\nRESUMO",
            "doutrina",
            "ANÁLISE COMPARATIVA DOS EFEITOS JURÍDICOS DAS CLÁUSULAS ABUSIVAS NOS CONTRATOS NO BRASIL E NA UNIÃO "
            "EUROPÉIA",
        ),
        (
            "ARBITRAGEM: UM MECANISMO CÉLERE PARA SOLUÇÃO DE CONFLITOS, COMO\n"
            "AGENTE PROPULSOR DE EFICIÊNCIA DA JUSTIÇA\n"
            "ARBITRATION: A QUICK WAY TO SOLVE CONFLICTS AS A PROPELLER AGENT OF\nJUSTICE EFFICIENCY\nRESUMO",
            "doutrina",
            "ARBITRAGEM: UM MECANISMO CÉLERE PARA SOLUÇÃO DE CONFLITOS, COMO AGENTE PROPULSOR DE EFICIÊNCIA DA JUSTIÇA",
        ),
        # a thesis cover: the city and year under the title are not part of it
        (
            "UNIVERSIDADE DE BRASÍLIA\nA EFICÁCIA DOS CONTRATOS NA PERSPECTIVA CIVIL\nBRASÍLIA-DF\n2012",
            "doutrina",
            "A EFICÁCIA DOS CONTRATOS NA PERSPECTIVA CIVIL",
        ),
        # numbered sections, a genre label and a date are not a work's title
        (
            "A Judicialização Do Direito À Saúde\nwww.nucleodoconhecimento.com.br\nARTIGO ORIGINAL\n1. INTRODUÇÃO\n"
            "2. AS POLÍTICAS PÚBLICAS ENQUANTO FENÔMENO JURÍDICO",
            "doutrina",
            "A Judicialização Do Direito À Saúde",
        ),
        (
            "ARTICLE\nDigital Platforms as Rule-Makers: Beyond Business\nModels to Private Regulation\nSTRATEGY\n"
            "Published on:\nDECEMBER 13TH, 2024",
            "doutrina",
            "Digital Platforms as Rule-Makers: Beyond Business Models to Private Regulation",
        ),
        # a heading in capitals whose words run on in lower case; a roman page number does not
        (
            "RECOMMENDATIONS\nfor a better presentation of information to\nconsumers\nOrganisations which endorsed",
            "outro",
            "RECOMMENDATIONS for a better presentation of information to consumers",
        ),
        ("LIST OF ILLUSTRATIONS\nix\nFigure 1. The map", "outro", "LIST OF ILLUSTRATIONS"),
        # a cover that sets its title in short lines, the publisher's name in capitals under it
        (
            "Manual\nda Apostila\nUm Manual\npara a operação\nHCCH – CONFERÊNCIA DA HAIA SOBRE DIREITO INTERNACIONAL",
            "outro",
            "Manual da Apostila",
        ),
        # a word in capitals inside a paragraph is not a heading
        (
            "APRESENTAÇÃO\nOlá, pessoal, tudo certo?!\n"
            "nosso time de professores analisou cada uma das questões em nossa\nPROVA COMENTADA.\n"
            "PROVA COMENTADA –\nTRIBUNAL DE JUSTIÇA DO ESTADO DO RIO DE\nJANEIRO",
            "doutrina",
            "PROVA COMENTADA – TRIBUNAL DE JUSTIÇA DO ESTADO DO RIO DE JANEIRO",
        ),
    ],
)
def test_titles_wrapped_labelled_or_set_in_short_lines(text: str, document_type: str, expected: str) -> None:
    assert guess_title(doc(text), document_type) == expected


def test_a_bare_parecer_heading_takes_its_subject() -> None:
    text = (
        "Parecer\nAnálise da viabilidade da autenticação digital e registro de documentos por\nadvogados em "
        "blockchain.\nINFORMAÇÃO CONFIDENCIAL\nSumário"
    )
    assert guess_title(doc(text), "parecer") == (
        "Parecer — Análise da viabilidade da autenticação digital e registro de documentos por advogados em blockchain"
    )
    assert guess_title(doc("PARECER Nº 16/2022 - PGJMG\nAssunto: consumo"), "parecer") == "PARECER Nº 16/2022 - PGJMG"


def test_an_informativo_is_titled_by_its_number() -> None:
    text = (
        "Este periódico destaca teses jurisprudenciais e não consiste em repositório oficial de jurisprudência.\n"
        "Número 736\nBrasília, 16 de maio de 2022.\nRECURSOS REPETITIVOS\nPROCESSO"
    )
    assert guess_title(doc(text), "jurisprudencia_compilada") == "Informativo de Jurisprudência nº 736"


def test_an_author_s_address_is_not_a_work_s_title() -> None:
    text = (
        "Fabiola Sulpino Vieira\nPaola Zucchi\nCentro Paulista de Economia da Saúde.\nUniversidade Federal de São "
        "Paulo. São Paulo,\nSP, Brasil\nCorrespondência | Correspondence:\nRua Botucatu, 685\n04023-062 São Paulo, "
        "SP, Brasil\nRecebido: 30/1/2006\nDistorções causadas pelas\nações judiciais à política de\n"
        "medicamentos no Brasil"
    )
    assert guess_title(doc(text), "doutrina") == (
        "Distorções causadas pelas ações judiciais à política de medicamentos no Brasil"
    )


def test_a_title_set_one_word_a_line_but_not_a_name_so_set() -> None:
    opening = "211\nRevista Eletrônica\nJaneiro / Fevereiro de 2013\nProcesso\nEletrônico\nSUMÁRIO: 1 Introdução"
    assert guess_title(doc(opening), "doutrina") == "Processo Eletrônico"
    assert guess_title(doc("Ana\nCarolina\nZaina\nDesembargadora\nO PROCESSO ELETRÔNICO"), "doutrina") == (
        "O PROCESSO ELETRÔNICO"
    )


def test_a_title_under_its_journal_s_section_label_after_the_first_page_s_notes() -> None:
    """A journal that draws its title block last: the summary, the text and its footnotes come first, then the
    section ("Artigos"), the title and its subtitle after the colon, the author. A footnote's line is no title."""
    text = (
        "SUMÁRIO: 1 Introdução; 2 A Lei 11.419/2009; 3 Conclusão.\n1 INTRODUÇÃO\n"
        "As complexas mutações impactam a vida humana2 e da Terra3, impondo-lhes incertezas.\n"
        "4 ONU. Relatório Brundtland:\nNosso futuro comum e relatório Um mundo mais seguro: nossa responsabilidade.\n"
        "8 CAPELLETTI, Mauro. Acesso à justiça. Porto Alegre:\nFabris, 1988.\n"
        "Artigos\nValor Probante do Documento Eletrônico:\nsua aceitação e limites\nAna\nCarolina\nZaina é"
    )
    assert guess_title(doc(text), "doutrina") == "Valor Probante do Documento Eletrônico: sua aceitação e limites"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "EMBARGOS DE DECLARAÇÃO NO RECURSO ESPECIAL Nº 1.836.584 - MG (2019/0000000-0)\nRELATORA : MINISTRA X",
            "EDcl no REsp 1.836.584/MG",
        ),
        (
            "AGRAVO INTERNO NOS EMBARGOS DE DECLARAÇÃO NO AGRAVO EM RECURSO ESPECIAL Nº 2.000.001 - SP\nRELATOR",
            "AgInt nos EDcl no AREsp 2.000.001/SP",
        ),
        (
            "AgInt nos EDcl no AGRAVO EM RECURSO ESPECIAL Nº 2000001 - SP\nRELATOR",
            "AgInt nos EDcl no AREsp 2.000.001/SP",
        ),
    ],
)
def test_compound_classes_keep_every_recurso(text: str, expected: str) -> None:
    assert guess_title(doc(text), "acordao") == expected
    found = caption(doc(text))
    assert found is not None and f"{found.prefix}{found.short}".startswith(expected.split(" 2.")[0].split(" 1.")[0])


def test_a_part_heading_is_no_decision_title() -> None:
    assert guess_title(doc("EMENTA\nPROCESSUAL CIVIL. RECURSO. Texto da ementa sem número do caso."), "acordao") is None


def test_a_parecer_opening_sentence_is_no_subject_and_identifiers_never_stay() -> None:
    opening = (
        "PARECER\nTrata-se de Consulta formulada pelo advogado Fulano de Tal, inscrito na OAB/SP sob o nº 123.456\n"
        "e no CPF sob o nº 111.222.333-96, acerca da publicidade."
    )
    assert guess_title(doc(opening), "parecer") == "PARECER"
    subject = "PARECER\nPublicidade de serviços advocatícios em redes sociais.\nI – Relatório"
    assert guess_title(doc(subject), "parecer") == "PARECER — Publicidade de serviços advocatícios em redes sociais"
    assert guess_title(doc("Parecer nº 7/2024 - consulente Fulano, CPF 111.222.333-96"), "parecer") == (
        "Parecer nº 7/2024 - consulente Fulano"
    )
