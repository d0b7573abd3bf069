"""Who judged a decision, read from its text: the relator (or the single judge) and the redator do acórdão.

Pure rules over a DocumentText, shared by the annotator (services/annotator/fields.py, at indexing) and the indexer's
start-up backfill of documents annotated before a rule existed (services/indexer/redator.py): one reading, one place.
A name is taken only after the label that announces it and only when it reads as a person's (people.is_person_name).
"""

import re

from precedente.shared.legal import process_numbers
from precedente.shared.legal.codes import DECISION_TYPES
from precedente.shared.legal.document_text import DocumentText
from precedente.shared.legal.people import is_person_name
from precedente.shared.legal.text import fold, title_case

# ---------------------------------------------------------------------------------- relator

_TITLES = re.compile(
    r"^(?:(?:O|A)\s+)?(?:EXM[OA]\.?\s+SR[A]?\.?\s+|Exm[oa]\.?\s+Sr[a]?\.?\s+)?"
    r"(?:MINISTR[OA]|Ministr[oa]|DESEMBARGADOR[A]?|Desembargador[a]?|DES(?:A)?\.|Des(?:a)?\.|MIN\.|Min\.|"
    r"JUIZ[A]?(?:\s+DE\s+DIREITO)?|Juiz[a]?(?:\s+de\s+Direito)?|CONSELHEIR[OA]|Conselheir[oa]|DR[A]?\.|Dr[a]?\.|"
    r"Dr\(a\)\.)\s+"
)
_RELATOR_LABEL = re.compile(r"^RELATOR(?:A|\(A\))?\s*(?:DO\s+(?!AC[OÓ]RD[AÃ]O\b)\w+\s*)?(?::\s*(?P<inline>.+))?$", re.I)
"""The caption's "RELATOR(A) :", "RELATOR DO PROCESSO :"; never "RELATORA DO ACÓRDÃO", the redator's (_REDATOR)."""
_JUDGE_LABEL = re.compile(r"^Ju[ií]z(?:a|\(a\))?(?:\s+de\s+Direito)?(?:\s+Substitut[oa])?\s*:\s*(?P<name>.+)$", re.I)
_SIGNS_AS = re.compile(
    r"^(?:(?:DESEMBARGADOR|Desembargador|MINISTR[OA]|Ministr[oa]|JUIZ|Juiz)[A-Za-z()]*\s+)?(?:RELATOR|Relator)(?:A|a|\(a\))?\.?$"
    r"|^(?:JU[IÍ]Z|Ju[ií]z)(?:A|a|\(a\))?\s+(?:DE\s+DIREITO|de\s+Direito|FEDERAL|Federal)(?:\s+SUBSTITUT[OA]|\s+Substitut[oa])?$"
)
ROLE_LABELS = re.compile(
    r"^(?:RECORRENTE|RECORRID[OA]|AGRAVANTE|AGRAVAD[OA]|APELANTE|APELAD[OA]|EMBARGANTE|EMBARGAD[OA]|IMPETRANTE|"
    r"IMPETRAD[OA]|AUTORA?|R[EÉ]U|R[EÉ]|REQUERENTE|REQUERID[OA]|INTERES\w*|ADVOGAD[OA]S?|PROCURADOR\w*|PACIENTE|"
    r"EXEQUENTE|EXECUTAD[OA]|REDATOR\w*|EMBTE|EMBDO|RECTE|RECDO|AGTE|AGDO|ASSIST|AM\.\s*CURIAE|PROC|ADV|REQTE|REQDO|"
    r"IMPTE|IMPDO|PACTE|INTDO)\.?(?:\([A-Z/]+\))*\.?\s*(?::|$|\s+D[OA]\b)"
)
"""A caption's party label ("AGRAVANTE :", "PACIENTE", "AGTE."): what follows is a party, never a judge or a title."""
_REPORTER = re.compile(
    r"^(?:O|A)\s+(?:SENHOR|SENHORA|Senhor|Senhora|EXM[OA]\.?\s+SR[A]?\.?|Exm[oa]\.?\s+Sr[a]?\.?)\s+"
    r"(?:MINISTR[OA]|Ministr[oa]|DESEMBARGADOR[A]?|Desembargador[a]?)\s+(?P<name>[^:(]{3,80}?)\s*"
    r"(?:\((?i:relator|relatora)\))?\s*:"
)
"""The opening of a relatório: "O SENHOR MINISTRO MARCO AURÉLIO BELLIZZE:", "O EXMO. SR. MINISTRO X (Relator):"."""
_EU_RAPPORTEUR = re.compile(
    r"(?P<name>(?:[A-Z][\w'’.-]*\.?\s+){0,3}[A-Z][\w'’-]+)\s*\((?i:relator|relatora|rapporteur)\)"
)
"""The EU Court's judge-rapporteur, marked in the composition: "M. Ilešič, A. Tizzano (relator), E. Levits"."""


_RANKS = re.compile(
    r"^(?:(?:Gen(?:eral)?\s+(?:de\s+)?Ex(?:[ée]rcito)?|Ten(?:ente)?[- ]Brig(?:adeiro)?(?:\s+(?:do\s+)?Ar)?|"
    r"Alte\.?\s+Esq(?:uadra)?|Almirante\s+de\s+Esquadra|Des[ªa]\.?|Dr[ªa]\.?)\s+)+",
    re.I,
)


def _clean_name(value: str) -> str | None:
    value = re.sub(r"\(.*?\)|\(.*$", "", value)  # "(DESEMBARGADOR CONVOCADO TJRS)"
    value = re.sub(r":\d+.*$", "", value)  # "CLAUDIO ... ORTO:14566 Assinado em ..."
    value = value.strip(" :,-")
    while True:
        stripped = _TITLES.sub("", value)
        if stripped == value:
            break
        value = stripped
    value = re.sub(r",?\s*(?:Relator|Revisor)(?:a)?\b.*$", "", value, flags=re.I).strip(" :,-.")
    # the caption's next label run onto the name: "Ricardo Lewandowski Agte. União"
    value = re.sub(
        r"\s+(?:Agte|Agdo|Agda|Recte|Recdo|Impte|Impdo|Pacte|Embte|Embdo|Reqte|Reqdo|Adv)s?\.?(?:\s.*)?$",
        "",
        value,
        flags=re.I,
    )
    value = _RANKS.sub("", value)  # the STM's military ministers: "Gen Ex", "Ten Brig Ar", "Alte Esq"
    if not re.search(r"[A-Za-zÀ-ÿ]{2}", value) or len(value) > 80 or not is_person_name(value):
        return None  # a party's caption, a court's name or a heading on the label's line is no relator
    return title_case(value)


def relator(doc: DocumentText, document_type: str) -> str | None:
    """The rapporteur of a collegiate decision, or the judge of a single-judge one: the caption's
    "RELATOR(A) :" label, a "Juiz(a) de Direito:" label, the minister who opens the relatório ("RELATÓRIO" /
    "O SENHOR MINISTRO X:"), an EU judge marked "(relator)" in the composition, or the name signed above
    "Relator"."""
    if document_type not in DECISION_TYPES:
        return None
    lines = [line for _, line in doc.head_lines]
    for i, line in enumerate(lines[:80]):
        label = _RELATOR_LABEL.match(line)
        if not label:
            continue
        parts = [label["inline"]] if label["inline"] else []
        for following in lines[i + 1 : i + 8]:
            if parts and (ROLE_LABELS.match(following) or following.startswith("(")):
                break
            if not parts and not following.startswith(":"):
                break
            parts.append(following.lstrip(": "))
        name = _clean_name(" ".join(parts)) if parts else None
        if name:
            return name
    for _, line in doc.head_lines[:60]:
        judge = _JUDGE_LABEL.match(line)
        if judge and (name := _clean_name(judge["name"])):
            return name
    for i, line in enumerate(lines[:80]):
        if fold(line).upper().replace(" ", "") in ("RELATORIO", "RELATORIO:") and i + 1 < len(lines):
            reporter = _REPORTER.match(fold(lines[i + 1]))  # who writes the relatório is the relator
            if reporter and (name := _clean_name(lines[i + 1][reporter.start("name") : reporter.end("name")])):
                return name
    if process_numbers.EU_CASE.search(doc.head[:3000]):
        rapporteur = _EU_RAPPORTEUR.search(doc.head[:5000])
        if rapporteur and is_person_name(name := re.sub(r"\s+", " ", rapporteur["name"]).strip()):
            return name
    all_lines = [line.strip() for line in doc.full.splitlines() if line.strip()]
    for i, line in enumerate(all_lines[1:], start=1):
        if _SIGNS_AS.match(line):
            name = _clean_name(all_lines[i - 1])
            if name and not re.search(r"\d", name):
                return name
    if all_lines and (signed := _SIGNED_INLINE.search(all_lines[-1])):
        name = _clean_name(signed["name"])
        if name and not re.search(r"\d", name):
            return name
    return None


_SIGNED_INLINE = re.compile(r"(?:^|[.;]\s+)(?P<name>[^.;:,\d]{5,80}?),?\s+(?:RELATOR|Relator)(?:A|a|\(a\))?\.?$")
"""The signature run onto the decision's last line, as a text copy of a monocrática ends: "Publique-se. Intimem-se.
Brasília, 30 de setembro de 2025. Ministro REYNALDO SOARES DA FONSECA Relator" (or "MINISTRO X, Relator").
A decision signed "Presidente" (the STJ's presidency rules on inadmissible appeals) names no relator here."""


# ---------------------------------------------------------------------------------- redator

_REDATOR = (
    r"(?:REDATOR(?:A|\(A\))?\s*(?:DO|PARA\s+O|P\s*/\s*O?)|RED\.\s*P\s*/\s*O?"
    r"|RELATOR(?:A|\(A\))?\s*(?:DO|PARA\s+O|P\s*/\s*O?)|R\.\s*P\s*/)\s*ACORDAO"
)
_REDATOR_LABEL = re.compile(rf"^{_REDATOR}\s*(?::\s*(?P<inline>.+))?$", re.I)
"""The caption's label of the minister who writes the acórdão when the relator is defeated: "REDATOR DO ACÓRDÃO :
MIN. ROBERTO BARROSO" (STF), "R.P/ACÓRDÃO : MINISTRO RAUL ARAÚJO" (STJ), "RELATOR(A) P/ ACÓRDÃO", "Red. p/ acórdão",
"RELATORA DO ACÓRDÃO" (the acórdão's writer, not the rapporteur: never read as the relator, _RELATOR_LABEL);
read on the accent-folded line."""
_REDATOR_SPLIT = re.compile(r"^(?:REDATOR(?:A|\(A\))?|RELATOR(?:A|\(A\))?)\s*(?:DO|PARA\s+O|P\s*/\s*O?)$", re.I)
"""A label the STF's two-column caption breaks in two: "REDATOR DO" / "ACÓRDÃO" / ": MIN. EDSON FACHIN"."""
_REDATOR_SIGNS = re.compile(rf"^{_REDATOR}$", re.I)
_NAME_TO_PERIOD = r"(?P<name>(?:(?:Des|Desa|Min|Dr|Dra)\.\s*)?[^.:;()\n]{3,80}?)\.(?=\s|$)"
_REDATOR_AFTER_RELATOR = (
    re.compile(
        r"\bRelator(?:a|\(a\))?\s*:\s*(?:(?:Des|Desa|Min|Dr|Dra)\.\s*)?[^.:;()\n]{3,80}?\.\s*"
        rf"Redator(?:a|\(a\))?\s+(?:para\s+o|do|p/\s*o?)\s*acordao\s*:\s*{_NAME_TO_PERIOD}",
        re.I,
    ),
    re.compile(
        r"\bVencid[oa]\s+(?:o|a|o\(a\))\s+(?:\w+\s+)?Relator(?:a|\(a\))?\.\s*"
        rf"Redator(?:a|\(a\))?\s+(?:para\s+o|do|p/\s*o?)\s*acordao\s*(?::\s*|(?:o|a)\s+){_NAME_TO_PERIOD}",
        re.I,
    ),
)
"""The sentence forms of a court that prints its caption and certidão as prose (the TJRN): "Relator: Desembargador
X. Redator para o acórdão: Desembargador Y. Ementa: ...", "Vencido o Juiz Relator. Redator para o acórdão o Juiz Y."
Only right after the relator's own sentence: a cited case reads "Rel. Min. X, Rel. p/ acórdão Min. Y, Pleno, j. ..."."""
REDATOR_SIGNATURE_PAGES = 6
"""Pages where the acórdão's signature ("Ministro EDSON FACHIN" / "Redator para o acórdão") is looked for: it closes
the ementa and acórdão, which open the document (page 5 of i279); later pages hold votes and cited cases."""


def redator(doc: DocumentText, document_type: str) -> str | None:
    """The redator do acórdão of a decision whose relator was defeated: a person's name after the caption's redator
    label, the name signed above "Redator para o acórdão" in the opening pages, or a prose caption's redator sentence
    right after its relator's. Never the nearest name in running text: there "Rel. p/ acórdão Min. X" is the redator of
    a case the decision cites (348 of the 355 ../shared/corpus decisions that carry a redator label)."""
    if document_type not in DECISION_TYPES:
        return None
    lines = [line for _, line in doc.head_lines[:80]]
    for i, line in enumerate(lines):
        folded, skip = fold(line), 0
        label = _REDATOR_LABEL.match(folded)
        if not label and _REDATOR_SPLIT.match(folded) and i + 1 < len(lines):
            folded, skip = f"{folded} {fold(lines[i + 1])}", 1
            label = _REDATOR_LABEL.match(folded)
            line = f"{line} {lines[i + 1]}"
        if not label:
            continue
        parts = [line[label.start("inline") :]] if label["inline"] else []
        for following in lines[i + 1 + skip : i + 6 + skip]:
            if parts and (ROLE_LABELS.match(following) or following.startswith("(")):
                break
            if not parts and not following.startswith(":"):
                break
            parts.append(following.lstrip(": "))
        if parts and (name := _clean_name(" ".join(parts))):
            return name
    signed = [line.strip() for text in doc.page_texts[:REDATOR_SIGNATURE_PAGES] for line in text.splitlines()]
    signed = [line for line in signed if line]
    for i, line in enumerate(signed[1:], start=1):
        if _REDATOR_SIGNS.match(fold(line)) and (name := _clean_name(signed[i - 1])):
            return name
    for sentence in _REDATOR_AFTER_RELATOR:
        said = sentence.search(doc.ffull)
        if said and (name := _clean_name(doc.full[said.start("name") : said.end("name")])):
            return name
    return None
