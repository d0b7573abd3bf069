"""Status statements (precedente.shared.legal.status) on real decisions of ../shared/corpus and ../shared/archive, read
where they lie (never copied here): what each says was cancelled, revised or overruled, and what it only discusses."""

import pymupdf
import pytest

from precedente.shared.legal.status import case_key, find_status_statements, precedent_key
from tests.helpers.samples import SHARED_DATA, corpus_record

FILES = {
    "STF-RE_1116485": "tjrn_stj_stf_execucao_penal.jsonl",
    "STF-RE_638239_RG": "tjrn_stj_stf_execucao_penal.jsonl",
    "STF": "stf_tjms_ementas.jsonl",
    "TJMS": "stf_tjms_ementas.jsonl",
    "STJ-mono": "stj_monocraticas.jsonl",
    "STJ": "tjrn_stj_stf_execucao_penal.jsonl",
    "TJAL": "tjal_ementas.jsonl",
}


def record_text(record_id: str) -> tuple[str, str]:
    """The record's ementa, body and dispositivo, and its court code."""
    prefix = "STJ-mono" if record_id.startswith("STJ-mono") else record_id.split("-")[0]
    record = corpus_record(FILES.get(record_id) or FILES[prefix], record_id)
    parts = (record["ementa"], record["text"], record["meta"].get("dispositivo") or "")
    return "\n\n".join(filter(None, parts)), record["court"].lower()


def said(record_id: str) -> set[tuple[str, str]]:
    text, court = record_text(record_id)
    return {(s.label, s.kind) for s in find_status_statements(text, court)}


@pytest.mark.parametrize(
    ("record_id", "expected"),
    [
        # "Cancelamento da súmula 14." closing the STF's own ementa
        ("STF-RE_77382", {("Súmula 14/STF", "cancelada")}),
        # "... o julgamento do HC 86.834 ..., que implicou o cancelamento da Súmula 690": the STF's own, unnamed court
        ("STF-HC_90905_AgR", {("Súmula 690/STF", "cancelada")}),
        # "a Súmula 469/STJ foi cancelada em abril de 2018"
        ("STJ-mono-REsp_1928750", {("Súmula 469/STJ", "cancelada")}),
        # "O Tema 987 foi cancelado pela Primeira Seção": a Tema takes the masculine participle
        ("STJ-mono-REsp_2215264", {("Repetitivo – Tema 987", "cancelada")}),
        # "da Súmula 276/STJ (atualmente cancelada)", in a sentence opened by "não obstante"
        ("STJ-mono-EDcl_no_REsp_1969734", {("Súmula 276/STJ", "cancelada")}),
        # the ementa heading "REVISÃO DE TESE. TEMA 931." of the repetitivo that revised it
        ("STJ-REsp_2090454_SP", {("Repetitivo – Tema 931", "revista")}),
        ("STJ-REsp_1544036_RJ", {("Repetitivo – Tema 445", "revista")}),
        # "REVISÃO TEMA 677/STJ": a Tema right after the word is the one revised
        ("STJ-mono-REsp_2155189", {("Repetitivo – Tema 677", "revista")}),
        # "o disposto no item 3.2 do Tema 905/STJ, revisado de conformidade com o Tema 810/STF"
        ("STJ-mono-REsp_1971922", {("Repetitivo – Tema 905", "revista")}),
        # a TJ's ementa: "SUPERVENIÊNCIA DO JULGAMENTO DO AR 1937 AgR, PELO STF. SUPERAÇÃO DA SÚMULA 421 DO STJ."
        ("TJAL-0730351-85.2017.8.02.0001", {("Súmula 421/STJ", "superada")}),
    ],
)
def test_a_sentence_that_says_it_is_a_statement(record_id: str, expected: set[tuple[str, str]]) -> None:
    assert said(record_id) == expected


def test_the_stj_s_revision_of_its_expropriation_temas_is_read_item_by_item() -> None:
    """The Pet 12.344's ementa, quoted in an STJ monocrática: "5. Cancelamento da Súmula 408/STJ", "6. Adequação da
    Tese 126/STJ ... para a seguinte redação", "7. Manutenção da Tese 184/STJ" (kept: no statement), "11.
    Cancelamento da Tese 283/STJ"; its heading "PROPOSTA DE REVISÃO DE TESES REPETITIVAS" is a proposal."""
    assert said("STJ-mono-REsp_2096093") == {
        ("Súmula 408/STJ", "cancelada"),
        ("Repetitivo – Tema 126", "revista"),
        ("Repetitivo – Tema 280", "revista"),
        ("Repetitivo – Tema 281", "revista"),
        ("Repetitivo – Tema 282", "revista"),
        ("Repetitivo – Tema 283", "cancelada"),
    }


@pytest.mark.parametrize(
    "record_id",
    [
        # "Superação do enunciado da Súmula nº 691": the STF sets it aside in one flagrant case, it stands
        "STF-HC_153961",
        "STF-HC_142593",
        # "DISCUSSÃO QUANTO À NECESSIDADE DE REVISÃO OU CANCELAMENTO DA SÚMULA VINCULANTE Nº 9", "REVISÃO OU
        # CANCELAMENTO DA SÚMULA VINCULANTE Nº 9. VIA ADEQUADA": a question and the procedure's name
        "STF-RE_1116485",
        # an RG manifestation's heading: "CANCELAMENTO DA SÚMULA VINCULANTE N° 9. REPERCUSSÃO GERAL RECONHECIDA."
        "STF-RE_638239_RG",
        # "PROPOSTA DE REVISÃO DO ENTENDIMENTO FIRMADO NO TEMA REPETITIVO 692/STJ", later "ratificado"
        "STJ-mono-REsp_2230572",
        # "REVISÃO. SÚMULA 7/STJ" and "REVISÃO SÚMULA 7/STJ": the reexamination the súmula bars
        "STJ-mono-AREsp_2066922",
        "STJ-mono-REsp_2232838",
        # "o Supremo Tribunal Federal não promoveu a superação do entendimento firmado na ADI 4.425"
        "STJ-mono-REsp_2088151",
        # "A superação da Súmula n. 83, STJ, exige a indicação de precedentes contemporâneos": a condition
        "STJ-mono-REsp_2224048",
        # "em que pese militarem (...) pela superação (overruling) do entendimento consolidado no Tema 871": an argument
        "STJ-mono-REsp_2229006",
        # "Se a questão da aplicação da Súmula 278 ... já está superada neste processo": the case, not the súmula
        "TJMS-658010",
        # "EXCESSO DE PRAZO SUPERADO. SÚMULA Nº 52 DO STJ.": the participle agrees with another noun
        "TJAL-0806860-26.2018.8.02.0000",
        # "pleito recursal de distinção (distinguishing) ou superação (overruling) de precedentes": nothing named
        "STJ-mono-REsp_2201306",
    ],
)
def test_a_question_a_proposal_a_denial_or_a_case_exception_is_not(record_id: str) -> None:
    assert said(record_id) == set()


def test_the_archive_s_embargos_asking_to_cancel_tema_793_say_nothing_was_cancelled() -> None:
    """The STF's second ED in RE 1.366.243 (../shared/archive/i277.pdf): "Argui que o acórdão recorrido seria obscuro
    ao não determinar o cancelamento do Tema nº 793", "seja cancelado o Tema de repercussão geral nº 793" (a request)
    and "No que diz respeito à suposta obscuridade no cancelamento do tema 793"."""
    path = SHARED_DATA / "archive" / "i277.pdf"
    with pymupdf.open(path) as doc:
        text = "\n".join(page.get_text() for page in doc)
    assert "cancelamento do Tema nº 793" in text
    assert find_status_statements(text, "stf") == []


def test_short_sentences_in_the_courts_style() -> None:
    def kinds(text: str, court: str | None = None) -> list[tuple[str, str]]:
        return [(s.label, s.kind) for s in find_status_statements(text, court)]

    assert kinds("O STJ determinou o cancelamento da Súmula 7/STJ.") == [("Súmula 7/STJ", "cancelada")]
    assert kinds("A Súmula Vinculante 5 foi revogada.") == [("Súmula vinculante 5", "cancelada")]
    assert kinds("Houve a superação (overruling) do REsp 1.234.567/SP.") == [("REsp 1.234.567/SP", "superada")]
    assert kinds("A Corte Especial não promoveu o overruling do REsp 1.234.567/SP.") == []
    assert kinds("Não há superação da Súmula 7/STJ.") == []
    assert kinds("O pedido de revisão de tese do Tema 1.046/STF foi rejeitado.") == []
    assert kinds("Aplica-se o distinguishing em relação ao Tema 1.046/STF, cuja superação não ocorreu.") == []
    assert kinds("A Súmula 7 foi cancelada.") == []  # which court's? unknown: nothing claimed
    assert kinds("A Súmula 7 foi cancelada.", "stj") == [("Súmula 7/STJ", "cancelada")]


def test_a_statement_keeps_its_target_key_and_sentence() -> None:
    (statement,) = find_status_statements("Relatório. Ademais, a Súmula 469/STJ foi cancelada em abril de 2018. Fim.")
    assert statement.as_dict() == {
        "kind": "cancelada",
        "target": "sumula:STJ:469",
        "label": "Súmula 469/STJ",
        "sentence": "Ademais, a Súmula 469/STJ foi cancelada em abril de 2018.",
    }
    assert statement.target == precedent_key("sumula", "STJ", "469")
    assert precedent_key("repetitivo", "STJ", "1046") == "repetitivo:STJ:1046"
    assert precedent_key("repetitivo", None, "1046") is None
    assert case_key("REsp 1.328.993/CE") == "case:REsp 1.328.993"
