"""The requests read from the end of a petition (precedente.shared.legal.pedidos), on texts written as lawyers write
them and on the real petição inicial of ../shared/docs."""

from pathlib import Path

import pymupdf

from precedente.services.annotator.logic import annotate
from precedente.services.cleaner.logic import clean_pages
from precedente.shared.legal.pedidos import PEDIDO_MAX, read_pedidos
from precedente.shared.payloads import Page

SAMPLES = Path(__file__).resolve().parents[3].parent / "shared" / "docs"

INICIAL = """EXCELENTÍSSIMO SENHOR DOUTOR JUIZ DE DIREITO DA 3ª VARA CÍVEL DA COMARCA DE CAMPINAS – SP

MARIA APARECIDA DOS SANTOS, brasileira, aposentada, portadora do RG nº 12.345.678-9, vem, respeitosamente, por
seu advogado, propor a presente

AÇÃO DE INDENIZAÇÃO POR DANOS MORAIS

em face de BANCO EXEMPLO S.A., pessoa jurídica de direito privado, pelos fatos e fundamentos a seguir expostos.

I – DOS FATOS

A Autora teve seu nome inscrito em cadastro de inadimplentes por dívida que jamais contraiu. Requer-se, desde já,
atenção ao documento de fls. 12, em que o próprio Réu reconhece o erro.

II – DA TUTELA DE URGÊNCIA

O pedido de tutela de urgência se justifica pela manutenção indevida da negativação (art. 300 do CPC).

III – DO DIREITO

A responsabilidade do fornecedor é objetiva (art. 14 do CDC), e o dano moral decorre da própria inscrição indevida.

IV – DOS PEDIDOS

Diante do exposto, requer-se:

a) a concessão da tutela de urgência, para que o Réu exclua o nome da Autora dos cadastros de proteção ao crédito
no prazo de 48 horas, sob pena de multa diária de R$ 500,00;

b) a citação do Réu para, querendo, apresentar contestação, sob pena de revelia;

c) a procedência do pedido, para declarar a inexistência do débito e condenar o Réu ao pagamento de indenização
por danos morais no valor de R$ 20.000,00;

d) a condenação do Réu ao pagamento das custas processuais e dos honorários advocatícios.

Dá-se à causa o valor de R$ 20.000,00 (vinte mil reais).

Termos em que pede deferimento.

Campinas, 4 de abril de 2024.

JOÃO CARLOS PEREIRA
OAB/SP 123.456
"""

CONTESTACAO = """EXCELENTÍSSIMA SENHORA DOUTORA JUÍZA DE DIREITO DA 5ª VARA CÍVEL DO FORO CENTRAL DE SÃO PAULO

Processo nº 1001234-56.2024.8.26.0100

CONSTRUTORA HORIZONTE LTDA., já qualificada nos autos da ação de cobrança que lhe move CARLOS EDUARDO LIMA, vem,
por seus advogados, apresentar CONTESTAÇÃO, pelas razões a seguir.

PRELIMINARMENTE – DA ILEGITIMIDADE PASSIVA

A Ré não firmou o contrato de fls. 20, celebrado com empresa diversa.

NO MÉRITO

Ainda que superada a preliminar, o Autor não comprova o pagamento que diz ter feito.

DOS REQUERIMENTOS

Ante o exposto, a Ré requer:

I – o acolhimento da preliminar de ilegitimidade passiva, extinguindo-se o feito sem resolução do mérito, nos
termos do art. 485, VI, do CPC;

II – subsidiariamente, a total improcedência dos pedidos;

III – a condenação do Autor ao pagamento das custas e dos honorários advocatícios, nos termos do art. 85 do CPC.

Protesta provar o alegado por todos os meios de prova em direito admitidos, especialmente o depoimento pessoal do
Autor e a oitiva de testemunhas.

Nestes termos,
pede deferimento.

São Paulo, 10 de março de 2024.

ANA PAULA RODRIGUES
OAB/SP 234.567
"""

APELACAO = """RAZÕES DE APELAÇÃO

Apelante: JOSÉ ROBERTO ALVES
Apelado: MUNICÍPIO DE SANTOS

Egrégio Tribunal,

A r. sentença julgou improcedente o pedido, ao fundamento de que não houve prova do nexo causal. Não pode
prevalecer. O Apelante requereu a produção de prova pericial, indeferida sem fundamentação.

DO PEDIDO

Pelo exposto, requer o Apelante seja conhecido e provido o presente recurso, para reformar integralmente a
r. sentença e julgar procedente o pedido inicial, invertendo-se os ônus da sucumbência.

Termos em que pede deferimento.

Santos, 2 de fevereiro de 2024.

Advogado
"""

INLINE = """EXMO. SR. DR. JUIZ DE DIREITO DO JUIZADO ESPECIAL CÍVEL DA COMARCA DE BELO HORIZONTE – MG

PEDRO HENRIQUE COSTA, brasileiro, solteiro, vem propor AÇÃO DE OBRIGAÇÃO DE FAZER em face de TELEFONIA BRASIL
S.A., pelos fatos a seguir.

O Autor contratou plano de internet que nunca foi instalado, apesar de pago desde janeiro.

Isto posto, requer a V. Exa.: a) a concessão dos benefícios da justiça gratuita; b) a citação da Ré; e c) a
procedência do pedido, para condenar a Ré a instalar o serviço contratado e a pagar R$ 5.000,00 a título de danos
morais.

Nesses termos, pede deferimento.

Belo Horizonte, 1º de julho de 2024.
"""

NUMBERED = """EXCELENTÍSSIMO SENHOR JUIZ FEDERAL DA 2ª VARA FEDERAL DE CURITIBA – SEÇÃO JUDICIÁRIA DO PARANÁ

EMPRESA ALFA COMÉRCIO LTDA. vem impetrar MANDADO DE SEGURANÇA contra ato do DELEGADO DA RECEITA FEDERAL EM
CURITIBA, pelas razões que expõe.

5. DOS PEDIDOS

Por todo o exposto, a Impetrante requer:

1. a concessão de medida liminar, para suspender a exigibilidade do crédito tributário (art. 151, IV, do CTN);

2. ao final, a concessão da segurança, para:

a) declarar a inexistência de relação jurídica que obrigue a Impetrante ao recolhimento da contribuição;

b) reconhecer o direito à compensação dos valores recolhidos nos últimos cinco anos;

3. a notificação da autoridade coatora para prestar informações no prazo legal.

Termos em que pede deferimento.

Curitiba, 15 de maio de 2024.
"""


def test_initial_petition_lettered_items_after_its_heading() -> None:
    assert read_pedidos(INICIAL) == [
        "a concessão da tutela de urgência, para que o Réu exclua o nome da Autora dos cadastros de proteção ao "
        "crédito no prazo de 48 horas, sob pena de multa diária de R$ 500,00",
        "a citação do Réu para, querendo, apresentar contestação, sob pena de revelia",
        "a procedência do pedido, para declarar a inexistência do débito e condenar o Réu ao pagamento de "
        "indenização por danos morais no valor de R$ 20.000,00",
        "a condenação do Réu ao pagamento das custas processuais e dos honorários advocatícios",
    ]  # not the "Requer-se, desde já, atenção" of the facts nor the tutela argued under its own heading


def test_contestacao_roman_items_and_the_protest_for_evidence() -> None:
    assert read_pedidos(CONTESTACAO) == [
        "o acolhimento da preliminar de ilegitimidade passiva, extinguindo-se o feito sem resolução do mérito, nos "
        "termos do art. 485, VI, do CPC",
        "subsidiariamente, a total improcedência dos pedidos",
        "a condenação do Autor ao pagamento das custas e dos honorários advocatícios, nos termos do art. 85 do CPC",
        "Protesta provar o alegado por todos os meios de prova em direito admitidos, especialmente o depoimento "
        "pessoal do Autor e a oitiva de testemunhas",
    ]


def test_appeal_single_request_without_who_asks() -> None:
    assert read_pedidos(APELACAO) == [
        "seja conhecido e provido o presente recurso, para reformar integralmente a r. sentença e julgar procedente "
        "o pedido inicial, invertendo-se os ônus da sucumbência"
    ]


def test_items_run_into_one_paragraph_after_a_formula_without_heading() -> None:
    assert read_pedidos(INLINE) == [
        "a concessão dos benefícios da justiça gratuita",
        "a citação da Ré",
        "a procedência do pedido, para condenar a Ré a instalar o serviço contratado e a pagar R$ 5.000,00 a título "
        "de danos morais",
    ]


def test_numbered_items_keep_their_sub_items() -> None:
    pedidos = read_pedidos(NUMBERED)
    assert len(pedidos) == 3, pedidos
    assert pedidos[0].startswith("a concessão de medida liminar")
    assert pedidos[1].startswith("ao final, a concessão da segurança, para: a) declarar a inexistência")
    assert "b) reconhecer o direito à compensação" in pedidos[1]
    assert pedidos[2] == "a notificação da autoridade coatora para prestar informações no prazo legal"


def test_long_request_cut_at_a_word() -> None:
    long_item = "a condenação do Réu " + "ao pagamento de todas as parcelas vencidas e vincendas " * 12
    text = f"DOS PEDIDOS\n\nAnte o exposto, requer:\n\na) {long_item};\n\nb) a citação do Réu.\n\nTermos em que pede."
    pedidos = read_pedidos(text)
    assert len(pedidos) == 2 and len(pedidos[0]) <= PEDIDO_MAX
    assert pedidos[0].endswith("…") and pedidos[1] == "a citação do Réu"


def test_no_requests_in_a_text_that_asks_nothing() -> None:
    sentence = (
        "SENTENÇA\n\nVistos.\n\nTrata-se de ação de cobrança. O autor pede a condenação do réu.\n\n"
        "Ante o exposto, JULGO PROCEDENTE o pedido.\n\nP.R.I.\n\nSão Paulo, 3 de maio de 2024."
    )
    assert read_pedidos(sentence) == []
    assert read_pedidos("") == []


def _pages(name: str) -> list[Page]:
    with pymupdf.open(SAMPLES / name) as doc:
        return [Page(number=i + 1, text=p.get_text()) for i, p in enumerate(doc)]


def test_real_petition_through_the_annotator() -> None:
    """The Ministério Público's ação civil pública: the liminar request under its own heading, then a) to g) of
    "DOS PEDIDOS PRINCIPAIS" (item d broken by a page), then the protest for evidence; an acórdão has none."""
    raw = _pages("mp_acao_civil_publica_peticao_inicial.pdf")
    meta = annotate(clean_pages(raw), "peticao.pdf", raw_pages=raw)
    assert meta.document_type == "peticao"
    assert len(meta.pedidos) == 9, meta.pedidos
    assert meta.pedidos[0].startswith("LIMINARMENTE E SEM A OITIVA DA PARTE CONTRÁRIA, que seja determinado")
    assert (
        meta.pedidos[1]
        == "que, após apreciado liminarmente e deferido, seja confirmado o pleito formulado em caráter liminar"
    )
    assert "R$ 1.000.000,00 (um milhão de reais)" in meta.pedidos[4]  # d), continued on the next page
    assert meta.pedidos[6] == "a citação do réu para que, querendo, apresente contestação, sob pena de revelia"
    assert meta.pedidos[8].startswith("Protesta, ainda, o Ministério Público, pela produção de todas as provas")
    assert meta.sources["pedidos"] == "rules"
    acordao = _pages("stj_resp_1602076_sp_acordao.pdf")
    assert annotate(clean_pages(acordao), "a.pdf", raw_pages=acordao).pedidos == []
