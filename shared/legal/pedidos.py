"""The requests a petition ends with (its pedidos): "DOS PEDIDOS ... Diante do exposto, requer: a) a citação do réu;
b) a procedência do pedido ...; c) a condenação ... Termos em que pede deferimento."

A lawyer reads a petição inicial, a contestação or an appeal by what it asks for, and the asking is written in
fixed forms: a heading ("V – DOS PEDIDOS", "DO PEDIDO LIMINAR", "DOS REQUERIMENTOS") or a closing formula ("Ante o
exposto", "Diante do exposto", "Isto posto" ... "requer"), then the requests as items lettered, numbered or in
Roman numerals ("a)", "b)"; "I –", "II –"; "1.", "2."), on lines of their own or run into one paragraph, or a single
request in a sentence ("requer seja conhecido e provido o presente recurso"); and the closing ("Termos em que pede
deferimento", "Dá-se à causa o valor de", the place and date, the signature) ends them. What comes before the last
such block is argument, where "requer" and "pedido" are quoted or discussed, so only the final block is read.
"""

import re

from precedente.shared.legal.text import fold

__all__ = ["PEDIDO_MAX", "read_pedidos"]

PEDIDO_MAX = 300
"""A request longer than this is cut at a word and ends in "…": the list says what is asked, the text says how."""
BLOCK_GAP = 8000
"""Two request headings further apart than this (in characters) are not one block: the first was argued."""

_NUMBERED = r"(?:(?:[IVXLC]{1,6}|\d{1,2}(?:\.\d{1,2})*)\s*[-–—.)]\s*)?"
_HEADING = re.compile(
    rf"^[ \t]*{_NUMBERED}(?:(?:DA\s+)?CONCLUSAO\s+(?:E|&)\s+)?(?:D[OA]S?\s+)?(?:PEDIDOS?|REQUERIMENTOS?)\b"
    r"(?![ \t]*[a-z])[^\n]{0,60}$",
    re.M,
)
"""A requests heading on a line of its own, folded: "DOS PEDIDOS", "IV – DO PEDIDO LIMINAR", "3. DOS REQUERIMENTOS"
("Do pedido" in small letters too, but not a sentence that opens with "Pedidos")."""
_OTHER_HEADING = re.compile(rf"^[ \t]*{_NUMBERED}(?:D[OA]S?\s+)?[A-Z][A-Z \t,;'\"()/-]{{3,100}}$", re.M)
"""An upper-case heading ("III – DO DIREITO", "DA TUTELA DE URGÊNCIA"): what separates two runs of request headings."""
_FORMULA = re.compile(
    r"^[ \t]*(?:(?:Ante|Diante|Em\s+face|Face|Pelo|Por\s+todo)\s+(?:o\s+|do\s+|ao\s+)?(?:todo\s+o\s+)?expost[oa]|"
    r"(?:Isto|Isso)\s+posto|Posto\s+isso|Ex\s+positis|Diante\s+disso|Por\s+(?:tais|essas|estas)\s+razoes|"
    r"Em\s+conclusao|Assim\s+sendo)\b[^\n]{0,400}?\b(?:requer(?:em|-se)?|pede(?:m)?|pugna(?:m)?|postula(?:m)?)\b",
    re.M | re.I,
)
"""A closing formula that asks: "Ante o exposto, requer", "Diante do exposto, requer-se:", "Isto posto, pugna"."""
_REQUEST = re.compile(r"\b(?:requer(?:em|-se)?|pede(?:m)?|pugna(?:m)?|postula(?:m)?|protesta(?:m)?)\b", re.I)
_CLOSING = re.compile(
    r"^[ \t]*(?:(?:Termos\s+em\s+que|Nestes\s+termos|Nesses\s+termos|N\.\s*termos)\b|"
    r"Pede(?:m)?\s+(?:e\s+espera(?:m)?\s+)?deferimento|(?:Aguarda|Espera)(?:m)?\s+deferimento|"
    r"(?:Da|Atribui|Confere)-se\s+(?:a|à)\s+(?:esta\s+|presente\s+)?(?:causa|acao|demanda)|Valor\s+da\s+causa|"
    r"Local\s+e\s+data|[A-Z][A-Za-z \t/()-]{1,40},\s*\d{1,2}[º°o]?\s+de\s+[a-z]+\s+de\s+\d{4}|"
    r"[^\n]{0,60}\bOAB\s*/?\s*[A-Z]{2}\b|Advogad[oa]s?[ \t]*$|Promotor[a]?\s+de\s+Justica[ \t]*$)",
    re.M | re.I,
)
"""Where the requests end: "Termos em que pede deferimento", the value of the claim, "São Paulo, 10 de março de
2024", a signature ("OAB/SP 123.456", "Promotor de Justiça")."""

_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
_LEAD = r"(?:^[ \t]*|(?<=[;:])[ \t]*(?:(?:e|ou)[ \t]+)?|(?<=[;:])\s*\n[ \t]*)"
"""Where an item marker can stand: opening a line, or after the ";" or ":" of the item or the lead before it
("requer: a) a citação; b) a procedência; e c) ...")."""
_MARKERS: dict[str, re.Pattern[str]] = {
    style: re.compile(rf"{_LEAD}(?P<m>{pattern})", re.M)
    for style, pattern in (
        ("roman", r"(?P<n>[IVXLC]{1,6})(?:[ \t]*[-–—.)]|[ \t]+-)(?=\s)"),
        ("lower_roman", r"\(?(?P<n>[ivx]{1,5})\)(?=\s)"),
        ("letter", r"\(?(?P<n>[a-zA-Z])[ \t]?\)(?=\s)|(?P<n2>[a-zA-Z])[ \t]*[.–—-](?=\s)"),
        ("number", r"(?P<n>\d{1,2})[ \t]*(?:[.)º]|[ \t]?[-–—])(?=\s)(?![ \t]*\d)"),
    )
}
"""Item markers by style: "I –", "i)", "a)" / "(a)" / "a.", "1." / "1)" / "1 –"."""


def _roman(text: str) -> int:
    total = 0
    for ch, nxt in zip(text, [*text[1:], ""], strict=True):
        value = _ROMAN_VALUES[ch]
        total += -value if nxt and _ROMAN_VALUES[nxt] > value else value
    return total


def _ordinal(style: str, match: re.Match[str]) -> int:
    value = match["n"] or match.groupdict().get("n2") or ""
    if style == "letter":
        return ord(value.lower()) - ord("a") + 1
    if style in ("roman", "lower_roman"):
        return _roman(value.upper())
    return int(value)


def _marker(text: str, start: int, end: int, style: str, ordinal: int) -> re.Match[str] | None:
    """The first marker of `style` numbered `ordinal` in text[start:end], where a marker can stand and not on a
    heading line ("II – DOS REQUERIMENTOS" is the next heading, not the second request)."""
    for match in _MARKERS[style].finditer(text, start, end):
        if _ordinal(style, match) != ordinal:
            continue
        line_start = text.rfind("\n", 0, match.start("m")) + 1
        if _HEADING.match(text, line_start) or _OTHER_HEADING.match(text, line_start):
            continue
        return match
    return None


def _first_marker(text: str, start: int, end: int) -> tuple[str, re.Match[str]] | None:
    """The style and match of the earliest first item ("I –", "i)", "a)", "1.") in text[start:end]."""
    found = [(m.start("m"), style, m) for style in _MARKERS if (m := _marker(text, start, end, style, 1))]
    if not found:
        return None
    _, style, match = min(found, key=lambda item: item[0])
    return style, match


def _block(text: str) -> tuple[int, int] | None:
    """[start, end) of the final requests block in the folded text: from the first heading of its last run of
    request headings, or from the last closing formula that asks when argument headings come after those (or there
    are none), to the closing that follows."""
    headings = list(_HEADING.finditer(text))
    start: int | None = None
    if headings:
        start = headings[-1].start()
        for previous in reversed(headings[:-1]):
            between = text[previous.end() : start]
            if _OTHER_HEADING.search(between) or len(between) > BLOCK_GAP:
                break
            start = previous.start()
    formulas = list(_FORMULA.finditer(text))
    if formulas and (start is None or _argued_after(text, start, formulas[-1].start())):
        start = formulas[-1].start()
    if start is None:
        return None
    first_line_end = text.find("\n", start)
    closing = _CLOSING.search(text, first_line_end + 1 if first_line_end >= 0 else len(text))
    end = closing.start() if closing else len(text)
    return (start, end) if end > start else None


def _argued_after(text: str, heading: int, formula: int) -> bool:
    """Whether the formula comes after the request heading with an argument heading between them: the heading
    announced a request argued for ("DO PEDIDO DE TUTELA DE URGÊNCIA"), the formula closes the petition."""
    return formula > heading and bool(_OTHER_HEADING.search(text, text.find("\n", heading) + 1, formula))


def _tidy(text: str) -> str:
    """One line, without the joining "; e" / "." at its end, cut at PEDIDO_MAX."""
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"(?:\s*[;,.]\s*(?:e|ou)?|\s+(?:e|ou))\s*$", "", text).strip(" ,;:–—-")
    if len(text) > PEDIDO_MAX:
        text = text[: PEDIDO_MAX - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"
    return text


_SUBJECT = re.compile(
    r"(?:a\s+V\.?\s*Exa?\.?|a\s+Vossa\s+Excelencia|[oa]s?\s+[A-Z][\w ]{0,40}?)\s*(?=,|\s(?:seja|sejam|a|o|que)\b)"
)
"""Who asks, between the verb and the ask: "requer o Apelante seja ...", "requer a V. Exa. que ..."."""


def _request_of(paragraph: str) -> str | None:
    """A paragraph that asks on its own ("Ante o exposto, requer, liminarmente, que ...") from what it asks: the
    words after its verb, or from "Protesta" on. None for a lead that only announces items ("Requer, ainda:")."""
    folded = fold(paragraph)
    verb = _REQUEST.search(folded)
    if verb is None or paragraph.rstrip().endswith(":"):
        return None
    if verb[0].lower().startswith("protesta"):
        return _tidy(paragraph[verb.start() :])  # "Protesta provar o alegado por todos os meios": the verb is the ask
    rest = verb.end() + len(folded[verb.end() :]) - len(folded[verb.end() :].lstrip(" ,:-–—"))
    subject = _SUBJECT.match(folded, rest)
    asked = paragraph[subject.end() if subject else rest :].lstrip(" ,")
    return _tidy(asked) if len(asked.split()) >= 3 else None


def _paragraphs(text: str) -> list[str]:
    """Paragraphs of a stretch of text, a heading line on its own; one broken by a page ("no valor mínimo\\n\\nde
    R$ 1.000,00") is joined."""
    parts: list[str] = []
    open_part: list[str] = []
    for line in [*text.split("\n"), ""]:
        heading = bool(_OTHER_HEADING.fullmatch(fold(line.strip())))
        if not line.strip() or heading:
            if open_part:
                parts.append(" ".join(open_part))
            open_part = []
            if heading:
                parts.append(line.strip())
            continue
        open_part.append(line.strip())
    merged: list[str] = []
    for part in parts:
        joins = merged and not _OTHER_HEADING.fullmatch(fold(merged[-1])) and not _OTHER_HEADING.fullmatch(fold(part))
        if joins and (part[0].islower() or not re.search(r"[.;:!?]$", merged[-1])):
            merged[-1] = f"{merged[-1]} {part}"
        else:
            merged.append(part)
    return merged


def _item_end(text: str, start: int, end: int) -> int:
    """Where the last item of a list ends: at the first paragraph after it that starts anew (a capital after a full
    stop or a semicolon, "Protesta provar ..."; a heading), else at the block's end."""
    for match in re.finditer(r"\n\s*\n\s*(?=\S)", text[start:end]):
        pos = start + match.end()
        before = text[start : start + match.start()].rstrip()
        if (text[pos].isupper() and re.search(r"[.;!]$", before)) or _OTHER_HEADING.match(text, pos):
            return pos
    return end


def read_pedidos(text: str, folded: str | None = None) -> list[str]:
    """The requests of the petition whose whole text this is, in order, each on one line of at most PEDIDO_MAX
    characters without its marker ("a citação do réu para, querendo, contestar"); [] when it has no block of
    requests (see the module docstring). folded: fold(text), when the caller has it (DocumentText.ffull)."""
    folded = fold(text) if folded is None else folded
    block = _block(folded)
    if block is None:
        return []
    position, end = block
    pedidos: list[str] = []
    while position < end:
        first = _first_marker(folded, position, end)
        lead_end = first[1].start("m") if first else end
        for paragraph in _paragraphs(text[position:lead_end]):
            if not _HEADING.fullmatch(fold(paragraph)) and (asked := _request_of(paragraph)):
                pedidos.append(asked)
        if first is None:
            break
        style, current = first
        ordinal = 1
        while current is not None:
            following = _marker(folded, current.end(), end, style, ordinal + 1)
            item_end = following.start("m") if following else _item_end(folded, current.end(), end)
            if item := _tidy(text[current.end() : item_end]):
                pedidos.append(item)
            current, ordinal, position = following, ordinal + 1, item_end
    return list(dict.fromkeys(pedidos))
