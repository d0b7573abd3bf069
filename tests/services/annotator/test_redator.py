"""The redator do acórdão (shared.legal.judges.redator) on real decisions of ../shared/archive and
../shared/corpus: read from the decision's own caption, signature or prose caption, never from a cited case's
"Rel. p/ acórdão Min. X".

Measured on ../shared/corpus (every record's ementa and text, read as one acórdão page): 355 of its 10,626 decisions
carry a redator label; 348 name the redator of a case they cite, 5 say "nos termos do voto do Redator para o Acórdão"
without a name, and 2 (TJRN) name their own. The rule reads those 2 and nothing from the other 353.
"""

import json
import re

import pymupdf
import pytest

from services.annotator.logic import annotate
from services.cleaner.logic import clean_pages
from shared.legal import judges
from shared.legal.document_text import DocumentText
from shared.payloads import Page
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
