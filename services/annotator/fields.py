"""The legal fields read from a document's caption and formulas: case number, procedural class,
rapporteur, judging body, parties, subject and publication date.

Each reader looks where the field is printed (the caption labels "RELATOR : ...", "AGRAVANTE: ...",
the judgment formula "acordam os Ministros da Terceira Turma", the e-SAJ header "Classe - Assunto",
the DJe footer) and returns None rather than guess from the body, where names, numbers and dates
mostly belong to the cases a decision cites.
"""

import re
from datetime import date

from precedente.shared.legal import process_numbers
from precedente.shared.legal.codes import DECISION_TYPES, EU_ENGLISH_NAMES
from precedente.shared.legal.document_text import DocumentText
from precedente.shared.legal.sections import Section, detect_sections
from precedente.shared.legal.text import fold, title_case
from precedente.shared.legal.titles import Caption
from precedente.shared.payloads import PAGE_SEPARATOR, Page, Party

SUBJECT_MAX = 600
"""A subject is the ementa's keyword heading, cut at a sentence end within this many characters."""


# ---------------------------------------------------------------------------------- case number

_CLASS_PREFIXES = {
    "AgInt": "Agravo Interno",
    "AgRg": "Agravo Regimental",
    "AgR": "Agravo Regimental",
    "EDcl": "Embargos de Declaração",
    "ED": "Embargos de Declaração",
}
_PROCESS_LABEL = re.compile(
    r"(?:\bProcesso(?:\s+(?:SEI|Administrativo|Eletronico))?|\bAutos|\[Identificacao do processo\])\s*"
    r"(?:n[º°o.]*\s*|N[º°O]\s*)?:?\s*(?P<num>(?:TC[- ]?)?\d[\d.]*\d(?:[/-]\d+)*(?:-\d+)?)",
    re.I,
)


NO_CASE_TYPES = frozenset({"doutrina", "jurisprudencia_compilada", "ato_normativo"})
"""Types with no case of their own: the numbers an article, an Informativo or a provimento prints are of the cases
and administrative files they discuss or cite."""
_CAPTION_FIRST_LINES = 5
_BODY_LINE_CHARS = 150
"""The EU courts' case numbers: "No processo C-40/08", "In Case C-168/05" (C: Court of Justice, T: General Court)."""


def _in_body(text: str, pos: int) -> bool:
    """Whether pos falls on a long line: body text (the cleaner joins a paragraph into one line), where the
    numbers are of the cases a decision reports ("medida cautelar (Processo n. 1039442-59.2014.8.26.0100)")."""
    start, end = text.rfind("\n", 0, pos) + 1, text.find("\n", pos)
    return (len(text) if end < 0 else end) - start > _BODY_LINE_CHARS


def process_number(doc: DocumentText, document_type: str, caption: Caption | None) -> tuple[str | None, bool]:
    """(number, verified): the higher-court form of a caption opening the document ("REsp 1.602.076/SP",
    "AgR na ADI 5.000/DF"); else the CNJ number of the document's own case when its letterhead or caption
    prints one (verified by its check digits; not one inside a paragraph); else a later higher-court caption;
    else an EU court's case number ("C-40/08"); else a labelled administrative process number ("Processo
    SEI: ..."). None for doctrine, compilations and normative acts, which have no case of their own."""
    if document_type in NO_CASE_TYPES:
        return None, False
    if caption is not None and caption.short and caption.line < _CAPTION_FIRST_LINES:
        # a higher court's caption opening the document beats the CNJ numbers of the cases it reports
        return _higher_court_id(caption), False
    for match in process_numbers.CNJ.finditer(doc.header):
        if _in_body(doc.header, match.start()):
            continue
        number = process_numbers.format_number(match)
        return number, process_numbers.is_valid(number)
    for match in process_numbers.CNJ.finditer(doc.head[:4000]):
        if _in_body(doc.head, match.start()):
            continue
        if re.search(r"\b(?:Processo|Autos)\b[^\n]{0,20}$", doc.head[max(0, match.start() - 40) : match.start()], re.I):
            number = process_numbers.format_number(match)
            return number, process_numbers.is_valid(number)
    if caption is not None and caption.short and not process_numbers.CNJ.fullmatch(caption.number):
        return _higher_court_id(caption), False
    # the TST names its own case in its caption or in "Vistos, relatados e discutidos estes autos de ... n° TST-RR-..."
    for match in process_numbers.TST_NUMBER.finditer(doc.head):
        before = doc.head[max(0, match.start() - 160) : match.start()]
        if re.search(r"\b(?:autos\s+d[eo]\b|PROCESSO\b|Processo\s+n)[^\n]*$", before.replace("\n", " "), re.I):
            return process_numbers.tst_number(match)
    if tjmg := _TJMG_CAPTION.search(doc.head):
        return tjmg["num"], False
    if document_type in ("peticao",):
        return None, False
    eu_case = process_numbers.EU_CASE.search(doc.head[:3000])
    if eu_case:
        return eu_case["num"], False
    head = fold(doc.head[:3000])
    for match in _PROCESS_LABEL.finditer(head):
        if not _in_body(head, match.start()):
            return match["num"].rstrip("/-"), False
    return None, False


_TJMG_CAPTION = re.compile(
    r"^(?P<cls>[A-ZÀ-Ý][A-ZÀ-Ý ]{4,60}?)(?:-(?:CV|CR))?\s+N[º°o]\.?\s*(?P<num>\d\.\d{4}\.\d{2}\.\d{6}-\d/\d{3})\s+-\s+"
    r"COMARCA\b",
    re.M,
)
"""The TJMG's caption, its own numbering before the CNJ's: "AGRAVO DE INSTRUMENTO-CV Nº 1.0000.17.073359-6/001 -
COMARCA DE CONTAGEM - AGRAVANTE(S): ..." (LeNER-Br's TJMG acórdãos, ../shared/corpus: no number nor class was read)."""


def _higher_court_id(caption: Caption) -> str:
    number = caption.number
    if number.isdigit() and len(number) > 3:
        number = f"{int(number):,}".replace(",", ".")
    prefix = re.sub(r"\s+", " ", caption.prefix)
    ident = f"{prefix}{caption.short} {number}"
    return f"{ident}/{caption.uf}" if caption.uf else ident


# ------------------------------------------------------------------------------------ class

# Classes of the CNJ's procedural tables that petitions name ("AÇÃO CIVIL PÚBLICA CONSUMERISTA").
_ACTION_CLASSES = [
    "Ação Civil Pública",
    "Ação Popular",
    "Ação de Improbidade Administrativa",
    "Ação Civil Coletiva",
    "Ação Declaratória de Inconstitucionalidade",
    "Ação Direta de Inconstitucionalidade",
    "Ação Declaratória",
    "Ação Anulatória",
    "Ação de Cobrança",
    "Ação de Despejo",
    "Ação Monitória",
    "Ação Rescisória",
    "Ação de Indenização",
    "Ação Indenizatória",
    "Ação de Obrigação de Fazer",
    "Ação Revisional",
    "Ação de Execução",
    "Ação Cautelar",
    "Ação de Consignação em Pagamento",
    "Ação de Usucapião",
    "Ação Possessória",
    "Ação de Reintegração de Posse",
    "Mandado de Segurança Coletivo",
    "Mandado de Segurança",
    "Habeas Corpus",
    "Habeas Data",
    "Reclamação Trabalhista",
    "Execução de Título Extrajudicial",
    "Embargos à Execução",
    "Cumprimento de Sentença",
    "Procedimento Comum",
]


# The EU Court of Justice's kinds of proceedings, as its Portuguese and English judgments name them.
_EU_CLASSES = {
    "prejudicial": "Pedido de decisão prejudicial",
    "preliminary": EU_ENGLISH_NAMES["Reference for a preliminary ruling"],
    "incumprimento": "Ação por incumprimento",
    "failure": EU_ENGLISH_NAMES["Action for failure to fulfil obligations"],
    "anulacao": "Recurso de anulação",
    "annulment": EU_ENGLISH_NAMES["Action for annulment"],
}
"""A judgment in English is stored under the Portuguese name of its class: one class, one facet value, in the
lawyer's language."""
_EU_CLASS = re.compile(
    r"(?P<prejudicial>pedido de decisao prejudicial|reenvio prejudicial)|(?P<preliminary>reference for a preliminary"
    r"\s+ruling)|(?P<incumprimento>acao por incumprimento)|(?P<failure>action for failure to fulfil)|"
    r"(?P<anulacao>recurso de anulacao)|(?P<annulment>action for annulment)",
    re.I,
)


def procedural_class(doc: DocumentText, document_type: str, caption: Caption | None) -> str | None:
    """The class of the document's own case: from its caption, its e-SAJ "Classe" label, or the
    action a petition brings. None for documents that are not part of a judicial case."""
    if document_type not in DECISION_TYPES and document_type != "peticao":
        return None
    if caption is not None:
        prefixes = re.findall(r"(AgInt|AgRg|AgR|EDcl|ED)\s+(n[oa]s?)", caption.prefix)
        text = "".join(f"{_CLASS_PREFIXES[p]} {n.lower()} " for p, n in prefixes)
        return text + title_case(re.sub(r"\s+", " ", caption.cls))
    if process_numbers.EU_CASE.search(doc.head[:3000]):
        eu_class = _EU_CLASS.search(fold(doc.head[:3000]))
        if eu_class:
            return _EU_CLASSES[eu_class.lastgroup or ""]
    esaj = re.search(
        r"Classe(?:\s*-\s*Assunto)?\s*:?\s*\n?\s*(?P<cls>[^\n]+?)\s*(?:\s-\s|\n|$)(?P<next>[^\n]*)", doc.head, re.I
    )
    if esaj and (cls := _labelled_class(esaj["cls"], esaj["next"])):
        return title_case(cls)
    if tjmg := _TJMG_CAPTION.search(doc.head):
        return title_case(tjmg["cls"].strip())
    for _, line in doc.head_lines[:60]:
        folded = fold(line).upper()
        if not folded.startswith("ACAO") and not folded.startswith(("MANDADO", "HABEAS", "EXECUCAO", "EMBARGOS")):
            continue
        for name in sorted(_ACTION_CLASSES, key=len, reverse=True):
            if folded.startswith(fold(name).upper()):
                return name
        caps = re.match(r"[A-ZÀ-Ý ]{6,}", line)
        return title_case(caps.group().strip()) if caps else None
    return None


_CLASS_RUNS_ON = re.compile(r"\b(?:de|do|da|dos|das|em|no|na|e)$", re.I)
_CLASS_NUMBER = re.compile(r"\s+n(?:[º°o]|\.)?\s*(?:[º°]\s*)?[\d.\-/]*$", re.I)


def _labelled_class(value: str, next_line: str) -> str | None:
    """A "Classe :" label's value as the class alone: a wrapped one joined ("AÇÃO DIRETA DE" / "INCONSTITUCIONALIDADE"),
    the case number after it dropped ("Apelação n. 0715337-93.2014.8.01.0001", "Embargos de Declaração n."), and an
    acronym before the words it stands for ("ADI Ação Direta de Inconstitucionalidade"). Seen on the LeNER-Br acórdãos
    of ../shared/corpus (TJAC, TJDFT): the citation read "Ação Direta de 0016947-70.2017.8.07.0000"."""
    value = value.strip()
    follows = next_line.strip()
    if _CLASS_RUNS_ON.search(value) and follows and ":" not in follows and not re.search(r"\d", follows):
        value = f"{value} {follows}"
    value = _CLASS_NUMBER.sub("", value).strip()
    words = value.split()
    if len(words) > 2 and re.fullmatch(r"[A-Z]{2,6}", words[0]):
        initials = "".join(w[0] for w in words[1:] if not re.fullmatch(r"d[aeo]s?|e|em|n[oa]s?", w, re.I))
        if fold(initials).upper().startswith(words[0]):
            value = " ".join(words[1:])
    return value or None


# ------------------------------------------------------------------------------ judging body

_UNITS = {"primeir": 1, "segund": 2, "terceir": 3, "quart": 4, "quint": 5, "sext": 6, "setim": 7, "oitav": 8, "non": 9}
_TENS = {"decim": 10, "vigesim": 20, "trigesim": 30, "quadragesim": 40, "quinquagesim": 50}
_UNIT_WORD = r"(?:primeir|segund|terceir|quart|quint|sext|setim|oitav|non)[ao]"
_ORDINAL_WORD = rf"(?:(?:decim|vigesim|trigesim|quadragesim|quinquagesim)[ao](?:\s+{_UNIT_WORD})?|{_UNIT_WORD})"
_BODY = (
    r"(?P<ord>\d{1,2}\s*[ªºa°o]|"
    + _ORDINAL_WORD
    + r")\s+(?P<kind>Turma(?:\s+(?:Recursal|Civel|Criminal|Especializada))?|"
    r"C[aâ]mara(?:\s+(?:Civel|Criminal|de\s+Direito\s+(?:Privado|Publico|Empresarial)|Especial|Reservada[\w\s]{0,40}?))?|"
    r"Se[cç][aã]o(?:\s+(?:Civel|Criminal))?|Grupo\s+de\s+C[aâ]maras(?:\s+Civeis)?)"
    r"|(?P<named>Corte\s+Especial|[OÓ]rg[aã]o\s+Especial|Tribunal\s+Pleno|Plen[aá]rio|Conselho\s+Especial|"
    r"Subse[cç][aã]o\s+I{1,2}\s+Especializada\s+em\s+Diss[ií]dios\s+Individuais)"
)
_FORMULA = re.compile(
    r"\b(?:acordam?|decide|decidiu|certifico\s+que\s+a\s+egregia)\b[^.]{0,160}?\b(?:" + _BODY + r")", re.I
)
_BODY_LINE = re.compile(r"^\s*(?:" + _BODY + r")\b", re.I)
_VARA = re.compile(r"^\s*(?P<n>\d{1,3})\s*[ªºa]?\s+(?P<rest>(?:VARA|JUIZADO)\b[^\n]{0,80})$", re.I | re.M)


def _ordinal(text: str) -> int | None:
    text = fold(text).lower().strip()
    digits = re.match(r"\d+", text)
    if digits:
        return int(digits.group())
    total = 0
    for word in text.split():
        stem = word[:-1]
        total += _TENS.get(stem, 0) + _UNITS.get(stem, 0)
    return total or None


def _body_name(match: re.Match[str]) -> str:
    if match["named"]:
        named = title_case(fold(re.sub(r"\s+", " ", match["named"])))
        named = re.sub(r"\bIi\b", "II", named)  # "Subseção II Especializada em Dissídios Individuais"
        return (
            named.replace("Orgao", "Órgão")
            .replace("Plenario", "Plenário")
            .replace("Subsecao", "Subseção")
            .replace("Dissidios", "Dissídios")
        )
    kind = title_case(re.sub(r"\s+", " ", match["kind"]))
    kind = (
        kind.replace("Camara", "Câmara")
        .replace("Civel", "Cível")
        .replace("Secao", "Seção")
        .replace("Publico", "Público")
    )
    return f"{_ordinal(match['ord'])}ª {kind}"


_EU_BODY = re.compile(
    r"(?:TRIBUNAL DE JUSTICA|JUDGMENT OF THE COURT|THE COURT)\s*\((?:(?P<pt>(?P<pt_ord>\w+)\s+Secc?ao)|"
    r"(?P<en>(?:First|Second|Third|Fourth|Fifth|Sixth|Seventh|Eighth|Ninth|Tenth|Grand)\s+Chamber))\)",
    re.I,
)
"""The EU Court's formation in its judgment's heading: "ACÓRDÃO DO TRIBUNAL DE JUSTIÇA (Primeira Secção)",
"JUDGMENT OF THE COURT (First Chamber)"."""


def _eu_body_name(match: re.Match[str]) -> str:
    if match["en"]:  # "First Chamber" is the "1ª Secção" of the judgments in Portuguese
        english = title_case(re.sub(r"\s+", " ", match["en"]))
        return EU_ENGLISH_NAMES.get(english, english)
    ordinal = _ordinal(match["pt_ord"])
    return f"{ordinal}ª Secção" if ordinal else "Grande Secção"


def judging_body(doc: DocumentText, document_type: str) -> str | None:
    """The Turma, Câmara or Seção that judged (from the judgment formula or the judgment certificate,
    ordinals as numbers: "3ª Turma", "18ª Câmara Cível"), or the Vara of a first-instance decision."""
    if document_type not in DECISION_TYPES:
        return None
    text = fold(doc.full)
    eu_body = _EU_BODY.search(text[:3000])
    if eu_body:
        return _eu_body_name(eu_body)
    match = _FORMULA.search(text)
    if match:
        return _body_name(match)
    certificate = re.search(r"(?:CERTIDAO|TERMO)\s+DE\s+JULGAMENTO\s*\n\s*(?P<line>[^\n]+)", text)
    if certificate:
        line = _BODY_LINE.match(certificate["line"])
        if line:
            return _body_name(line)
    vara = _VARA.search(fold(doc.header))
    if vara:
        rest = title_case(re.sub(r"\s+", " ", vara["rest"]).strip())
        return f"{int(vara['n'])}ª {rest}"
    for _, line in doc.head_lines[:10]:
        match = _BODY_LINE.match(fold(line))
        if match:
            return _body_name(match)
    return None


# ---------------------------------------------------------------------------------- parties

_ROLES = {
    "RECORRENTE": "recorrente",
    "RECORRIDO": "recorrido",
    "RECORRIDA": "recorrido",
    "AGRAVANTE": "agravante",
    "AGRAVADO": "agravado",
    "AGRAVADA": "agravado",
    "APELANTE": "apelante",
    "APELADO": "apelado",
    "APELADA": "apelado",
    "EMBARGANTE": "embargante",
    "EMBARGADO": "embargado",
    "EMBARGADA": "embargado",
    "IMPETRANTE": "impetrante",
    "IMPETRADO": "impetrado",
    "IMPETRADA": "impetrado",
    "AUTOR": "autor",
    "AUTORA": "autor",
    "REU": "reu",
    "RE": "reu",
    "REQUERENTE": "requerente",
    "REQUERIDO": "requerido",
    "REQUERIDA": "requerido",
    "EXEQUENTE": "exequente",
    "EXECUTADO": "executado",
    "EXECUTADA": "executado",
    "IMPUGNANTE": "impugnante",
    "IMPUGNADO": "impugnado",
    "INTERESSADO": "interessado",
    "INTERESSADA": "interessado",
    "INTERES": "interessado",
    "PACIENTE": "paciente",
    "RECLAMANTE": "reclamante",
    "RECLAMADO": "reclamado",
    "RECLAMADA": "reclamado",
    "SUSCITANTE": "suscitante",
    "SUSCITADO": "suscitado",
    "CONTRATANTE": "contratante",
    "CONTRATADO": "contratado",
    "CONTRATADA": "contratado",
}
_ROLE_LINE = re.compile(r"^(?P<role>[A-Z]{2,12})\.?(?:\(A\)|\(S\))?\s*(?::\s*(?P<value>.*))?$")
_STOP = re.compile(r"^(?:EMENTA|ACORDAO|RELATORIO|VOTO|DECISAO|Vistos|CERTIDAO|E\s?M\s?E\s?N\s?T\s?A)\b")
_OTHER_LABEL = re.compile(
    r"^(?:ADVOGAD[OA]S?|PROCURADOR(?:ES|A)?|RELATOR[A]?|ORIGEM|JUIZ[A]?|PRESIDENTE)\b|^[A-Z][A-Za-z()]+\s*:", re.I
)


def _role(line: str) -> str | None:
    match = _ROLE_LINE.match(line)
    return _ROLES.get(match["role"].upper()) if match else None


def _clean_party(value: str) -> str | None:
    value = re.sub(r"\s+", " ", value).strip(" ;,")
    value = re.sub(r"\s+(?:E|e)\s+OUTR[OA]S?(?:\(S\))?$|\s+e\s+outr[oa]s?$", "", value).strip(" -")
    if len(re.findall(r"[A-Za-zÀ-ÿ]", value)) < 2 or len(value) > 150:
        return None
    return value


def parties(doc: DocumentText, document_type: str) -> list[Party]:
    """The parties of the document's own case and their roles: the caption labels of a decision
    ("RECORRENTE : NAME", "AGRAVADA: NAME"), or who files against whom in a petition (its filing formula,
    else the caption labels it prints: "Requerente: NAME")."""
    if document_type == "peticao":
        return _petition_parties(doc) or _caption_parties(doc, any_case=True)
    return _caption_parties(doc)


def _caption_parties(doc: DocumentText, any_case: bool = False) -> list[Party]:
    """Parties from "ROLE : NAME" labels on the opening lines, names running over the lines below; with
    any_case, labels in any case ("Requerente: NAME", as petitions print them; a decision's are in capitals)."""
    found: list[Party] = []
    lines = [fold(line) for _, line in doc.head_lines]
    if any_case:
        lines = [_upper_label(line) for line in lines]
    originals = [line for _, line in doc.head_lines]
    positions = [pos for pos, _ in doc.head_lines]

    def blank_between(a: int, b: int) -> bool:
        return bool(re.search(r"\n[ \t]*\n", doc.head[positions[a] : positions[b]]))

    i = 0
    while i < min(len(lines), 120):
        if _STOP.match(lines[i]) and found:
            break
        role = _role(lines[i])
        match = _ROLE_LINE.match(lines[i])
        if role is None:
            i += 1
            continue
        parts = [originals[i].split(":", 1)[1]] if match["value"] is not None and match["value"].strip() else []
        j = i + 1
        while j < len(lines) and j < i + 6:
            line = lines[j]
            if not parts and line.startswith(":"):
                parts.append(originals[j].lstrip(": "))
            elif (
                parts
                and not blank_between(j - 1, j)
                and not line.startswith(":")
                and _role(line) is None
                and not _OTHER_LABEL.match(line)
                and not _STOP.match(line)
                and not re.search(r"[a-z]{3}", line)
            ):
                parts.append(originals[j])
            else:
                break
            j += 1
        name = _clean_party(" ".join(parts)) if parts else None
        if name and all((p.name, p.role) != (name, role) for p in found):
            found.append(Party(name=name, role=role))
        i = j
    return found


_NAME_START = r"[A-ZÀ-Ý][^,\n]{3,150}?"
_FILING = re.compile(
    rf"^(?:O|A|OS|AS)?\s*(?P<autor>{_NAME_START})\s*,(?P<body>[\s\S]{{0,900}}?)\b(?:em\s+face\s+d[eoa]s?|contra)\s+"
    r"(?:(?:o\s+)?ato\s+(?:coator\s+)?(?:praticado\s+pel[oa]\s+|d[oa]\s+))?"  # a writ's "contra ato do DELEGADO"
    r"(?P<reu>[A-ZÀ-Ý][^,;\n]{2,150}?)\s*[,;]",
    re.M,
)
# A defence or an appeal names its filer first and the other side after "que lhe move", "movida por", "em face de".
_ANSWER = re.compile(
    rf"^(?:O|A|OS|AS)?\s*(?P<filer>{_NAME_START})\s*,(?P<body>[\s\S]{{0,900}}?)\b"
    r"(?:apresentar|oferecer|ofertar)\s+(?:a\s+(?:presente\s+)?|sua\s+)?CONTESTA[CÇ][AÃ]O\b",
    re.M,
)
_PLAINTIFF = re.compile(
    r"\b(?:que\s+lhe\s+(?:move|movem|promove|promovem)|movida\s+por|proposta\s+por|ajuizada\s+por)\s+"
    r"(?P<autor>[A-ZÀ-Ý][^,;\n]{2,150}?)\s*[,;]"
)
_APPEAL = re.compile(
    rf"^(?:O|A|OS|AS)?\s*(?P<filer>{_NAME_START})\s*,(?P<body>[\s\S]{{0,900}}?)\binterpor\s+"
    r"(?P<appeal>[\s\S]{3,400}?)\b(?:em\s+face\s+d[eoa]s?|contra)\s+(?P<other>[A-ZÀ-Ý][^,;\n]{2,150}?)\s*[,;]",
    re.M,
)
_APPEAL_ROLES = (
    ("APELA", ("apelante", "apelado")),
    ("AGRAVO", ("agravante", "agravado")),
    ("EMBARGOS", ("embargante", "embargado")),
)
_DECISION_WORDS = re.compile(r"^(?:a|o)?\s*(?:r\.|v\.|respeitavel|venerand[oa]|decisao|sentenca|acordao)\b", re.I)


def _petition_parties(doc: DocumentText) -> list[Party]:
    """Who files against whom, by the petition's formula: an initial one's "A, ..., vem propor ... em face de
    B," (autor and réu; impetrante and impetrado for a mandado de segurança, requerente and requerido when
    it "vem requerer"), a contestação's "B, ..., nos autos da ação que lhe move A, vem apresentar
    CONTESTAÇÃO" (the filer is the réu), an appeal's "A, ..., vem interpor RECURSO DE APELAÇÃO ... em face de
    B," (apelante and apelado; agravante, embargante; recorrente and recorrido otherwise)."""
    text = "\n".join(" ".join(p.split()) for p in re.split(r"\n\s*\n", doc.head))
    answer = _ANSWER.search(text)
    if answer and (plaintiff := _PLAINTIFF.search(answer["body"])):
        return _pair(plaintiff["autor"], "autor", answer["filer"], "reu")
    for match in _APPEAL.finditer(text):
        if _DECISION_WORDS.match(fold(match["other"])):
            continue  # "contra a r. sentença": the decision appealed, not the other party
        appeal = fold(match["appeal"][:60]).upper()  # "o presente RECURSO DE APELAÇÃO, com fundamento ..."
        first, second = next((pair for key, pair in _APPEAL_ROLES if key in appeal), ("recorrente", "recorrido"))
        return _pair(match["filer"], first, match["other"], second)
    for match in _FILING.finditer(text):
        if not re.search(r"\b(?:vem|vêm|propor|ajuizar|promover|impetrar)\b", match["body"]):
            continue
        verb = re.search(r"\b(propor|ajuizar|promover|impetrar|requerer)\b", match["body"])
        first, second = _FILING_ROLES.get(verb[1] if verb else "", ("autor", "reu"))
        return _pair(match["autor"], first, match["reu"], second)
    return []


_FILING_ROLES = {"impetrar": ("impetrante", "impetrado"), "requerer": ("requerente", "requerido")}


def _upper_label(line: str) -> str:
    """ "Requerente: NAME" -> "REQUERENTE: NAME" (the label only)."""
    label, colon, rest = line.partition(":")
    return f"{label.upper()}{colon}{rest}" if colon and len(label) <= 14 else line


def _pair(first: str, first_role: str, second: str, second_role: str) -> list[Party]:
    one, other = _clean_party(first), _clean_party(second)
    return [Party(name=n, role=r) for n, r in ((one, first_role), (other, second_role)) if n]


# ---------------------------------------------------------------------------------- subject

_NUMBERED_ITEM = re.compile(r"^\s*(?:\d{1,2}[.)]\s|[IVX]{1,4}[.)–-]\s)", re.M)


def _cut(text: str) -> str | None:
    text = re.sub(r"\s+", " ", text).strip(" -–:")
    if not text:
        return None
    if len(text) <= SUBJECT_MAX:
        return text
    head = text[:SUBJECT_MAX]
    ends = [
        m.end()
        for m in re.finditer(r"[.;](?=\s)", head)
        if not re.search(r"\b(?:art|n|arts|ART|N|Lei|LEI)\.$", head[: m.end()])
    ]
    return head[: ends[-1]].strip() if ends else head.rsplit(" ", 1)[0] + "…"


def subject(doc: DocumentText, pages: list[Page], document_type: str) -> str | None:
    """What the document is about: the keyword heading of its ementa (up to its first numbered
    paragraph), else the "Assunto" of an e-SAJ header or an e-mail, else a petition's summary
    paragraph, else the subject line of a judgment certificate."""
    text = "\f".join(p.text for p in pages)
    for section in detect_sections(pages, document_type):
        if section.top != "ementa":
            continue
        body = _section_text(pages, section)
        body = re.sub(r"^\s*E\s?M\s?E\s?N\s?T\s?A\s*[:.–-]?\s*", "", body, flags=re.I)
        numbered = _NUMBERED_ITEM.search(body)
        label = re.search(r"^\s*(?:ASSUNTO|INDEXACAO|REFERENCIAS?|INTERESSAD[OA]S?)\s*:", fold(body), re.M)
        # An upper-case keyword heading ends where a sentence of prose begins ("Consulta-nos ...").
        prose = (
            re.search(r"^\s*[A-ZÀ-Ý][a-zà-ÿ]", body, re.M)
            if not re.search(r"[a-zà-ÿ]", body.split("\n", 1)[0])
            else None
        )
        ends = [m.start() for m in (numbered, label, prose) if m and m.start() > 20]
        head = body[: min(ends)] if ends else body
        return _cut(head)
    esaj = re.search(r"Classe\s*-\s*Assunto\s*:?\s*\n?\s*[^\n]+?\s+-\s+(?P<subject>[^\n]+)", doc.head, re.I)
    if esaj:
        return _cut(esaj["subject"])
    mail = re.search(r"^(?:Assunto|Subject)\s*:\s*(?P<subject>.+)$", doc.head[:3000], re.M | re.I)
    if mail and document_type == "email":
        return _cut(mail["subject"])
    if document_type == "peticao":
        summary = _petition_summary(doc)
        if summary:
            return summary
    label = re.search(r"^ASSUNTO\s*:\s*(?P<subject>[^\n]+(?:\n[^\n:]{3,80}$)?)", text, re.M)
    if label:
        return _cut(label["subject"])
    return None


def _section_text(pages: list[Page], section: Section) -> str:
    return PAGE_SEPARATOR.join(p.text for p in pages)[section.char_start : section.char_end]


def _petition_summary(doc: DocumentText) -> str | None:
    """The paragraph a petition opens with between the addressing and the qualification of the
    parties, when it has one: lawyers put the case in a line there."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", doc.head) if p.strip()]
    addressed = False
    for paragraph in paragraphs[:12]:
        folded = fold(paragraph)
        if re.match(r"(?:EXCELENTISSIM|EXM[OA]|EGREGI|ILUSTRISSIM|ILM[OA])", folded, re.I):
            addressed = True
            continue
        if not addressed:
            continue
        if re.search(r"\b(?:vem|vêm)\b", paragraph) or len(paragraph.split()) < 12:
            if re.search(r"\b(?:vem|vêm)\b", paragraph):
                return None
            continue
        return _cut(paragraph)
    return None


# ---------------------------------------------------------------------------------- dates

_PUBLICATION_LABEL = re.compile(
    r"^\s*(?:Data\s+d[ae]\s+)?Publica[cç][aã]o\s*:\s*(?P<d>\d{1,2})/(?P<m>\d{1,2})/(?P<y>\d{4})", re.I | re.M
)
_JOURNAL = r"(?:Jornal\s+Oficial\s+da\s+Uni[aã]o\s+Europeia|Official\s+Journal\s+of\s+the\s+European\s+Union)"
_JOURNAL_DATE = r"(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4})"
_JOURNAL_FURNITURE = r"(?:[ \t]*(?:[A-Z]{2}|L\s*\d{1,3}/\d{1,4}|C\s*\d{1,3}/\d{1,4})[ \t]*\n){0,2}"
_OFFICIAL_JOURNAL = [  # the date above the Journal's name, or below it
    re.compile(rf"^[ \t]*{_JOURNAL_DATE}[ \t]*\n{_JOURNAL_FURNITURE}[ \t]*{_JOURNAL}[ \t]*$", re.M),
    re.compile(rf"^[ \t]*{_JOURNAL}[ \t]*\n{_JOURNAL_FURNITURE}[ \t]*{_JOURNAL_DATE}[ \t]*$", re.M),
]
"""The running head of a page of the EU's Official Journal, its issue's date beside the Journal's name and the
series and page ("EN / 18.6.2013 / Official Journal of the European Union / L 165/1", in either order): when the
act or judgment printed there was published. A citation of the Journal ("JO L 290 de 23.10.1997") is no page head."""
_PUBLICATION = [
    re.compile(r"Site\s+certificado\s*-\s*DJe\s*:\s*(?P<d>\d{1,2})/(?P<m>\d{1,2})/(?P<y>\d{4})"),
    re.compile(r"Publica[cç][aã]o\s+no\s+DJE?N?(?:/CNJ)?\s+de\s+(?P<d>\d{1,2})/(?P<m>\d{1,2})/(?P<y>\d{4})", re.I),
    _PUBLICATION_LABEL,
    re.compile(r"^\s*DJe\s*:\s*(?P<d>\d{1,2})/(?P<m>\d{1,2})/(?P<y>\d{4})", re.M),
    *_OFFICIAL_JOURNAL,
]


def publication_date(doc: DocumentText) -> date | None:
    """When the document itself was published (the DJe footer of an STJ inteiro teor, the DJEN line
    of a signed acórdão, a "Publicação:" label, the Official Journal's running head over an EU act); never a date
    inside a citation."""
    for pattern in _PUBLICATION:
        # a "Publicação:" label counts on the first pages only: further down it is a quoted decision's
        for match in pattern.finditer(doc.head if pattern is _PUBLICATION_LABEL else doc.full):
            try:
                return date(int(match["y"]), int(match["m"]), int(match["d"]))
            except ValueError:
                continue
    return None
