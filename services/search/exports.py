"""Kept results written out for a petition (issue 34, item 3): a DOCX (python-docx) and plain text a lawyer pastes.

Both say the same, in the same order: per result the citation (the heading), the ementa, the passage quoted with
its page, the note; then the references, each citation once in the order first cited. Nothing is written that the
document's metadata or the kept passage does not say: a result without a citation is headed by its title, and it
is left out of the references (there is nothing to cite it by).
"""

import io
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from docx import Document
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.shared import Pt

DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
TEXT_TYPE = "text/plain; charset=utf-8"
REFERENCES = "Referências"


@dataclass(frozen=True)
class Entry:
    """One result as exported."""

    title: str
    citation: str | None
    ementa: str | None
    passage: str
    page_start: int
    page_end: int
    note: str | None

    @property
    def heading(self) -> str:
        return self.citation or self.title

    @property
    def pages(self) -> str:
        """ "p. 3" or "p. 3-4", as a quotation's page is given in a petition."""
        if self.page_end > self.page_start:
            return f"p. {self.page_start}-{self.page_end}"
        return f"p. {self.page_start}"

    @property
    def quoted(self) -> str:
        """The passage between quotation marks, on one line (the chunker's line breaks are not the author's)."""
        return f"“{_one_line(self.passage)}” ({self.pages})"


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def references(entries: Sequence[Entry]) -> list[str]:
    """Each citation once, in the order first cited."""
    return list(dict.fromkeys(e.citation for e in entries if e.citation))


def _subtitle(made_by: str, day: date, count: int) -> str:
    results = "1 resultado" if count == 1 else f"{count} resultados"
    return f"{results}, exportado por {made_by} em {day:%d/%m/%Y}"


def to_text(title: str, entries: Sequence[Entry], made_by: str, day: date) -> str:
    """Plain text: numbered results, blank lines between parts, then the references."""
    lines = [title, _subtitle(made_by, day, len(entries)), ""]
    for n, entry in enumerate(entries, start=1):
        lines.append(f"{n}. {entry.heading}")
        if entry.ementa:
            lines += ["", f"Ementa: {_one_line(entry.ementa)}"]
        lines += ["", entry.quoted]
        if entry.note:
            lines += ["", f"Nota: {entry.note.strip()}"]
        lines.append("")
    cited = references(entries)
    if cited:
        lines += [REFERENCES, ""] + cited + [""]
    return "\n".join(lines)


def to_docx(title: str, entries: Sequence[Entry], made_by: str, day: date) -> bytes:
    """A Word document: the title, per result a heading (the citation), the ementa, the passage in the Quote style
    with its page, the note; a references section at the end."""
    document = Document()
    document.styles["Normal"].font.size = Pt(12)
    document.core_properties.title = title
    document.core_properties.author = made_by
    document.add_heading(title, level=0)
    document.add_paragraph(_subtitle(made_by, day, len(entries)), style="Subtitle")
    for entry in entries:
        document.add_heading(entry.heading, level=1)
        if entry.ementa:
            ementa = document.add_paragraph()
            ementa.add_run("Ementa: ").bold = True
            ementa.add_run(_one_line(entry.ementa))
            ementa.alignment = WD_ALIGN_PARAGRAPH.JUSTIFY
        quote = document.add_paragraph(entry.quoted, style="Quote")
        quote.alignment = WD_ALIGN_PARAGRAPH.JUSTIFY
        if entry.note:
            note = document.add_paragraph()
            note.add_run("Nota: ").bold = True
            note.add_run(entry.note.strip()).italic = True
    cited = references(entries)
    if cited:
        document.add_heading(REFERENCES, level=1)
        for citation in cited:
            document.add_paragraph(citation, style="List Number")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def filename(title: str, extension: str) -> str:
    """An ASCII file name from the title ("Cliente Acme: rescisão" -> "cliente-acme-rescisao.docx")."""
    folded = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")[:80] or "precedentes"
    return f"{slug}.{extension}"
