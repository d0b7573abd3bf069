"""Canonical ids of citations (legislation, súmulas, precedents, CNJ numbers cited), on small texts."""

import json
import re
from datetime import date

import pytest

from precedente.shared.legal.citations import extract_citations, under_portuguese_law
from tests.helpers.samples import CORPUS, corpus_record


def cites(text: str, **kwargs) -> list[str]:
    return extract_citations(text, **kwargs)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("violação do art. 5º, XXXV, da CF/88", ["CF/1988", "CF/1988, art. 5º", "CF/1988, art. 5º, XXXV"]),
        ("nos termos do art. 14 da Lei 8.078/90", ["CDC", "CDC, art. 14"]),
        ("conforme o Código de Defesa do Consumidor, art. 14", ["CDC", "CDC, art. 14"]),
        (
            "o art. 4º, § 2º, da Lei n. 9.307/96",
            ["Lei 9.307/1996", "Lei 9.307/1996, art. 4º", "Lei 9.307/1996, art. 4º, § 2º"],
        ),
        ("art. 37 da Lei nº 8.666, de 21 de junho de 1993", ["Lei 8.666/1993", "Lei 8.666/1993, art. 37"]),
        (
            "arts. 2º, 51, VII e 54 do CDC",
            ["CDC", "CDC, art. 2º", "CDC, art. 51", "CDC, art. 51, VII", "CDC, art. 54"],
        ),
        (
            "art. 81, parágrafo único, I e II, do CDC",
            [
                "CDC",
                "CDC, art. 81",
                "CDC, art. 81, parágrafo único",
                "CDC, art. 81, parágrafo único, I",
                "CDC, art. 81, parágrafo único, II",
            ],
        ),
        (
            "o § 1º do art. 33 da Lei de Arbitragem",
            ["Lei 9.307/1996", "Lei 9.307/1996, art. 33", "Lei 9.307/1996, art. 33, § 1º"],
        ),
        ("multa do art. 1.026, § 2º, do CPC/2015", ["CPC/2015", "CPC/2015, art. 1.026", "CPC/2015, art. 1.026, § 2º"]),
        ("(CC, art. 722)", ["CC/2002", "CC/2002, art. 722"]),
        ("Súmulas 5 e 7/STJ", ["Súmula 5/STJ", "Súmula 7/STJ"]),
        ("SÚMULAS N. 5 E 7-STJ. SÚMULA N. 283-STF", ["Súmula 5/STJ", "Súmula 7/STJ", "Súmula 283/STF"]),
        ("Súmula 331 do TST", ["Súmula 331/TST"]),
        ("Súmula Vinculante 10", ["Súmula Vinculante 10"]),
        # a proposal is no súmula: PSV 4 (the entes' solidarity in health, i274) is not SV 4 (the minimum wage)
        ("tramita no STF a proposta de se criar uma súmula vinculante (Proposta de Súmula Vinculante no 4)", []),
        ("o Projeto de Súmula 12 do TST", []),
        ("(REsp 1602076/SP, Rel. Min. Nancy Andrighi)", ["REsp 1.602.076/SP"]),
        ("AgInt no AREsp n. 2.024.123/MG", ["AgInt no AREsp 2.024.123/MG"]),
        ("AgRg nos EDcl no Ag 1.132.332/SP", ["AgRg nos EDcl no Ag 1.132.332/SP"]),
        ("(STJ-3ªT, MC 19.226-AgRg, Min. Nancy Andrighi)", ["AgRg na MC 19.226"]),
        ("RECURSO ESPECIAL Nº 1.580.432 - SP e depois Recurso Especial no 1580432", ["REsp 1.580.432/SP"]),
        ("os REsps 1.283.388/MG e 1.327.085/MG", ["REsp 1.283.388/MG", "REsp 1.327.085/MG"]),
        ("Lei 7.347/85 e 8.078/90", ["Lei 7.347/1985", "CDC"]),
    ],
)
def test_canonical_ids(text: str, expected: list[str]) -> None:
    assert cites(text) == expected


def test_bare_cpc_takes_the_edition_the_text_named() -> None:
    text = "ofensa ao art. 535 do CPC/73. (...) Afasta-se a violação do art. 535 do CPC."
    assert cites(text, year=2017) == ["CPC/1973", "CPC/1973, art. 535"]
    assert cites("nos termos do art. 485, VI, do CPC", year=2024)[:2] == ["CPC/2015", "CPC/2015, art. 485"]
    assert cites("nos termos do art. 267, VI, do CPC", year=2010)[:2] == ["CPC/1973", "CPC/1973, art. 267"]


def test_anaphora_and_transcribed_articles() -> None:
    text = (
        "Os custos são do locador, conforme o art. 22 da Lei nº 8245/91:\n"
        "Art. 22. O locador é obrigado a:\n"
        "Art. 45. São nulas as cláusulas que proíbam a prorrogação prevista no art. 47.\n"
        "E o art. 51 do mesmo diploma legal."
    )
    assert cites(text) == [
        "Lei 8.245/1991",
        "Lei 8.245/1991, art. 22",
        "Lei 8.245/1991, art. 45",  # a transcribed article: cited; its own cross-reference to art. 47 is not
        "Lei 8.245/1991, art. 51",
    ]


def test_amending_laws_do_not_take_the_articles_around_them() -> None:
    text = (
        "a reforma do Código de Processo Civil, veiculada pela Lei n. 11.232/2005, deu nova redação ao § 1º do art. 162"
    )
    assert "CPC/1973, art. 162, § 1º" in cites(text, year=2018) or "CPC/2015, art. 162, § 1º" in cites(text)
    assert not any(c.startswith("Lei 11.232/2005, art.") for c in cites(text, year=2018))


def test_what_is_not_a_citation() -> None:
    stamp = "Documento eletrônico assinado eletronicamente nos termos do Art.1º §2º inciso III da Lei 11.419/2006\n"
    assert cites(stamp) == []
    own = "RECURSO ESPECIAL Nº 1.602.076 - SP (2016/0134010-1) ... PROCESSO ELETRÔNICO REsp 1.602.076 / SP"
    assert cites(own, own_ids=["REsp 1.602.076/SP"]) == []
    assert cites("advogado GILBERTO VIEIRA LEITE NETO - SE002454") == []
    assert cites("regulamento da UNCITRAL - United Nations Commission on International Trade Law, art. 32.1") == []


def test_cnj_numbers_of_judgments_cited() -> None:
    text = (
        "(TJSP; Apelação Cível 1015773-69.2022.8.26.0011; Relator (a): Marcos Gozzo; Data do Julgamento: 28/06/2024)\n"
        + "Texto que nada cita. " * 8
        + "\nA autora ajuizou medida cautelar (Processo n. 1039442-59.2014.8.26.0100), preparatória de outra ação.\n"
        + "Texto que nada cita. " * 8
        + "\n"
        "TJDF Acórdão 1176873, 07196396120188070001, Relator: CARLOS RODRIGUES\n"
        "Números Origem: 10394425920148260100"
    )
    assert cites(text) == ["1015773-69.2022.8.26.0011", "0719639-61.2018.8.07.0001"]
    assert cites("Apelação Cível 1015773-70.2022.8.26.0011, Rel. Fulano") == []  # check digits do not hold


def test_an_article_of_an_act_we_do_not_know_binds_to_no_earlier_act() -> None:
    text = "A Lei 8.906/94 dispõe, no art. 22, sobre honorários; o art. 111 do Código de Ética trata de outro tema."
    assert extract_citations(text) == ["Lei 8.906/1994", "Lei 8.906/1994, art. 22"]
    assert "Lei 8.906/1994, art. 255" not in extract_citations("A Lei 8.906/94 rege. O art. 255 do RISTJ autoriza.")


def test_an_article_beyond_the_act_s_last_is_never_cited() -> None:
    assert extract_citations("Lei 8.906/1994, art. 7º e art. 111, conforme decidido") == [
        "Lei 8.906/1994",
        "Lei 8.906/1994, art. 7º",
    ]
    assert "CDC, art. 200" not in extract_citations("o art. 200 do CDC")
    assert "CPC/2015, art. 1.072" in extract_citations("o art. 1.072 do CPC/2015")


def test_a_bare_cpc_in_a_decision_judged_before_18_march_2016_is_the_1973_code() -> None:
    """REsp 1.166.251/RJ (a repetitivo judged on 14/03/2012) cites "ART. 543-C, § 7.º ... DO CPC": the CPC/1973's
    article. The CPC/2015 came into force on 18/03/2016, so the day decides, not the year."""
    record = corpus_record("tjrn_stj_stf_execucao_penal.jsonl", "STJ-REsp_1166251_RJ")
    found = extract_citations(record["ementa"], year=date.fromisoformat(record["date"]))
    assert "CPC/1973, art. 543-C, § 7º" in found
    assert not any(c.startswith("CPC/2015") for c in found)
    assert "CPC/1973, art. 543-C, § 7º" in extract_citations(record["ementa"], year=date(2016, 3, 17))
    assert "CPC/2015, art. 543-C, § 7º" in extract_citations(record["ementa"], year=date(2016, 3, 18))


def test_the_code_replaced_and_the_code_in_force_are_read_at_the_document_s_date() -> None:
    assert cites("o art. 20, § 4º, do CPC revogado", year=date(2025, 8, 18))[:2] == ["CPC/1973", "CPC/1973, art. 20"]
    assert cites("o art. 20 do antigo CPC", year=date(1990, 1, 1))[:2] == ["CPC/1939", "CPC/1939, art. 20"]
    assert cites("o art. 85 do CPC vigente", year=date(2024, 1, 1))[:2] == ["CPC/2015", "CPC/2015, art. 85"]
    assert cites("o art. 20 do CPC vigente", year=date(2010, 1, 1))[:2] == ["CPC/1973", "CPC/1973, art. 20"]
    assert cites("o art. 186 do novo Código Civil")[:2] == ["CC/2002", "CC/2002, art. 186"]


def test_a_bare_cpc_takes_the_edition_named_before_the_sentence_it_was_cut_from() -> None:
    """An STJ monocrática (2025) quotes an ementa: "VIOLAÇÃO DO ART. 535 DO CPC/73. ... 1. A genérica alegação de
    ofensa ao art. 535 do CPC, ...": read alone, the numbered sentence's bare CPC would be the code in force."""
    text = corpus_record("stj_monocraticas.jsonl", "STJ-mono-REsp_2219051")["text"]
    sentence = re.search(r"A gen[ée]rica alega[çc][ãa]o de ofensa ao art\. 535 do CPC,", text)
    assert sentence is not None
    alone = extract_citations(sentence.group(), year=date(2025, 8, 5))
    assert "CPC/2015, art. 535" in alone
    cut = extract_citations(sentence.group(), year=date(2025, 8, 5), before=text[: sentence.start()])
    assert "CPC/1973, art. 535" in cut and not any(c.startswith("CPC/2015") for c in cut)


def test_a_bare_article_repeating_one_written_with_its_act_keeps_that_act() -> None:
    """ "(art. 33, § 3º, da Lei 9.307/96)" then "nos termos do art. 525 e ss., do CPC, ... (art. 33, § 3º)": the bare
    repeat is the Lei 9.307/96's, in the same text or cut from it (`before`); an article written only once still
    takes the act named before it."""
    head = "a impugnação ao cumprimento de sentença arbitral (art. 33, § 3º, da Lei 9.307/96). "
    sentence = "Pode ser pleiteada nos termos do art. 525 e ss., do CPC, se a sentença for executada (art. 33, § 3º)."
    for found in (extract_citations(head + sentence), extract_citations(sentence, before=head)):
        assert "Lei 9.307/1996, art. 33, § 3º" in found and "CPC/2015" in found
        assert not any(c.startswith("CPC/2015, art. 33") for c in found)
    assert "CPC/2015, art. 33, § 3º" in extract_citations(sentence)  # nothing says otherwise: the nearest act
    assert "CDC, art. 12" in extract_citations("O art. 14 do CC trata disso, e o CDC também (art. 12).")


def test_paragraphs_listed_together_stay_paragraphs_of_their_article() -> None:
    """ "art. 20, §§ 3° e 4° do Código de Processo Civil de 1.973" (REsp 2.021.338) is art. 20's § 4º, not an art.
    4º; "arts. 20, §§ 3º e 4º, 21, 131, ... todos do CPC/1973" (AREsp 2.100.998) goes on with articles."""
    record = corpus_record("stj_monocraticas.jsonl", "STJ-mono-REsp_2021338")
    found = extract_citations(record["text"], year=date.fromisoformat(record["date"]))
    assert "CPC/1973, art. 20, § 4º" in found and "CPC/1973, art. 4º" not in found
    record = corpus_record("stj_monocraticas.jsonl", "STJ-mono-AREsp_2100998")
    found = extract_citations(record["text"], year=date.fromisoformat(record["date"]))
    assert {"CPC/1973, art. 20, § 4º", "CPC/1973, art. 21", "CPC/1973, art. 131"} <= set(found)
    assert "CPC/1973, art. 20, § 21" not in found
    assert cites("art. 85, §§ 2º e 11 e 86 do CPC/2015")[-2:] == ["CPC/2015, art. 85, § 11", "CPC/2015, art. 86"]


_NAMED_1973 = re.compile(
    r"(?:CPC|C[óo]digo\s+de\s+Processo\s+Civil)(?:\s*\(CPC\))?(?:\s*[/⁄-]\s*|\s+de\s+|\s*\(\s*|\s*)(?:19|1\.9)?73\b"
    r"|(?:antigo|revogado|anterior)\s+(?:CPC|C[óo]digo\s+de\s+Processo\s+Civil)"
    r"|(?:CPC|C[óo]digo\s+de\s+Processo\s+Civil)\s+(?:revogado|anterior|antigo)",
    re.I,
)
_ARTICLE = re.compile(r"\bart(?:igo)?s?\.?\s*(\d{1,3}(?:\.\d{3})?)(-[A-Z])?", re.I)


def test_every_way_the_corpus_names_the_1973_code_binds_its_article_to_it() -> None:
    """Each article written just before a name of the 1973 code in ../shared/corpus ("art. 515 do Código de Processo
    Civil/73", "CPC-73", "CPC⁄1973", "CPC revogado", "Código de Processo Civil (CPC) de 1973", "de 1.973"; 1,285
    places), read in its sentence at the decision's date: the CPC/1973's article. Before this rule 49 of them read
    as the CPC/2015's; the 2 left are written ambiguously ("do CPC/2015, art. 485, inciso V, 495, 741 do CPC/73")
    or broken ("art. 475- O")."""
    right = as_2015 = total = 0
    for name in ("stj_monocraticas.jsonl", "stf_tjms_ementas.jsonl", "lener_br_decisoes.jsonl", "tjal_ementas.jsonl"):
        for line in (CORPUS / name).open(encoding="utf-8"):
            record = json.loads(line)
            text = record["ementa"] + "\n" + record["text"]
            when = date.fromisoformat(record["date"]) if record["date"] else None
            for named in _NAMED_1973.finditer(text):
                articles = list(_ARTICLE.finditer(text, max(0, named.start() - 80), named.start()))
                between = text[articles[-1].end() : named.start()] if articles else ""
                if not articles or re.search(r"[;.]\s|CPC|[Cc][óo]digo", between.replace("art.", "art")):
                    continue  # no article right before this name
                number = int(articles[-1][1].replace(".", ""))
                article = f"{number:,}".replace(",", ".") + ("º" if number < 10 else "") + (articles[-1][2] or "")
                start = text.rfind(". ", 0, articles[-1].start()) + 2
                found = extract_citations(text[max(start, 0) : named.end() + 2], year=when)
                total += 1
                right += f"CPC/1973, art. {article.upper()}" in found
                as_2015 += f"CPC/2015, art. {article.upper()}" in found
    assert total > 1200
    assert right / total >= 0.98
    assert as_2015 <= 2


def archive_text(name: str) -> str:
    """A PDF of ../shared/archive as its text layer reads."""
    import pymupdf

    from tests.helpers.samples import SHARED_DATA

    with pymupdf.open(SHARED_DATA / "archive" / name) as pdf:
        return "\n".join(page.get_text() for page in pdf)


def test_a_bare_code_in_a_text_under_portuguese_law_is_not_brazil_s() -> None:
    """A master's thesis on Portuguese arbitration law (Universidade Católica Portuguesa, 2024, archive i1046) writes
    "(art. 637.º, n.º 1, CPC)" for Portugal's CPC: it read "CPC/2015, art. 637", Brazil's, a false citation. Its bare
    codes are not cited; its Brazilian-free text cites no Brazilian code at all."""
    text = archive_text("i1046.pdf")
    assert "tribunal arbitral (art. 637.º, n.º 1, CPC)" in " ".join(text.split())
    assert under_portuguese_law(text)
    found = extract_citations(text, year=date(2024, 7, 1))
    assert not [c for c in found if c.split(",")[0].split("/")[0] in ("CPC", "CC", "CF", "CP", "CPP")]
    start = text.index("No recurso da sentença arbitral")
    sentence = text[start : text.index("contagem", start)]
    assert extract_citations(sentence, year=date(2024, 7, 1)) == []  # the sentence alone says so too
    assert "CPC/2015, art. 637" in extract_citations(sentence, foreign=False)  # what it read before


def test_a_code_named_with_its_country_is_never_cited() -> None:
    """Brazilian doctrine compares codes: "o art. 430 do CPC português de 2013" (archive i1062), "art. 1.101 do CC
    francês de 1804" (i1074), "art. 116 do Código de Processo Civil italiano" (i339) are not Brazil's articles, and
    an article bound to them is not taken by a Brazilian act nearby. The Brazilian text's own citations stay."""
    for name, written, false in [
        ("i1062.pdf", "O art. 430 do CPC português de 2013", "CPC/1939, art. 430"),
        ("i1074.pdf", "art. 1.101 do CC francês de 1804", "CC/2002, art. 1.101"),
        ("i339.pdf", "art. 116 do Código de Processo Civil italiano", "CPC/2015, art. 116"),
    ]:
        text = " ".join(archive_text(name).split())
        assert written in text and not under_portuguese_law(text)
        assert extract_citations(written, year=date(2024, 7, 1)) == []
        assert false not in extract_citations(text, year=date(2015, 7, 1))
    brazilian = extract_citations(" ".join(archive_text("i1062.pdf").split()))
    assert {"CPC/1973, art. 339", "CPC/1973, art. 359"} <= set(brazilian)
    assert cites("art. 85 do Código Civil Brasileiro e art. 5º da Constituição portuguesa") == [
        "CC/2002",
        "CC/2002, art. 85",
    ]
