"""The court, prosecution office or agency a document comes from, read from its letterhead, its judgment formula, its
case class or its CNJ number; codes as precedente.shared.legal.codes normalises them ("tjsp", "stj", "mpmg").

Courts only cited further down the text are not taken: citations name other courts.
"""

import re

from precedente.shared.legal import process_numbers
from precedente.shared.legal.codes import UF_BY_STATE, UFS, normalize_court
from precedente.shared.legal.document_text import DocumentText

__all__ = ["OPENING_LINES", "guess_court"]

OPENING_LINES = 8
"""Non-empty lines that count as a document's opening (letterhead, title, case number)."""

_STATES = "|".join(sorted((re.escape(s).replace(r"\ ", r"\s+") for s in UF_BY_STATE), key=len, reverse=True))
_OF_STATE = rf"(?:do\s+Estado\s+)?d[oea]s?\s+(?P<state>{_STATES})\b"
_ORDINALS = {"PRIMEIRA": 1, "SEGUNDA": 2, "TERCEIRA": 3, "QUARTA": 4, "QUINTA": 5, "SEXTA": 6}
_REGION = r"(?:(?P<n>\d{1,2})\s*[ªa]?|(?P<word>PRIMEIRA|SEGUNDA|TERCEIRA|QUARTA|QUINTA|SEXTA))\s+Regiao"


def _names(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern.replace(" ", r"\s+"), re.I)


# (pattern over folded text, acronym template); {uf} is the state's UF, {n} the region number.
_COURT_NAMES: list[tuple[re.Pattern[str], str]] = [
    (_names("Supremo Tribunal Federal"), "STF"),
    (_names("Superior Tribunal de Justica"), "STJ"),
    (_names("Tribunal Superior do Trabalho"), "TST"),
    (_names("Tribunal Superior Eleitoral"), "TSE"),
    (_names("Superior Tribunal Militar"), "STM"),
    (_names(f"Tribunal Regional Federal da {_REGION}"), "TRF{n}"),
    (_names(f"Tribunal Regional do Trabalho da {_REGION}"), "TRT{n}"),
    (_names(f"Tribunal Regional Eleitoral {_OF_STATE}"), "TRE-{uf}"),
    (_names("Tribunal de Contas da Uniao"), "TCU"),
    (_names(f"Tribunal de Contas {_OF_STATE}"), "TCE-{uf}"),
    (_names("Tribunal de Justica do Distrito Federal e (?:dos )?Territorios"), "TJDFT"),
    (_names(f"Tribunal de Justica {_OF_STATE}"), "TJ{uf}"),
    (_names(f"Poder Judiciario do Estado d[oea]s? (?P<state>{_STATES})\\b"), "TJ{uf}"),
    (_names("Conselho Administrativo de Recursos Fiscais"), "CARF"),
    # the EU's court, as its Portuguese and English judgments head themselves
    (_names("Tribunal de Justica (?:das Comunidades Europeias|da Uniao Europeia)"), "TJUE"),
    (
        _names(
            "(?:ACORDAO DO )?TRIBUNAL DE JUSTICA \\((?:Primeira|Segunda|Terceira|Quarta|Quinta|Sexta|Setima|"
            "Oitava|Nona|Decima|Grande) Secc?ao\\)"
        ),
        "TJUE",
    ),
    (_names("Court of Justice of the European (?:Union|Communities)|JUDGMENT OF THE COURT \\("), "TJUE"),
    (_names("Conselho Federal da Ordem dos Advogados do Brasil"), "OAB"),
    (_names(f"Ordem dos Advogados do Brasil,? (?:-\\s*)?(?:Conselho )?Secc?ional {_OF_STATE}"), "OAB-{uf}"),
    (_names("Ministerio Publico Federal|Procuradoria[-\\s]+Geral da Republica"), "MPF"),
    (_names("Ministerio Publico do Trabalho"), "MPT"),
    (_names("Ministerio Publico do Distrito Federal e (?:dos )?Territorios"), "MPDFT"),
    (_names(f"(?:Ministerio Publico|Procuradoria[-\\s]+Geral de Justica) {_OF_STATE}"), "MP{uf}"),
]
_UF_ALT = "|".join(sorted(UFS))
_COURT_ACRONYMS = re.compile(
    rf"(?<![\w-])(?:(?P<plain>STF|STJ|TST|TSE|STM|TCU|CARF|MPF|MPT|TJDFT|MPDFT)"
    rf"|TRF-?(?P<trf>[1-6])|TRT-?(?P<trt>\d{{1,2}})|TJ[-/]?(?P<tj>{_UF_ALT})|TRE-?(?P<tre>{_UF_ALT})"
    rf"|TCE-?(?P<tce>{_UF_ALT})|(?:MP|PGJ)-?(?P<mp>{_UF_ALT}))(?![\w])"
)
_CONVOCADO = re.compile(r"convocad[oa]\W*$", re.I)
_CLASS_PREFIX = r"(?:(?:[\w.-]+ ){1,3}[nN][oOaA][sS]? )*"
"""The recursos a class line opens with: "AgInt no ", "SEGUNDOS EMB.DECL. NO ", "AgRg nos EDcl no "."""
_CLASS_COURT = [
    (re.compile(rf"^{_CLASS_PREFIX}(?:AGRAVO EM )?RECURSO ESPECIAL\b|^{_CLASS_PREFIX}A?REsp\b"), "STJ"),
    (re.compile(rf"^{_CLASS_PREFIX}(?:RECURSO EXTRAORDINARIO|ARE\b|ADI\b|ADPF\b|ADC\b)"), "STF"),
    # the STF's constitutional actions written out, with a short number (a state court's has a CNJ number)
    (
        re.compile(
            rf"^{_CLASS_PREFIX}(?:ACAO DIRETA DE INCONSTITUCIONALIDADE|ACAO DECLARATORIA DE CONSTITUCIONALIDADE|"
            rf"ARGUICAO DE DESCUMPRIMENTO DE PRECEITO FUNDAMENTAL)\s+(?:N[º°o.]*\s*)?\d{{1,3}}(?:\.\d{{3}})?(?![\d-])"
        ),
        "STF",
    ),
    (re.compile(rf"^{_CLASS_PREFIX}(?:RECURSO DE REVISTA|AIRR\b)"), "TST"),
]


# Agencies and councils named in full in a letterhead (precedente.shared.legal.codes.AGENCIES).
_AGENCY_NAMES: list[tuple[re.Pattern[str], str]] = [
    (_names("Agencia Nacional de Telecomunicacoes"), "anatel"),
    (_names("Agencia Nacional de Energia Eletrica"), "aneel"),
    (_names("Agencia Nacional de Vigilancia Sanitaria"), "anvisa"),
    (_names("Agencia Nacional de Saude Suplementar"), "ans"),
    (_names("Agencia Nacional de Aviacao Civil"), "anac"),
    (_names("Agencia Nacional de Transportes Terrestres"), "antt"),
    (_names("Agencia Nacional do Petroleo"), "anp"),
    (_names("Conselho Administrativo de Defesa Economica"), "cade"),
    (_names("Comissao de Valores Mobiliarios"), "cvm"),
    (_names("Banco Central do Brasil"), "bcb"),
    (_names("Procuradoria[-\\s]+Geral da Fazenda Nacional"), "pgfn"),
    (_names("Conselho Nacional de Justica"), "cnj"),
    (_names("Presidencia da Republica"), "presidencia"),  # the letterhead of federal decrees and laws
]


def _court_from_name(match: re.Match[str], template: str) -> str | None:
    groups = match.groupdict()
    uf = UF_BY_STATE.get(re.sub(r"\s+", " ", groups["state"]).upper()) if groups.get("state") else ""
    n = groups.get("n") or (str(_ORDINALS[groups["word"].upper()]) if groups.get("word") else "")
    if ("{uf}" in template and not uf) or ("{n}" in template and not n):
        return None
    return template.format(uf=uf, n=int(n) if n else "")


def _court_names(text: str) -> list[str]:
    """Every court or prosecution office named in full, in order of appearance; of two names
    starting at one place the longer wins ("... do Distrito Federal e dos Territórios")."""
    found: list[tuple[int, int, str]] = []
    for pattern, template in _COURT_NAMES:
        for match in pattern.finditer(text):
            court = _court_from_name(match, template)
            if court:
                found.append((match.start(), match.start() - match.end(), court))
    for pattern, code in _AGENCY_NAMES:
        for match in pattern.finditer(text):
            found.append((match.start(), match.start() - match.end(), code))
    return [court for *_, court in sorted(found)]


def _court_from_acronym(match: re.Match[str]) -> str:
    g = match.groupdict()
    if g["plain"]:
        return g["plain"]
    if g["trf"]:
        return f"TRF{g['trf']}"
    if g["trt"]:
        return f"TRT{int(g['trt'])}"
    if g["tj"]:
        return f"TJ{g['tj']}"
    if g["tre"]:
        return f"TRE-{g['tre']}"
    if g["tce"]:
        return f"TCE-{g['tce']}"
    return f"MP{g['mp']}"


_EU_ISSUERS = (
    r"\b(?:OF THE EUROPEAN PARLIAMENT|OF THE COUNCIL|OF THE COMMISSION|DO PARLAMENTO EUROPEU|DO CONSELHO|"
    r"DA COMISSAO)\b"
)
_EU_ACT_HEADING = re.compile(
    rf"^(?:DIRECTIVE|DIRECTIVA|DIRETIVA|REGULATION|REGULAMENTO|DECISION|DECISAO)\b[^\n]{{0,60}}?{_EU_ISSUERS}|"
    r"^(?i:(?:RECTIFICACAO|RETIFICACAO|CORRIGENDUM)\s+(?:AO?|DA|DO|TO(?:\s+THE)?)\s+"
    rf"(?:DIRECTIVE|DIRECTIVA|DIRETIVA|REGULATION|REGULAMENTO|DECISION|DECISAO)\b[^\n]{{0,60}}?{_EU_ISSUERS})",
    re.M,
)
"""An EU act's heading ("DIRECTIVE 2002/22/EC OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL"), or a corrigendum's
("Rectificação ao Regulamento (CE) n.º 593/2008 do Parlamento Europeu e do Conselho"): issued by the EU."""
_COURT_SITE = re.compile(
    r"\b(?P<court>stf|stj|tst|tse|stm|cnj|tj[a-z]{2}|trf\d|trt\d{1,2}|tre-[a-z]{2})\.jus\.br\b", re.I
)
_LETTERHEAD_LINE = 150
"""Longer lines of the letterhead zone are body text, where other courts are named (cited, appealed from)."""
_PARTY_PREFIX = re.compile(r"^\s*(?:[A-Z][A-Za-z.()/ -]{0,30})?:\s*$")
"""What precedes a name on a caption line that makes it a party ("AM. CURIAE. :MINISTERIO PUBLICO ...")."""
NO_COURT_TYPES = frozenset({"email", "doutrina"})
"""Types with no issuing court: the court a journal belongs to or an article studies is not the article's."""


def guess_court(doc: DocumentText, document_type: str = "outro") -> str | None:
    """The code of the court (or office, or agency) the document comes from (see _find_court); None for
    e-mails and doctrine. A compilation of case law (Jurisprudência em Teses, an Informativo, an ementário)
    lists many courts' cases: only its letterhead or the court's own site in its page furniture names it."""
    if document_type in NO_COURT_TYPES:
        return None
    court = _compilation_court(doc) if document_type == "jurisprudencia_compilada" else _find_court(doc)
    return normalize_court(court) if court else None


def _compilation_court(doc: DocumentText) -> str | None:
    named = _court_names(_letterhead(doc.fheader))
    if named:
        return named[0]
    pages = doc.page_texts[:2]
    sites = [{m["court"].lower() for m in _COURT_SITE.finditer(page)} for page in pages]
    common = set.intersection(*sites) if len(sites) == 2 else set()  # printed on every page: the publisher's
    return min(common).upper() if len(common) == 1 else None


def _letterhead(text: str) -> str:
    """The letterhead zone without its long (body) lines and its party lines, same offsets (blanked)."""
    out = []
    for line in text.split("\n"):
        colon = line.find(":")
        party = colon >= 0 and _PARTY_PREFIX.match(line[: colon + 1])
        out.append(" " * len(line) if len(line) > _LETTERHEAD_LINE or party else line)
    return "\n".join(out)


def _find_court(doc: DocumentText) -> str | None:
    """The court (or prosecution office) the document comes from, by decreasing evidence:

    1. the court named in the judgment formula "acordam os ... do <Tribunal>" (the TJMG's "acorda, em Turma, a 10ª
       CÂMARA CÍVEL do Tribunal de Justiça do Estado de Minas Gerais");
    2. an EU act's heading ("REGULAMENTO (UE) 2022/1925 DO PARLAMENTO EUROPEU E DO CONSELHO");
       the STJ's registration number in the caption ("HABEAS CORPUS Nº 1038671 - RJ (2025/0372192-1)"): the
       lines under it name the court a habeas corpus is against, and the origin's CNJ number;
       the first court, office or agency named in full in the letterhead zone of page 1, on a short line
       that is not a party's ("AM. CURIAE. : MINISTÉRIO PÚBLICO DO ESTADO DE MINAS GERAIS");
    3. a case class only one court judges ("RECURSO ESPECIAL" -> STJ, "SEGUNDOS EMB.DECL. NO RECURSO
       EXTRAORDINÁRIO" -> STF) on the document's first lines;
    4. the CNJ case number in the letterhead zone (its J.TR segment names the court);
    5. "e-STJ" page references; an acronym on a short opening line ("STJ", "TJ/SP", "PGJMG"),
       except one naming a judge's home court ("Desembargador convocado TJRS").
    Courts only cited further down the text are not taken: citations name other courts.
    """
    for match in re.finditer(r"\bacordam?\b", doc.fhead, re.I):  # "acorda, em Turma, a 10ª CÂMARA" (TJMG)
        named = _court_names(doc.fhead[match.end() : match.end() + 400])
        if named:
            return named[0]
    if _EU_ACT_HEADING.search(doc.fhead[:3000]):
        return "ue"
    if process_numbers.has_stj_caption(doc.opening_lines(OPENING_LINES + 2)):
        return "STJ"
    named = _court_names(_letterhead(doc.fheader))
    if named:
        return named[0]
    for line in doc.opening_lines(6):
        for pattern, court in _CLASS_COURT:
            if pattern.match(line):
                return court
    for match in process_numbers.CNJ.finditer(doc.fheader):
        court = process_numbers.court_of(process_numbers.format_number(match))
        if court:
            return court
    if re.search(r"\be-STJ\b", doc.head):
        return "STJ"
    for line in doc.opening_lines(OPENING_LINES):
        if len(line) > 100:
            continue
        for match in _COURT_ACRONYMS.finditer(line):
            if not _CONVOCADO.search(line[max(0, match.start() - 30) : match.start()]):
                return _court_from_acronym(match)
    return None
