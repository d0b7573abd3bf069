"""Qualified precedents (CPC art. 927): which binding precedent a decision *is* or *applies*.

A lawyer weighs a thesis fixed under repercussão geral (STF) or in a recurso repetitivo (STJ, TST), a súmula
vinculante, an IRDR or an IAC above an isolated acórdão; a súmula and the STJ's "Jurisprudência em Teses"
guide. This module reads, from a decision's text alone, two things:

- role "is": the decision itself fixes (or admits for fixing) the precedent. Courts announce it in the
  ementa's heading: "RECURSO ESPECIAL REPRESENTATIVO DA CONTROVÉRSIA", "SUBMETIDO AO RITO DOS RECURSOS
  REPETITIVOS", "RECURSO EXTRAORDINÁRIO COM REPERCUSSÃO GERAL", "TEMA 1.046", or in the body "Fixada, para
  fins de repercussão geral, a seguinte tese". An agravo, embargos or a lower court's appeal is never one, but
  embargos whose acórdão records that the Plenário fixed the thesis in them ("o Tribunal fixou a seguinte tese de
  repercussão geral (Tema 793)"). The STF's inteiro teor heads its pages "Ementa e Acórdão" and may list pages of
  parties before the ementa, which is then looked for further on.
- role "applies": the decision cites it as the ground of decision: "nos termos do Tema 1.046/STF",
  "conforme a Súmula Vinculante 25", "incide a Súmula 7/STJ", a "(Tema 988/STJ)" closing a statement of law.
  A mention in a party's argument ("sustenta violação ao Tema 810"), a distinction ("inaplicabilidade do
  Tema 1.209"), a stay ("sobrestamento até o julgamento do Tema") or a revision ("cancelamento da Súmula")
  is not application and is left out.

Numbers are kept as digits ("1046"); `label` writes them the way lawyers do ("Repetitivo – Tema 1.046"). Súmula
numbering reuses precedente.shared.legal.citations.find_sumulas, so a súmula here has the same canonical reading as in
the document's citations.

Measured by bench/precedents_corpus.py on ../shared/corpus (10,626 decisions, split in halves by a hash of the
id; tuned on one, read on the other): role "is" on the held-out half, precision 1.00 (35/35), recall 0.74
(35/47: the misses are STF ementas that never name the procedure in their heading); a hand-read sample of 30
"applies" detections on that half had 25 right (3 wrong roles: a distinction, a party's argument, the
relatório; 2 wrong courts for "Temas 810 e 905"), after which lists read from context alone and arguments
written after the mention were left out. On ../shared/archive (bench/precedents_archive.py, 22 decisions) both
leading cases it holds are read with their Tema: RE 657.718 (Tema 500) and RE 855.178 ED (Tema 793).
"""

import re
from dataclasses import dataclass, field

from precedente.shared.legal.citations import find_precedents, find_sumulas
from precedente.shared.legal.document_types import COLLEGIATE_SESSION
from precedente.shared.legal.text import fold

__all__ = ["KIND_LABELS", "QualifiedPrecedent", "find_qualified_precedents", "label"]

KIND_LABELS = {
    "repercussao_geral": "Repercussão geral",
    "repetitivo": "Repetitivo",
    "sumula_vinculante": "Súmula vinculante",
    "sumula": "Súmula",
    "irdr": "IRDR",
    "iac": "IAC",
    "jurisprudencia_em_teses": "Jurisprudência em Teses",
}


@dataclass(frozen=True)
class QualifiedPrecedent:
    kind: str
    """One of KIND_LABELS."""
    court: str | None
    """"STF", "STJ", "TST", "TJPR", "TRF4"; None when the text does not say (an IRDR of an unnamed court)."""
    number: str | None
    """Tema, súmula, IRDR/IAC or edição number as digits ("1046"); None when only the procedure is named."""
    role: str
    """"is" or "applies"."""
    item: str | None = None
    """The tese's number inside a Jurisprudência em Teses edição."""
    at: int = field(default=-1, compare=False)
    """Offset in the text of the mention that gave the role (-1 for "is" read from the heading)."""

    def as_dict(self) -> dict[str, str | None]:
        """The stored form: kind, court, number, role (and item when there is one)."""
        out = {"kind": self.kind, "court": self.court, "number": self.number, "role": self.role}
        return out | ({"item": self.item} if self.item else {})


def _dots(number: str) -> str:
    return f"{int(number):,}".replace(",", ".") if number.isdigit() else number


def label(p: QualifiedPrecedent) -> str:
    """The badge: "Repetitivo – Tema 1.046", "Súmula vinculante 25", "Súmula 7/STJ", "IRDR – Tema 25 (TJPR)"."""
    if p.kind == "sumula_vinculante":
        return f"Súmula vinculante {p.number}" if p.number else "Súmula vinculante"
    if p.kind == "sumula":
        return f"Súmula {p.number}/{p.court}" if p.court else f"Súmula {p.number}"
    if p.kind == "jurisprudencia_em_teses":
        text = "Jurisprudência em Teses" + (f" – Edição {p.number}" if p.number else "")
        return text + (f", tese {p.item}" if p.item else "")
    head = KIND_LABELS[p.kind]
    if p.kind == "repetitivo" and p.court not in (None, "STJ"):
        head += f" {p.court}"
    text = f"{head} – Tema {_dots(p.number)}" if p.number else head
    if p.kind in ("irdr", "iac") and p.court and p.court != "STJ":
        text += f" ({p.court})"
    elif p.kind == "iac" and p.court == "STJ":
        text += " (STJ)"
    return text


# ------------------------------------------------------------------------------------------ context

_NUM = r"\d{1,3}(?:\.\d{3})+|\d{1,4}"
_SUFFIX = r"(?:\s*[/-]\s*(?:STF|STJ|RG|TST|TNU)\b)"
_TEMA = re.compile(
    r"\bTemas?\b"
    r"(?:\s+(?P<pre>(?:de\s+)?(?:Repercussao\s+Geral|RG)|(?:Recursos?\s+)?Repetitivos?|IRDR(?:-[A-Z0-9]+)?|IAC))?"
    r"\s*(?:n[º°o.]*\s*)?\.?\s*"
    rf"(?P<items>(?:{_NUM}){_SUFFIX}?(?:\s*(?:,|;|\be\b)\s*(?:{_NUM}){_SUFFIX}?)*)(?![\d/]|\.\d)"
    r"(?P<tail>\s*(?:[-/,]\s*)?(?:d[oae]s?\s+|n[oa]s?\s+|em\s+|sob\s+o\s+)?(?:(?:colend[oa]|egregi[oa]|E\.|C\.)\s+)?"
    r"(?:(?:sistematica|regime|rito)\s+d[ae]s?\s+)?"
    r"(?P<court>STF|STJ|TST|TNU|Supremo(?:\s+Tribunal\s+Federal)?|Superior\s+Tribunal\s+de\s+Justica|"
    r"Repercussao\s+Geral|RG|recursos?\s+(?:especia(?:l|is)\s+)?repetitivos?|IRDR|IAC|TJ[A-Z]{2}|TRF\s*\d)\b)?",
    re.I,
)
_INCIDENT = re.compile(
    r"\b(?:(?P<irdr>IRDR|Incidente\s+de\s+Resolucao\s+de\s+Demandas\s+Repetitivas)|"
    r"(?P<iac>IAC|Incidente\s+de\s+Assuncao\s+de\s+Competencia))\b"
    r"(?:\s*\((?:IRDR|IAC)\))?(?:\s*(?:n[º°o.]*\s*)?\.?\s*(?P<num>\d{1,3})(?![\d./-]))?",
    re.I,
)
_TESES = re.compile(
    r"Jurisprudencia\s+em\s+Teses[^.;]{0,60}?(?:Edicao|n[º°o.]*)\s*(?:n[º°o.]*\s*)?(?P<ed>\d{1,3})\b"
    r"|Edicao\s+(?:n[º°o.]*\s*)?(?P<ed2>\d{1,3})\s+(?:d[ae]\s+)?(?:ferramenta\s+)?Jurisprudencia\s+em\s+Teses",
    re.I,
)
_TESE_ITEM = re.compile(r"\b(?:tese|item|enunciado)\s+(?:n[º°o.]*\s*)?(?P<n>\d{1,2})\b", re.I)

_RG_CUE = re.compile(r"repercussao\s+geral|\bSTF\b|\bSupremo\b|Excelso|\bRG\b|\bAR?E\s+(?:n\W{0,3})?\d", re.I)
_REP_CUE = re.compile(
    r"repetitiv(?!as)|representativ\w*\s+d[ae]\s+controver|\bSTJ\b|Superior\s+Tribunal\s+de\s+Justica|543-C|"
    r"\bREsp\b|Recursos?\s+Especia(?:l|is)",
    re.I,
)
_IRDR_CUE = re.compile(r"\bIRDR\b|demandas\s+repetitivas", re.I)
_IAC_CUE = re.compile(r"\bIAC\b|assuncao\s+de\s+competencia", re.I)
_TNU_CUE = re.compile(r"\bTNU\b|Turma\s+Nacional|PEDILEF|uniformizacao", re.I)
_CONTEXT_BEFORE = 160
_CONTEXT_AFTER = 60

_APPLY = re.compile(
    r"nos\s+termos\s+d|conforme|consoante|em\s+conformidade\s+com|de\s+acordo\s+com|na\s+forma\s+d|a\s+luz\s+d|"
    r"aplic|incid|observa|consonancia|harmonia|sintonia|alinhad|segundo\s+[oa]\b|firmad|fixad|assentad|"
    r"estabelecid|definid|consolidad|pacificad|\btese|entendimento|orientacao|jurisprudencia|obice|vinculante|"
    r"adequa|retratacao|julgamento\s+d|ao\s+julgar|decidid|precedente|em\s+sede\s+de|sob\s+o\s+rito|"
    r"inteligencia|enunciado|teor\s+d|forte\s+n|com\s+base\s+n|com\s+fundamento|amparo|a\s+teor",
    re.I,
)
_NOT_APPLIED = re.compile(
    r"inaplic|nao\s+(?:se\s+)?aplica|afast|distinguish|distincao|distingu|alega|sustenta|aduz|argument|pugn|"
    r"requer|pleite|defende|afirma|assevera|aponta|\bargui|violac|violad|\bviola\b|contrari|ofensa|afronta|"
    r"sobrest|suspen|aguard|afeta|pendente|insurg|inexist|superad|superacao|cancela|revis|equivocad|diverg|"
    r"destoa|nao\s+(?:ha|houve|cabe|incide)|\bembargante|\bagravante|\brecorrente|impetrante|a\s+parte\s|"
    r"modula|proposta\s+de",
    re.I,
)
_ARGUED_AFTER = re.compile(r"\b(?:sustenta|alega|aduz|argumenta|defende|afirma|pugna|requer)m?\b", re.I)
_SENTENCE_END = re.compile(r"(?:[.;:!?]\s+(?=[A-Z0-9\"“(])|\n\s*\n)")


def _window_before(ftext: str, pos: int) -> str:
    """The text before `pos` back to the start of its sentence, at most _CONTEXT_BEFORE characters."""
    window = ftext[max(0, pos - _CONTEXT_BEFORE) : pos]
    ends = list(_SENTENCE_END.finditer(window))
    return window[ends[-1].end() :] if ends else window


def _role(ftext: str, start: int, end: int, heading: tuple[int, int]) -> str | None:
    """ "applies", or None for a mere mention (argument, distinction, stay, revision)."""
    before = _window_before(ftext, start)
    after = ftext[end : end + _CONTEXT_AFTER]
    after_sentence = _SENTENCE_END.split(after, maxsplit=1)[0]
    if (
        _NOT_APPLIED.search(before)
        or _ARGUED_AFTER.search(after_sentence)
        or re.match(r"\W{0,3}(?:nao\s+se\s+aplica|e\s+inaplicavel|distincao|inaplicabilidade|superacao)", after, re.I)
    ):
        return None
    if _APPLY.search(before):
        return "applies"
    if heading[0] <= start < heading[1]:
        return "applies"  # a heading item of the ementa ("TEMA 810 DO STF. ...") names what decides the case
    if re.search(r"[(\[]\s*$", before) and not re.search(r"\bcf\.?\s*$|\bv\.\s*$", before, re.I):
        return "applies"  # "(Tema 988/STJ)" closing a statement of law
    if re.search(r"\bincide\b|\baplica(?:-se|m-se)?\b", after_sentence[:30], re.I):
        return "applies"  # "a Súmula 7/STJ incide", "o Tema 1.046 aplica-se"
    return None


# ------------------------------------------------------------------------------------------ "is"

_HEADING_CHARS = 700
_EMENTA = re.compile(r"\bEMENTA\b(?!\s+e\s+Acordao)\s*:?", re.I)
_STF_RUNNING_HEAD = re.compile(r"^\W*Ementa\s+e\s+Acordao\b", re.I)
"""The STF's inteiro teor opens with its part's name, "Ementa e Acórdão" (the page's hidden label, which the extractor
writes where a part begins), or, read without it, on its session ("22/05/2019" / "PLENÁRIO", COLLEGIATE_SESSION), and
lists the parties (pages of them where the States intervene, as in RE 657.718, ../shared/archive/i279.pdf) before its
"Ementa:": the ementa is looked for further on."""
_STF_EMENTA_WITHIN = 15000
_NOT_A_LEADING_CASE = re.compile(
    r"^\W*(?:agravo|ag\s*r|agint|agrg|embargos|edcl|apelacao|habeas|conflito|reclamacao|"
    r"recurso\s+(?:inominado|em\s+sentido|ordinario|em\s+habeas|de\s+apelacao)|pedido\s+de\s+uniformizacao|"
    r"incidente\s+de\s+uniformizacao|decisao\b)",
    re.I,
)
_APPEAL_ITEM = re.compile(r"^\W*(?:agravo|agint|agrg|embargos|edcl)\b", re.I)
_MONOCRATIC = re.compile(r"\bDECISAO\s*:?\s*(?:Trata-se|Cuida-se|Vistos|Examina-se|Versa)", re.I)
_CAPTION_CLASS = re.compile(
    r"^\W*(?:AgInt|AgRg|EDcl|PET|Pet)\b|^\W*(?:AGRAVO|EMBARGOS|RECLAMACAO|PETICAO|HABEAS|CONFLITO)\b", re.I
)
_NOT_OWN = re.compile(
    r"(?:adequa\w*|afetad[oa]s?|conformidade|aplica\w*|luz|sobrest\w*|suspens\w*|aguard\w*|observancia|nos\s+termos)"
    r"(?:\s+\w+){0,4}\W*$",
    re.I,
)
_RG_IS = re.compile(
    r"recurso\s+extraordinario(?:\s+com\s+agravo)?\s+(?:com|em|de|sob\s+a\s+sistematica\s+da)\s+repercussao\s+geral|"
    r"manifestacao\s+(?:sobre|pela)\s+(?:a\s+)?(?:existencia\s+de\s+)?repercussao\s+geral|"
    r"reafirmacao\s+d[ae]\s+(?:sua\s+)?jurisprudencia|recurso\s+extraordinario\s+representativo|"
    r"tema\s+de\s+repercussao\s+geral|(?:possui|tem)\s+repercussao\s+geral\s+a|"
    r"repercussao\s+geral\s+(?:da\s+(?:materia|questao)\s+)?(?:reconhecida|admitida|configurada)\W*$",
    re.I,
)
_RG_IS_OPENING = re.compile(
    r"^\W*(?:repercussao\s+geral(?:\s+reconhecida|\s+n[oa]\s+recurso.*)?|tema\s+(?:n\W*)?\d[\d.]*)\W*$", re.I
)
_RG_ADMITTED = re.compile(r"^\W*(?:possui|tem)\s+repercussao\s+geral\s+a\s+controversia", re.I | re.M)
"""The STF's manifestations open their first paragraph so: "Possui repercussão geral a controvérsia ..."."""
_RG_IS_CLOSING = re.compile(
    r"^\W*(?:(?:existencia|ausencia|inexistencia)\s+de\s+)?repercussao\s+geral(?:\s+(?:da\s+(?:materia|questao)\s+)?"
    r"(?:constitucional\s+)?(?:reconhecida|admitida|configurada))?\W*$",
    re.I,
)
"""A heading item that announces the kind only when it opens the ementa ("Recurso extraordinário. Repercussão
geral. Tributário.") or closes a short one: in the middle of an agravo's heading it names what the appeal applies."""
_REP_IS = re.compile(
    r"representativ\w*\s+d[ae]\s+controver\w*|"
    r"(?:rito|regime|sistematica|procedimento|processamento|julgamento|afetacao)\s+(?:sob\s+o\s+rito\s+)?"
    r"(?:d[oa]s?\s+)?(?:recursos?\s+(?:especia(?:l|is)\s+)?repetitivos?|art(?:igo)?\.?\s*543-C|arts?\.?\s*1\.036)|"
    r"recurso\s+especial\s+repetitivo|proposta\s+de\s+afetacao|tese\s+repetitiva|art(?:igo)?\.?\s*543-C",
    re.I,
)
_FIRST_ITEMS = r"^\W*(?:[^.:;]{0,40}[.:\-–]\s*)?"
_IRDR_IS = re.compile(_FIRST_ITEMS + r"(?:incidente\s+de\s+resolucao\s+de\s+demandas\s+repetitivas|IRDR)\b", re.I)
_IAC_IS = re.compile(_FIRST_ITEMS + r"(?:incidente\s+de\s+assuncao\s+de\s+competencia|IAC)\b", re.I)
_TESE_FIXED_RG = re.compile(
    r"(?:fixad[ao]|fixa-se|firmad[ao]|assentad[ao]|proposta\s+de|propoe-se)\s*,?\s*(?:para\s+(?:fins|efeitos)\s+de\s+"
    r"repercussao\s+geral\s*,?\s*)?a\s+seguinte\s+tese(?:\s+(?:de\s+repercussao\s+geral|ao\s+tema|para\s+o\s+tema))?|"
    r"(?:proposta\s+de\s+)?tese\s+de\s+repercussao\s+geral\s*:",
    re.I,
)
_TESE_FIXED_BEFORE = re.compile(
    r"(?:(?:fixou|firmou|fixando|firmando)\s+a\s+seguinte\s+tese(?:\s+de\s+repercussao\s+geral)?\s*\(?"
    r"|(?:apreciando|julgando)\s+o)\s*$",
    re.I,
)
"""The acórdão's own record of the thesis, the Tema named after it: "o Tribunal, por maioria, fixou a seguinte tese
de repercussão geral (Tema 793)" (the STF's ED no RE 855.178, ../shared/archive/i278.pdf), "apreciando o Tema 500 da
repercussão geral, dar parcial provimento" (RE 657.718, i279.pdf)."""
_THESIS_FIXED_HERE = re.compile(
    r"\b(?:o\s+Tribunal|o\s+Plenario|acordam)\b[^.;]{0,120}?\b(?:fixou|fixar|firmou|firmar)\s+a\s+seguinte\s+tese\s+"
    r"de\s+repercussao\s+geral",
    re.I,
)
"""The acórdão after the ementa records that the Plenário fixed the thesis in this very judgment: embargos de
declaração can be where it is fixed (the STF's ED no RE 855.178, Tema 793), so they are then the leading case."""
_ACORDAO_CHARS = 5000
_UPPER_COURTS = {"stf": "STF", "stj": "STJ", "tst": "TST", "tnu": "TNU"}


def _heading(ftext: str, court: str | None) -> tuple[int, int]:
    """Span of the ementa's opening (after "EMENTA" when it is in the first pages), where courts name the kind.

    Without an "EMENTA" marker the text's opening counts as a heading only when it reads like one: written in
    capitals (the higher courts' ementas are) or from a court whose records open with their ementa (STF, STJ)."""
    stf = _STF_RUNNING_HEAD.match(ftext) or COLLEGIATE_SESSION.match(ftext)
    match = _EMENTA.search(ftext, 0, _STF_EMENTA_WITHIN if stf else 1500)
    start = match.end() if match else 0
    if not match and court not in ("stf", "stj", "tst"):
        letters = [c for c in ftext[:200] if c.isalpha()]
        if not letters or sum(c.isupper() for c in letters) < 0.6 * len(letters):
            return 0, 0
    while start < len(ftext) and ftext[start] in " \n\t:-–":
        start += 1
    return start, min(len(ftext), start + _HEADING_CHARS)


def _own_kind(ftext: str, heading: tuple[int, int], court: str | None) -> tuple[str, str | None] | None:
    """(kind, court) when the decision itself is a qualified precedent."""
    head = ftext[heading[0] : heading[1]]
    items = re.split(r"[.:;–]\s+|\s-\s", head)[:4]
    if _NOT_A_LEADING_CASE.match(items[0]) or any(_APPEAL_ITEM.match(item) for item in items[1:]):
        if court in (None, "stf") and _THESIS_FIXED_HERE.search(ftext, heading[0], heading[0] + _ACORDAO_CHARS):
            return "repercussao_geral", "STF"
        return None
    if _MONOCRATIC.search(ftext, 0, heading[1] + 1500) or _CAPTION_CLASS.match(ftext[: heading[0]]):
        return None  # a monocratic decision or an appeal against one: it may apply a precedent, never fix it
    if court not in (None, "stf", "stj", "tst") and _IRDR_IS.match(head):
        return "irdr", court.upper()
    if court not in ("stf",) and _IAC_IS.match(head):
        return "iac", court.upper() if court else None

    def cue(pattern: re.Pattern[str]) -> bool:
        return any(not _NOT_OWN.search(head[: m.start()][-60:]) for m in pattern.finditer(head))

    extraordinary = re.search(r"(?i:recurso\s+extraordinario)|\bR\.?E\.?\s+(?:n\W{0,3})?\d", head)
    numbered = re.search(r"\s(?:1|I)\s*[.)-]\s", head)
    head_items = re.split(r"[.:;–]\s+|\s-\s", head[: numbered.start()] if numbered else head)
    closing = head_items[-1:] if numbered or len(head) < _HEADING_CHARS else []
    rg_item = any(_RG_IS_OPENING.match(item) for item in head_items[:3]) or any(
        _RG_IS_CLOSING.match(item) for item in closing
    )
    if court in (None, "stf") and (
        cue(_RG_IS)
        or rg_item
        or _RG_ADMITTED.search(ftext, heading[1], heading[1] + 1500)
        or (court == "stf" and _TESE_FIXED_RG.search(ftext[:20000]))
    ):
        return "repercussao_geral", "STF"
    if court in (None, "stf") and extraordinary and cue(_REP_IS):
        return "repercussao_geral", "STF"
    if court in (None, "stj", "tst") and cue(_REP_IS) and not extraordinary:
        return "repetitivo", _UPPER_COURTS.get(court or "stj", "STJ")
    return None


# ------------------------------------------------------------------------------------------ mentions


def _tema_kind(ftext: str, match: re.Match[str], own: tuple[str, str | None] | None, court: str | None) -> tuple:
    """(kind, court) of a "Tema N" mention: its own words, else the nearest cue, else the decision's own kind."""
    words = " ".join(filter(None, (match["pre"], match["court"], match["items"])))
    for pattern, kind in (
        (_IRDR_CUE, "irdr"),
        (_IAC_CUE, "iac"),
        (_TNU_CUE, None),
        (re.compile(r"repercussao|\bRG\b|\bSTF\b|Supremo", re.I), "repercussao_geral"),
        (re.compile(r"repetitiv|\bSTJ\b|Superior", re.I), "repetitivo"),
        (re.compile(r"\bTST\b", re.I), "repetitivo_tst"),
        (re.compile(r"\bTJ[A-Z]{2}\b|\bTRF", re.I), "irdr"),
    ):
        if pattern.search(words):
            return _kind_court(kind, words, court)
    start, end = match.start(), match.end()
    before = ftext[max(0, start - _CONTEXT_BEFORE) : start]
    after = ftext[end : end + _CONTEXT_AFTER]
    best: tuple[int, str | None] | None = None
    for pattern, kind in (
        (_IRDR_CUE, "irdr"),
        (_IAC_CUE, "iac"),
        (_TNU_CUE, None),
        (_RG_CUE, "repercussao_geral"),
        (_REP_CUE, "repetitivo"),
    ):
        for m in pattern.finditer(before):
            distance = len(before) - m.end()
            if best is None or distance < best[0]:
                best = (distance, kind)
        m = pattern.search(after)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), kind)
    if best is not None:
        if len(_numbers(match["items"])) > 1:
            return None, None  # "os Temas 810 e 905" read from context alone: often one of each court
        return _kind_court(best[1], "", court)
    if own:
        return own
    if court == "stf":
        return "repercussao_geral", "STF"
    return None, None


def _kind_court(kind: str | None, words: str, court: str | None) -> tuple[str | None, str | None]:
    if kind == "repercussao_geral":
        return kind, "STF"
    if kind == "repetitivo":
        return kind, "STJ"
    if kind == "repetitivo_tst":
        return "repetitivo", "TST"
    if kind in ("irdr", "iac"):
        named = re.search(r"\b(TJ[A-Z]{2}|TRF\s*\d)\b", words)
        if named:
            return kind, named.group(1).replace(" ", "").upper()
        return kind, ("STJ" if kind == "iac" and court in (None, "stj") else (court.upper() if court else None))
    return None, None


def _numbers(items: str) -> list[str]:
    return [n.replace(".", "") for n in re.findall(_NUM, items)]


def find_qualified_precedents(text: str, court: str | None = None) -> list[QualifiedPrecedent]:
    """The qualified precedents `text` is or applies, "is" first, then in order of first mention, one each.

    court: the decision's court code ("stj", "tjsp"), when known: only the STF fixes repercussão geral,
    only a TJ or TRF an IRDR; it also names the court of a bare "IRDR 25 deste Tribunal".
    """
    ftext = fold(text)
    court = court.lower() if court else None
    heading = _heading(ftext, court)
    own = _own_kind(ftext, heading, court)
    found: list[tuple[int, QualifiedPrecedent]] = []
    own_number: str | None = None

    for match in _TEMA.finditer(ftext):
        kind, where = _tema_kind(ftext, match, own, court)
        if kind is None:
            continue
        numbers = _numbers(match["items"])
        in_heading = heading[0] <= match.start() < heading[1]
        if (
            own
            and (kind, where) == own
            and own_number is None
            and (
                in_heading
                or _TESE_FIXED_RG.search(ftext[max(0, match.start() - 120) : match.start()])
                or _TESE_FIXED_BEFORE.search(ftext[max(0, match.start() - 80) : match.start()])
            )
        ):
            own_number = numbers[0]
            continue
        role = _role(ftext, match.start(), match.end(), heading)
        if role:
            found.extend((match.start(), QualifiedPrecedent(kind, where, n, role, at=match.start())) for n in numbers)

    for match in _INCIDENT.finditer(ftext):
        kind = "irdr" if match["irdr"] else "iac"
        if own and own[0] == kind and heading[0] <= match.start() < heading[1]:
            continue
        tema = re.match(
            r"[^.;]{0,40}?\(?\s*Tema\s+(?:n[º°o.]*\s*)?(\d{1,3})\b", ftext[match.end() : match.end() + 60], re.I
        )
        number = tema.group(1) if tema else match["num"]
        if number is None:
            continue  # a case number alone ("IRDR nº 0023203-35.2016.8.26.0000") is not the tema
        near = _window_before(ftext, match.start())[-40:] + ftext[match.start() : match.end() + 60]
        named = re.search(r"\b(TJ[A-Z]{2}|TRF\s*-?\s*\d)\b|\b(STJ)\b", near)
        where = (named.group(1) or named.group(2)).replace(" ", "").replace("-", "").upper() if named else None
        if where is None:
            where = "STJ" if kind == "iac" and court == "stj" else (court.upper() if court else None)
        role = _role(ftext, match.start(), match.end(), heading)
        if role:
            found.append((match.start(), QualifiedPrecedent(kind, where, str(int(number)), role, at=match.start())))

    precedent_courts = [(pos, c) for pos, _, c in find_precedents(text)]
    for pos, ident in find_sumulas(ftext, court, precedent_courts):
        end = ftext.find(" ", pos + 8)
        role = _role(ftext, pos, end if end > 0 else pos + 8, heading)
        if not role:
            continue
        if ident.startswith("Súmula Vinculante"):
            found.append((pos, QualifiedPrecedent("sumula_vinculante", "STF", ident.split()[-1], role, at=pos)))
        elif ident.startswith("Súmula "):
            number, where = ident.split()[1].split("/")
            found.append((pos, QualifiedPrecedent("sumula", where, number, role, at=pos)))

    for match in _TESES.finditer(ftext):
        item = _TESE_ITEM.search(ftext[max(0, match.start() - 60) : match.end() + 40])
        role = _role(ftext, match.start(), match.end(), heading)
        if role:
            ed = match["ed"] or match["ed2"]
            found.append(
                (
                    match.start(),
                    QualifiedPrecedent(
                        "jurisprudencia_em_teses", "STJ", ed, role, item and item["n"], at=match.start()
                    ),
                )
            )

    out: list[QualifiedPrecedent] = []
    if own:
        out.append(QualifiedPrecedent(own[0], own[1], own_number, "is"))
    seen = {(p.kind, p.court, p.number, p.item) for p in out}
    for _, p in sorted(found, key=lambda f: f[0]):
        key = (p.kind, p.court, p.number, p.item)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out
