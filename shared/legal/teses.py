"""How a passage of the STJ's "Jurisprudência em Teses" is cited: by its booklet's edition and subject, and the
tese the passage is, as the STJ publishes them ("Jurisprudência em Teses, Edição 110: Dos Contratos de Promessa
de Compra e Venda e de Compra e Venda de Bens Imóveis - II, tese 1"), never by the file's first line.

One file often holds several editions (a download of a subject's booklets: Edições 107 and 110 in one PDF), so
the edition is the passage's, read from its section path ("EDIÇÃO N. 110: DOS CONTRATOS ... > Tese 1", which
shared/legal/sections.py gives each tese), not the document's title, which names the first edition it opens with.
"""

import re

from precedente.shared.legal.codes import court_label
from precedente.shared.legal.text import fold, title_case

__all__ = ["BOOKLET", "tese_citation"]

BOOKLET = "Jurisprudência em Teses"
_EDITION = re.compile(r"^EDICAO\s+N[º°o.]*\s*(?P<n>\d{1,4})\s*:\s*(?P<subject>.+)$", re.I)
_TESE = re.compile(r"^Tese\s+(?P<n>\d{1,3})$")
_ROMAN = re.compile(r"^[ivxlc]+$")


def _subject(text: str) -> str:
    """ "DOS CONTRATOS ... IMÓVEIS - II" -> "Dos Contratos ... Imóveis - II", as the STJ spells its subjects."""
    words = title_case(" ".join(text.split())).split(" ")
    return " ".join(w.upper() if _ROMAN.match(w.lower()) and (i or len(w) > 1) else w for i, w in enumerate(words))


def tese_citation(
    section_path: str | None, title: str | None = None, court: str | None = "stj", passage: str | None = None
) -> str | None:
    """The citation of a passage of a "Jurisprudência em Teses" booklet: its edition, subject and, when the passage is
    one, the tese's number; None when its section path names no edition (the booklet's cover or summary: the card
    cites the document). A subject the path cut ("…") is completed from the edition's heading where the passage or
    the title prints it whole, else shown as cut."""
    parts = [part.strip() for part in (section_path or "").split(" > ")]
    edition = next((m for part in parts if (m := _EDITION.match(fold(part)))), None)
    if edition is None:
        return None
    raw = next(part for part in parts if _EDITION.match(fold(part)))
    subject = raw[edition.start("subject") :].strip()
    heading = re.compile(
        rf"(?i:EDI[CÇ][AÃ]O\s+N)[º°o.]*\s*{edition['n']}\s*:\s*(?P<s>[^\n]+(?:\n[^\na-zà-ÿ]+$)*)", re.M
    )  # the heading and its upper-case continuation lines, not the tese below it
    for source in (passage, title):
        whole = heading.search(source or "") if subject.endswith("…") else None
        if whole and fold(" ".join(whole["s"].split())).upper().startswith(fold(subject[:-1]).upper().rstrip()):
            subject = " ".join(whole["s"].split())
    tese = next((m["n"] for part in parts if (m := _TESE.match(part))), None)
    head = f"{court_label(court)}, " if court else ""
    cut = "…" if subject.endswith("…") else ""
    text = f"{head}{BOOKLET}, Edição {int(edition['n'])}: {_subject(subject.rstrip('…'))}{cut}"
    return f"{text}, tese {int(tese)}" if tese else text
