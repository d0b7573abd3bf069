"""Month tables and the dates documents print (shared.legal.dates): golden cases on small texts."""

import re
from datetime import date

import pytest

from shared.legal.dates import ENGLISH_MONTHS, MAIL_MONTHS, MONTH_NAMES, MONTH_PATTERN, MONTHS, guess_date
from shared.legal.document_text import DocumentText
from shared.payloads import Page

# The tables the callers had before shared.legal.dates, copied verbatim.
OLD_MONTH_ALTERNATION = r"janeiro|fevereiro|marco|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro"
OLD_MAIL_MONTHS = {  # services/extractor/email_reader.py _MONTHS
    "jan": 1, "janeiro": 1, "january": 1, "fev": 2, "fevereiro": 2, "feb": 2, "february": 2,
    "mar": 3, "março": 3, "marco": 3, "march": 3, "abr": 4, "abril": 4, "apr": 4, "april": 4,
    "mai": 5, "maio": 5, "may": 5, "jun": 6, "junho": 6, "june": 6, "jul": 7, "julho": 7, "july": 7,
    "ago": 8, "agosto": 8, "aug": 8, "august": 8, "set": 9, "setembro": 9, "sep": 9, "sept": 9,
    "september": 9, "out": 10, "outubro": 10, "oct": 10, "october": 10, "nov": 11, "novembro": 11,
    "november": 11, "dez": 12, "dezembro": 12, "dec": 12, "december": 12,
}  # fmt: skip


def test_month_tables() -> None:
    assert list(MONTHS.values()) == list(range(1, 13))
    assert MONTH_PATTERN == OLD_MONTH_ALTERNATION  # citations, works and the annotator's dates used this
    assert MONTH_NAMES[2] == "março" and [m.replace("ç", "c") for m in MONTH_NAMES] == list(MONTHS)
    assert ENGLISH_MONTHS[0] == "january" and len(ENGLISH_MONTHS) == 12
    assert MAIL_MONTHS == OLD_MAIL_MONTHS
    assert re.fullmatch(MONTH_PATTERN, "setembro") and not re.fullmatch(MONTH_PATTERN, "março")


def date_of(text: str, document_type: str = "outro") -> date | None:
    return guess_date(DocumentText([Page(number=1, text=text)]), document_type)


@pytest.mark.parametrize(
    ("text", "document_type", "expected"),
    [
        ("Voto do relator.\nBrasília (DF), 15 de setembro de 2016.", "acordao", date(2016, 9, 15)),
        ("Texto.\nRio de Janeiro, 07 de junho de 2017\nDesembargador", "outro", date(2017, 6, 7)),
        ("Texto.\nSão Paulo, 1º de março de 2023.", "contrato", date(2023, 3, 1)),  # folded "marco", ordinal º
        ("Texto.\nBelo Horizonte/MG, em 21/09/2022.", "parecer", date(2022, 9, 21)),
        ("Documento assinado eletronicamente por FULANO, em 20/10/2022, às 10h.", "outro", date(2022, 10, 20)),
        ("Assinado em 07/06/2017 às 18:00", "outro", date(2017, 6, 7)),
        ("Dados: 2022.09.13 10:15:00 -03'00'", "outro", date(2022, 9, 13)),
        ("JULGADO: 24/02/2025\nTexto que cita o julgado de 01/01/2020.", "acordao", date(2025, 2, 24)),
        ("Sessão Virtual de 18/02/2025 a 24/02/2025\nBrasília, 10 de março de 2025.", "acordao", date(2025, 2, 24)),
        ("Consta de 31/02/2020 e depois de 15/03/2020.", "outro", date(2020, 3, 15)),  # an impossible date skipped
        ("Ofício de 10/10/0216 e de 12.11.2019.", "outro", date(2019, 11, 12)),  # years before 1900 are typos
        ("De: Ana\nPara: Carlos\nData: Tue, 13 Sep 2022 10:00:00 -0300\nAssunto: Minuta", "email", date(2022, 9, 13)),
        ("De: Ana\nEnviado em: terça-feira, 13 de setembro de 2022 10:00\nPara: Carlos", "email", date(2022, 9, 13)),
        ("Nenhuma data aqui.", "outro", None),
    ],
)
def test_guess_date_golden(text: str, document_type: str, expected: date | None) -> None:
    assert date_of(text, document_type) == expected


def test_place_and_date_line_beats_an_earlier_date_in_the_text() -> None:
    text = "Conforme julgado em 10/05/2010 pelo STJ.\nCuritiba, 3 de abril de 2019."
    assert date_of(text) == date(2019, 4, 3)
    assert date_of("Conforme julgado em 10/05/2010 pelo STJ.") == date(2010, 5, 10)  # the first date, last resort
