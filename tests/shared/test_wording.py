"""Number agreement in the Portuguese a lawyer reads: precedente.shared.wording, the one helper the CLI's lines use."""

from precedente.shared.wording import agree, plural, series, unread_pages_note


def test_one_and_many_agree_with_their_count() -> None:
    assert plural(1, "página", "páginas") == "1 página"
    assert plural(0, "página", "páginas") == "0 páginas"
    assert plural(12, "resultado", "resultados") == "12 resultados"
    assert agree(1, "a", "as") == "a" and agree(2, "a", "as") == "as"
    assert series([3]) == "3" and series([10, 11]) == "10 e 11" and series([2, 5, 8]) == "2, 5 e 8"


def test_one_unread_page_is_not_spoken_of_as_many() -> None:
    """A card read "página 24 não lida: a busca não as alcança" (issue 36): one page is "a", not "as"."""
    assert unread_pages_note([24]) == "página 24 não lida: a busca não a alcança"
    assert unread_pages_note([10, 11]) == "páginas 10 e 11 não lidas: a busca não as alcança"
