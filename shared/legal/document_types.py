"""Which kind of document a text is (the document-type codes of shared.legal.codes), by the fixed formulas
Brazilian legal documents announce themselves with: the "ACÓRDÃO" heading, "Vistos, relatados e discutidos",
"EXCELENTÍSSIMO SENHOR JUIZ", mail headers, "PARECER Nº", "LEI Nº 8.078".

Matching is on the accent-folded opening of the document (shared.legal.document_text), most specific rule
first; "outro" when none fires.
"""

import re

from shared.legal.document_text import DocumentText
from shared.payloads import Page

__all__ = ["OPENING_LINES", "guess_document_type", "guess_type"]

_EMAIL_FROM = re.compile(r"^(?:De|From|Remetente)\s*:", re.I)
_EMAIL_OTHER = re.compile(r"^(?:Para|To|Assunto|Subject|Cc|Enviad[oa](?: em)?|Sent|Data|Date)\s*:", re.I)
_ADDRESSING = re.compile(r"^(?:EXCELENTISSIM[OA]|EXM[OA]\b|EGREGI[OA]|ILUSTRISSIM[OA]|ILM[OA]\b)", re.I)
_FILING = re.compile(r"\b(?:propor|ajuizar|promover|impetrar|oferecer|acao|requer(?:er)?)\b", re.I)
# "Vistos e examinados" also opens sentenças; the "acordam os/em" formula is the collegiate one.
_ACORDAO = re.compile(r"vistos,?\s+relatados\s+e\s+discutidos|\bacordam\b,?\s+(?:os|as|em|a|o)\b", re.I)
_JULGO = re.compile(r"\bJULGO\b|\bjulgo\s+(?:procedente|improcedente|extint)", re.I)
_DECIDO = re.compile(r"\bdecido\b|\bmonocr[aá]tica", re.I)
_PARECER = re.compile(r"^PARECER\b", re.I)
_CONTRATO = re.compile(r"^(?:CONTRATO|Contrato)\b")
_CLAUSULA = re.compile(r"\bcl[aá]usula\b", re.I)
_SUMULA = re.compile(r"^SUMULA(?:\s+VINCULANTE)?\s+(?:N[º°o.]*\s*)?\d+", re.I)
_NORMATIVE = re.compile(
    r"^(?:LEI(?:\s+COMPLEMENTAR)?|DECRETO(?:-LEI)?|RESOLUCAO|INSTRUCAO\s+NORMATIVA|MEDIDA\s+PROVISORIA|"
    r"EMENDA\s+CONSTITUCIONAL|PROVIMENTO|PORTARIA\s+NORMATIVA|DELIBERACAO|REGIMENTO\s+INTERNO)"
    r"(?:\s+N[º°o.]*\s*|\s+)\d",
    re.I,
)
_ADMINISTRATIVE = re.compile(
    r"^(?:PORTARIA|OFICIO|EDITAL|ATA|MEMORANDO|CIRCULAR|ORDEM\s+DE\s+SERVICO|AVISO|NOTA\s+TECNICA|"
    r"COMUNICADO|DESPACHO\s+ADMINISTRATIVO)\b(?:\s+N[º°o.]*\s*\d|\s*$|\s+\d|\s+DE\b)",
    re.I,
)

OPENING_LINES: dict[str, re.Pattern[str]] = {
    "parecer": _PARECER,
    "contrato": _CONTRATO,
    "sumula": _SUMULA,
    "ato_normativo": _NORMATIVE,
    "ato_administrativo": _ADMINISTRATIVE,
}
"""The folded line a document of these types opens with ("PARECER Nº 16/2022", "LEI Nº 8.078, ..."):
the type is read from it, and so is the title (shared.legal.titles)."""


def guess_type(doc: DocumentText) -> str:
    """The first rule that fires, most specific first; "outro" when none does.

    A petition or an e-mail often quotes judgments, so their own markers (addressing a judge at
    the top, mail headers) are checked before the judgment formulas.
    """
    opening = doc.opening_lines(15)
    headings = set(doc.heading_lines())
    text = doc.fhead
    if any(_EMAIL_FROM.match(line) for line in opening) and any(_EMAIL_OTHER.match(line) for line in opening):
        return "email"
    if any(_ADDRESSING.match(line) for line in opening[:12]) and _FILING.search(text):
        return "peticao"
    if "ACORDAO" in headings or _ACORDAO.search(text):
        return "acordao"
    if "SENTENCA" in headings or (re.search(r"\bVistos\.", text) and _JULGO.search(text)):
        return "sentenca"
    if "DECISAOMONOCRATICA" in headings or ("DECISAO" in headings and _DECIDO.search(text)):
        return "decisao_monocratica"
    if any(_PARECER.match(line) for line in opening):
        return "parecer"
    if "DESPACHO" in headings:
        return "despacho"
    if any(_CONTRATO.match(line) for line in opening) and _CLAUSULA.search(text):
        return "contrato"
    first = opening[:5]
    if any(_SUMULA.match(line) for line in first):
        return "sumula"
    if any(_NORMATIVE.match(line) for line in first):
        return "ato_normativo"
    if any(_ADMINISTRATIVE.match(line) for line in first):
        return "ato_administrativo"
    return "outro"


def guess_document_type(pages: list[Page]) -> str:
    """The document-type code of the pages (what the chunker uses before the annotator runs)."""
    return guess_type(DocumentText(pages))
