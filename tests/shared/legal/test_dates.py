"""Month tables and the dates documents print (precedente.shared.legal.dates): golden cases on small texts."""

import re
from datetime import date

import pytest

from precedente.shared.legal.dates import ENGLISH_MONTHS, MAIL_MONTHS, MONTH_NAMES, MONTH_PATTERN, MONTHS, guess_date
from precedente.shared.legal.document_text import DocumentText
from precedente.shared.payloads import Page
from tests.helpers.samples import corpus_record

# The tables the callers had before precedente.shared.legal.dates, copied verbatim.
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
        ("Consta de 31/02/2020 e depois de 15/03/2020.", "parecer", date(2020, 3, 15)),  # an impossible date skipped
        (
            "Ofício de 10/10/0216 e de 12.11.2019.",
            "ato_administrativo",
            date(2019, 11, 12),
        ),  # years before 1900 are typos
        ("De: Ana\nPara: Carlos\nData: Tue, 13 Sep 2022 10:00:00 -0300\nAssunto: Minuta", "email", date(2022, 9, 13)),
        ("De: Ana\nEnviado em: terça-feira, 13 de setembro de 2022 10:00\nPara: Carlos", "email", date(2022, 9, 13)),
        ("Nenhuma data aqui.", "outro", None),
        # months abbreviated, "de" left out
        ("Texto.\nBrasília, 15 set. 2016.", "acordao", date(2016, 9, 15)),
        ("Texto.\nSão Paulo, 3 de fev de 2021", "parecer", date(2021, 2, 3)),
        ("Texto.\nCuritiba, 1º março 2019.", "sentenca", date(2019, 3, 1)),
        # day and year in words, as atas and termos write them
        (
            "Ata.\nBrasília, aos vinte e dois dias do mês de maio de dois mil e dezenove.",
            "ato_administrativo",
            date(2019, 5, 22),
        ),
        ("Termo.\nSão Paulo, aos quinze dias do mês de março do ano de 2023.", "ato_administrativo", date(2023, 3, 15)),
    ],
)
def test_guess_date_golden(text: str, document_type: str, expected: date | None) -> None:
    assert date_of(text, document_type) == expected


def test_place_and_date_line_beats_an_earlier_date_in_the_text() -> None:
    text = "Conforme julgado em 10/05/2010 pelo STJ.\nCuritiba, 3 de abril de 2019."
    assert date_of(text) == date(2019, 4, 3)
    assert date_of("Conforme julgado em 10/05/2010 pelo STJ.", "parecer") == date(2010, 5, 10)  # the last resort


@pytest.mark.parametrize(
    ("text", "document_type", "expected"),
    [
        # an act's title line ends with its date; the acts it cites in a CONSIDERANDO do not count
        (
            "DECRETO Nº 8.660, DE 29 DE JANEIRO DE 2016\nPromulga a Convenção de 5 de outubro de 1961.",
            "ato_normativo",
            date(2016, 1, 29),
        ),
        (
            "PROVIMENTO/CGJ N. 2, DE 6 DE JANEIRO DE 2023.\nCONSIDERANDO a Resolução n. 95, de 29 de outubro de 2009",
            "ato_normativo",
            date(2023, 1, 6),
        ),
        # EU acts print their date alone under the heading, in Portuguese or English
        (
            "DIRECTIVA 2005/29/CE DO PARLAMENTO EUROPEU E DO CONSELHO\nde 11 de Maio de 2005\nrelativa às práticas",
            "ato_normativo",
            date(2005, 5, 11),
        ),
        (
            "►B\nDIRECTIVE 2002/22/EC OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL\nof 7 March 2002\n"
            "(OJ L 108, 24.4.2002)",
            "ato_normativo",
            date(2002, 3, 7),
        ),
        # signed in a month, without a day: no date, not one of the portarias it cites
        (
            "PROVIMENTO TRT 18ª SCR Nº 4/2012\nPortaria nº 18, de 29/7/2005.\nGoiânia, dezembro de 2012.",
            "ato_normativo",
            None,
        ),
        # a foreign court's judgment dates itself under its heading
        (
            "ACÓRDÃO DO TRIBUNAL DE JUSTIÇA (Primeira Secção)\n6 de Outubro de 2009 *\nNo processo C-40/08,",
            "acordao",
            date(2009, 10, 6),
        ),
        ("JUDGMENT OF THE COURT (First Chamber)\n26 October 2006*\nIn Case C-168/05,", "acordao", date(2006, 10, 26)),
        # ... also where the cleaner joined the heading and its date into one line
        (
            "JUDGMENT OF THE COURT (First Chamber) 26 October 2006*\nIn Case C-168/05, made by decision of 15 February"
            " 2005",
            "acordao",
            date(2006, 10, 26),
        ),
        (
            "REGULAMENTO (UE) 2022/1925 DO PARLAMENTO EUROPEU E DO CONSELHO de 14 de setembro de 2022 relativo à\n"
            "Tendo em conta a Diretiva de 5 de maio de 2019,",
            "ato_normativo",
            date(2022, 9, 14),
        ),
        # a decision without a dated closing takes no cited date
        ("RELATÓRIO\nmedida cautelar ajuizada em 03/02/2014, julgada em 5 de maio de 2015.", "acordao", None),
        # an opinion's "Data:" label beats the dates of the decisions it quotes
        (
            "Parecer\nData: 17 de setembro de 2024\nCliente: X\n(TRF4, Data da Decisão: 08/02/2022)\n"
            "Porto Alegre, 8 de fevereiro de 2022.",
            "parecer",
            date(2024, 9, 17),
        ),
        # doctrine: the journal's review dates and the quoted decisions' closing lines are not the work's date
        (
            "Revista X, jan./jun. 2019\nSubmetido em: 26/10/2017\nTítulo\nAutor\nResumo\nTexto\n"
            "Brasília (DF), 15 de setembro de 2016.",
            "doutrina",
            None,
        ),
        (
            "Número 736\nBrasília, 16 de maio de 2022.\nPROCESSO REsp 1.918.287-MG, julgado em 27/04/2022.",
            "jurisprudencia_compilada",
            date(2022, 5, 16),
        ),
        (
            "Direito à Moradia - Jurisprudência Comentada\n05/02/2023\nTJSP - APELAÇÃO julgada em 10/01/2023",
            "jurisprudencia_compilada",
            date(2023, 2, 5),
        ),
        ("ON COMPUTABLE NUMBERS\n[Received 28 May, 1936.—Read 12 November, 1936.]\non 3/11/2025", "outro", None),
        # a citation wrapped at the line's end is no judgment label: "julgado em" opens the next line in small letters
        (
            "PROVA COMENTADA\nNesse sentido: STJ. 4ª Turma. REsp 1.799.625-SP, Rel. Min. Marco Buzzi,\n"
            "julgado em 6/6/2023 (Info 12 – Edição Extraordinária).",
            "outro",
            None,
        ),
        ("RECURSO ESPECIAL Nº 1\nJULGADO: 15/09/2016\nAcordam os Ministros", "acordao", date(2016, 9, 15)),
        # a report's summary of an EU judgment: the judgment's heading in its contents, after the Opinion's date
        (
            "Case C-168/05\nElisa María Mostaza Claro\nv\nCentro Móvil Milenium SL\n"
            "(Reference for a preliminary ruling)\n"
            "(Directive 93/13/EEC — Unfair terms in consumer contracts)\n"
            "Opinion of Advocate General Tizzano delivered on 27 April 2006\nI - 10423\n"
            "Judgment of the Court (First Chamber), 26 October 2006\nI - 10437\nSummary of the Judgment",
            "acordao",
            date(2006, 10, 26),
        ),
    ],
)
def test_dates_of_acts_foreign_judgments_and_doctrine(text: str, document_type: str, expected: date | None) -> None:
    assert date_of(text, document_type) == expected


@pytest.mark.parametrize(
    ("record_id", "signed"),
    [
        ("STJ-mono-REsp_2228832", date(2025, 9, 26)),  # quotes "Plenário, 25.03.2015." (grifei) first
        ("STJ-mono-REsp_2141453", date(2025, 6, 30)),  # cites "MS 28.279/DF, Rel. Min. Ellen Gracie, 16/12/2010"
        ("STJ-mono-AREsp_2816019", date(2025, 9, 28)),  # cites "(REsp 1.807.959/PB, Min. Sergio Kukina, 8/5/2019)"
        ("STJ-mono-EDcl_no_AREsp_2181392", date(2025, 11, 27)),  # quotes the embargada "Brasília, 30 de setembro"
    ],
)
def test_the_signature_date_beats_a_cited_decisions_date_in_the_body(record_id: str, signed: date) -> None:
    """Real STJ monocráticas (../shared/corpus) whose body prints another decision's place and date before their own
    closing "Brasília, <date>. <Relator>": the date read is the signature's (issue 36; 4 of 300 read wrong before)."""
    text = corpus_record("stj_monocraticas.jsonl", record_id)["text"]
    assert text.rstrip().endswith(("Relator", "Relatora"))
    assert date_of(text, "decisao_monocratica") == signed


def test_a_place_and_date_with_no_signer_after_it_is_still_read() -> None:
    """The signature rule only chooses among place-and-date lines: one that a signer does not follow, alone, is
    still the date, and one a signer follows wins over an earlier one a citation follows."""
    quoted = "Como decidido. Brasília, 30 de setembro de 2025. (fls. 1484, e-STJ). Daí os embargos."
    assert date_of(quoted, "decisao_monocratica") == date(2025, 9, 30)
    signed = (
        quoted + " Rejeito os embargos. Publique-se. Brasília, 27 de novembro de 2025.\nMinistro Marco Buzzi\nRelator"
    )
    assert date_of(signed, "decisao_monocratica") == date(2025, 11, 27)
    juiz = (
        "Texto. São Paulo, 10 de maio de 2019. (fl. 3). Decido. Santos, 2 de junho de 2020.\nANA LIMA\nJuíza de Direito"
    )
    assert date_of(juiz, "sentenca") == date(2020, 6, 2)
