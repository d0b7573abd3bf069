"""CNJ unified case numbers (Resolução CNJ 65/2008): NNNNNNN-DD.AAAA.J.TR.OOOO.

DD are check digits under ISO 7064 mod 97-10: the number read as NNNNNNN AAAA J TR OOOO DD is 1
modulo 97. A number that passes is almost surely a real case number (a typo passes with
probability 1/97), which is why the annotator trusts a checked number over any guess, and why a
bare run of 20 digits that passes can be read as a case number.
"""

import re

from precedente.shared.legal.codes import UFS

CNJ_PATTERN = r"(?<![\d.-])(?P<n>\d{7})-\s?(?P<dd>\d{2})\.(?P<a>\d{4})\.(?P<j>\d)\.(?P<tr>\d{2})\.(?P<o>\d{4})(?![\d])"
CNJ = re.compile(CNJ_PATTERN)
TST_NUMBER = re.compile(
    r"\bTST-(?P<cls>(?:[A-Z][A-Za-z]{0,5}-)+)(?P<n>\d{1,7})-(?P<dd>\d{2})\.(?P<a>\d{4})\.(?P<j>5)\.(?P<tr>\d{2})\."
    r"(?P<o>\d{4})(?!\d)"
)
"""The TST's own designation of a case: its classes and the CNJ number without the sequence's leading zeros,
"TST-AIRR-1000669-10.2013.5.02.0322", "TST-ED-RR-151-93.2010.5.09.0242" (the CNJ pattern does not see a number
run onto a class by a hyphen, nor an unpadded one)."""


def tst_number(match: re.Match[str]) -> tuple[str, bool]:
    """A TST_NUMBER match as the TST cites it ("AIRR-1000669-10.2013.5.02.0322") and whether its check digits hold."""
    g = match.groupdict()
    tail = f"{g['dd']}.{g['a']}.{g['j']}.{g['tr']}.{g['o']}"
    return f"{g['cls']}{g['n']}-{tail}", is_valid(f"{int(g['n']):07d}-{tail}")


STJ_CAPTION = re.compile(r"^[^\n]{3,80}?\bN[º°o]?\.?\s*\d[\d.]*\s*-\s*[A-Z]{2}\s*\(\d{4}/\d{7}-\d\)", re.M)
"""The STJ's caption: class, number, UF and the court's own registration number, "HABEAS CORPUS Nº 1038671 - RJ
(2025/0372192-1)"; no other court numbers its cases so. On ../shared/corpus it opens all 2,687 STJ monocráticas and no
other court's record; over the archive and docs PDFs it opens the STJ's acórdãos only. has_stj_caption reads it among
a document's opening lines: the STJ site's copy puts its own fields first ("Processo", "Relator(a)", "Data da
Publicação", "Decisão", then the caption), and the registration number may wrap to the next line."""


def has_stj_caption(opening_lines: list[str]) -> bool:
    """Whether the STJ's caption (STJ_CAPTION) is among these (folded) opening lines."""
    return bool(STJ_CAPTION.search("\n".join(opening_lines).replace("\n(", " (")))


EU_CASE = re.compile(r"\b(?:[Pp]rocesso|PROCESSO|[Cc]ase|CASE|[Aa]ssunto)\s+(?P<num>[CTF]-\d{1,4}/\d{2})\b")
"""A case of the EU courts, after the word that announces it ("Processo C-311/18"): its number, and a sign that
the document is the CJEU's (its rapporteur is read differently: shared/legal/judges.py)."""
CNJ_DIGITS = re.compile(r"(?<![\d./-])(?P<n>\d{7})(?P<dd>\d{2})(?P<a>\d{4})(?P<j>\d)(?P<tr>\d{2})(?P<o>\d{4})(?![\d])")

# TR of the state courts (J = 8) and of the regional electoral courts (J = 6): the states in
# alphabetical order of their names, as Resolução 65/2008 numbers them.
_TR_ORDER = [
    "AC",
    "AL",
    "AP",
    "AM",
    "BA",
    "CE",
    "DF",
    "ES",
    "GO",
    "MA",
    "MT",
    "MS",
    "MG",
    "PA",
    "PB",
    "PR",
    "PE",
    "PI",
    "RJ",
    "RN",
    "RS",
    "RO",
    "RR",
    "SC",
    "SE",
    "SP",
    "TO",
]
UF_BY_TR = {f"{i:02d}": uf for i, uf in enumerate(_TR_ORDER, start=1)}
assert set(UF_BY_TR.values()) == UFS


def check_digits(n: str, a: str, j: str, tr: str, o: str) -> str:
    """The two check digits of a CNJ number (ISO 7064 mod 97-10)."""
    return f"{98 - int(n + a + j + tr + o + '00') % 97:02d}"


def is_valid(number: str) -> bool:
    """Whether a CNJ number (formatted or 20 bare digits) has the right check digits."""
    match = CNJ.fullmatch(number) or CNJ_DIGITS.fullmatch(number)
    if not match:
        return False
    g = match.groupdict()
    return g["dd"] == check_digits(g["n"], g["a"], g["j"], g["tr"], g["o"])


def format_number(match: re.Match[str]) -> str:
    g = match.groupdict()
    return f"{g['n']}-{g['dd']}.{g['a']}.{g['j']}.{g['tr']}.{g['o']}"


def court_of(number: str) -> str | None:
    """The court code a CNJ number's J.TR segment names ("8.26" -> "tjsp", "4.03" -> "trf3")."""
    match = CNJ.fullmatch(number) or CNJ_DIGITS.fullmatch(number)
    if not match:
        return None
    j, tr = match["j"], match["tr"]
    if j == "8":
        uf = UF_BY_TR.get(tr)
        return None if uf is None else ("tjdft" if uf == "DF" else f"tj{uf.lower()}")
    if j == "4" and 1 <= int(tr) <= 6:
        return f"trf{int(tr)}"
    if j == "5" and 1 <= int(tr) <= 24:
        return f"trt{int(tr)}"
    if j == "6" and tr in UF_BY_TR:
        return f"tre_{UF_BY_TR[tr].lower()}"
    return {"1": "stf", "2": "cnj", "3": "stj", "5": "tst", "6": "tse", "7": "stm"}.get(j) if tr == "00" else None
