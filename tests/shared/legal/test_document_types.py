"""Which kind of document a text is and which act, work or filing: short synthetic openings of each kind, and the
real files of ../shared/archive (labelled here by reading them: legislation, doctrine, compilations, decisions)."""

import pytest

from precedente.shared.legal.codes import DOCUMENT_SUBTYPE_LABELS, DOCUMENT_SUBTYPES, DOCUMENT_TYPES
from precedente.shared.legal.document_text import DocumentText
from precedente.shared.legal.document_types import guess_subtype, guess_type
from precedente.shared.payloads import Page
from tests.helpers.samples import SHARED_DATA

ARCHIVE = SHARED_DATA / "archive"


def doc(*pages: str) -> DocumentText:
    return DocumentText([Page(number=i + 1, text=t) for i, t in enumerate(pages)])


# ------------------------------------------------------------------------------ synthetic openings

CASES = [
    ("DECRETO Nº 8.660, DE 29 DE JANEIRO DE 2016\nPromulga a Convenção.", "ato_normativo", "decreto"),
    ("PROVIMENTO/CGJ N. 2, DE 6 DE JANEIRO DE 2023.\nA CORREGEDORA-GERAL DE JUSTIÇA, no uso de suas", "ato_normativo",
     "provimento"),
    ("PODER JUDICIÁRIO\nPROVIMENTO TRT 18ª SCR Nº 4/2012\nAprova a nova redação", "ato_normativo", "provimento"),
    ("RESOLUÇÃO 228, DE 22 DE JUNHO DE 2016.\nRegulamenta a aplicação", "ato_normativo", "resolucao"),
    ("DIRECTIVE 2011/83/EU OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL\nof 25 October 2011\non consumer rights",
     "ato_normativo", "diretiva"),
    ("I\n(Atos legislativos)\nREGULAMENTOS\nREGULAMENTO (UE) 2022/1925 DO PARLAMENTO EUROPEU E DO CONSELHO\n"
     "de 14 de setembro de 2022", "ato_normativo", "regulamento"),
    ("RECTIFICAÇÕES\nRectificação ao Regulamento (CE) n. o 593/2008 do Parlamento Europeu e do Conselho",
     "ato_normativo", "retificacao"),
    ("CÓDIGO DE ÉTICA E DISCIPLINA DA OAB\nO CONSELHO FEDERAL DA ORDEM DOS ADVOGADOS DO BRASIL, ao instituir\n"
     + "".join(f"Art. {n}º O advogado deve agir com lealdade.\n" for n in range(1, 7)), "ato_normativo", "codigo"),
    ("Jurisprudência em Teses\nEDIÇÃO N. 77: ALIMENTOS - II\n1. Os alimentos são devidos.\nJulgados: REsp 1/SP",
     "jurisprudencia_compilada", "jurisprudencia_em_teses"),
    ("Este periódico destaca teses jurisprudenciais e não consiste em repositório oficial de jurisprudência.\n"
     "Número 736\nPROCESSO\nREsp 1.918.287-MG, Rel. Min. Sebastião Reis Júnior", "jurisprudencia_compilada",
     "informativo"),
    ("Tribunal de Ética e Disciplina\nEMENTÁRIO TED – 2014\nProcesso Disciplinar Nº 275795/2010\nEMENTA: AUSÊNCIA "
     "DE PROVAS. Vistos, relatados e discutidos", "jurisprudencia_compilada", "ementario"),
    ("Revista Pensamento Jurídico – São Paulo – Vol. 13, Nº 1, jan./jun. 2019\nO PRINCÍPIO DA COOPERAÇÃO\n"
     "Fulana de Tal1\nRESUMO\nO artigo estuda a cooperação.\nPalavras-chave: cooperação; arbitragem.",
     "doutrina", "artigo"),
    ("UNIVERSIDADE DE SÃO PAULO\nFACULDADE DE DIREITO\nFULANO DE TAL\nREDES CONTRATUAIS\nTese apresentada ao "
     "Programa de Pós-Graduação em Direito, como requisito para a obtenção do título de Doutor.\nOrientadora: "
     "Professora Beltrana\nSão Paulo\n2017", "doutrina", "tese"),
    ("STJ – REsp 1.602.076/SP – Comentário por Fulana de Tal.\nRevista de Direito Civil Contemporâneo. vol. 13. "
     "ano 4. p. 545-573. São Paulo: Ed. RT, out.-dez. 2017.\nAcordam os Ministros da Terceira Turma",
     "doutrina", "comentario"),
    ("EXCELENTÍSSIMO SENHOR DOUTOR JUIZ DE DIREITO DA VARA CÍVEL\nFULANO, vem propor a presente AÇÃO DE COBRANÇA",
     "peticao", "peticao_inicial"),
    ("EXCELENTÍSSIMO SENHOR DOUTOR JUIZ DE DIREITO DA 2ª VARA CÍVEL\nProcesso nº 1\nBELTRANO, vem apresentar sua "
     "CONTESTAÇÃO à ação que lhe move FULANO, requerendo a improcedência", "peticao", "contestacao"),
    ("SÚMULA VINCULANTE 10\nViola a cláusula de reserva de plenário", "sumula", "sumula_vinculante"),
    ("ATA DA REUNIÃO ORDINÁRIA DE 3 DE MARÇO DE 2023\nAos três dias do mês de março", "ato_administrativo", "ata"),
    ("JUDGMENT OF THE COURT (First Chamber)\n26 October 2006\nIn Case C-168/05,", "acordao", None),
    ("Ementa e Acórdão\n16/12/2024\nPLENÁRIO\nSEGUNDOS EMB.DECL. NO RECURSO EXTRAORDINÁRIO 1.366.243\nRELATOR\n: MIN. "
     "GILMAR MENDES\nEMENTA: Direito constitucional.", "acordao", None),
    ("RECURSO ESPECIAL Nº 1.543.564 - SP (2015/0171807-9)\nRELATÓRIO\nO SENHOR MINISTRO MARCO AURÉLIO BELLIZZE:\n"
     "Fischer interpõe recurso especial.", "acordao", None),
    # a monocrática that never says "decido": its ruling in the first person (47 of 150 STJ monocráticas sampled)
    ("HABEAS CORPUS Nº 1012345 - RJ (2025/0312345-1)\nDECISÃO\nTrata-se de habeas corpus.\nAnte o exposto, não "
     "conheço do habeas corpus.\nIntimem-se.", "decisao_monocratica", None),
    ("AGRAVO EM RECURSO ESPECIAL Nº 2900000 - PR (2025/0250000-7) DECISÃO Cuida-se de agravo. Ante o exposto, nego "
     "provimento ao agravo. Publique-se.", "decisao_monocratica", None),  # a text copy on one line
    # since 2024 an STJ monocrática may open with its EMENTA: the caption and a ruling in the first person say it
    ("RECURSO ESPECIAL Nº 2200000 - RS (2025/0090000-0)\nEMENTA\nRECURSO ESPECIAL. PREVIDENCIÁRIO. JUROS.\nAnte o "
     "exposto, conheço em parte do recurso especial e nego-lhe provimento.\nPublique-se.", "decisao_monocratica", None),
    ("DECISÃO\nTrata-se de pedido de reconsideração.\nA parte pede nova análise.", "outro", None),  # no ruling
    ("RECURSO ESPECIAL Nº 2200001 - SP (2025/0090001-0)\nDECISÃO\nTrata-se de recurso especial.\nDo exposto, com "
     "fulcro no artigo 932 do CPC/2015, nega-se provimento ao recurso especial.", "decisao_monocratica", None),
    # a party's "tese apresentada" is no thesis's cover (11 of 300 STJ monocráticas were read as doctrine)
    ("HABEAS CORPUS Nº 1040000 - SP (2025/0350000-1)\nDECISÃO\nA tese apresentada pela defesa não procede.\n"
     "Ante o exposto, denego a ordem.", "decisao_monocratica", None),
    # a decision copied as one paragraph: an "Informativo" it cites is inside its one long line
    ("RECURSO ESPECIAL Nº 2200000 - RJ (2021/0080000-0) DECISÃO Trata-se de recurso especial. " + "A parte alega. " * 12
     + "O Informativo n. 700 do STJ trata do tema. Ante o exposto, nego provimento ao recurso especial.",
     "decisao_monocratica", None),
    ("UNIVERSIDADE FEDERAL\nFULANO DE TAL\nA PROVA NO PROCESSO\nTese apresentada ao Programa de Pós-Graduação em "
     "Direito.\nSão Paulo\n2019", "doutrina", "tese"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "document_type", "subtype"), CASES)
def test_type_and_subtype_of_short_openings(text: str, document_type: str, subtype: str | None) -> None:
    d = doc(text)
    assert guess_type(d) == document_type
    assert guess_subtype(d, document_type) == subtype


def test_an_article_quoting_a_judgment_is_doctrine_and_a_judgment_citing_a_journal_is_not() -> None:
    article = doc(
        "Rev. Adm. Pública — Rio de Janeiro 48(5):1191-1206, set./out. 2014\nOs impactos da judicialização\n"
        "Fulano de Tal\nProfessor da Universidade Federal\nResumo\nVistos, relatados e discutidos, acordam os Ministros"
    )
    assert guess_type(article) == "doutrina"
    judgment = doc(
        "RECURSO ESPECIAL Nº 1.602.076 - SP\nRELATORA : MINISTRA NANCY ANDRIGHI\nADVOGADOS : FULANO - SP1\n"
        "EMENTA\nCIVIL. Como ensina a doutrina (Revista dos Tribunais, v. 5, 2010).\nACÓRDÃO\n"
        "Vistos, relatados e discutidos estes autos, acordam os Ministros da Terceira Turma"
    )
    assert guess_type(judgment) == "acordao"


@pytest.mark.parametrize(
    "text",
    [
        # an article's own contents line ("SUMÁRIO:", no word boundary after the colon) and its journal
        "Revista Eletrônica\nSUMÁRIO: 1 Introdução; 2 A Lei 11.419/2006; 3 Conclusão.\n1 INTRODUÇÃO\nO processo muda.",
        # a byline right under the title and a note on where the piece was published
        "O ADVOGADO TEM FÉ PÚBLICA1\nDeusdedith Brasil (*)\nO precedente legal valoriza o advogado.\n"
        "1 Sobre o artigo:\nArtigo publicado no jornal “O Liberal”, na tiragem de 07.05.2009",
    ],
)
def test_short_articles_without_an_abstract_are_doctrine(text: str) -> None:
    assert guess_type(doc(text)) == "doutrina"
    assert guess_subtype(doc(text), "doutrina") == "artigo"


def test_a_byline_alone_or_a_title_in_capitals_does_not_make_doctrine() -> None:
    assert guess_type(doc("O ADVOGADO TEM FÉ PÚBLICA\nDeusdedith Brasil\nTexto corrido sem aparato.")) == "outro"
    assert guess_type(doc("RELATÓRIO ANUAL\nMaria Souza Lima1\nTexto corrido sem aparato.")) == "outro"


def test_an_appeal_addressed_to_the_judge_is_a_petition() -> None:
    text = (
        "EXCELENTÍSSIMO SENHOR DOUTOR JUIZ DE DIREITO DA 1ª VARA CÍVEL\n\nEMPRESA ALFA LTDA., já qualificada, "
        "vem interpor RECURSO INOMINADO contra a r. sentença de fls. 80, pelas razões que seguem."
    )
    assert (guess_type(doc(text)), guess_subtype(doc(text), "peticao")) == ("peticao", "recurso")


def test_every_subtype_refines_a_known_type_and_has_a_label() -> None:
    assert set(DOCUMENT_SUBTYPES) <= set(DOCUMENT_TYPES)
    assert all(DOCUMENT_SUBTYPE_LABELS[code] for group in DOCUMENT_SUBTYPES.values() for code in group)
    codes = {code for _, _, code in CASES if code}
    assert codes <= set(DOCUMENT_SUBTYPE_LABELS)


# ------------------------------------------------------------------------------ the archive

# Read from the files (README of ../shared/archive); files that belong to none of these kinds are left out.
ARCHIVE_TYPES = {
    "ato_normativo": "i1032 i1039 i1040 i1041 i1042 i1043 i1044 i1045 i1122 i254 i344 i437 i436 i500 i503 i513",
    "jurisprudencia_compilada": "i162 i168 i259 i260 i343 i1058",
    "doutrina": "i1028 i1029 i1033 i1046 i1047 i1048 i1051 i1052 i1053 i1054 i1057 i1060 i1062 i1064 i1066 i1068 "
    "i1074 i1076 i1085 i1097 i1099 i1145 i245 i274 i280 i282 i285 i286 i287 i305 i332 i337 i339 i341 i358 i432 "
    "i439 i649",
    "acordao": "i1034 i1035 i1072 i1078 i1083 i1087 i1091 i1093 i1095 i1325 i176 i277 i278 i279 i630 i641 i644 "
    "i652 i681 i1080",
}
ARCHIVE_SUBTYPES = {
    "i1042": "diretiva", "i1043": "regulamento", "i1045": "regulamento", "i1041": "retificacao", "i254": "codigo",
    "i344": "provimento", "i436": "provimento", "i513": "provimento", "i503": "resolucao", "i500": "decreto",
    "i168": "jurisprudencia_em_teses", "i162": "informativo", "i343": "ementario", "i1076": "tese", "i1053": "tese",
    "i1145": "dissertacao", "i245": "monografia", "i1051": "livro", "i649": "comentario", "i1029": "artigo",
}  # fmt: skip


@pytest.fixture(scope="module")
def archive() -> dict[str, DocumentText]:
    """The first four pages of each file, as the extractor reads them (the STF's hidden "Ementa e Acórdão" label is
    not read: i277 is an acórdão by its session's opening, "16/12/2024" / "PLENÁRIO")."""
    import pymupdf

    from precedente.services.extractor.pdf_layout import page_text

    assert ARCHIVE.exists(), f"{ARCHIVE} is missing: ../shared must sit beside the checkout"
    names = {name for names in ARCHIVE_TYPES.values() for name in names.split()}
    out = {}
    for name in sorted(names):
        with pymupdf.open(ARCHIVE / f"{name}.pdf") as pdf:
            pages = [Page(number=i + 1, text=page_text(pdf[i])) for i in range(min(4, len(pdf)))]
            out[name] = DocumentText(pages)
    return out


@pytest.mark.parametrize("document_type", sorted(ARCHIVE_TYPES))
def test_archive_files_get_their_type(document_type: str, archive: dict[str, DocumentText]) -> None:
    names = ARCHIVE_TYPES[document_type].split()
    wrong = {name: guess_type(archive[name]) for name in names if guess_type(archive[name]) != document_type}
    # Measured: every act, compilation and judgment, and all 38 works of doctrine (i332 by its "SUMÁRIO: 1
    # Introdução; ..." contents line and its journal's running head, i341 by its byline and its publication note).
    assert not wrong, wrong


def test_archive_subtypes(archive: dict[str, DocumentText]) -> None:
    got = {name: guess_subtype(archive[name], guess_type(archive[name])) for name in ARCHIVE_SUBTYPES}
    assert got == ARCHIVE_SUBTYPES


def test_a_foreign_statute_by_its_title_and_numbered_sections_is_an_act() -> None:
    """A translated statute opens with its name in capitals and numbers its sections ("1." / "(a)"), with no
    "Art."; a heading in capitals alone is no act."""
    statute = doc(
        "BASIC-LAW: ISRAEL - THE NATION STATE OF THE JEWISH PEOPLE\n(Originally adopted in 5778-2018\n"
        "Basic principles\n1.\n(a)\nThe Land of Israel is the historical homeland.\nThe symbols of the State\n2.\n"
        '(a)\nThe name of the State is "Israel"'
    )
    assert (guess_type(statute), guess_subtype(statute, "ato_normativo")) == ("ato_normativo", "lei")
    assert guess_type(doc("BASIC-LAW: A COMMENTARY\nThe basic laws of Israel were adopted over decades.")) == "outro"


def test_a_commented_exam_is_doctrine_of_its_own_kind() -> None:
    """A prep course's "prova comentada": questions and the case law that answers them, written by its teachers."""
    exam = doc(
        "PROVA COMENTADA –\nTRIBUNAL DE JUSTIÇA DO ESTADO DO RIO DE\nJANEIRO\nQUESTÃO 01. Tendo em vista o "
        "entendimento do STJ acerca do bem de família, assinale a alternativa correta.\na) É inválida a penhora.\n"
        "Comentários\n"
        "A alternativa correta é a letra B. Acordam os Ministros da Terceira Turma, REsp 1.792.265/SP."
    )
    assert (guess_type(exam), guess_subtype(exam, "doutrina")) == ("doutrina", "material_didatico")
