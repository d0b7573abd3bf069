"""A citation a lawyer can paste into a petition, built only from a document's stored metadata.

Every part comes from the document's own fields (the `documents` columns); a missing field is left out,
never guessed or written as "None", and nothing is added that the metadata does not say (a judge's
gender, a journal's name, a date the act does not carry). Forms, in Brazilian practice:

- acórdão (and a tribunal's decisão monocrática or despacho), parts in this order:
  origin, case, rapporteur, [redator], judging body, [kind], judgment, publication:
  "STJ, REsp 1.602.076/SP, Rel. Min. Nancy Andrighi, Terceira Turma, j. 15/09/2016, DJe 30/09/2016",
  "STF, RE 657.718/MG, Rel. Min. Marco Aurélio, Red. p/ o acórdão Min. Roberto Barroso, Plenário, j. 22/05/2019"
  (the redator do acórdão, when the relator was defeated, with the rapporteur's title),
  "TJRJ, Agravo de Instrumento 0017387-33.2017.8.19.0000, Rel. Des. Cláudio Dell'Orto, 18ª Câmara Cível,
  j. 07/06/2017". The case is the process number, led by the procedural class when the number is a bare
  (CNJ) number; the title when there is no number. "Rel. Min." for STF, STJ, TST, TSE, STM and TCU,
  "Rel. Des." for TJs, TRFs and TRTs, "Rel. Cons." for TCEs and CARF, "juiz-relator" for the TJUE (its
  judgments name a juiz-relator, not a desembargador), plain "Rel." elsewhere. Superior
  courts' bodies are written out ("3ª Turma" -> "Terceira Turma"), as they cite themselves; other courts'
  stay as stored ("18ª Câmara Cível"). [kind] is "decisão monocrática" or "despacho" for those types.
- sentença (and a decisão or despacho of a Vara, Juizado or Juízo), parts in this order:
  origin, judging body, case, judge, [kind], judgment, publication:
  "TJSP, 1ª Vara Empresarial e Conflitos de Arbitragem, Cumprimento de Sentença 1048106-30.2024.8.26.0100,
  Juiz(a) Larissa Gaspar Tunala, j. 07/08/2024" ("Juiz(a)": the metadata does not say the judge's gender).
- parecer: origin, title, date: "MPMG, Parecer nº 16/2022 - PGJMG/PROCON-MG/SECP/ASJUP, 21/09/2022".
- normative and administrative acts (the "ato_*" types of precedente.shared.legal.codes): their type, number, issuer
  (for acts that are not statutes) and date. From the title when it opens with the act's designation, else
  from document_subtype and act_number; the date as the title writes it or else judgment_date or
  document_date (the date signed); an issuer that is an acronym stands after the type, as acts are cited
  ("Resolução CNJ nº 125, de 29 de novembro de 2010"), a longer one (issuing_body when no court is known) or
  an act whose title already names an issuer ("Provimento/CGJ") is led by it: "Lei nº 8.078, de 11 de
  setembro de 1990", "TJRR, Provimento/CGJ nº 2, de 6 de janeiro de 2023", "Regulamento (UE) n.º 524/2013
  do Parlamento Europeu e do Conselho, de 21 de maio de 2013". The rest of the title (its subject) is dropped.
- doutrina, ABNT-like (NBR 6023): authors (SURNAME, Given names; up to three, joined by ";", else the first
  and "et al."), title, [kind of thesis and] venue, year, each part closed by a full stop:
  "QUEIROZ, Pedro Gomes de. A arbitragem e o consumidor. Revista de Processo, 2019.",
  "SILVA, Maria da. Cláusula compromissória. Tese (Doutorado) – Universidade de São Paulo, 2020.".
- petição, contrato, e-mail, outro: title, origin, date.
- súmula, jurisprudência compilada, an act with neither designation nor number, and any type this module
  does not know (new types may come): origin, title, date.

The origin is the court's label from precedente.shared.legal.codes; a code it does not know is written upper-cased when
it is a short acronym ("ccbc" -> "CCBC") and left out otherwise (a long code is a folded name that would print
misspelt). Dates are dd/mm/yyyy; "j." is judgment_date, "DJe" is publication_date of a judicial court ("publ."
elsewhere: the journal is not stored). Where a form has a bare date it is judgment_date, else "publ." and
publication_date. A title that is only the file name (the annotator's fallback) is no title: without a title or a
process number there is nothing to cite and the result is None."""

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import date
from pathlib import PurePath
from typing import Any

from precedente.shared.legal.codes import (
    DECISION_TYPES,
    DOCUMENT_TYPE_LABELS,
    UFS,
    court_label,
    is_known_court,
    normalize_court,
)
from precedente.shared.legal.dates import ENGLISH_MONTHS, MONTH_NAMES, MONTHS
from precedente.shared.legal.identifiers import remove_identifiers
from precedente.shared.legal.judges import ROLE_LABELS
from precedente.shared.legal.people import is_person_name
from precedente.shared.legal.text import fold
from precedente.shared.legal.titles import NARRATIVE

ACT_TYPES = frozenset(code for code in DOCUMENT_TYPE_LABELS if code.startswith("ato_"))
"""Document types cited as acts (by designation and date): today ato_normativo and ato_administrativo."""


@dataclass(frozen=True, kw_only=True)
class CitationFields:
    """The `documents` columns a citation is built from (migrations 0001, 0004 and 0013)."""

    title: str
    document_type: str | None = None
    court: str | None = None
    process_number: str | None = None
    procedural_class: str | None = None
    relator: str | None = None
    redator: str | None = None
    """The redator do acórdão (migration 0033), when the relator was defeated: "Red. p/ o acórdão Min. X"."""
    judging_body: str | None = None
    judgment_date: date | None = None
    publication_date: date | None = None
    filename: str | None = None
    document_date: date | None = None
    document_subtype: str | None = None
    act_number: str | None = None
    issuing_body: str | None = None
    authors: tuple[str, ...] = ()
    venue: str | None = None
    year: int | None = None
    qualified_precedents: tuple[Mapping[str, Any], ...] = ()
    """What the decision is or applies (migration 0026: kind, court, number, role): the Tema it fixes is cited."""

    @classmethod
    def from_mapping(cls, row: Mapping[str, Any]) -> "CitationFields":
        """From a `documents` row (an asyncpg Record or a dict); ISO date strings are parsed, other keys ignored."""
        values: dict[str, Any] = {}
        for field in fields(cls):
            value = row.get(field.name)
            if field.name.endswith("_date") and isinstance(value, str):
                value = date.fromisoformat(value)
            values[field.name] = value
        values["title"] = values["title"] or ""
        values["authors"] = tuple(values["authors"] or ())
        values["qualified_precedents"] = tuple(
            p if isinstance(p, Mapping) else dict(p) for p in values["qualified_precedents"] or ()
        )
        return cls(**values)


CITATION_COLUMNS = ", ".join(f"d.{field.name}" for field in fields(CitationFields) if field.name != "title")
"""The `documents d` columns a citation reads beyond its title, for a SELECT: every place that cites a document (the
card, an export, a folder) reads all of them, so a pasted citation is the card's (an export once left out the Tema and
the redator the card showed)."""


def format_citation(fields: CitationFields) -> str | None:
    """The citation of a document (see the module docstring for the forms); None when nothing identifies it.
    No personal identifier (CPF, CNPJ, RG, OAB number, e-mail, phone) is ever part of it."""
    return remove_identifiers(_citation(fields))


def _citation(fields: CitationFields) -> str | None:
    kind = fields.document_type or "outro"
    title = _real_title(fields)
    origin = _origin(fields.court)
    if kind in DECISION_TYPES:
        return _decision(fields, kind, title, origin)
    if kind in ACT_TYPES:
        origin = origin or _issuer(fields.issuing_body)
        act = _act(fields, title, origin) or _act_from_fields(fields, origin)
        if act:
            return act
        return _join(origin, title, _bare_date(fields)) if title else None
    if kind == "doutrina":
        return _doctrine(fields, title)
    if kind == "parecer":
        return _opinion(fields, title, origin)
    if kind == "peticao":
        return _petition(fields, title, origin)
    if kind in ("sumula", "jurisprudencia_compilada") or kind not in DOCUMENT_TYPE_LABELS:
        return _join(origin, title, _bare_date(fields)) if title else None
    return _join(title, origin, _bare_date(fields)) if title else None


# ------------------------------------------------------------------------------------- parts


def _clean(value: str | None) -> str | None:
    """Whitespace collapsed, stray punctuation at the ends dropped (a full stop only after a digit or a
    lower-case letter, so "S.A." keeps its own); None when nothing is left."""
    if value is None:
        return None
    text = re.sub(r"\s+", " ", value).strip()
    text = re.sub(r"^[\s:;,.\-–—]+", "", text)
    text = re.sub(r"[\s:;,\-–—]+$", "", text)
    text = re.sub(r"(?<=[0-9a-zà-ÿ)])\.$", "", text)
    return text or None


_PART_HEADING = re.compile(
    r"(?:E\s?M\s?E\s?N\s?T\s?A|A\s?C\s?O\s?R\s?D\s?A\s?O|RELATORIO(?:\s+E\s+VOTO)?|VOTO(?:[- ]VISTA)?|DECISAO"
    r"(?:\s+MONOCRATICA)?|DESPACHO|SENTENCA|CERTIDAO(?:\s+DE\s+JULGAMENTO)?|DISPOSITIVO|FUNDAMENTACAO|"
    r"EXTRATO\s+DE\s+ATA|INTEIRO\s+TEOR|JURISPRUDENCIA|DOCUMENTO|PAGINA\s+\d+)\W*",
    re.I,
)
"""A decision's part heading: the name of a section, never the title a card cites (an STJ acórdão once cited as
"STJ, EMENTA, Rel. Min. ...")."""
_CUT_DATE = re.compile(r"(?:^|\D)\d{1,2}/(?:\d{1,2}/?)?\s*$")
"""A date cut at the title's end ("24/06/"): the title is a table's cells run together."""
_TABLE = re.compile(
    r"\||\((?:AUTOR|AUTORA|R[EÉ]U?|ADVOGAD[OA]|REQUERENTE|REQUERID[OA]|TERCEIRO[^)]*|PROCURADOR[^)]*)\)", re.I
)
"""A PJe cover table's cells ("Maria (AUTOR) | Fulano (ADVOGADO) | |"): parties' names in their grid, no title."""


def _real_title(fields: CitationFields) -> str | None:
    title = _clean(fields.title)
    if title and fields.filename and title in (_clean(fields.filename), _clean(PurePath(fields.filename).stem)):
        return None  # the annotator fell back to the file name: the document has no title of its own
    if title is None or _PART_HEADING.fullmatch(fold(title)) or _TABLE.search(title) or _CUT_DATE.search(title):
        return None
    return _clean(remove_identifiers(title))


def _origin(code: str | None) -> str | None:
    if not code:
        return None
    if is_known_court(code):
        return court_label(code)
    return code.upper() if re.fullmatch(r"[a-z][a-z0-9]{1,11}", code) else None


def _join(*parts: str | None) -> str | None:
    kept = [p for p in parts if p]
    return ", ".join(kept) if kept else None


def _dmy(value: date) -> str:
    return f"{value:%d/%m/%Y}"


_JUDICIAL = re.compile(r"^(?:stf|stj|tst|tse|stm|tjdft|trf\d|trt\d{1,2}|tj[a-z]{2}|tre_[a-z]{2})$")


def _publication(fields: CitationFields) -> str | None:
    if fields.publication_date is None:
        return None
    journal = "DJe" if fields.court and _JUDICIAL.match(fields.court) else "publ."
    return f"{journal} {_dmy(fields.publication_date)}"


def _bare_date(fields: CitationFields) -> str | None:
    if fields.judgment_date is not None:
        return _dmy(fields.judgment_date)
    if fields.publication_date is not None:
        return f"publ. {_dmy(fields.publication_date)}"
    return None


# -------------------------------------------------------------------------------- decisions

_SUPERIOR = frozenset({"stf", "stj", "tst", "tse", "stm"})
_MINISTERS = _SUPERIOR | {"tcu"}
_DESEMBARGADORES = re.compile(rf"^(?:tjdft|tj(?:{'|'.join(sorted(uf.lower() for uf in UFS))})|trf\d|trt\d{{1,2}})$")
"""State courts (TJ + a UF), TRFs and TRTs: not the TJUE, whose "tj" code has no UF after it."""
_JUIZ_RELATOR = frozenset({"tjue"})
"""Courts whose judgments name a juiz-relator (the European Court of Justice: "juiz-relator A. Tizzano")."""
_COUNCILLORS = re.compile(r"^(?:tce_[a-z]{2}|carf)$")
_FIRST_INSTANCE = re.compile(r"\b(?:vara|juizado|juizo|foro)\b", re.I)
_JUDGE_TITLE = re.compile(
    r"^(?:(?:o|a)\s+)?(?:rel(?:ator|atora)?\.?\s+)?"
    r"(?:min(?:istr[oa])?|des(?:embargador[a]?)?(?:\s+federal)?|ju[ií]z[a]?(?:\(a\))?(?:\s+(?:federal|de\s+direito))?"
    r"|cons(?:elheir[oa])?|dr[a]?)\.?\s+",
    re.I,
)
_FEMININE = ("Primeira", "Segunda", "Terceira", "Quarta", "Quinta", "Sexta", "Sétima", "Oitava", "Nona", "Décima")
_MASCULINE = ("Primeiro", "Segundo", "Terceiro", "Quarto", "Quinto", "Sexto", "Sétimo", "Oitavo", "Nono", "Décimo")
_ORDINAL = re.compile(r"^(?P<n>\d{1,2})\s*(?P<g>[ªº°])\s*(?=\S)")
_KIND_MARKS = {"decisao_monocratica": "decisão monocrática", "despacho": "despacho"}


def judged_alone(kind: str | None, judging_body: str | None) -> bool:
    """Whether a judge decided alone at first instance (a sentença, or a vara's decision): named "Juiz(a)", never
    "Rel.", in the citation and wherever the judge is shown (a juíza's sentence read "Rel." in the CLI)."""
    body = _clean(judging_body)
    at_a_vara = kind != "acordao" and body is not None and _FIRST_INSTANCE.search(fold(body)) is not None
    return kind == "sentenca" or at_a_vara


def _names_a_case(title: str) -> bool:
    """Whether a decision's title can stand for its case where no process number was read: it carries a number
    ("AgR na Ação Cível Originária 2.821") and is neither a part heading with something after it ("A C Ó R D Ã O
    SBDI-1") nor a caption's party line ("PACIENTE: <name>", a person's name in the citation). An STM habeas corpus
    was cited by its ementa's cut words, "DE INTIMAÇÃO PESSOAL DA ADVOGADA..." (LeNER-Br, ../shared/corpus)."""
    cut = re.match(r"(?:DE|DA|DO|DAS|DOS|E|EM|NO|NA)\s", title)  # a heading's cut words, not its start
    return bool(re.search(r"\d", title)) and not (cut or ROLE_LABELS.match(title) or _PART_HEADING.match(fold(title)))


def _decision(fields: CitationFields, kind: str, title: str | None, origin: str | None) -> str | None:
    number, cls = _clean(fields.process_number), _clean(fields.procedural_class)
    if number is None and title is not None and not _names_a_case(title):
        title = None
    case = f"{cls} {number}" if number and cls and number[0].isdigit() else number or title
    if case is None:
        return None
    case = _with_tema(case, fields.qualified_precedents)
    court = fields.court or ""
    body = _body(_clean(fields.judging_body), court in _SUPERIOR)
    name = _judge_name(fields.relator)
    dates = (f"j. {_dmy(fields.judgment_date)}" if fields.judgment_date else None, _publication(fields))
    if judged_alone(kind, fields.judging_body):
        mark = "decisão" if kind == "decisao_monocratica" else _KIND_MARKS.get(kind)
        return _join(origin, body, case, f"Juiz(a) {name}" if name else None, mark, *dates)
    if court in _MINISTERS:
        rapporteur = "Rel. Min."
    elif _DESEMBARGADORES.match(court):
        rapporteur = "Rel. Des."
    elif _COUNCILLORS.match(court):
        rapporteur = "Rel. Cons."
    elif court in _JUIZ_RELATOR:
        rapporteur = "juiz-relator"
    else:
        rapporteur = "Rel."
    redator = _judge_name(fields.redator)
    if redator is not None and rapporteur != "juiz-relator" and redator != name:
        title = rapporteur.removeprefix("Rel.").strip()
        redator = f"Red. p/ o acórdão {title} {redator}".replace("  ", " ")
    else:
        redator = None
    rapporteur_name = f"{rapporteur} {name}" if name else None
    return _join(origin, case, rapporteur_name, redator, body, _KIND_MARKS.get(kind), *dates)


_TEMA_KINDS = {"repetitivo": "repetitivo", "repercussao_geral": "repercussão geral", "irdr": "IRDR", "iac": "IAC"}


def _with_tema(case: str, qualified: tuple[Mapping[str, Any], ...]) -> str:
    """The case with the Tema it fixes, as a leading case is cited: "REsp 1.234.567/SP (Tema 1.046, repetitivo)",
    "RE 855.178/SE (Tema 793, repercussão geral)". Only a Tema the decision itself fixes (role "is") and whose
    number its text gives; the precedents it applies are not part of its name."""
    own = next((p for p in qualified if p.get("role") == "is" and p.get("kind") in _TEMA_KINDS), None)
    number = str(own.get("number") or "") if own else ""
    if own is None or not number.isdigit():
        return case
    dotted = f"{int(number):,}".replace(",", ".")
    return f"{case} (Tema {dotted}, {_TEMA_KINDS[own['kind']]})"


def _judge_name(relator: str | None) -> str | None:
    """The rapporteur's or judge's name without the title; None when what is stored is not a person's name (a party's
    caption, a court: precedente.shared.legal.people), which the citation then leaves out."""
    name = _clean(relator)
    if name is None:
        return None
    name = _JUDGE_TITLE.sub("", name, count=1) or name
    return name if is_person_name(name) else None


def _body(body: str | None, superior: bool) -> str | None:
    if body is None:
        return None
    if fold(body).lower() == "plenario":
        return "Plenário"
    match = _ORDINAL.match(body)
    if superior and match and 1 <= int(match["n"]) <= 10:
        words = _FEMININE if match["g"] == "ª" else _MASCULINE
        return words[int(match["n"]) - 1] + " " + body[match.end() :]
    return body


# ------------------------------------------------------------------------------------- acts

_FOLDED_MONTHS = tuple(MONTHS)

# Folded designation -> how it is written; statutes (no issuer named before them) flagged True.
_ACT_KINDS: dict[str, tuple[str, bool]] = {
    "LEI COMPLEMENTAR": ("Lei Complementar", True),
    "LEI DELEGADA": ("Lei Delegada", True),
    "LEI": ("Lei", True),
    "DECRETO-LEI": ("Decreto-Lei", True),
    "DECRETO LEGISLATIVO": ("Decreto Legislativo", True),
    "DECRETO": ("Decreto", True),
    "MEDIDA PROVISORIA": ("Medida Provisória", True),
    "EMENDA CONSTITUCIONAL": ("Emenda Constitucional", True),
    "RESOLUCAO CONJUNTA": ("Resolução Conjunta", False),
    "RESOLUCAO NORMATIVA": ("Resolução Normativa", False),
    "RESOLUCAO": ("Resolução", False),
    "INSTRUCAO NORMATIVA": ("Instrução Normativa", False),
    "PROVIMENTO": ("Provimento", False),
    "PORTARIA NORMATIVA": ("Portaria Normativa", False),
    "PORTARIA CONJUNTA": ("Portaria Conjunta", False),
    "PORTARIA": ("Portaria", False),
    "DELIBERACAO": ("Deliberação", False),
    "RECOMENDACAO": ("Recomendação", False),
    "CIRCULAR": ("Circular", False),
    "ATO NORMATIVO": ("Ato Normativo", False),
    "ORDEM DE SERVICO": ("Ordem de Serviço", False),
    "NOTA TECNICA": ("Nota Técnica", False),
    "OFICIO": ("Ofício", False),
    "EDITAL": ("Edital", False),
}
_KIND_PATTERN = "|".join(re.escape(k).replace(r"\ ", r"\s+") for k in sorted(_ACT_KINDS, key=len, reverse=True))
_PT_DATE = r"\s*,?\s*DE\s+(?P<day>\d{1,2})\s*[º°o]?\s+DE\s+(?P<month>[a-z]+)\s+DE\s+(?P<year>\d{4})"
_BRAZILIAN_ACT = re.compile(
    rf"^(?P<kind>{_KIND_PATTERN})(?P<issuer>(?:\s*/\s*[A-Z]{{2,12}})*)\s*(?:N(?:[º°]|\.\s*[º°]?|O(?=\s))\s*)?"
    rf"(?P<num>\d[\d.]*(?:/\d{{2,4}})?(?:-[A-Z])?)\b(?:{_PT_DATE})?",
    re.I,
)
_EU_PT = re.compile(
    r"^(?P<kind>REGULAMENTO|DIRECTIVA|DIRETIVA|DECISAO)(?P<sub>\s+(?:DE\s+EXECUCAO|DELEGAD[OA]))?"
    r"\s*(?P<org>\(\s*(?:UE|CE|CEE)(?:\s*,\s*EURATOM)?\s*\))?\s*(?:N\s*\.?\s*[º°o]\s*\.?\s*)?"
    r"(?P<num>\d{1,4}/\d{1,4}(?:/(?:UE|CE|CEE))?)\b"
    r"(?P<issuer>\s+D[OA]\s+(?:PARLAMENTO\s+EUROPEU\s+E\s+DO\s+CONSELHO|CONSELHO|COMISSAO)\b)?"
    rf"(?:{_PT_DATE})?",
    re.I,
)
_EU_EN = re.compile(
    r"^(?P<kind>REGULATION|DIRECTIVE|DECISION)\s*(?P<org>\(\s*(?:EU|EC|EEC)(?:\s*,\s*EURATOM)?\s*\))?"
    r"\s*(?:NO\.?\s+)?(?P<num>\d{1,4}/\d{1,4}(?:/(?:EU|EC|EEC))?)\b"
    r"(?P<issuer>\s+OF\s+THE\s+(?:EUROPEAN\s+PARLIAMENT\s+AND\s+OF\s+THE\s+COUNCIL|COUNCIL|COMMISSION)\b)?"
    r"(?:\s+OF\s+(?P<day>\d{1,2})\s+(?P<month>[a-z]+)\s+(?P<year>\d{4}))?",
    re.I,
)
_EU_ISSUERS = {
    "PARLAMENTO": " do Parlamento Europeu e do Conselho",
    "CONSELHO": " do Conselho",
    "COMISSAO": " da Comissão",
    "EUROPEAN": " of the European Parliament and of the Council",
    "COUNCIL": " of the Council",
    "COMMISSION": " of the Commission",
}


def _written_date(match: re.Match[str], months: tuple[str, ...]) -> date | None:
    """The date a title writes ("de 11 de setembro de 1990"), None when it has none or it is not a date."""
    if not match["day"]:
        return None
    month = match["month"].lower()
    if month not in months:
        return None
    try:
        return date(int(match["year"]), months.index(month) + 1, int(match["day"]))
    except ValueError:
        return None


def _long_date(value: date) -> str:
    day = "1º" if value.day == 1 else str(value.day)
    return f"{day} de {MONTH_NAMES[value.month - 1]} de {value.year}"


def _act(fields: CitationFields, title: str | None, origin: str | None) -> str | None:
    """An act cited by its designation and date; None when the title opens with no designation."""
    if title is None:
        return None
    folded = fold(title)
    if match := _EU_PT.match(folded):
        return _eu_act(match, title, fields.judgment_date, english=False)
    if match := _EU_EN.match(folded):
        return _eu_act(match, title, fields.judgment_date, english=True)
    match = _BRAZILIAN_ACT.match(folded)
    if match is None:
        return None
    name, statute = _ACT_KINDS[re.sub(r"\s+", " ", match["kind"].upper())]
    issuer = re.sub(r"\s+", "", title[match.start("issuer") : match.end("issuer")]).upper()
    number = title[match.start("num") : match.end("num")]
    when = _written_date(match, _FOLDED_MONTHS) or fields.judgment_date or fields.document_date
    return _designated(name, statute, issuer, number, when, origin)


# document_subtype -> the designation of _ACT_KINDS it is cited by (EU acts are cited from their titles only).
_SUBTYPE_KINDS = {
    "lei": "LEI",
    "lei_complementar": "LEI COMPLEMENTAR",
    "decreto": "DECRETO",
    "decreto_lei": "DECRETO-LEI",
    "medida_provisoria": "MEDIDA PROVISORIA",
    "emenda_constitucional": "EMENDA CONSTITUCIONAL",
    "resolucao": "RESOLUCAO",
    "provimento": "PROVIMENTO",
    "portaria": "PORTARIA",
    "instrucao_normativa": "INSTRUCAO NORMATIVA",
    "oficio": "OFICIO",
    "edital": "EDITAL",
    "circular": "CIRCULAR",
    "nota_tecnica": "NOTA TECNICA",
}


def _act_from_fields(fields: CitationFields, origin: str | None) -> str | None:
    """An act whose title is no designation (its subject, a file name) cited from its subtype and number."""
    number = _clean(fields.act_number)
    kind = _SUBTYPE_KINDS.get(fields.document_subtype or "")
    if number is None or kind is None:
        return None
    number = re.sub(r"^n\.?\s*[º°o]?\s*", "", number, flags=re.I) or number  # "nº 125" -> "125"
    name, statute = _ACT_KINDS[kind]
    return _designated(name, statute, "", number, fields.judgment_date or fields.document_date, origin)


def _designated(name: str, statute: bool, issuer: str, number: str, when: date | None, origin: str | None) -> str:
    """ "Resolução CNJ nº 125, de 29 de novembro de 2010": the issuer an acronym after the type, or leading."""
    year = re.search(r"/(\d{2,4})$", number)
    if when and year:
        digits = year[1]
        written_year = int(digits) if len(digits) == 4 else int(digits) + (1900 if int(digits) > 30 else 2000)
        if written_year == when.year:
            number = number[: year.start()]
        else:
            when = None  # the number's year and the date disagree: cite only what the title says
    named = not statute and origin and fold(origin).lower() not in fold(f"{name}{issuer}").lower()
    after = " " + origin if named and not issuer and re.fullmatch(r"[A-Z][A-Z0-9-]{1,11}", origin or "") else ""
    designation = f"{name}{issuer}{after} nº {number}"
    act = f"{designation}, de {_long_date(when)}" if when else designation
    return f"{origin}, {act}" if named and not after else act


def _issuer(issuing_body: str | None) -> str | None:
    """The body that issued an act, as the origin when no court is stored: its acronym when it is a known one."""
    body = _clean(issuing_body)
    if body is None:
        return None
    code = normalize_court(body)
    return court_label(code) if code and is_known_court(code) else body


def _eu_act(match: re.Match[str], title: str, signed: date | None, english: bool) -> str:
    kind = title[match.start("kind") : match.end("kind")].capitalize()
    parts = [kind]
    if not english and match["sub"]:
        sub = fold(match["sub"]).strip().lower()
        parts.append(" de Execução" if sub.startswith("de") else " " + match["sub"].strip().capitalize())
    if match["org"]:
        org = re.sub(r"\s+", "", match["org"]).upper().replace("EURATOM", " Euratom")
        parts.append(" " + org)
    number = title[match.start("num") : match.end("num")].upper()
    has_no = match.group(0)[match.end("org") if match["org"] else match.end("kind") : match.start("num")].strip()
    parts.append((" No " if english else " n.º ") + number if has_no else " " + number)
    if match["issuer"]:
        first = fold(match["issuer"]).split()[2 if english else 1].upper()
        parts.append(_EU_ISSUERS[first])
    when = _written_date(match, ENGLISH_MONTHS if english else _FOLDED_MONTHS) or signed
    if when:
        parts.append(f" of {when.day} {ENGLISH_MONTHS[when.month - 1].capitalize()} {when.year}" if english else "")
        if not english:
            parts.append(f", de {_long_date(when)}")
    return "".join(parts)


# ------------------------------------------------------------------------ opinions and filings

_OPINION_DESIGNATION = re.compile(
    r"^PARECER(?:\s+(?:JURIDICO|TECNICO|NORMATIVO|CONSULTIVO|DE\s+\w+))?\s*(?:N[º°o.]{0,2}|NUMERO)\s*\d[^,;]*", re.I
)
OPINION_SUBJECT_WORDS = 24
"""A parecer's subject line cited after "Parecer —" holds at most this many words: the archive's longest one (an
internal opinion on document authentication in blockchain) has 20; a longer line is its first sentence, cut."""


def _opinion(fields: CitationFields, title: str | None, origin: str | None) -> str | None:
    """ "MPMG, Parecer nº 16/2022 - PGJMG/PROCON-MG, 21/09/2022": issuer, designation, date. A title that is no
    designation is cited only when it is a subject line ("Parecer — Análise da viabilidade de ..."); the opening
    sentence of the text ("Trata-se de consulta formulada pelo advogado ...", cut where the title's room ends)
    is left out, and the parecer is cited as "Parecer" with its issuer and date."""
    date_part = _bare_date(fields)
    if title and _OPINION_DESIGNATION.match(fold(title)):
        return _join(origin, title, date_part)
    subject = re.sub(r"^PARECER\W*", "", title or "", flags=re.I).strip() if title else ""
    if subject and NARRATIVE.search(fold(subject)) is None and len(subject.split()) <= OPINION_SUBJECT_WORDS:
        return _join(origin, f"Parecer — {subject}", date_part)
    if origin is None and date_part is None:
        return None  # "Parecer" alone identifies nothing
    return _join(origin, "Parecer", date_part)


def _petition(fields: CitationFields, title: str | None, origin: str | None) -> str | None:
    """ "AÇÃO CIVIL PÚBLICA CONSUMERISTA com pedido de liminar, MPRJ, 13/09/2022": the action it brings, who filed
    it, the date. With no title of its own (a PJe cover's table is none: see _real_title), the case it is filed in:
    "Petição, Procedimento Comum 0801234-56.2020.8.19.0001, TJRJ, 24/06/2020"; None without either."""
    if title:
        return _join(title, origin, _bare_date(fields))
    number, cls = _clean(fields.process_number), _clean(fields.procedural_class)
    if number is None:
        return None
    case = f"{cls} {number}" if cls else number
    return _join("Petição", case, origin, _bare_date(fields))


# --------------------------------------------------------------------------------- doctrine

_SUFFIXES = frozenset({"filho", "filha", "junior", "jr", "jr.", "neto", "neta", "sobrinho", "sobrinha"})
_PARTICLES = frozenset({"de", "da", "do", "dos", "das", "e", "d'", "van", "von", "del", "di"})
_THESES = {"tese": "Tese (Doutorado)", "dissertacao": "Dissertação (Mestrado)", "monografia": "Monografia"}
MAX_CITED_AUTHORS = 3
"""ABNT lets a reference name up to three authors; with more, the first and "et al."."""


def abnt_author(name: str) -> str | None:
    """ "Pedro Gomes de Queiroz" -> "QUEIROZ, Pedro Gomes de"; "JOÃO DA SILVA FILHO" -> "SILVA FILHO, João da";
    a name already inverted ("Queiroz, Pedro") keeps its order. None for a blank name."""
    text = _clean(re.sub(r"[\d*¹²³]+$", "", name.strip()))  # a footnote mark printed after the name
    if text is None:
        return None
    if "," in text:
        surname, given = (part.strip() for part in text.split(",", 1))
        return f"{surname.upper()}, {given}" if given else surname.upper()
    words = text.split()
    if len(words) == 1:
        return words[0].upper()
    take = 2 if len(words) > 2 and fold(words[-1]).lower() in _SUFFIXES else 1
    surname, given = words[-take:], words[:-take]
    if text.isupper():  # a cover printed in capitals: the given names as a name is written
        given = [w.lower() if w.lower() in _PARTICLES else w.capitalize() for w in given]
    return f"{' '.join(surname).upper()}, {' '.join(given)}"


def _sentence(text: str) -> str:
    return text if text.endswith((".", "?", "!")) else text + "."


def _doctrine(fields: CitationFields, title: str | None) -> str | None:
    """ "SOBRENOME, Nome. Título. Venue, ano." (ABNT-like); None without a title of its own."""
    if title is None:
        return None
    names = [n for n in (abnt_author(a) for a in fields.authors) if n]
    authors = "; ".join(names) if len(names) <= MAX_CITED_AUTHORS else f"{names[0]} et al"
    venue = _clean(fields.venue)
    thesis = _THESES.get(fields.document_subtype or "")
    where = f"{thesis} – {venue}" if thesis and venue else thesis or venue
    year = str(fields.year) if fields.year else None
    if year and where and re.search(rf"(?<!\d){year}(?!\d)", where):
        year = None  # the venue prints it already ("v. 25, n. 3, jul./set. 2020"): not ", 2020" once more
    parts = [authors or None, title, _join(where, year)]
    return " ".join(_sentence(p) for p in parts if p)
