"""The redator do acórdão (precedente.shared.legal.judges.redator) on real decisions of ../shared/archive and
../shared/corpus: read from the decision's own caption, signature or prose caption, never from a cited case's "Rel. p/
acórdão Min. X".

Measured on ../shared/corpus (every record's ementa and text, read as one acórdão page): 355 of its 10,626 decisions
carry a redator label; 348 name the redator of a case they cite, 5 say "nos termos do voto do Redator para o Acórdão"
without a name, and 2 (TJRN) name their own. The rule reads those 2 and nothing from the other 353.
"""

import json
import re

import pymupdf
import pytest

from precedente.services.annotator.logic import annotate
from precedente.services.cleaner.logic import clean_pages
from precedente.shared.legal import judges
from precedente.shared.legal.document_text import DocumentText
from precedente.shared.payloads import Page
from tests.helpers.samples import CORPUS, SHARED_DATA, corpus_record

ARCHIVE = SHARED_DATA / "archive"
LABEL = re.compile(
    r"(?i)redator[a(]*\)?\s*(?:d[oa]\s+)?(?:p/|para)?\s*(?:o\s+)?ac[oó]rd[aã]o"
    r"|rel(?:ator)?[a(]*\)?\.?\s*(?:p/|para)\s*(?:o\s+)?ac[oó]rd[aã]o|red\.\s*p/\s*(?:o\s+)?ac[oó]rd[aã]o"
)
"""Any redator label, the decision's own or a cited case's: how the corpus's 355 were counted."""
OWN = {
    "TJRN-0817648-54.2025.8.20.0000": "Glauber Rêgo",  # "Relator: Desembargador X. Redator para o acórdão: ..."
    "TJRN-0856668-84.2025.8.20.5001": "Reynaldo Odilo Martins Soares",  # "Vencido o Juiz Relator. Redator ... o Juiz"
}


def record_doc(record: dict) -> DocumentText:
    return DocumentText([Page(number=1, text="\n".join(x for x in (record["ementa"], record["text"]) if x))])


def archived(name: str) -> DocumentText:
    with pymupdf.open(ARCHIVE / name) as pdf:
        raw = [Page(number=i + 1, text=p.get_text()) for i, p in enumerate(pdf)]
    return DocumentText(clean_pages(raw))


@pytest.mark.parametrize(
    ("name", "relator", "redator"),
    [("i279.pdf", "Marco Aurélio", "Roberto Barroso"), ("i278.pdf", "Luiz Fux", "Edson Fachin")],
)
def test_stf_caption_names_the_redator_beside_the_relator(name: str, relator: str, redator: str) -> None:
    """The STF's two-column caption breaks the label ("REDATOR DO" / "ACÓRDÃO" / ": MIN. ROBERTO BARROSO")."""
    with pymupdf.open(ARCHIVE / name) as pdf:
        raw = [Page(number=i + 1, text=p.get_text()) for i, p in enumerate(pdf)]
    metadata = annotate(clean_pages(raw), name, raw_pages=raw)
    assert (metadata.relator, metadata.redator) == (relator, redator)
    assert metadata.sources["redator"] == "rules"


def test_signature_above_the_label_is_read_when_the_caption_is_gone() -> None:
    """i279's acórdão is signed "MINISTRO LUÍS ROBERTO BARROSO" / "REDATOR P/O ACÓRDÃO" on its page 5."""
    doc = archived("i279.pdf")
    pages = [re.sub(r"(?im)^\s*REDATOR DO\s*$", "", text) for text in doc.page_texts]  # the caption's label cut
    assert judges.redator(DocumentText([Page(number=i + 1, text=t) for i, t in enumerate(pages)]), "acordao") == (
        "Luís Roberto Barroso"
    )


def test_cited_cases_redators_are_not_the_documents() -> None:
    """A monograph and an STJ bulletin cite "Rel. p/ Acórdão Ministro X" cases; a decision that cites one has none."""
    assert judges.redator(archived("i1062.pdf"), "acordao") is None  # "rel. p/ acórdão: Min. Marco Aurélio, j. ..."
    assert judges.redator(archived("i259.pdf"), "acordao") is None  # "Rel. p/ Acórdão Ministro RAUL ARAÚJO, ..."
    for record_id, file in [
        ("STJ-mono-REsp_2235144", "stj_monocraticas.jsonl"),  # "Rel. Min. Felix Fischer, Rel. p/ acórdão Min. ..."
        ("STJ-mono-REsp_2216296", "stj_monocraticas.jsonl"),  # "ficando como relator para o acórdão o Ministro ..."
        ("STF-ADI_5833", "stf_tjms_ementas.jsonl"),  # "(Rel. Min. ALEXANDRE DE MORAES, Red. p/ acórdão: Min. ...)"
        ("TJRN-0817661-53.2025.8.20.0000", "tjrn_stj_stf_execucao_penal.jsonl"),  # own, unnamed: nothing to read
    ]:
        assert judges.redator(record_doc(corpus_record(file, record_id)), "acordao") is None, record_id


def test_not_a_decision_has_no_redator() -> None:
    record = corpus_record("tjrn_stj_stf_execucao_penal.jsonl", "TJRN-0817648-54.2025.8.20.0000")
    assert judges.redator(record_doc(record), "peticao") is None


def test_corpus_reads_its_own_redators_and_no_cited_one() -> None:
    """Every corpus decision: the two that name their own redator are read right, none other gets one."""
    labelled, read = 0, {}
    for path in sorted(CORPUS.glob("*.jsonl")):
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                doc = record_doc(record)
                labelled += bool(LABEL.search(doc.full))
                if name := judges.redator(doc, "acordao"):
                    read[record["id"]] = name
    print(f"\ncorpus: {labelled} decisions carry a redator label; read {len(read)}: {read}")
    assert labelled == 355
    assert read == OWN


def test_relatora_do_acordao_is_the_redator_never_the_relator() -> None:
    """ "RELATORA DO ACÓRDÃO" names who wrote the winning vote, as "REDATOR DO ACÓRDÃO" does: it fills the redator and
    never the relator. No decision of ../shared/archive or ../shared/corpus heads its caption so (none of their 10,728
    decisions' head lines has the label; the corpus has it only in running text, below): the caption here is i279's
    real page 1 with its label written that way, in the STF's two-column break and on one line without the relator."""
    page = archived("i279.pdf").page_texts[0]
    assert "REDATOR DO\nACÓRDÃO\n: MIN. ROBERTO BARROSO" in page
    split = DocumentText([Page(number=1, text=page.replace("REDATOR DO\nACÓRDÃO", "RELATOR DO\nACÓRDÃO"))])
    assert (judges.relator(split, "acordao"), judges.redator(split, "acordao")) == ("Marco Aurélio", "Roberto Barroso")
    alone = page.replace("RELATOR\n: MIN. MARCO AURÉLIO\n", "").replace(
        "REDATOR DO\nACÓRDÃO\n: MIN. ROBERTO BARROSO", "RELATORA DO ACÓRDÃO : MIN. ROBERTO BARROSO"
    )
    one_line = DocumentText([Page(number=1, text=alone)])
    assert judges.redator(one_line, "acordao") == "Roberto Barroso"
    assert judges.relator(one_line, "acordao") != "Roberto Barroso"


def test_a_cited_case_s_relatora_do_acordao_is_neither() -> None:
    """STJ-mono-HC_1055003 cites "(... Relatora do Acórdão, Ministra CARMEM LÚCIA, julgado 18-07-2025)": another
    case's writer, in running text, is neither this decision's relator nor its redator."""
    doc = record_doc(corpus_record("stj_monocraticas.jsonl", "STJ-mono-HC_1055003"))
    assert "Relatora do Acórdão, Ministra CARMEM LÚCIA" in doc.full
    assert judges.redator(doc, "decisao_monocratica") is None
    assert "Carmem" not in (judges.relator(doc, "decisao_monocratica") or "")
