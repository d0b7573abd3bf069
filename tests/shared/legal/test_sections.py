"""The structure of cleaned legal documents: the sections of real documents (read from their texts) and
small cases of each document kind."""

import re
from itertools import pairwise

import pytest

from precedente.services.cleaner.logic import clean_pages
from precedente.services.extractor.logic import extract
from precedente.shared.legal.sections import (
    SECTION_LABELS,
    SECTION_PLACES,
    Section,
    detect_sections,
    section_label,
    section_place,
)
from precedente.shared.payloads import PAGE_SEPARATOR, Page
from tests.helpers.samples import DOCS, SHARED_DATA, read_pages

PDF_NAMES = sorted(p.name for p in DOCS.glob("*.pdf"))


@pytest.fixture(scope="module")
def cleaned_docs() -> dict[str, list[Page]]:
    assert PDF_NAMES, f"no sample documents in {DOCS}"
    return {name: clean_pages(read_pages(name)) for name in PDF_NAMES}


def full_text(pages: list[Page]) -> str:
    return PAGE_SEPARATOR.join(p.text for p in pages)


def outline(sections: list[Section]) -> list[tuple[str, int]]:
    return [(s.path, s.page_start) for s in sections]


# ------------------------------------------------------------------ sections of real files

# Read from the texts: headings, captions repeated before each part, the closing formula of each
# vote ("Forte nessas razões, DOU PROVIMENTO"), the e-SAJ sentença's "Vistos" / "É o relatório".
EXPECTED_SECTIONS = {
    "stj_resp_1602076_sp_acordao.pdf": [
        ("cabecalho", 1),
        ("ementa", 1),
        ("acordao", 1),
        ("cabecalho", 3),
        ("relatorio", 3),
        ("cabecalho", 6),
        ("voto", 6),
        ("voto > I – Do alegado descumprimento ao art. 526 do CPC", 6),
        ("voto > II – Da não incidência do CDC aos contratos de franquia", 7),
        ("voto > III – Do alcance do art. 4º, § 2º, da Lei de Arbitragem", 9),
        (
            "voto > IV – Da competência do Poder Judiciário para apreciar a validade de compromisso arbitral "
            "– princípio Kompetenz-Kompetenz",
            13,
        ),
        ("voto > dispositivo", 19),
        ("certidao", 20),
    ],
    "stj_agint_aresp_2560760_se_acordao.pdf": [
        ("cabecalho", 1),
        ("ementa", 1),
        ("ementa > I. CASO EM EXAME", 1),
        ("ementa > II. QUESTÃO EM DISCUSSÃO", 1),
        ("ementa > III. RAZÕES DE DECIDIR", 1),
        ("ementa > IV. AGRAVO INTERNO DESPROVIDO.", 2),
        ("acordao", 2),
        ("cabecalho", 3),
        ("ementa", 3),
        ("ementa > I. CASO EM EXAME", 3),
        ("ementa > II. QUESTÃO EM DISCUSSÃO", 3),
        ("ementa > III. RAZÕES DE DECIDIR", 3),
        ("ementa > IV. AGRAVO INTERNO DESPROVIDO.", 4),
        ("relatorio", 4),
        ("voto", 5),
        ("voto > dispositivo", 7),
        ("certidao", 8),
    ],
    "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf": [
        ("cabecalho", 1),
        ("ementa", 1),  # printed without its heading, between the caption and "ACÓRDÃO"
        ("acordao", 1),
        ("voto", 2),
        ("voto > dispositivo", 7),
    ],
    "tjsp_sentenca_vara_empresarial_arbitragem.pdf": [
        ("cabecalho", 1),
        ("relatorio", 1),
        ("fundamentacao", 1),
        ("fundamentacao > I - DA POSSIBILIDADE EXCEPCIONAL DE DECLARAÇÃO DE NULIDADE DA CLÁUSULA E DO…", 1),
        ("fundamentacao > II DA INEXISTÊNCIA DE AFRONTA AO PRINCÍPIO DA “KOMPETENZ-KOMPETENZ”", 3),
        ("fundamentacao > III – DOS MOTIVOS IDENTIFICADORES DA PATOLOGIA DA CLÁUSULA E DO PROCEDIMENTO…", 6),
        ("dispositivo", 13),
    ],
    "parecer_pgjmg_procon_16-2022.pdf": [
        ("cabecalho", 1),
        ("ementa", 1),
        ("fatos", 1),
        (
            "fundamentacao > 2.1. A Responsabilidade Civil no CDC > 2.1.1. A Responsabilidade Por Defeito "
            '("fato do produto/serviço")',
            2,
        ),
        ("fundamentacao > 2.1. A Responsabilidade Civil no CDC > 2.1.2. A Responsabilidade por Vícios", 3),
        ("fundamentacao > 2.1. A Responsabilidade Civil no CDC > 2.1.3. Teoria da Aparência", 3),
        ("fundamentacao > 2.1. A Responsabilidade Civil no CDC > 2.1.4. Princípio da Publicidade Vinculante", 4),
        (
            "fundamentacao > 2.2. Comércio Eletrônico > 2.2.1 A aplicação do Código de Defesa do Consumidor no "
            "Comércio Eletrônico",
            5,
        ),
        ("fundamentacao > 2.2. Comércio Eletrônico > 2.2.2 Diferença entre marketplace, loja virtual e e-commerce.", 5),
        ("fundamentacao > 2.2. Comércio Eletrônico > 2.2.3. A dinâmica do marketplace", 6),
        ("fundamentacao > 2.3. A responsabilidade do marketplace", 6),
        (
            "fundamentacao > 2.3. A responsabilidade do marketplace > 2.3.1. Serviços digitais de facilitação de "
            "busca e de comparação de preços",
            10,
        ),
        (
            "fundamentacao > 2.3. A responsabilidade do marketplace > 2.3.2 Responsabilidade do marketplace por "
            "publicidade enganosa",
            11,
        ),
        ("fundamentacao > 2.4. O Marco Civil da Internet", 13),
        ("conclusao", 14),
        ("notas", 16),
    ],
    "mp_acao_civil_publica_peticao_inicial.pdf": [
        ("cabecalho", 1),
        ("preliminar > a) Legitimidade do Ministério Público", 2),
        ("preliminar > b) Da ausência de interesse na realização de audiência de conciliação ou mediação", 4),
        ("fatos", 7),
        ("fundamentacao > c) Ilegalidade da conduta do réu > c.1) Violação da Lei nº 8.245/91", 11),
        (
            "fundamentacao > c) Ilegalidade da conduta do réu > c.2) Tratamento discriminatório entre usuários da "
            "internet e indébito na remuneração de serviços",
            14,
        ),
        (
            "fundamentacao > c) Ilegalidade da conduta do réu > c.3) “Taxa de serviço” remunera atividades que não "
            "representam comodidade ou conveniência ao inquilino",
            15,
        ),
        ("fundamentacao > c) Ilegalidade da conduta do réu > c.4) Venda casada e cláusulas abusivas", 17),
        (
            "fundamentacao > c) Ilegalidade da conduta do réu > c.5) “Taxa de reserva” contrária aos interesses do "
            "locador contratante",
            19,
        ),
        ("fundamentacao > d) O ressarcimento dos danos causados aos consumidores", 20),
        ("fundamentacao > e) os pressupostos para o deferimento liminar da tutela provisória de urgência", 22),
        ("pedidos", 23),
        ("pedidos", 24),
    ],
}


@pytest.mark.parametrize("name", sorted(EXPECTED_SECTIONS))
def test_sections_of_real_documents(name: str, cleaned_docs: dict[str, list[Page]]) -> None:
    assert outline(detect_sections(cleaned_docs[name])) == EXPECTED_SECTIONS[name]


@pytest.mark.parametrize("name", PDF_NAMES)
def test_sections_cover_the_text(name: str, cleaned_docs: dict[str, list[Page]]) -> None:
    pages = cleaned_docs[name]
    text = full_text(pages)
    sections = detect_sections(pages)
    assert sections[0].char_start == 0 and sections[-1].char_end == len(text)
    for a, b in pairwise(sections):
        assert a.char_end == b.char_start and a.page_end <= b.page_start
        assert text[b.char_start - 1] == "\n"  # every section starts a line
    for s in sections:
        assert text[s.char_start : s.char_end].strip() and s.page_start <= s.page_end


def test_the_other_acordaos_have_their_parts(cleaned_docs: dict[str, list[Page]]) -> None:
    for name in ("stj_resp_1543564_sp_acordao.pdf", "stj_resp_1433940_mg_acordao.pdf"):
        tops = [s.top for s in detect_sections(cleaned_docs[name])]
        assert tops[:3] == ["cabecalho", "ementa", "acordao"] and tops[-1] == "certidao"
        assert {"relatorio", "voto"} <= set(tops)


# --------------------------------------------------------------------------- small cases


def test_sentenca_parts() -> None:
    text = (
        "PODER JUDICIÁRIO\nSENTENÇA\nProcesso nº 1000000-00.2024.8.26.0100\nVistos.\nTrata-se de ação de cobrança.\n"
        "É o relatório. Fundamento e decido.\nO pedido procede, pois a dívida está provada.\n"
        "Ante o exposto, JULGO PROCEDENTE o pedido.\nP.R.I."
    )
    sections = detect_sections([Page(number=1, text=text)], "sentenca")
    assert [s.path for s in sections] == ["cabecalho", "relatorio", "fundamentacao", "dispositivo"]


def test_monocratic_decision_parts() -> None:
    text = (
        "AGRAVO EM RECURSO ESPECIAL Nº 2123456 - RJ (2022/0123456-7)\nRELATOR : MINISTRO FULANO DE TAL\n"
        "DECISÃO\nTrata-se de agravo interposto contra decisão que inadmitiu recurso especial.\n"
        "É o relatório. Decido.\nIncide a Súmula 7/STJ.\n"
        "Ante o exposto, conheço do agravo para não conhecer do recurso especial.\nBrasília, 03 de fevereiro de 2023."
    )
    sections = detect_sections([Page(number=1, text=text)])  # the type is guessed: decisao_monocratica
    assert [s.path for s in sections] == ["cabecalho", "relatorio", "fundamentacao", "dispositivo"]


def test_petition_parts_and_nested_headings() -> None:
    text = (
        "EXCELENTÍSSIMO SENHOR JUIZ DE DIREITO\nFULANO, vem propor AÇÃO DE COBRANÇA em face de BELTRANO.\n"
        "I – DOS FATOS\nO réu não pagou.\nII – DO DIREITO\n1. Da responsabilidade solidária\n"
        "Os devedores respondem juntos.\n2. Dos juros\nOs juros correm da citação.\nIII – DOS PEDIDOS\n"
        "a) a condenação do réu;\nb) custas."
    )
    sections = detect_sections([Page(number=1, text=text)], "peticao")
    assert [s.path for s in sections] == [
        "cabecalho",
        "fatos",
        "direito > 1. Da responsabilidade solidária",
        "direito > 2. Dos juros",
        "pedidos",
    ]


def test_contract_clauses_and_paragraphs() -> None:
    text = (
        "CONTRATO DE PRESTAÇÃO DE SERVIÇOS\nAs partes ajustam o seguinte:\n"
        "CLÁUSULA PRIMEIRA – DO OBJETO\nServiços jurídicos.\nParágrafo único. Inclui consultas.\n"
        "CLÁUSULA SEGUNDA – DO PREÇO\nR$ 10.000,00 por mês:\nI - à vista;\nII - por boleto.\n"
        "São Paulo, 1º de março de 2023."
    )
    sections = detect_sections([Page(number=1, text=text)], "contrato")
    assert [s.path for s in sections] == [
        "cabecalho",
        "CLÁUSULA PRIMEIRA – DO OBJETO",
        "CLÁUSULA PRIMEIRA – DO OBJETO > Parágrafo único",
        "CLÁUSULA SEGUNDA – DO PREÇO",  # incisos stay with their clause
    ]


def test_statute_structure() -> None:
    text = (
        "LEI Nº 9.307, DE 23 DE SETEMBRO DE 1996.\nDispõe sobre a arbitragem.\nCAPÍTULO I\nDISPOSIÇÕES GERAIS\n"
        "Art. 1º As pessoas capazes de contratar poderão valer-se da arbitragem.\n"
        "§ 1º A administração pública direta e indireta poderá utilizar-se da arbitragem.\n"
        "Art. 2º A arbitragem poderá ser de direito ou de eqüidade, a critério das partes.\n"
        "CAPÍTULO II\nDA CONVENÇÃO DE ARBITRAGEM E SEUS EFEITOS\n"
        "Art. 3º As partes interessadas podem submeter a solução de seus litígios ao juízo arbitral:\n"
        "I - cláusula compromissória;\nII - compromisso arbitral."
    )
    paths = [s.path for s in detect_sections([Page(number=1, text=text)], "ato_normativo")]
    assert paths == [
        "preambulo",
        "Capítulo I – DISPOSIÇÕES GERAIS > Art. 1º",
        "Capítulo I – DISPOSIÇÕES GERAIS > Art. 1º > § 1º",
        "Capítulo I – DISPOSIÇÕES GERAIS > Art. 2º",
        "Capítulo II – DA CONVENÇÃO DE ARBITRAGEM E SEUS EFEITOS > Art. 3º",
        "Capítulo II – DA CONVENÇÃO DE ARBITRAGEM E SEUS EFEITOS > Art. 3º > I",  # artigo > inciso
        "Capítulo II – DA CONVENÇÃO DE ARBITRAGEM E SEUS EFEITOS > Art. 3º > II",
    ]


def test_administrative_decision() -> None:
    text = (
        "PORTARIA Nº 12, DE 3 DE MARÇO DE 2023\nO DIRETOR, no uso de suas atribuições,\n"
        "CONSIDERANDO a necessidade de regular o tema;\nCONSIDERANDO o disposto na Lei 9.784/1999;\nRESOLVE:\n"
        "Art. 1º Fica instituído o comitê.\nArt. 2º Esta portaria entra em vigor na data de sua publicação."
    )
    paths = [s.path for s in detect_sections([Page(number=1, text=text)], "ato_administrativo")]
    assert paths == ["preambulo", "considerandos", "decide > Art. 1º", "decide > Art. 2º"]  # "RESOLVE:" heads Art. 1º


def test_email_thread_messages() -> None:
    text = (
        "De: Ana <ana@x.com>\nEnviado em: 13/09/2022\nPara: Carlos\nAssunto: Minuta\n\nSegue a minuta.\n\n"
        "De: Carlos <c@x.com>\nEnviado em: 12/09/2022\nPara: Ana\nAssunto: Pedido\n\nPode enviar a minuta?"
    )
    paths = [s.path for s in detect_sections([Page(number=1, text=text)], "email")]
    assert paths == ["mensagem 1", "mensagem 2"]


def test_documents_without_parts_fall_back_to_headings() -> None:
    text = "Memorando interno\n1. Introdução\nTexto da introdução.\n2. Análise do risco\nTexto da análise."
    assert [s.path for s in detect_sections([Page(number=1, text=text)], "outro")] == [
        "cabecalho",
        "1. Introdução",
        "2. Análise do risco",
    ]
    plain = [Page(number=1, text="Sem títulos.\n\nSó parágrafos de texto corrido.")]
    assert [s.path for s in detect_sections(plain, "outro")] == ["corpo"]


def test_empty_and_page_spans() -> None:
    assert detect_sections([]) == []
    pages = [Page(number=1, text="EMENTA\nRECURSO ESPECIAL."), Page(number=2, text="ACÓRDÃO\nAcordam os Ministros.")]
    sections = detect_sections(pages, "acordao")
    assert [(s.path, s.page_start, s.page_end) for s in sections] == [("ementa", 1, 1), ("acordao", 2, 2)]
    assert re.fullmatch(r"\s*", full_text(pages)[sections[0].char_end - len(PAGE_SEPARATOR) : sections[0].char_end])


def test_statute_incisos_and_alineas() -> None:
    text = (
        "LEI Nº 1, DE 2 DE JANEIRO DE 2020.\nArt. 5º São direitos:\nI - o da petição:\na) escrita;\nb) oral;\n"
        "II - o da certidão.\nParágrafo único. Aplica-se a todos."
    )
    paths = [s.path for s in detect_sections([Page(number=1, text=text)], "ato_normativo")]
    assert paths == [
        "preambulo",
        "Art. 5º",
        "Art. 5º > I",
        "Art. 5º > I > a)",
        "Art. 5º > I > b)",
        "Art. 5º > II",
        "Art. 5º > Parágrafo único",
    ]


def test_eu_act_articles_paragraphs_and_points() -> None:
    text = (
        "DIRECTIVE 2011/83/EU OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL\nof 25 October 2011\n"
        "(1) Recital one, before any article.\n(a) not a point: no article yet\nHAVE ADOPTED THIS DIRECTIVE:\n"
        "CHAPTER I\nSUBJECT MATTER AND SCOPE\nArticle 1\nSubject matter\nThe purpose of this Directive is to protect.\n"
        "Article 3\nScope\n1.\nThis Directive shall apply to any contract.\n2. If any provision conflicts:\n"
        "(a) the first;\n(b) the second.\n"
    )
    paths = [s.path for s in detect_sections([Page(number=1, text=text)], "ato_normativo")]
    assert paths == [
        "preambulo",
        "Chapter I – SUBJECT MATTER AND SCOPE > Article 1",
        "Chapter I – SUBJECT MATTER AND SCOPE > Article 3",
        "Chapter I – SUBJECT MATTER AND SCOPE > Article 3 > 1.",
        "Chapter I – SUBJECT MATTER AND SCOPE > Article 3 > 2.",
        "Chapter I – SUBJECT MATTER AND SCOPE > Article 3 > 2. > (a)",
        "Chapter I – SUBJECT MATTER AND SCOPE > Article 3 > 2. > (b)",
    ]
    pt = "DIRETIVA 2005/29/CE DO PARLAMENTO EUROPEU E DO CONSELHO\nArtigo 3.o\nÂmbito de aplicação\n1.\nA presente."
    assert [s.path for s in detect_sections([Page(number=1, text=pt)])][1:] == ["Artigo 3.º", "Artigo 3.º > 1."]


def archive_pages(name: str, as_extracted: bool = False, max_pages: int | None = None) -> list[Page]:
    """A PDF of ../shared/archive, text layer cleaned as the cleaner leaves it: MuPDF's plain text, or with
    `as_extracted` the extractor's reading order (overprinted lines once; ~0.3 s a ruled page, so only where a test
    is about what it changes)."""
    import pymupdf

    from precedente.services.extractor.pdf_layout import page_text

    path = SHARED_DATA / "archive" / name
    assert path.exists(), f"{path} is missing: ../shared must sit beside the checkout"
    with pymupdf.open(path) as doc:
        read = page_text if as_extracted else pymupdf.Page.get_text
        return clean_pages([Page(number=i + 1, text=read(doc[i])) for i in range(min(len(doc), max_pages or len(doc)))])


@pytest.mark.parametrize(
    ("name", "report", "reasons"),
    [
        (  # Asturcom, C-40/08, in Portuguese
            "i1093.pdf",
            ["Quadro jurídico", "Regulamentação comunitária", "Legislação nacional",
             "Litígio no processo principal e questão prejudicial"],
            ["Quanto à questão prejudicial", "Quanto às despesas"],
        ),
        (  # Mostaza Claro, C-168/05, in English
            "i1091.pdf",
            ["Legal context", "Community legislation", "National legislation",
             "The dispute in the main proceedings and the question referred to the Court"],
            ["Preliminary observations", "The question referred", "Costs"],
        ),
    ],
)  # fmt: skip
def test_a_cjeu_judgment_has_its_own_parts_not_a_brazilian_acordaos(
    name: str, report: list[str], reasons: list[str]
) -> None:
    """Read as an acórdão, Asturcom's list of representatives was an "ementa" and its legal framework "o acórdão
    (resultado do julgamento)" on the cards; Mostaza Claro was one "corpo". Caption, report, reasoning, ruling."""
    pages = archive_pages(name)
    sections = detect_sections(pages, "acordao")
    paths = [s.path for s in sections]
    assert paths == [
        "cabecalho",
        "relatorio",
        *[f"relatorio > {label}" for label in report],
        *[f"fundamentacao > {label}" for label in reasons],
        "dispositivo",
    ]
    ruling = next(s for s in sections if s.path == "dispositivo")
    said = full_text(pages)[ruling.char_start : ruling.char_end]
    assert said.startswith(("Pelos fundamentos expostos, o Tribunal de Justiça", "On those grounds, the Court"))


def tops(sections: list[Section]) -> list[str]:
    """The top-level parts in order, each once."""
    out: list[str] = []
    for section in sections:
        if not out or out[-1] != section.top:
            out.append(section.top)
    return out


def test_a_works_chapters_number_on_so_footnotes_and_restarted_lists_are_no_chapters() -> None:
    """i432's footnotes "3 Comentários ao código de processo civil. Tomo IV. P. 246." and "12 Disponível em:
    http://..." had become chapters (a card's place read "p. 4, 3 Comentários ao código ..."); i245's "CAPÍTULO II"
    numbers its sections from 1 again, and they stay chapters."""
    assert tops(detect_sections(archive_pages("i432.pdf"), "doutrina")) == [
        "abertura", "resumo", "introducao", "2. CONCEITO DE PROVA", "3. PROVA DOCUMENTAL", "4. DOCUMENTO ELETRÔNICO",
        "5. ASSINATURA DIGITAL", "6. CERTIFICAÇÃO DIGITAL",
        "7. ADMISSIBILIDADE DO DOCUMENTO ELETRÔNICO COMO MEIO DE PROVA", "8. VALORAÇÃO DA PROVA ELETRÔNICA",
        "conclusao", "notas",
    ]  # fmt: skip
    second_chapter = tops(detect_sections(archive_pages("i245.pdf"), "doutrina"))
    assert second_chapter[second_chapter.index("9. ASPECTOS PENAIS DA RELAÇÃO ALIMENTAR") + 1 :][:2] == [
        "1. OS DIREITOS INDISPONÍVEIS.",
        "2. ALIMENTOS COMO DIREITO INDISPONÍVEL.",
    ]


def test_a_dissertations_chapters_are_its_own_not_a_footnote_or_a_wrapped_url() -> None:
    """i1074 (USP): the footnote "7 Abordaremos as teorias ... em nosso Capítulo 1." had become the chapter of every
    page from 23 on, and through the extractor a URL wrapped before its last digit ("...%2" / "2. Acesso em: 08 dez.
    2020.") did the same: a card's place read "p. 146, 2. Acesso em: 08 dez. 2020. › 2.10.1 Plano de saúde ..."."""
    chapters = [top for top in tops(detect_sections(archive_pages("i1074.pdf"), "doutrina")) if top[0].isdigit()]
    assert chapters == [
        "1. QUESTÕES ANTECEDENTES AO ESTUDO DAS REDES CONTRATUAIS",
        "2. A TEORIA DAS REDES CONTRATUAIS",
        "3. CONSEQUÊNCIAS DA APLICAÇÃO DA TEORIA DAS REDES CONTRATUAIS",
    ]
    wrapped = (
        "1 INTRODUÇÃO\nO texto do capítulo começa aqui.\n"
        "DREWS, Rafael. Redes contratuais. Disponível em:\nhttps://repositorio.usp.br/result.php?author=%22Drews%2\n"
        "2. Acesso em: 08 dez. 2020.\nMais texto do capítulo.\n2 A TEORIA DAS REDES\nO texto.\n"
        "2.1 Plano de saúde e medicina em grupo\nO plano."
    )
    assert [s.path for s in detect_sections([Page(number=1, text=wrapped)], "doutrina")] == [
        "introducao",
        "2 A TEORIA DAS REDES",
        "2 A TEORIA DAS REDES > 2.1 Plano de saúde e medicina em grupo",
    ]


def test_an_stf_vote_set_out_letter_by_letter_opens_the_voto_and_a_party_is_no_heading() -> None:
    """STF RE 1.366.243 ED (i277): "V O T O" read as the Roman numeral "V" numbering "O T O", and its caption's last
    line ("SANTA / CATARINA") as an ementa broken word by word, so the Relator's vote (pp. 32-56) was "no relatório" on
    the cards; and a party wrapped over two lines ("DOS ESTADOS E DO DISTRITO FEDERAL - CONPEG" / "PROC.(A/S)(ES)
    :VIVIANE ...") was a heading of the relatório and of the dispositivo."""
    sections = detect_sections(archive_pages("i277.pdf"), "acordao")
    assert [s.top for s in sections if s.page_start == 32][-1] == "voto"
    assert any(s.path == "voto > 1) Não conhecimento dos embargos de declaração opostos pelos amici curiae"
               for s in sections)  # fmt: skip
    assert not [s.path for s in sections if "CONPEG" in s.path]
    fux = detect_sections(archive_pages("i278.pdf"), "acordao")  # RE 855.178 ED: three votes, each "V O T O"
    assert [s.page_start for s in fux if s.path == "voto"][:1] == [5]


def test_an_stf_ementa_follows_its_caption_s_abbreviated_parties_and_a_wrapped_label_is_no_heading() -> None:
    """The STF lists parties as abbreviated labels, each value on the next line ("EMBTE.(S)" / ":SINDICATO ..."):
    none was read as a role, so i277's ementa (pp. 2-5, after two pages of amici curiae) began on p. 4 and the caption
    ran over it. "REDATOR DO" / "ACÓRDÃO" / ": MIN. ROBERTO BARROSO" opened an "acórdão" inside the caption, and the
    ementas of i278 (RE 855.178 ED, Tema 793) and i279 (RE 657.718, Tema 500) were "no acórdão" on the cards."""
    sections = detect_sections(archive_pages("i277.pdf", as_extracted=True), "acordao")
    assert [(s.top, s.page_start, s.page_end) for s in sections[:2]] == [("cabecalho", 1, 2), ("ementa", 2, 5)]
    assert (sections[2].top, sections[2].page_start) == ("acordao", 5)
    for name, page in (("i278.pdf", 1), ("i279.pdf", 3)):
        pages = archive_pages(name, as_extracted=True, max_pages=8)
        tops = [(s.top, s.page_start) for s in detect_sections(pages, "acordao")]
        assert tops[:3] == [("cabecalho", 1), ("ementa", page), ("acordao", tops[2][1])], name


def test_the_stf_s_names_of_its_parts_open_them_debates_votes_and_the_minutes() -> None:
    """The STF's inteiro teor names each part on its pages in hidden type, which the extractor writes as the first
    line of the page where the part begins. RE 855.178 ED (i278, Tema 793): the session's debate (pp. 14-29) was
    "no voto › Dispositivo" of the Relator, with "O dispositivo dá o resultado" over a minister's aside on the cards;
    Justice Moraes's vote (p. 78) was in Justice Fachin's voto-vista. A part's name mid-page is no part."""
    pages = extract((SHARED_DATA / "archive" / "i278.pdf").read_bytes(), "i278.pdf").pages
    sections = detect_sections(clean_pages(pages), "acordao")
    part = {page: [s.top for s in sections if s.page_start == page] for page in (5, 14, 30, 34, 78, 98, 165)}
    assert part == {
        5: ["voto", "voto"],  # "Voto - MIN. LUIZ FUX", then the page's own "V O T O"
        14: ["debate"],
        30: ["certidao"],  # "Extrato de Ata - 05/08/2015"
        34: ["voto_vista"] * 3,  # its own headings nest under it
        78: ["voto", "voto"],
        98: ["debate"],
        165: ["certidao"],
    }
    assert "debate" not in {s.top for s in sections if 5 < s.page_start < 14}
    said = "Relatório\nO recorrente narra.\n\fDebate\nO SENHOR MINISTRO X - Peço a palavra.\nVista\nPeço vista.\n"
    two = [Page(number=n, text=t) for n, t in enumerate(said.split("\f"), start=1)]
    assert [(s.top, s.page_start) for s in detect_sections(two, "acordao")] == [("relatorio", 1), ("debate", 2)]


def test_a_quoted_ementa_in_capitals_opens_no_heading_where_its_sentence_runs_on() -> None:
    """STF RE 1.366.243 ED (i277): the relatório quotes an ementa in capitals, and its line "DO DIÁLOGO, DADA A
    COMPLEXIDADE DO TEMA," (after "... NECESSIDADE DE AMPLIAÇÃO") was a heading over pages 9-31 of the cards. A line
    of capitals that goes on from the one before it, unfinished and no heading itself, opens none; a heading after a
    finished line still does."""
    sections = detect_sections(archive_pages("i277.pdf", as_extracted=True, max_pages=31), "acordao")
    assert [s.path for s in sections if s.top == "relatorio"] == ["relatorio"]
    quoted = (
        "RELATÓRIO\nA decisão embargada tem esta ementa:\n“RECURSO EXTRAORDINÁRIO. NECESSIDADE DE AMPLIAÇÃO\n"
        "DO DIÁLOGO, DADA A COMPLEXIDADE DO TEMA\nEntre os entes federativos.”\nÉ o relatório.\n"
        "DO MÉRITO DOS EMBARGOS DE DECLARAÇÃO\nOs embargos não merecem acolhida.\n"
    )
    paths = [s.path for s in detect_sections([Page(number=1, text=quoted)], "acordao")]
    assert paths == ["relatorio", "relatorio > DO MÉRITO DOS EMBARGOS DE DECLARAÇÃO"]


def test_list_items_and_wrapped_sentences_are_no_headings_and_headings_after_a_colon_stay() -> None:
    """STF RE 1.366.243 ED (i277): the request "i) que seja conferida interpretação de que a", an item of the list
    its previous line opens ("... para:") and cut mid-sentence, was a section of the relatório on the cards. A
    deeper number after a colon (STF i278's "... as seguintes premissas e arremate:" / "1.1. Premissas") and a
    number after the speaker's line ("O SENHOR MINISTRO ... (RELATOR):" / "1. Questão prefacial.") stay headings."""
    listed = (
        "RELATÓRIO\nOs embargantes pedem o provimento dos embargos, com efeitos infringentes, para:\n"
        "i) que seja conferida interpretação de que a\nResolução n. 3 não se aplica aos fornecedores;\n"
        "ii) a exclusão do subitem 3.2 da tese.\nÉ o relatório.\nVOTO\n"
        "O SENHOR MINISTRO MARCO AURÉLIO BELLIZZE (RELATOR):\n1. Questão prefacial. Alegação de perda de objeto.\n"
        "Antes de adentrar o exame da matéria, tem-se em conta as seguintes premissas e arremate:\n"
        "1.1. Premissas\nPrimeira: o fato não induz à rediscussão da tese.\n"
    )
    paths = [s.path for s in detect_sections([Page(number=1, text=listed)], "acordao")]
    assert not any("que seja conferida" in path for path in paths)
    assert "voto > 1. Questão prefacial. Alegação de perda de objeto." in paths
    assert "voto > 1. Questão prefacial. Alegação de perda de objeto. > 1.1. Premissas" in paths
    # An exam's options run on over their lines (i1038) and a word broken at the line's end (i1062) are no headings.
    options = (
        "QUESTÃO 12\nSobre as escolas penais, assinale a correta.\n"
        "b) na Escola Clássica, o crime era visto como um fato social e humano, enquanto na Escola\n"
        "Positiva era um ente jurídico.\nTexto seguinte.\nd) Pode ainda o terceiro requerido negar que o docu-\n"
        "Mento exista.\n"
    )
    assert [s.path for s in detect_sections([Page(number=1, text=options)], "doutrina")] == ["corpo"]


def test_a_caption_is_a_few_pages_so_a_long_opinions_numbered_parts_are_read() -> None:
    """i351, a 55-page parecer whose first catalogued heading is on page 35: its pages 1-34 were its "cabeçalho",
    and a card said "O cabeçalho identifica o caso" of a passage on page 16."""
    sections = detect_sections(archive_pages("i351.pdf"), "parecer")
    assert tops(sections)[:4] == ["cabecalho", "1. INTRODUÇÃO", "2. DOCUMENTAÇÃO", "3. METODOLOGIA"]
    assert max(s.page_end for s in sections if s.top == "cabecalho") == 5  # its cover, notice and contents


def test_a_brazilian_acordao_naming_the_tribunal_de_justica_is_no_cjeu_judgment() -> None:
    text = (
        "ACÓRDÃO DO TRIBUNAL DE JUSTIÇA DO ESTADO DE GOIÁS\nEMENTA: APELAÇÃO. DANO MORAL. Recurso provido.\n"
        "ACÓRDÃO\nAcordam os Desembargadores em dar provimento ao recurso.\nRELATÓRIO\nTrata-se de apelação.\n"
    )
    assert [s.path for s in detect_sections([Page(number=1, text=text)], "acordao")] == [
        "cabecalho",
        "acordao",
        "relatorio",
    ]


JURISPRUDENCIA_EM_TESES = (
    "Jurisprudência em Teses\nEdição n. 107          Brasília, 10 de agosto de 2018\n"
    "EDIÇÃO N. 107: DOS CONTRATOS DE COMPRA E VENDA DE BENS IMÓVEIS - I\n"
    "1. Na hipótese de descumprimento do prazo de entrega do imóvel, é possível cumular a cláusula penal.\n"
    "Julgados: AgInt no REsp 1610303/SE, Rel. Ministro LÁZARO GUIMARÃES, QUARTA TURMA, DJE 16/02/2018;\n"
    "2. A cláusula penal moratória não pode ser cumulada com lucros cessantes:\n"
    "1. quando fixada em valor equivalente ao aluguel;\n2. salvo estipulação em contrário.\n"
    "Julgados: REsp 1498484/DF, Rel. Ministro LUIS FELIPE SALOMÃO, SEGUNDA SEÇÃO, DJE 25/06/2019;\n"
)


def test_each_tese_is_a_standalone_unit_with_its_precedents() -> None:
    sections = detect_sections([Page(number=1, text=JURISPRUDENCIA_EM_TESES)])
    edition = "EDIÇÃO N. 107: DOS CONTRATOS DE COMPRA E VENDA DE BENS IMÓVEIS - I"
    assert [(s.path, s.standalone) for s in sections] == [
        ("abertura", False),  # a booklet's title page is no case's caption
        (f"{edition} > Tese 1", True),  # the edition's heading opens its first tese's section
        (f"{edition} > Tese 2", True),  # its own "1." and "2." are a list inside it, not teses
    ]
    tese_2 = JURISPRUDENCIA_EM_TESES[sections[2].char_start : sections[2].char_end]
    assert tese_2.startswith("2. A cláusula penal") and "REsp 1498484/DF" in tese_2


def test_informativo_notes_under_their_court_sections() -> None:
    text = (
        "Este periódico destaca teses jurisprudenciais e não consiste em repositório oficial de jurisprudência.\n"
        "Número 736\nRECURSOS REPETITIVOS\nPROCESSO\nREsp 1.918.287-MG, Rel. Min. Sebastião Reis Júnior.\n"
        "DESTAQUE\nAs penas serão unificadas.\nTERCEIRA TURMA\nPROCESSO\nREsp 1.836.016-PR, Rel. Min. Nancy.\n"
        "DESTAQUE\nA cláusula é válida.\nEMENTA: não é uma parte do informativo.\n"
    )
    sections = detect_sections([Page(number=1, text=text)])
    assert [(s.path, s.standalone) for s in sections] == [
        ("abertura", False),  # a booklet's title page is no case's caption
        ("Recursos Repetitivos > Processo REsp 1.918.287-MG", True),
        ("Terceira Turma > Processo REsp 1.836.016-PR", True),
    ]


ARTICLE = (
    "Revista de Direito do Consumidor – Vol. 13, Nº 1, jan./jun. 2019\n"
    "O PRINCÍPIO DA COOPERAÇÃO NA ARBITRAGEM\nFABIANA NEVES 1\n"
    "Sumário: 1 INTRODUÇÃO. 2 MODELOS DE PROCESSO. 3 CONCLUSÃO.\n4\nCONCLUSÃO.\nREFERÊNCIAS BIBLIOGRÁFICAS\n"
    "RESUMO: A compreensão e aplicação do Direito sofreu, ao longo do tempo, significativas mudanças que alcançam o "
    "processo arbitral e a cooperação entre árbitros e juízes.\nPalavras-chave: Cooperação. Arbitragem.\n"
    "ABSTRACT: The understanding of the law changed over time.\n"
    "INTRODUÇÃO\nA partir de uma breve digressão histórica, denota-se que a sociedade mudou.\n"
    "2 Modelos de organização do processo\nExistem diversos modelos de organização do processo civil.\n"
    "2.1 O modelo dispositivo\nO modelo dispositivo está relacionado à estruturação adversarial do processo.\n"
    "3 CONCLUSÃO\nA cooperação é norma fundamental.\n"
    "REFERÊNCIAS BIBLIOGRÁFICAS\nDIDIER JR., Fredie. Curso de direito processual civil. Salvador: JusPodivm, 2017.\n"
)


def test_work_of_doctrine_opening_abstract_introduction_and_numbered_parts() -> None:
    """An article's opening (title, authors, its contents line) is no caption, its abstract is a part of its own
    (run into its heading's line), its numbered headings ("2 Modelos", no stop after the number) are its parts,
    and the contents line's "CONCLUSÃO." / "REFERÊNCIAS" are not where its conclusion begins."""
    paths = [s.path for s in detect_sections([Page(number=1, text=ARTICLE)], "doutrina")]
    assert paths == [
        "abertura",
        "resumo",
        "resumo",
        "introducao",
        "2 Modelos de organização do processo",
        "2 Modelos de organização do processo > 2.1 O modelo dispositivo",
        "conclusao",
        "notas",
    ]
    assert section_label("resumo") == "Resumo" and section_label("abertura") == "Abertura"


def test_contents_lines_with_dot_leaders_are_no_headings() -> None:
    text = (
        "UNIVERSIDADE FEDERAL\nRENÚNCIA DE ALIMENTOS\nSUMÁRIO\n1. INTRODUÇÃO.................. 07\n"
        "2. DOS ALIMENTOS.................. 09\nCONCLUSÃO.................. 40\n"
        "INTRODUÇÃO\nO presente trabalho analisa a renúncia aos alimentos no divórcio.\n"
    )
    assert [s.path for s in detect_sections([Page(number=1, text=text)], "doutrina")] == ["abertura", "introducao"]


def test_a_part_is_said_as_a_place_so_it_does_not_read_as_the_type() -> None:
    """ "p. 4 Acórdão" beside the type tag "Acórdão" said nothing about which was which (issue 36)."""
    assert section_place("ementa") == "na ementa"
    assert section_place("acordao") == "no acórdão (resultado do julgamento)"
    assert section_place("voto > II – Da não incidência do CDC") == "no voto › II – Da não incidência do CDC"
    assert section_place("voto_vencido > dispositivo") == "no voto vencido › Dispositivo"
    assert section_place("mensagem 2") == "na mensagem 2"
    assert section_place("Art. 51 > § 2º") == "Art. 51 › § 2º"  # a heading of its own names itself
    assert section_place(None) == "" and section_place("") == ""
    assert SECTION_PLACES.keys() == SECTION_LABELS.keys()
    for code, label in SECTION_LABELS.items():  # each place names its part, not some other
        assert label.lower().split()[0] in SECTION_PLACES[code].lower(), code
