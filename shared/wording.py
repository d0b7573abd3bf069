"""Number agreement in the Portuguese a lawyer reads (CLI lines, notes on a card): one helper, so that "1 página"
never reads "1 páginas" and one unread page is not "as" but "a". The page has the same pair in
services/gateway/lib/labels.ts (plural, agree)."""

from collections.abc import Sequence

__all__ = ["agree", "plural", "series", "unread_pages_note"]


def agree(n: int, one: str, many: str) -> str:
    """The word that agrees with a count: agree(1, "a", "as") == "a", agree(0, "lida", "lidas") == "lidas"."""
    return one if n == 1 else many


def plural(n: int, one: str, many: str) -> str:
    """A count with its noun: plural(1, "página", "páginas") == "1 página", plural(3, ...) == "3 páginas"."""
    return f"{n} {agree(n, one, many)}"


def series(items: Sequence[object]) -> str:
    """ "3", "10 e 11", "2, 5 e 8"."""
    words = [str(item) for item in items]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " e " + words[-1]


def unread_pages_note(pages: Sequence[int]) -> str:
    """ "página 24 não lida: a busca não a alcança", "páginas 10 e 11 não lidas: a busca não as alcança": pages of
    a document the index could not read (the card's and the CLI's note)."""
    n = len(pages)
    return (
        f"{agree(n, 'página', 'páginas')} {series(pages)} {agree(n, 'não lida', 'não lidas')}:"
        f" a busca não {agree(n, 'a', 'as')} alcança"
    )
