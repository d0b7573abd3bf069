"""Personal identifiers found and removed with their labels. Every identifier here is made up (valid-looking
shapes, no real person's); the texts around them are the shapes cards were built from."""

import pytest

from precedente.shared.legal.identifiers import find_identifiers, has_identifier, remove_identifiers


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("inscrito no CPF sob o nº 111.222.333-96", "cpf"),
        ("CPF: 11122233396", "cpf"),
        ("portador do CPF/MF 111.222.333-96", "cpf"),
        ("Comercial Fictícia Ltda., CNPJ 12.345.678/0001-95", "cnpj"),
        ("CNPJ nº 12345678000195", "cnpj"),
        ("RG nº 12.345.678-9 SSP/SP", "rg"),
        ("carteira de identidade 1234567", "rg"),
        ("Advogado: Fulano de Tal (OAB: 2160/AC)", "oab"),
        ("inscrito na OAB/SP sob o nº 123.456", "oab"),
        ("OAB/MG 98.765-A", "oab"),
        ("e-mail: fulano.tal@exemplo.com.br", "email"),
        ("Tel.: (21) 99876-5432", "phone"),
        ("telefone 21 3333-4444", "phone"),
        ("Tel. 68 3302-0444/0445, Rio Branco", "phone"),
    ],
)
def test_each_kind_is_found(text: str, kind: str) -> None:
    assert [k for _, _, k in find_identifiers(text)] == [kind]


@pytest.mark.parametrize(
    "text",
    [
        "TJRJ, Agravo de Instrumento 0017387-33.2017.8.19.0000, j. 07/06/2017",  # a CNJ number
        "REsp 1.602.076/SP (2016/0134706-6), DJe 30/09/2016",  # an STJ registry number and a date
        "CEP 69.915-631, Rio Branco",
        "Lei 8.906/1994, art. 7º, XIII; Súmula 7/STJ; Resolução CNJ 125/2010",
        "Processo SEI 0001234-56.2024.6.00.0000 e Decreto nº 8.660, de 29 de janeiro de 2016",
        "Parecer nº 16/2022 - PGJMG/PROCON-MG/SECP/ASJUP",
    ],
)
def test_numbers_of_cases_acts_and_dates_are_no_identifiers(text: str) -> None:
    assert not has_identifier(text)
    assert remove_identifiers(text) == text


def test_the_clause_that_announces_an_identifier_goes_with_it() -> None:
    text = (
        "Consulta formulada pelo advogado Fulano de Tal, inscrito na OAB/SP sob o nº 123.456 e no CPF sob o nº"
        " 111.222.333-96, sobre honorários"
    )
    assert remove_identifiers(text) == "Consulta formulada pelo advogado Fulano de Tal, sobre honorários"
    assert remove_identifiers("Advogado : Fulano de Tal (OAB: 2160/AC)") == "Advogado : Fulano de Tal"
    assert remove_identifiers("contato: fulano@exemplo.com.br, tel. (21) 99876-5432") == "contato"
    assert remove_identifiers(None) is None
