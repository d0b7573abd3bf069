"""Signature and authenticity stamps: boilerplate to drop from the text, facts to keep aside.

Electronic court and prosecution documents carry stamps that say who signed, when, and how to check
the copy ("Documento assinado eletronicamente por ...", e-SAJ's "Este documento é cópia do
original ...", SEI's "código verificador ... código CRC ...", the ICP-Brasil "Assinado de forma
digital por ... Dados: ..."). Searched as text they only add noise (the same sentence on every page
of every document), but the signer, the signature date and the verification code are worth keeping,
so each rule below removes its lines and returns those facts.

A stamp is found line by line: a rule's `start` pattern opens it (at the start of a line). A
multi-line rule takes the following lines up to the one that matches its `end` (a sentence end, a
"Dados: 2022.09.13" line), within `max_lines`; when no such line comes, only the opening line goes,
so running text is never swallowed. Facts are read from the stamp's lines joined by spaces.
"""

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date

_DATE = r"(\d{1,2})/(\d{1,2})/(\d{4})"
_NAME = r"[A-ZÀ-ÖØ-Ý][A-ZÀ-ÖØ-Ý'´`.\- ]+[A-ZÀ-ÖØ-Ý]"


@dataclass
class Found:
    """Facts read from the stamps of a document, in order of appearance, without repeats."""

    signature_dates: list[date] = field(default_factory=list)
    signers: list[str] = field(default_factory=list)
    verification_codes: list[str] = field(default_factory=list)

    def add(self, signer: str | None = None, when: date | None = None, code: str | None = None) -> None:
        """Record what one stamp said; the same signer, date or code seen on every page counts once."""
        if signer:
            signer = re.sub(r"\s+", " ", signer).strip(" ,.-")
            if signer and signer not in self.signers:
                self.signers.append(signer)
        if when and when not in self.signature_dates:
            self.signature_dates.append(when)
        if code:
            code = code.strip(" .,;")
            if code and code not in self.verification_codes:
                self.verification_codes.append(code)


def _date(day: str, month: str, year: str) -> date | None:
    try:
        return date(int(year), int(month), int(day))
    except ValueError:
        return None


def _first_date(text: str) -> date | None:
    match = re.search(_DATE, text)
    return _date(*match.groups()) if match else None


@dataclass(frozen=True)
class _Rule:
    start: re.Pattern[str]
    read: Callable[[str, Found], None]
    max_lines: int = 1
    # For multi-line stamps: the line that closes the stamp (checked on each line taken).
    end: re.Pattern[str] | None = None
    # Lines before the start that belong to the stamp (e.g. the visible name of a digital signature).
    before: Callable[[Sequence[str], int, str], int] | None = None


def _read_sei_signature(text: str, found: Found) -> None:
    # SEI: "Documento assinado eletronicamente por NOME, CARGO, em 20/10/2022, às 12:07, conforme ..."
    # eproc: "Documento eletrônico assinado por NOME, Desembargador Federal, na forma do artigo 1º ..."
    signer = re.search(r"assinado (?:eletronicamente |digitalmente )?por:?\s*([^,]+)", text, re.IGNORECASE)
    when = re.search(r"\bem:?\s*" + _DATE, text)
    found.add(signer.group(1) if signer else None, _date(*when.groups()) if when else None)
    _read_codes(text, found)


def _read_codes(text: str, found: Found) -> None:
    """Verification codes: SEI/eproc "código verificador N e (do) código CRC X", e-SAJ "código X",
    STF "sob o número N" / "sob o código X", "código de verificação X", "Código de Controle do Documento: X"."""
    for pattern in (
        r"c[óo]digo verificador:?\s*([\w-]+)",
        r"c[óo]digo CRC:?\s*([\w-]+)",
        r"c[óo]digo de (?:verifica[çc][ãa]o|autenticidade|controle do documento|acesso):?\s*([\w-]+)",
        r"informe o processo [\d.\-/]+ e (?:o )?c[óo]digo:?\s*([\w-]+)",
        r"sob o n[úu]mero:?\s*([\w-]+)",
        r"sob o c[óo]digo:?\s*([\w-]+)",
    ):
        for match in re.finditer(pattern, text, re.IGNORECASE):
            found.add(code=match.group(1))


def _read_stj_document(text: str, found: Found) -> None:
    # "Documento eletrônico VDA45869827 assinado eletronicamente nos termos do Art.1º §2º inciso III ..."
    match = re.search(r"Documento eletr[ôo]nico (\w+) assinado", text)
    if match:
        found.add(code=match.group(1))


def _read_signatory(text: str, found: Found) -> None:
    # "Signatário(a): CARLOS CINI MARCHIONATTI Assinado em: 26/02/2025 16:50:06" (STJ);
    # "Signatário (a): NOME Data e Hora: 05/04/2019 16:46:44" (eproc).
    match = re.search(r"Signat[áa]rio\s*\(?a?\)?:\s*(.+?)\s*(?:,\s*)?(?:Assinado em|Data e Hora|Data):?\s*", text)
    signer = match.group(1) if match else re.sub(r"^.*?:\s*", "", text)
    found.add(signer, _first_date(text))


def _read_name_signed_at(text: str, found: Found) -> None:
    # TJRJ: "CLAUDIO LUIS BRAGA DELL ORTO:14566 Assinado em 07/06/2017 13:45:17"
    match = re.match(r"(.+?):\d+\s+Assinado em", text)
    found.add(match.group(1) if match else None, _first_date(text))


def _read_icp(text: str, found: Found) -> None:
    # "Assinado de forma digital por NOME:CPF Dados: 2022.09.13 15:40:19 -03'00'"
    signer = re.search(
        r"(?:Assinado (?:de forma digital|digitalmente) por|Digitally signed by)\s+(.+?)(?::\d{11})?"
        r"\s*(?:DN:|Dados:|Data:|Date:|$)",
        text,
    )
    when = re.search(r"(?:Dados|Data|Date):\s*(\d{4})\.(\d{2})\.(\d{2})", text)
    found.add(signer.group(1) if signer else None, _date(when.group(3), when.group(2), when.group(1)) if when else None)


def _icp_name_before(lines: Sequence[str], start: int, text: str) -> int:
    """How many lines right above "Assinado de forma digital por" repeat the signer's "NOME:CPF"
    (the visible half of the signature box)."""
    match = re.search(r"por\s+(.+?:\d{11})", text)
    if not match:
        return 0
    target = re.sub(r"\s+", "", match.group(1))
    joined = ""
    for taken in range(1, 4):
        if start - taken < 0:
            break
        joined = re.sub(r"\s+", "", lines[start - taken]) + joined
        if joined == target:
            return taken
    return 0


def _read_esaj(text: str, found: Found) -> None:
    # "Este documento é cópia do original, assinado digitalmente por NOME, liberado nos autos em
    #  07/08/2024 às 15:20. Para conferir o original, acesse o site https://esaj..., informe o processo
    #  1048106-30.2024.8.26.0100 e código 1A2B3C4." (and the "Este documento foi liberado..." variant)
    signer = re.search(r"assinado digitalmente por\s+([^,.]+)", text, re.IGNORECASE)
    when = re.search(r"(?:liberado nos autos|protocolado) em\s*" + _DATE, text, re.IGNORECASE)
    found.add(signer.group(1) if signer else None, _date(*when.groups()) if when else None)
    _read_codes(text, found)


def _read_pje(text: str, found: Found) -> None:
    # PJe: "Assinado eletronicamente por: NOME - 12/03/2021 10:11:12"
    match = re.search(r"por:\s*(.+?)\s*-\s*" + _DATE, text)
    if match:
        found.add(match.group(1), _date(*match.groups()[1:]))


def _read_pje_number(text: str, found: Found) -> None:
    match = re.search(r"N[úu]mero do documento:\s*(\d+)", text)
    if match:
        found.add(code=match.group(1))


def _read_nothing(text: str, found: Found) -> None:
    """Boilerplate with nothing worth keeping (an address to check a copy, SEI bookkeeping)."""


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_SENTENCE_END = re.compile(r"[.]\s*$")
RULES: tuple[_Rule, ...] = (
    _Rule(
        _rx(r"^Documento (?:assinado eletronicamente|eletr[ôo]nico assinado|assinado digitalmente) por\b"),
        _read_sei_signature,
        max_lines=5,
        end=_SENTENCE_END,
    ),
    _Rule(
        _rx(r"^(?:A autenticidade (?:do|deste) documento|A confer[êe]ncia da autenticidade do documento)"),
        _read_codes,
        max_lines=4,
        end=_SENTENCE_END,
    ),
    _Rule(_rx(r"^Documento eletr[ôo]nico \w+ assinado eletronicamente nos termos"), _read_stj_document),
    _Rule(_rx(r"^Signat[áa]rio\s*\(?a?\)?:"), _read_signatory),
    _Rule(_rx(r"^(?:Publica[çc][ãa]o no DJEN/CNJ de \S+\s+)?C[óo]digo de Controle do Documento:"), _read_codes),
    _Rule(re.compile(rf"^{_NAME}:\d+\s+Assinado em {_DATE}"), _read_name_signed_at),
    _Rule(re.compile(r"^Local:\s*GAB\.?\s"), _read_nothing),
    _Rule(
        _rx(r"^(?:Assinado (?:de forma digital|digitalmente) por|Digitally signed by)\b"),
        _read_icp,
        max_lines=8,
        end=re.compile(r"^(?:Dados|Data|Date):\s*\d{4}\.\d{2}\.\d{2}"),
        before=_icp_name_before,
    ),
    _Rule(
        _rx(r"^Este documento (?:é|e) c[óo]pia do original|^Este documento foi (?:liberado|protocolado) nos autos"),
        _read_esaj,
        max_lines=6,
        end=re.compile(r"c[óo]digo:?\s*[\w-]+\.?\s*$", re.IGNORECASE),
    ),
    _Rule(
        _rx(r"^Para conferir o original,? acesse o site"),
        _read_codes,
        max_lines=4,
        end=re.compile(r"c[óo]digo:?\s*[\w-]+\.?\s*$", re.IGNORECASE),
    ),
    _Rule(_rx(r"^Assinado eletronicamente por:\s"), _read_pje),
    _Rule(_rx(r"^N[úu]mero do documento:\s*\d+$"), _read_pje_number),
    _Rule(
        _rx(r"^Documento assinado digitalmente conforme MP n?[º°o.]*\s*2\.200-2"),
        _read_codes,
        max_lines=5,
        # the STF's second line ends on its password, not a full stop ("... autenticarDocumento.asp sob o código
        # 5BD4-9ACC-ECF6-37B1 e senha E5CA-9D9E-AB7C-1F4D"): it stayed on every page of every STF inteiro teor
        end=re.compile(r"[.]\s*$|\bsenha:?\s*[\w-]+\s*$", re.IGNORECASE),
    ),
    _Rule(_rx(r"^Processo SEI:?\s.*Documento SEI:?\s*\d*$"), _read_nothing),
    _Rule(_rx(r"^Refer[êe]ncia: Processo n[º°o]?\s.*SEI n[º°o]?\s*\d+$"), _read_nothing),
    _Rule(_rx(r"^Gerado por:\s"), _read_nothing),
    _Rule(_rx(r"^Criado por \S+, vers[ãa]o \d+ por \S+ em " + _DATE), _read_nothing),
)
_SEI_NUMBER_AFTER = re.compile(r"Documento SEI:?\s*$", re.IGNORECASE)
_BARE_DIGITS = re.compile(r"^\d{5,}$")


def _continuation(lines: Sequence[str], i: int, rule: _Rule) -> list[int]:
    """The lines of a multi-line stamp opened at line i: up to the line that ends it. A stamp whose
    end is not found within `max_lines` keeps only its first line, so that no running text goes."""
    assert rule.end is not None
    taken = [i]
    for j in range(i + 1, len(lines)):
        if len(taken) >= rule.max_lines:
            break
        if not lines[j]:
            continue
        if any(r.start.match(lines[j]) for r in RULES):
            break
        taken.append(j)
        if rule.end.search(lines[j]):
            return taken
    return [i]


def find_stamps(lines: Sequence[str], found: Found) -> set[int]:
    """Indexes of the stamp lines among a page's stripped lines; their facts are added to `found`."""
    dropped: set[int] = set()
    i = 0
    while i < len(lines):
        line = lines[i]
        rule = next((r for r in RULES if line and r.start.match(line)), None) if line else None
        if rule is None:
            i += 1
            continue
        taken = [i]
        if rule.end is not None and not rule.end.search(line):
            taken = _continuation(lines, i, rule)
        text = " ".join(lines[k] for k in taken)
        if rule.before is not None:
            for k in range(rule.before(lines, i, text)):
                taken.append(i - 1 - k)
        if _SEI_NUMBER_AFTER.search(text) and taken[-1] + 1 < len(lines) and _BARE_DIGITS.match(lines[taken[-1] + 1]):
            taken.append(taken[-1] + 1)  # "Documento SEI:" / "3698675" on the next line
        rule.read(text, found)
        dropped.update(taken)
        i = max(taken) + 1
    return dropped
