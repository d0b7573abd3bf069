"""Qualified precedents a decision is or applies, on short sentences written in the courts' style."""

import pytest

from precedente.shared.legal.precedents import QualifiedPrecedent, find_qualified_precedents, label


def found(text: str, court: str | None = None) -> list[tuple[str, str]]:
    return [(label(p), p.role) for p in find_qualified_precedents(text, court)]


@pytest.mark.parametrize(
    ("text", "court", "expected"),
    [
        (
            "RECURSO ESPECIAL REPETITIVO. TEMA N. 1.046 DO STJ. DIREITO CIVIL. CONTRATO. TESE FIXADA. 1. A cláusula",
            "stj",
            [("Repetitivo – Tema 1.046", "is")],
        ),
        (
            "RECURSO ESPECIAL REPRESENTATIVO DA CONTROVÉRSIA. TRIBUTÁRIO. PRESCRIÇÃO. RECURSO NÃO PROVIDO.",
            "stj",
            [("Repetitivo", "is")],
        ),
        (
            "PROPOSTA DE AFETAÇÃO. RECURSO ESPECIAL. RITO DOS RECURSOS REPETITIVOS. PREVIDENCIÁRIO.",
            "stj",
            [("Repetitivo", "is")],
        ),
        (
            "Ementa: RECURSO EXTRAORDINÁRIO COM REPERCUSSÃO GERAL. TEMA 1.046. DIREITO DO TRABALHO. 1. A norma ...",
            "stf",
            [("Repercussão geral – Tema 1.046", "is")],
        ),
        (
            "Ementa: Recurso extraordinário. Repercussão geral. Tributário. Taxa. 1. A cobrança exige lei.",
            "stf",
            [("Repercussão geral", "is")],
        ),
        (  # the Tema named only after the acórdão's record of the thesis it fixed (as the STF's RE 855.178 ED)
            "EMENTA: RECURSO EXTRAORDINÁRIO COM REPERCUSSÃO GERAL. SAÚDE. 1. É da jurisprudência do Supremo. "
            "Na sessão Plenária de 23.5.2019, o Tribunal, por maioria, fixou a seguinte tese de repercussão geral "
            "(Tema 793): “Os entes da federação são solidariamente responsáveis”.",
            "stf",
            [("Repercussão geral – Tema 793", "is")],
        ),
        *(
            (  # the STF's inteiro teor: pages of parties come before the ementa, and the acórdão names the Tema it
                # judged (as RE 657.718, ../shared/archive/i279.pdf); each page headed by a hidden "Ementa e Acórdão"
                # in an index made before the extractor dropped 1-point type, on its session's date since
                label
                + "22/05/2019\nPLENÁRIO\nRECURSO EXTRAORDINÁRIO 657.718 MINAS GERAIS\nRELATOR : MIN. X\n"
                + "ASSIST.(S) : ESTADO DO ACRE\nADV.(A/S) : PROCURADOR-GERAL DO ESTADO DO ACRE\n" * 30
                + "Ementa: DIREITO CONSTITUCIONAL. RECURSO EXTRAORDINÁRIO COM REPERCUSSÃO GERAL. MEDICAMENTOS NÃO "
                "REGISTRADOS NA ANVISA. 1. O Estado não pode ser obrigado a fornecer medicamentos experimentais. "
                "A C Ó R D Ã O "
                "Vistos, relatados e discutidos estes autos, acordam os Ministros, apreciando o Tema 500 da "
                "repercussão geral, em dar parcial provimento ao recurso extraordinário.",
                "stf",
                [("Repercussão geral – Tema 500", "is")],
            )
            for label in ("Ementa e Acórdão\n", "")
        ),
        (  # embargos in which the Plenário fixed the thesis (the STF's ED no RE 855.178, Tema 793)
            "EMENTA: CONSTITUCIONAL E ADMINISTRATIVO. EMBARGOS DE DECLARAÇÃO EM RECURSO EXTRAORDINÁRIO COM "
            "REPERCUSSÃO GERAL RECONHECIDA. AUSÊNCIA DE OMISSÃO. 1. É da jurisprudência do Supremo. A C Ó R D Ã O "
            "Na sessão Plenária de 23.5.2019, o Tribunal, por maioria, fixou a seguinte tese de repercussão geral "
            "(Tema 793): “Os entes da federação são solidariamente responsáveis”.",
            "stf",
            [("Repercussão geral – Tema 793", "is")],
        ),
        (
            "INCIDENTE DE RESOLUÇÃO DE DEMANDAS REPETITIVAS. SERVIDOR PÚBLICO. TESE FIXADA.",
            "tjpr",
            [("IRDR (TJPR)", "is")],
        ),
    ],
)
def test_a_leading_case_is_the_precedent(text: str, court: str, expected: list[tuple[str, str]]) -> None:
    assert found(text, court) == expected


@pytest.mark.parametrize(
    ("text", "court"),
    [
        # an agravo against a decision that applied the repetitivo: it applies, never fixes
        ("AGRAVO INTERNO NO RECURSO ESPECIAL. RECURSO REPRESENTATIVO DA CONTROVÉRSIA. JUROS. 1. O acórdão ...", "stj"),
        # a monocratic decision returning the case to wait for the repetitivo
        ("EMENTA RECURSO ESPECIAL. MATÉRIA AFETADA AO RITO DOS RECURSOS REPETITIVOS. DECISÃO Trata-se de ...", "stj"),
        # a state court cannot fix repercussão geral
        ("APELAÇÃO CÍVEL. RECURSO EXTRAORDINÁRIO COM REPERCUSSÃO GERAL. TEMA 1.046 DO STF. APLICAÇÃO.", "tjsp"),
        # embargos that only reject the appeal: the thesis was fixed elsewhere
        (
            "EMENTA: CONSTITUCIONAL. EMBARGOS DE DECLARAÇÃO EM RECURSO EXTRAORDINÁRIO COM REPERCUSSÃO GERAL "
            "RECONHECIDA. OMISSÃO. INEXISTÊNCIA. A C Ó R D Ã O Acordam os Ministros em rejeitar os embargos.",
            "stf",
        ),
        # the STF's agravo naming, mid-heading, the repercussão geral it applies
        ("EMENTA: DIREITO TRIBUTÁRIO. IPTU. SÚMULA 668 DO STF. REPERCUSSÃO GERAL RECONHECIDA. AGRAVO.", "stf"),
    ],
)
def test_an_appeal_or_a_lower_court_is_not_the_precedent(text: str, court: str) -> None:
    assert [p for p in find_qualified_precedents(text, court) if p.role == "is"] == []


@pytest.mark.parametrize(
    ("text", "court", "expected"),
    [
        ("Os juros seguem o índice fixado, nos termos do Tema 1.046 do STF.", "tjsp", "Repercussão geral – Tema 1.046"),
        ("A correção observa a tese firmada no Tema Repetitivo n. 905.", "tjsp", "Repetitivo – Tema 905"),
        ("É cabível o agravo quando há urgência (Tema nº 988/STJ). Precedentes.", "stj", "Repetitivo – Tema 988"),
        ("Conforme a Súmula Vinculante 25, é ilícita a prisão civil do depositário.", "tjsp", "Súmula vinculante 25"),
        ("O reexame de provas é vedado. Incide a Súmula 7/STJ.", "stj", "Súmula 7/STJ"),
        ("aplica-se o entendimento consolidado no IRDR nº 25 do TJPR ao caso.", "tjpr", "IRDR – Tema 25 (TJPR)"),
        ("à luz da tese firmada pelo STJ no IAC nº 2, o segurado é o ente público.", "tjsp", "IAC – Tema 2 (STJ)"),
        (
            "conforme a Edição n. 39 da Jurisprudência em Teses do STJ, tese 3, a inversão é automática.",
            "tjsp",
            "Jurisprudência em Teses – Edição 39, tese 3",
        ),
        ("O Tema 1.236 da repercussão geral aplica-se às ações em curso.", "tjsp", "Repercussão geral – Tema 1.236"),
    ],
)
def test_a_precedent_cited_as_the_ground_is_applied(text: str, court: str, expected: str) -> None:
    assert found(text, court) == [(expected, "applies")]


@pytest.mark.parametrize(
    "text",
    [
        "A parte recorrente sustenta violação ao Tema 810 do STF.",
        "Inaplicabilidade do Tema n. 1.209/STF, por não haver debate sobre a atividade especial.",
        "Determino o sobrestamento do feito até o julgamento do Tema 1.349/STF.",
        "Discute-se a necessidade de revisão ou cancelamento da Súmula Vinculante nº 9.",
        "No que diz respeito à Súmula 7/STJ, os agravantes sustentam que não há reexame.",
        # two Temas read from context alone: one is often the STF's, the other the STJ's
        "observado o entendimento do STJ e do STF no julgamento dos Temas 810 e 905.",
    ],
)
def test_a_mere_mention_is_not_application(text: str) -> None:
    assert find_qualified_precedents(text, "stj") == []


def test_the_court_is_read_from_the_words_around_a_bare_tema() -> None:
    assert found("O STF, ao julgar o Tema 810, sob a sistemática da repercussão geral, fixou a tese.", "stj") == [
        ("Repercussão geral – Tema 810", "applies")
    ]
    assert found("em julgamento sob o rito dos recursos repetitivos (Tema 1.004), fixou-se a tese", "tjsp") == [
        ("Repetitivo – Tema 1.004", "applies")
    ]


def test_a_list_of_temas_with_its_court_gives_one_each() -> None:
    assert found("nos termos dos Temas 531, 611 e 905 do STJ.", "tjsp") == [
        ("Repetitivo – Tema 531", "applies"),
        ("Repetitivo – Tema 611", "applies"),
        ("Repetitivo – Tema 905", "applies"),
    ]


def test_the_leading_case_comes_first_and_each_precedent_once() -> None:
    text = (
        "RECURSO EXTRAORDINÁRIO COM REPERCUSSÃO GERAL. TEMA 477. PENAL. 1. Conforme a Súmula Vinculante 9, "
        "a perda é limitada. 2. Nos termos da Súmula Vinculante 9, nega-se provimento."
    )
    assert found(text, "stf") == [("Repercussão geral – Tema 477", "is"), ("Súmula vinculante 9", "applies")]


def test_stored_form_keeps_digits_and_the_badge_adds_the_dots() -> None:
    p = QualifiedPrecedent("repetitivo", "STJ", "1046", "is")
    assert p.as_dict() == {"kind": "repetitivo", "court": "STJ", "number": "1046", "role": "is"}
    assert label(p) == "Repetitivo – Tema 1.046"
    assert label(QualifiedPrecedent("sumula", "STJ", "7", "applies")) == "Súmula 7/STJ"
