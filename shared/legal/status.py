"""Status statements (issue 33, item 3): a passage that says a súmula was cancelled or revised, or a thesis overruled.

Westlaw's KeyCite flags whether a precedent still stands from an editor's reading of every later decision; here
nothing is claimed from outside the base: a statement is only what a document of the base says in one sentence, and
the card shows it as such ("segundo o acervo"), with the sentence and a link to the document that says it.

A statement binds a status word to its target with nothing but connecting words between them:
- before the target: "cancelamento da Súmula 408/STJ", "revisão das Teses Repetitivas concernentes aos Temas 280,
  281, 282 e 283", "superação do entendimento firmado no Tema 692/STJ", an ementa's "REVISÃO DE TESE. TEMA 931.";
- after it: "a Súmula 469/STJ foi cancelada", "Súmula 276/STJ (atualmente cancelada)", "Tema 905/STJ, revisado".
The target is a súmula (its court: the one written, else the decision's own higher court), a Tema (its kind and
court: the words beside it, else the sentence's, else the decision's own court) or a higher court's case
("overruling do REsp 1.234.567/SP"). A target the text does not pin down is left out.

Not statements: a proposal, a request or a question ("proposta de revisão do Tema 692", "pedido de revisão de tese
rejeitado", "discussão quanto à necessidade de revisão ou cancelamento da Súmula Vinculante 9", an RG manifestation
heading "CANCELAMENTO DA SÚMULA VINCULANTE 9. REPERCUSSÃO GERAL RECONHECIDA"), a denial ("não há superação", "o STF
não promoveu a superação"), the procedure's name ("revisão ou cancelamento"), a distinction, and the STF's
"superação da Súmula 691" in a habeas corpus, which sets the súmula aside in one flagrant case and leaves it standing.
"revisão do entendimento firmado no acórdão recorrido ... Súmula 7" is the reexamination of facts, not a revision.

Measured by bench/status_corpus.py: on ../shared/corpus (10,626 decisions) 73 statements in 30 decisions, 71 right
by hand (one list read as all revised where the court kept one Tema; one party's argument); none in ../shared/archive.
"""

import re
from dataclasses import dataclass

from precedente.shared.legal.citations import find_precedents
from precedente.shared.legal.precedents import QualifiedPrecedent, label
from precedente.shared.legal.text import fold

__all__ = ["KINDS", "StatusStatement", "case_key", "find_status_statements", "precedent_key", "statement"]

KINDS = {"cancelada": "cancelado", "revista": "revisto", "superada": "superado"}
"""The statement kinds (named as a súmula takes them), each with the form a Tema or a case takes."""

_SENTENCE_MAX = 400

_NUM = r"\d{1,3}(?:\.\d{3})+|\d{1,4}"
_COURT = (
    r"STF|STJ|TST|TSE|TNU|Supremo(?:\s+Tribunal\s+Federal)?|Superior\s+Tribunal\s+de\s+Justica|"
    r"Tribunal\s+Superior\s+do\s+Trabalho"
)
_COURT_AFTER = (
    rf"(?:\s*[/-]\s*(?P<c1>{_COURT})\b|,?\s+(?:d[oa]|pelo|pela)\s+(?:(?:colend[oa]|egregi[oa]|E\.|C\.)\s*)?"
    rf"(?P<c2>{_COURT}|repercussao\s+geral|recursos?\s+repetitivos?)\b)?"
)
_SUMULA = re.compile(
    r"\b(?:enunciados?\s+(?:n\W{0,3}\s*)?(?:" + _NUM + r")\s+da\s+)?"
    r"S[u]mulas?(?P<vinc>\s+Vinculantes?)?\s*(?:n[º°o.]*s?\s*\.?\s*)?"
    rf"(?P<items>(?:{_NUM})(?:\s*(?:,|\be\b)\s*(?:n[º°o.]*\s*)?(?:{_NUM}))*)(?![\d/]\d)" + _COURT_AFTER,
    re.I,
)
_TEMA = re.compile(
    r"\b(?:Temas?|Teses?)(?P<pre>\s+(?:(?:de\s+)?(?:repercussao\s+geral|RG)|(?:recursos?\s+)?repetitivos?))?"
    rf"\s*(?:n[º°o.]*s?\s*\.?\s*)?(?P<items>(?:{_NUM})(?:\s*[/-]\s*(?:STF|STJ|TST))?"
    rf"(?:\s*(?:,|\be\b)\s*(?:{_NUM})(?:\s*[/-]\s*(?:STF|STJ|TST))?)*)(?![\d]|\.\d)" + _COURT_AFTER,
    re.I,
)

_CANCEL = r"cancelament\w*|cancelad[ao]s?|revogacao|revogad[ao]s?"
_REVISE = r"revisao|revisad[ao]s?|adequacao(?=\s+da\s+Tese\s+\d)"
"""Not "revista": the TST's "recurso de revista" is a noun. "Adequação da Tese 126/STJ ... para a seguinte redação"
is how the STJ's Pet 12.344 revised its Temas; "adequação ao Tema" elsewhere is applying it, and is not read."""
_OVERRULE = r"superacao|superad[ao]s?|overruling"
_WORD = re.compile(rf"\b(?:(?P<c>{_CANCEL})|(?P<r>{_REVISE})|(?P<s>{_OVERRULE}))\b", re.I)

_FILLER = (
    r"(?:\(?overruling\)?|d[oa]s?|n[oa]s?|a[so]?|ao|de|pel[oa]s?|em|sede|d[ae]ss[ae]s?|dest[ae]s?|"
    r"tese|teses|repetitiv[ao]s?|juridicas?|firmad[ao]s?|fixad[ao]s?|consolidad[ao]s?|assentad[ao]s?|"
    r"entendimento|orientacao|enunciados?|verbetes?|concernentes?|referentes?|relativ[ao]s?|atinentes?|"
    r"precedentes?|qualificad[ao]s?|vinculantes?|sumular(?:es)?|n\W{0,3})"
)
_BOUND_AFTER = re.compile(rf"^(?:\s+de\s+teses?\.)?[\s,()\-–:]*(?:{_FILLER}[\s,()\-–:]*){{0,8}}$", re.I)
"""Between a nominal status word and its target: only connecting words ("revisão das Teses Repetitivas concernentes
aos", "superação do entendimento firmado no"), never a sentence's end ("REVISÃO. SÚMULA 7/STJ" is the reexamination
the súmula bars) but the ementa heading's "REVISÃO DE TESE. TEMA 931"."""
_CONNECTED = re.compile(r"\b(?:d[oa]s?|n[oa]s?|a[os]?|de\s+teses?)\b", re.I)
"""A súmula right after the word ("REVISÃO SÚMULA 7/STJ") is what bars a revision; a Tema there is the one revised
("REVISÃO TEMA 677/STJ")."""
_PARTICIPLE_AFTER = re.compile(r"^\s*(?:referentes?|concernentes?|relativ[ao]s?|atinentes?)\s+a[os]?\s+$", re.I)
"""Between a participle and the target after it: "tese revisada referente ao Tema 282"."""
_COPULA = re.compile(r"\b(?:encontra(?:m)?-se|esta(?:o)?|foi|foram|restou|restaram|acha(?:m)?-se)\s+$", re.I)
_ARTICLE = re.compile(r"^\s+(?:a|as|o|os)\s+$", re.I)
"""The inverted order: "encontra-se superada a Súmula 45 do STJ"."""
_BOUND_BEFORE = re.compile(
    r"^[\s,()]*(?:(?:atualmente|hoje|ja|posteriormente|entao|depois|recentemente|expressamente|integralmente|"
    r"foi|foram|restou|restaram|esta|estao|encontra-se|encontram-se|sido|ter|tendo|teve|teria|acabou|acabaram|"
    r"sendo|considerad[ao]s?|tid[ao]s?|devidamente)[\s,()]+){0,4}$",
    re.I,
)
"""Between a target and the participle after it: "Súmula 469/STJ foi cancelada", "(atualmente cancelada)"."""

_NOT_SAID = re.compile(
    r"propost|propo[ns]|pedido|pleito|pleite|requer|pugn|alega|sustent|defend|pretend|argu|necessidade|"
    r"possibilidade|discuss|eventual|suscit|postul|insurg|quanto\s+a|hipotese\s+de|caso\s+de|a\s+fim\s+de|"
    r"para\s+fins\s+de|apt[ao]s?\s+a|aguard|pendente|sobrest|afetad|inexist|ausencia|sem\s+(?:a\s+)?$|"
    r"\bnao\b(?!\s+obstante)|\bnem\b|jamais|tampouco|distin|distinguish|ou\s+$|^\W*se\b|\bse\s+(?:houver|for)\b|"
    r"\bcaso\s+(?:haja|seja)|em\s+que\s+pese|milit|incorret|razoes|supost|obscur|omiss|contradi|diz\s+respeito|\?",
    re.I,
)
"""Before the status word in its sentence: a proposal, a request, a question, a denial or a condition."""
_NOT_SAID_AFTER = re.compile(
    r"^\W*(?:ou\s+(?:revisao|cancelamento|superacao)|rejeitad|indeferid|inadmitid|nao\s+(?:acolhid|conhecid|admitid|"
    r"ocorreu|houve)|via\s+adequada|repercussao\s+geral\s+reconhecida|exige|depende|pressup|\?|"
    r".{0,60}\b(?:rejeitad|indeferid|nao\s+acolhid|inadmitid))",
    re.I,
)
"""Right after the target: the request turned down, the procedure named, or the RG manifestation's question."""
_CASE_BYPASS = re.compile(
    r"excepcional|extraordinari|teratolog|ilegalidade|constrangimento|flagrante|\bno\s+caso\b|in\s+casu|"
    r"manifest[ao]|concessao\s+da\s+ordem|de\s+oficio|habeas|neste\s+processo|nestes\s+autos|preclus",
    re.I,
)
"""Around "superação da Súmula 691": the STF sets the súmula aside for one flagrant case, leaving it in force."""


@dataclass(frozen=True)
class StatusStatement:
    kind: str
    """One of KINDS: "cancelada", "revista", "superada"."""
    target: str
    """The target's key (precedent_key, case_key): "sumula:STJ:408", "repetitivo:STJ:931", "case:REsp 1.328.993"."""
    label: str
    """How the card names the target: "Súmula 408/STJ", "Repetitivo – Tema 931", "REsp 1.328.993/CE"."""
    sentence: str
    """The sentence that says it, as written (whitespace collapsed, at most _SENTENCE_MAX characters)."""
    at: int = -1
    """Offset of the status word in the text."""

    def as_dict(self) -> dict[str, str]:
        """The stored form (migration 0030): kind, target, label, sentence."""
        return {"kind": self.kind, "target": self.target, "label": self.label, "sentence": self.sentence}


def statement(label: str, kind: str) -> str:
    """How the card says it, the participle agreeing with the target: "Súmula 408/STJ cancelada", "Repetitivo –
    Tema 931 revisto", "REsp 1.234.567/SP superado"."""
    feminine = label.startswith(("Súmula", "Tese"))
    return f"{label} {kind if feminine else KINDS[kind]}"


def precedent_key(kind: str, court: str | None, number: str | None) -> str | None:
    """The key a qualified precedent (precedente.shared.legal.precedents: kind, court, number) and a statement about it
    share; None when the number or court is not known (a statement is never matched to a guess)."""
    if not number or not court:
        return None
    return f"{kind}:{court}:{int(number.replace('.', ''))}"


def case_key(ident: str) -> str:
    """The key of a higher court's case by its citation id, without the UF ("REsp 1.328.993/CE" -> "case:REsp
    1.328.993"): a statement's author may leave the UF out, and the work's own id has it."""
    return "case:" + ident.split("/")[0].strip()


def _sentence_span(ftext: str, start: int, end: int) -> tuple[int, int]:
    """The sentence around [start, end): from the last sentence end before to the next after, bounded."""
    ends = list(re.finditer(r"[.;!?]\s+(?=[A-Z0-9\"“(])|\n\s*\n", ftext[max(0, start - _SENTENCE_MAX) : start]))
    left = max(0, start - _SENTENCE_MAX) + ends[-1].end() if ends else max(0, start - _SENTENCE_MAX // 2)
    after = re.search(r"[.;!?](?=\s+[A-Z0-9\"“(]|\s*$)|\n\s*\n", ftext[end : end + _SENTENCE_MAX])
    right = end + after.end() if after else min(len(ftext), end + _SENTENCE_MAX // 2)
    return left, right


def _clip(text: str, left: int, right: int, start: int, end: int) -> str:
    """The sentence text[left:right], whitespace collapsed; a long one cut to a window around [start, end) (the
    status word and its target), "…" marking each cut."""
    if right - left > _SENTENCE_MAX:
        spare = max(0, _SENTENCE_MAX - (end - start)) // 2
        new_left = max(left, start - spare)
        new_right = min(right, new_left + _SENTENCE_MAX)
        head = "…" if new_left > left else ""
        tail = "…" if new_right < right else ""
        return head + re.sub(r"\s+", " ", text[new_left:new_right]).strip() + tail
    return re.sub(r"\s+", " ", text[left:right]).strip()


def _court(word: str | None) -> str | None:
    if not word:
        return None
    w = fold(word).lower()
    if w.startswith(("stf", "supremo")) or "repercussao" in w:
        return "STF"
    if w.startswith(("stj", "superior tribunal de justica")) or "repetitiv" in w:
        return "STJ"
    if w.startswith(("tst", "tribunal superior do trabalho")):
        return "TST"
    return w.upper() if w in ("tse", "tnu") else None


_HIGHER = {"stf": "STF", "stj": "STJ", "tst": "TST", "tse": "TSE"}


def _sumula_targets(match: re.Match[str], sentence: str, own_court: str | None) -> list[tuple[str, str]]:
    """(key, label) of each súmula a match names: a vinculante is the STF's; a court written after the numbers, else
    the decision's own higher court, else a single court named in the sentence; none when still unknown."""
    numbers = [n.replace(".", "") for n in re.findall(_NUM, match["items"])]
    if match["vinc"]:
        return [(f"sumula_vinculante:STF:{int(n)}", f"Súmula vinculante {int(n)}") for n in numbers]
    court = _court(match["c1"] or match["c2"]) or _HIGHER.get(own_court or "")
    if court is None:
        named = {c for c in re.findall(r"\b(STF|STJ|TST)\b", sentence)}
        court = named.pop() if len(named) == 1 else None
    if court is None:
        return []
    return [(f"sumula:{court}:{int(n)}", f"Súmula {int(n)}/{court}") for n in numbers]


def _tema_targets(match: re.Match[str], sentence: str, own_court: str | None) -> list[tuple[str, str]]:
    """(key, label) of each Tema a match names: its kind from the words beside it, else the sentence's cues, else
    the decision's own court (the STF's Temas are repercussão geral, the STJ's and TST's repetitivos)."""
    items = match["items"]
    words = " ".join(filter(None, (match["pre"], match["c1"], match["c2"], items)))
    court = _court(next(iter(re.findall(rf"{_COURT}|repercussao\s+geral|\bRG\b|repetitiv", words, re.I)), None))
    if court is None and re.search(r"\bRG\b", words):
        court = "STF"
    if court is None:
        cues = {
            c
            for c, pattern in (("STF", r"\bSTF\b|Supremo|repercussao\s+geral"), ("STJ", r"\bSTJ\b|repetitiv|REsp\b"))
            if re.search(pattern, sentence, re.I)
        }
        court = cues.pop() if len(cues) == 1 else _HIGHER.get(own_court or "")
    if court not in ("STF", "STJ", "TST"):
        return []
    kind = "repercussao_geral" if court == "STF" else "repetitivo"
    out = []
    for n in re.findall(_NUM, re.sub(r"[/-]\s*(?:STF|STJ|TST)", "", items, flags=re.I)):
        number = n.replace(".", "")
        out.append((f"{kind}:{court}:{int(number)}", label(QualifiedPrecedent(kind, court, number, "is"))))
    return out


Targets = list[tuple[str, str]]


def _last_word(ftext: str, at: int) -> str:
    found = re.search(r"\w+$", ftext[max(0, at - 30) : at])
    return found.group() if found else ""


def _feminine(match: re.Match[str]) -> bool:
    """A súmula and a "Tese N" take "cancelada"; a Tema takes "cancelado"."""
    return not match.group().lower().startswith("tema")


def _targets_after(ftext: str, at: int, own_court: str | None, nominal: bool) -> tuple[int, Targets, bool | None]:
    """The targets a status word governs, after it with only connecting words between: (their end, [(key,
    label)], whether they are feminine). A nominal word ("cancelamento da") may name a case too; a participle
    ("tese revisada referente ao") only a súmula or Tema, through "referente a"."""
    window = ftext[at : at + 160]
    sentence = ftext[slice(*_sentence_span(ftext, at, at))]
    found: list[tuple[int, int, Targets, bool | None]] = []
    for pattern, read in ((_SUMULA, _sumula_targets), (_TEMA, _tema_targets)):
        m = pattern.search(window)
        if m is None:
            continue
        between = window[: m.start()]
        inverted = _COPULA.search(ftext[max(0, at - 40) : at - len(_last_word(ftext, at))]) and _ARTICLE.match(between)
        bound = _BOUND_AFTER.match(between) if nominal else _PARTICIPLE_AFTER.match(between) or inverted
        if bound and (pattern is _TEMA or not nominal or _CONNECTED.search(between)):
            found.append((m.start(), m.end(), read(m, sentence, own_court), _feminine(m)))
    if nominal:
        cases = [(p, i) for p, i, _ in find_precedents(window) if _BOUND_AFTER.match(window[:p])]
        if cases and _CONNECTED.search(window[: cases[0][0]]):
            p, ident = cases[0]
            found.append((p, p + len(ident), [(case_key(ident), ident)], None))
    if not found:
        return at, [], None
    _, end, targets, feminine = min(found, key=lambda f: f[0])
    return at + end, targets, feminine


def _targets_before(ftext: str, at: int, own_court: str | None) -> tuple[int, Targets, bool | None]:
    """The targets a participle closes ("a Súmula 469/STJ foi cancelada"): (their start, [(key, label)], whether
    they are feminine)."""
    window_start = max(0, at - 160)
    window = ftext[window_start:at]
    sentence = ftext[slice(*_sentence_span(ftext, at, at))]
    best: tuple[int, Targets, bool] | None = None
    for pattern, read in ((_SUMULA, _sumula_targets), (_TEMA, _tema_targets)):
        for m in pattern.finditer(window):
            if _BOUND_BEFORE.match(window[m.end() :]) and (best is None or m.start() > best[0]):
                best = (m.start(), read(m, sentence, own_court), _feminine(m))
    if best is None:
        return at, [], None
    return window_start + best[0], best[1], best[2]


def find_status_statements(text: str, court: str | None = None) -> list[StatusStatement]:
    """What `text` says was cancelled, revised or overruled, in order, each (kind, target) once.

    court: the document's court code ("stj", "stf"): a bare "Súmula 7" or "Tema 931" in the STJ's own decision is
    the STJ's."""
    ftext = fold(text)
    own = court.lower() if court else None
    out: list[StatusStatement] = []
    seen: set[tuple[str, str]] = set()
    for word in _WORD.finditer(ftext):
        kind = "cancelada" if word["c"] else "revista" if word["r"] else "superada"
        written = word.group().lower()
        nominal = written.startswith(("cancelament", "revogacao", "revisao", "superacao", "overruling", "adequacao"))
        if nominal:
            start = word.start()
            end, targets, _ = _targets_after(ftext, word.end(), own, nominal=True)
        else:
            start, targets, feminine = _targets_before(ftext, word.start(), own)
            end = word.end()
            if not targets:  # "tese revisada referente ao Tema 282": the participle before its target
                end, targets, feminine = _targets_after(ftext, word.end(), own, nominal=False)
                feminine = True if targets and re.search(r"\btese", ftext[start - 30 : start]) else feminine
            if targets and feminine is not None and feminine != bool(re.search(r"as?$", written)):
                continue  # "EXCESSO DE PRAZO SUPERADO. SÚMULA 52": the participle agrees with another noun
        if not targets:
            continue
        left, right = _sentence_span(ftext, min(start, word.start()), max(end, word.end()))
        before = ftext[max(left, min(start, word.start()) - 120) : min(start, word.start())]
        if _NOT_SAID.search(before) or _NOT_SAID_AFTER.match(ftext[end : end + 120]):
            continue
        if kind == "superada" and _CASE_BYPASS.search(ftext[max(0, left - 60) : right]):
            continue
        for key, name in targets:
            if (kind, key) not in seen:
                seen.add((kind, key))
                sentence = _clip(text, left, right, min(start, word.start()), max(end, word.end()))
                out.append(StatusStatement(kind, key, name, sentence, word.start()))
    return out
