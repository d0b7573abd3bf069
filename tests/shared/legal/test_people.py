"""A relator is a person's name: the parties, courts and headings a caption's lines hold are not (names made up)."""

import pytest

from precedente.shared.legal.people import is_person_name


@pytest.mark.parametrize(
    "name",
    [
        "Nancy Andrighi",
        "Cláudio Luis Braga Dell'Orto",
        "MARIA THEREZA DE ASSIS MOURA",
        "J.N. Cunha Rodrigues",
        "A. Tizzano",
        "José Nogueira e Silva",
        "Fulana de Tal Souza",
    ],
)
def test_names_of_people(name: str) -> None:
    assert is_person_name(name)


@pytest.mark.parametrize(
    "value",
    [
        "Distribuidora Exemplo de Veiculos S/a e Outra Veiculos Ltda",
        "Comercial Fictícia Ltda",
        "Banco Imaginário S.A.",
        "Loja Exemplo ME",
        "Fábrica Fictícia EIRELI",
        "Fulano de Tal e Beltrana da Silva",  # two parties
        "Ministério Público do Estado",
        "Terceira Turma",
        "EMENTA",
        "Recorrente",
        "Fulano",  # one word
        "Fulano de Tal 123",
        "Fulano de Tal (OAB/SP 123.456)",
        "",
        None,
    ],
)
def test_what_is_not_a_person(value: str | None) -> None:
    assert not is_person_name(value)
