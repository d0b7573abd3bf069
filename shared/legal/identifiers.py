"""Personal identifiers that never belong on a card: CPF, CNPJ, RG, OAB numbers, e-mail addresses and phone numbers.

A card (its citation, title and reason line) is pasted into petitions and shown beside results of documents the caller
may not open, so what identifies a private person is cut from it where it is built (precedente.shared.legal.citing,
precedente.shared.legal.titles, precedente.services.search.explain). The passage itself keeps them: it is shown only to
whom may see the document.

Each identifier is matched with the label that announces it ("CPF nº", "inscrito na OAB/SP sob o nº",
"e-mail:", "Tel.:"), so that removing it leaves no dangling label. Formatted numbers (CPF 000.000.000-00, CNPJ
00.000.000/0000-00, "(21) 99999-9999", an address with "@") are identifiers on their own; bare digit runs only
after their label, since a bare 11-digit run may be a case's number. Measured on ../shared/archive and
../shared/docs: the CNJ numbers (0000000-00.0000.0.00.0000), STJ registry numbers (2019/0265897-7), CEPs and
dates none of these patterns take.
"""

import re
from functools import lru_cache

__all__ = ["find_identifiers", "has_identifier", "remove_identifiers"]

_NUMBER_LABEL = r"(?:\s*(?:n[º°o.]{0,2}|n[uú]mero)\s*)?\s*[:.]?\s*"
_UNDER = r"(?:\s*,?\s*sob\s+(?:o|os)\s*(?:n[º°o.]{0,2}|n[uú]meros?)?\s*[:.]?\s*)?"
_PATTERNS: list[tuple[str, str]] = [
    ("cnpj", r"(?:\bCNPJ(?:/MF)?" + _UNDER + _NUMBER_LABEL + r")?\b\d{2}\.?\d{3}\.?\d{3}/\d{4}-?\d{2}\b"),
    ("cnpj", r"\bCNPJ(?:/MF)?" + _UNDER + _NUMBER_LABEL + r"\d{14}\b"),
    ("cpf", r"(?:\bCPF(?:/MF)?" + _UNDER + _NUMBER_LABEL + r")?(?<![\d.])\d{3}\.\d{3}\.\d{3}-\d{2}(?![\d])"),
    ("cpf", r"\bCPF(?:/MF)?" + _UNDER + _NUMBER_LABEL + r"\d{3}\.?\d{3}\.?\d{3}-?\d{2}\b"),
    (
        "rg",
        r"\b(?:RG|R\.G\.|C\.I\.|[Cc]arteira\s+de\s+[Ii]dentidade|[Cc][ée]dula\s+de\s+[Ii]dentidade)"
        + _UNDER
        + _NUMBER_LABEL
        + r"\d[\dXx.\-]{3,14}(?:\s*[-–/]?\s*(?:SSP|SESP|DETRAN|IFP|PC|SDS|SSPDS|SEJUSP)(?:\s*[-/]\s*[A-Z]{2})?)?",
    ),
    (
        "oab",
        r"\bOAB\s*(?:[/-]\s*|\s+)?(?:[A-Z]{2}\b)?" + _UNDER + _NUMBER_LABEL + r"\d(?:[\d.]{0,9}\d)?(?:-?[A-Z]\b)?"
        r"(?:\s*[/-]\s*[A-Z]{2}\b)?",
    ),
    ("email", r"(?:\b[Ee]-?mail\s*:?\s*)?[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    (
        "phone",
        r"(?:\b(?:[Tt]el(?:efone)?|[Ff]one|[Cc]el(?:ular)?|[Ww]hats[Aa]pp|[Ff]ax)s?\.?\s*:?\s*)?"
        r"(?:\+\s?55\s?)?\(\s?\d{2}\s?\)\s?9?\d{4}[-\s]?\d{4}(?:\s*/\s*\d{4})?\b",
    ),
    (
        "phone",
        r"(?:\b(?:[Tt]el(?:efone)?|[Ff]one|[Cc]el(?:ular)?|[Ww]hats[Aa]pp|[Ff]ax)s?\.?\s*:?\s*)?"
        r"(?:\+\s?55\s?)?(?<![\d.\-/])\d{2}\s9?\d{4}-\d{4}(?:\s*/\s*\d{4})?\b",
    ),
    (
        "phone",
        r"\b(?:[Tt]el(?:efone)?|[Ff]one|[Cc]el(?:ular)?|[Ww]hats[Aa]pp|[Ff]ax)s?\.?\s*:?\s*(?:\+\s?55\s?)?"
        r"(?:\(?\d{2}\)?\s?)?9?\d{4}-?\d{4}(?:\s*/\s*\d{4})?\b",
    ),
]
_COMPILED = [(kind, re.compile(pattern)) for kind, pattern in _PATTERNS]


def find_identifiers(text: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of each personal identifier in the text, with its label; sorted, not overlapping."""
    spans: list[tuple[int, int, str]] = []
    for kind, pattern in _COMPILED:
        for match in pattern.finditer(text):
            spans.append((match.start(), match.end(), kind))
    spans.sort(key=lambda s: (s[0], -s[1]))
    kept: list[tuple[int, int, str]] = []
    for span in spans:
        if kept and span[0] < kept[-1][1]:
            if span[1] > kept[-1][1]:
                kept[-1] = (kept[-1][0], span[1], kept[-1][2])
            continue
        kept.append(span)
    return kept


def has_identifier(text: str | None) -> bool:
    """Whether the text holds a personal identifier."""
    return bool(text) and bool(find_identifiers(text or ""))


# Cached: a card's passage, title and citation are cleaned again on every search that shows them.
@lru_cache(maxsize=1024)
def remove_identifiers(text: str | None) -> str | None:
    """The text without its personal identifiers and their labels (the clause "inscrito no CPF sob o nº ..."
    goes whole); spaces and punctuation left around them tidied. None stays None."""
    if not text:
        return text
    found = find_identifiers(text)
    if not found:
        return text
    parts, last = [], 0
    for start, end, _ in found:
        before = text[last:start]
        # the words that introduce the number: "inscrito no", "portadora da", "e", "com"
        before = re.sub(
            r"(?:,?\s*(?:(?:devidamente\s+)?(?:portador[a]?|inscrit[oa]|registrad[oa]|com|sob|e)\b[^,;()\n]{0,25}?"
            r"(?:\b(?:d[oa]s?|n[oa]s?|sob\s+o)\s*)?))$",
            "",
            before,
            flags=re.I,
        )
        parts.append(before)
        last = end
    parts.append(text[last:])
    result = "".join(parts)
    result = re.sub(r"\(\s*[,;/|-]*\s*\)", "", result)
    result = re.sub(r"\s+([,;.)])", r"\1", result)
    result = re.sub(r"([,;])(?:\s*[,;])+", r"\1", result)
    result = re.sub(r"\s{2,}", " ", result).strip(" ,;:-–—|/")
    return result or None
