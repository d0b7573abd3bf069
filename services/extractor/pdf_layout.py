"""Reading order of a PDF page's text layer: columns read one after the other, tables as rows.

MuPDF returns text in the order the PDF draws it. For most court documents that is the reading
order, and then this module returns exactly what page.get_text() returns. Two layouts are
different: a page in two (or three) columns whose producer draws line by line across the page,
or the right column first, so a plain read mixes the columns; and a table, whose cells come out
one per line so a row's values lose each other. Those pages are rebuilt from MuPDF's lines:

- Columns: a vertical gutter that no narrow line crosses, with a real column on each side (at
  least 3 lines and 80 characters, a quarter of the text width, left edges aligned, side by
  side). Lines that cross the gutter (a title, a centred heading, a page number) cut the page
  into bands, and each band is read left column first. A label/value header ("RELATORA :
  MINISTRA ...") is not two columns: its labels are too narrow.
- Tables: only looked for on a page that draws a grid (3+ horizontal and 3+ vertical rules),
  because PyMuPDF's find_tables costs about 0.3 s a page. Each row becomes one line, cells
  joined by " | " as in the DOCX reader, with the cell text taken from MuPDF's words (cleaner
  than find_tables' own text, which glues words together).

Only what a reader sees is read, once: a line drawn again over itself (the STF's inteiro teor draws every page
twice, so each line came out twice and the second copy's running headers sat mid-page; some articles draw their
titles twice a point apart as a fake bold), and no type under 2 points. The STF's pages name their part in 1-point
white letters ("Ementa e Acórdão", "Relatório", "Voto - MIN. GILMAR MENDES", "Debate", "Extrato de Ata"), which ran
into card passages mid-sentence ("Embargos de Voto - MIN. GILMAR MENDES declaração"); read_page returns that label
apart, and the extractor writes it where the part begins (logic.py), the court's own map of its inteiro teor.
A justified line that MuPDF cut into pieces (its words stretched more than about 10 points apart) is one line again:
over the 104 archive and docs PDFs 782 pages of 69 files had such lines, and their cleaned text 13,211 one-word lines,
10,922 after.
"""

from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import dataclass

import pymupdf

MIN_COLUMN_LINES = 3
MIN_COLUMN_CHARS = 80
MIN_GUTTER = 8.0
"""Points of white space between columns; MuPDF already splits lines at gaps of about 10 points."""
EDGE_SLACK = 0.5
"""Points within which a line touches the gutter's edge: the gutter is measured from the lines beside it, so a
line of a column ends (or starts) exactly there."""
MAX_GRID_PATHS = 3000
"""A page with more vector paths is a drawing or a plan, not a ruled table; find_tables is not tried."""
MAX_DEPTH = 2
"""A column split again (three columns) but no deeper; pages are not recursive art."""
MIN_READABLE_SIZE = 2.0
"""Points: smaller type is a hidden label, not text on the page."""
MAX_LABEL_CHARS = 80
"""A page's hidden type longer than this is not a part's name (hidden text of another kind): it is not read."""
OVERPRINT_SLACK = 1.5
"""Points within which a line drawn again with the same text is the same line (a page drawn twice, fake bold)."""


@dataclass
class _Item:
    """A line of text, or a whole table, with its box and its place in the drawing order."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    seq: float
    size: float = MIN_READABLE_SIZE
    """The line's largest type, in points."""

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def middle(self) -> float:
        return (self.y0 + self.y1) / 2


@dataclass(frozen=True)
class PageReading:
    text: str
    """The page's text in reading order; page.get_text() itself when the page needs no reordering."""
    label: str = ""
    """The page's hidden label (its type under MIN_READABLE_SIZE), "" when none: the STF's name of the part."""


def page_text(page: pymupdf.Page) -> str:
    """The page's text in reading order (read_page's text)."""
    return read_page(page).text


def read_page(page: pymupdf.Page) -> PageReading:
    """The page's text and its hidden label, from one MuPDF text page."""
    textpage = page.get_textpage(flags=pymupdf.TEXTFLAGS_TEXT)
    drawn = _lines(page, textpage)
    hidden = " ".join(it.text.strip() for it in drawn if it.size < MIN_READABLE_SIZE and it.text.strip())
    return PageReading(_text(page, textpage, drawn), hidden if len(hidden) <= MAX_LABEL_CHARS else "")


def _text(page: pymupdf.Page, textpage: pymupdf.TextPage, drawn: list[_Item]) -> str:
    plain = page.get_text("text", textpage=textpage)
    items = _visible_once(drawn)
    tables = _tables(page, textpage) if _draws_a_grid(page) else []
    if tables:
        for table in tables:  # a table takes the place of its first line in the drawing order
            table.seq = min((it.seq for it in items if _inside(it, table)), default=len(items)) - 0.5
        items = [it for it in items if not any(_inside(it, t) for t in tables)] + tables
        items.sort(key=lambda it: it.seq)
    ordered = _order(items, 0)
    lines = _one_line_each(ordered if ordered is not None else items)
    if ordered is None and not tables and len(lines) == len(drawn):
        return plain
    return "".join(f"{it.text}\n" for it in lines)


def _lines(page: pymupdf.Page, textpage: pymupdf.TextPage) -> list[_Item]:
    """MuPDF's lines in drawing order: the same lines, with the same text, as page.get_text()."""
    items: list[_Item] = []
    for block in page.get_text("dict", textpage=textpage)["blocks"]:
        for line in block.get("lines", ()):
            x0, y0, x1, y1 = line["bbox"]
            text = "".join(span["text"] for span in line["spans"])
            size = max((span["size"] for span in line["spans"]), default=MIN_READABLE_SIZE)
            items.append(_Item(x0, y0, x1, y1, text, len(items), size))
    return items


def _visible_once(items: list[_Item]) -> list[_Item]:
    """The lines a reader sees, each once: none under MIN_READABLE_SIZE, and a line drawn again with the same text
    in the same place is the same line."""
    kept: list[_Item] = []
    boxes: dict[str, list[_Item]] = {}
    for it in items:
        if not it.text.strip():  # blank lines stay as MuPDF gives them: they are spacing, not text
            kept.append(it)
            continue
        if it.size < MIN_READABLE_SIZE:
            continue
        same_text = boxes.setdefault(it.text, [])
        if any(_overlaps(it, other) for other in same_text):
            continue
        same_text.append(it)
        kept.append(it)
    return kept


def _one_line_each(items: list[_Item]) -> list[_Item]:
    """A line of justified type that MuPDF cut into pieces, one line again. Stretched to the margin, the STF's ementa
    headings leave more than MuPDF's 10-point split between words: "PROCEDENTE." " " "POSSIBILIDADE." " "
    "RESPONSABILIDADE" " " "DE" came out one word a line (RE 855.178 ED, i278 p. 1), and the cleaner made each a
    paragraph. Pieces that follow each other on the same baseline, each within a type size of the last, are one line;
    a caption's label and its value (87 points apart) and a page's columns (read one after the other) are not."""
    lines: list[_Item] = []
    i = 0
    while i < len(items):
        first = items[i]
        last, reach, j = i, first.x1, i + 1
        while first.text.strip() and j < len(items) and _continues(first, reach, items[j]):
            reach = items[j].x1
            if items[j].text.strip():
                last = j
            j += 1
        if last == i:
            lines.append(first)
        else:
            pieces = [it.text.strip() for it in items[i : last + 1] if it.text.strip()]
            tail = " " if items[last].text.endswith(" ") else ""
            text = " ".join(pieces) + tail
            lines.append(_Item(first.x0, first.y0, items[last].x1, first.y1, text, first.seq, first.size))
        i = last + 1
    return lines


def _continues(first: _Item, reach: float, piece: _Item) -> bool:
    """Whether `piece` goes on the line `first` began and which reaches `reach` so far."""
    same_baseline = abs(piece.y0 - first.y0) <= EDGE_SLACK and abs(piece.y1 - first.y1) <= EDGE_SLACK
    return same_baseline and -EDGE_SLACK <= piece.x0 - reach <= first.size


def _overlaps(a: _Item, b: _Item) -> bool:
    corners = zip((a.x0, a.y0, a.x1, a.y1), (b.x0, b.y0, b.x1, b.y1), strict=True)
    return all(abs(u - v) <= OVERPRINT_SLACK for u, v in corners)


def _order(items: list[_Item], depth: int) -> list[_Item] | None:
    """Items in column order, or None when they form no columns (their order stays as drawn)."""
    if depth > MAX_DEPTH or len(items) < 2 * MIN_COLUMN_LINES:
        return None
    gutter = _find_gutter(items)
    if gutter is None:
        return None
    left_edge, right_edge = gutter

    # The edges a column's lines are set against: where at least MIN_COLUMN_LINES lines with text end (left of
    # the gutter) or start (right of it). A lone page number that defines the gutter's edge does not make one.
    written = [it for it in items if it.text.strip()]
    left_set = sum(abs(it.x1 - left_edge) < EDGE_SLACK for it in written) >= MIN_COLUMN_LINES
    right_set = sum(abs(it.x0 - right_edge) < EDGE_SLACK for it in written) >= MIN_COLUMN_LINES

    def spans(it: _Item) -> bool:
        # Crossing the gutter, or centred on it like a page number, belongs to neither column. A short word
        # flush with a column's edge ("é" ending a justified line of a narrow side column) is that column's,
        # not a cut across the page; a blank line there still separates rows (margin notes beside articles).
        if it.x1 > left_edge and it.x0 < right_edge:
            return True
        flush = bool(it.text.strip()) and (
            (left_set and abs(it.x1 - left_edge) < EDGE_SLACK) or (right_set and abs(it.x0 - right_edge) < EDGE_SLACK)
        )
        centre = (it.x0 + it.x1) / 2
        return not flush and left_edge - MIN_GUTTER <= centre <= right_edge + MIN_GUTTER

    spanning = sorted((it for it in items if spans(it)), key=lambda it: it.middle)
    cuts = [it.middle for it in spanning]
    # Band k holds the column lines above the k-th spanning line (and below the one before it).
    bands: list[tuple[list[_Item], list[_Item]]] = [([], []) for _ in range(len(spanning) + 1)]
    for it in items:  # drawing order, kept within each column of a band
        if spans(it):
            continue
        band = bands[bisect.bisect_left(cuts, it.middle)]
        band[0 if it.x1 <= left_edge else 1].append(it)
    ordered: list[_Item] = []
    for k, (band_left, band_right) in enumerate(bands):
        ordered += _order(band_left, depth + 1) or band_left  # a column may itself hold columns
        ordered += _order(band_right, depth + 1) or band_right
        if k < len(spanning):
            ordered.append(spanning[k])
    return ordered


def _find_gutter(items: list[_Item]) -> tuple[float, float] | None:
    """The widest vertical gap between narrow lines that has a real column on each side."""
    area_x0 = min(it.x0 for it in items)
    area_x1 = max(it.x1 for it in items)
    width = area_x1 - area_x0
    if width <= 0:
        return None
    narrow = sorted((it for it in items if it.width < 0.55 * width), key=lambda it: it.x0)
    gaps: list[tuple[float, float]] = []
    reach = area_x0
    for it in narrow:
        if it.x0 - reach >= MIN_GUTTER:
            gaps.append((reach, it.x0))
        reach = max(reach, it.x1)
    total_chars = sum(len(it.text.strip()) for it in items)
    for gap_x0, gap_x1 in sorted(gaps, key=lambda g: g[1] - g[0], reverse=True):
        middle = (gap_x0 + gap_x1) / 2
        if not area_x0 + 0.2 * width <= middle <= area_x0 + 0.8 * width:
            continue
        left = [it for it in items if it.x1 <= gap_x0]
        right = [it for it in items if it.x0 >= gap_x1]
        if not (_is_column(left, width) and _is_column(right, width)):
            continue
        if sum(len(it.text.strip()) for it in left + right) < 0.3 * total_chars:
            continue
        top = max(min(it.y0 for it in left), min(it.y0 for it in right))
        bottom = min(max(it.y1 for it in left), max(it.y1 for it in right))
        shorter = min(_height(left), _height(right))
        if shorter <= 0 or bottom - top < 0.5 * shorter:  # one above the other is not side by side
            continue
        return gap_x0, gap_x1
    return None


def _is_column(side: list[_Item], text_width: float) -> bool:
    if len(side) < MIN_COLUMN_LINES or sum(len(it.text.strip()) for it in side) < MIN_COLUMN_CHARS:
        return False
    if max(it.x1 for it in side) - min(it.x0 for it in side) < 0.25 * text_width:
        return False
    # Lines of a column start at one left edge (justified or left-aligned text); right-aligned
    # dates and signatures, or scattered labels, do not.
    edges = Counter(round(it.x0 / 3) for it in side)
    return edges.most_common(1)[0][1] >= 0.5 * len(side)


def _height(side: list[_Item]) -> float:
    return max(it.y1 for it in side) - min(it.y0 for it in side)


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------


def _draws_a_grid(page: pymupdf.Page) -> bool:
    """Whether the page draws at least 3 horizontal and 3 vertical rules: a table's minimum."""
    rows: set[int] = set()
    columns: set[int] = set()
    try:
        drawings = page.get_cdrawings()
    except Exception:  # drawings are only a hint; a page whose paths MuPDF cannot list has no grid
        return False
    if len(drawings) > MAX_GRID_PATHS:
        return False
    for path in drawings:
        for item in path.get("items", ()):
            if item[0] == "l":
                (ax, ay), (bx, by) = item[1], item[2]
                if abs(ay - by) < 1 and abs(ax - bx) > 5:
                    rows.add(round(ay))
                elif abs(ax - bx) < 1 and abs(ay - by) > 5:
                    columns.add(round(ax))
            elif item[0] == "re":
                x0, y0, x1, y1 = item[1]
                if abs(y1 - y0) < 2 and abs(x1 - x0) > 5:
                    rows.add(round(y0))
                elif abs(x1 - x0) < 2 and abs(y1 - y0) > 5:
                    columns.add(round(x0))
                elif abs(x1 - x0) >= 2 and abs(y1 - y0) >= 2:
                    rows.update((round(y0), round(y1)))
                    columns.update((round(x0), round(x1)))
            if len(rows) >= 3 and len(columns) >= 3:
                return True
    return False


def _tables(page: pymupdf.Page, textpage: pymupdf.TextPage) -> list[_Item]:
    """Ruled tables on the page, each as one item whose text is its rows, one line each."""
    try:
        found = page.find_tables(strategy="lines").tables
    except Exception:  # table finding is an improvement; without it the lines stay as drawn
        return []
    if not found:
        return []
    words = page.get_text("words", textpage=textpage)
    items: list[_Item] = []
    for table in found:
        grid: list[list[str]] = []
        for row in table.rows:
            cells = [_cell_text(words, cell) for cell in row.cells if cell is not None]
            grid.append(cells)
        width = max((len(r) for r in grid), default=0)
        used = [c for c in range(width) if any(c < len(r) and r[c] for r in grid)]
        rows = [[r[c] if c < len(r) else "" for c in used] for r in grid]
        rows = [r for r in rows if any(r)]
        if len(used) < 2 or sum(1 for r in rows if sum(1 for c in r if c) >= 2) < 2:
            continue  # a frame or a one-column box, not a table: leave its lines as they are
        x0, y0, x1, y1 = table.bbox
        items.append(_Item(x0, y0, x1, y1, "\n".join(" | ".join(r) for r in rows), 0))
    return items


def _words_in(words: list[tuple], bbox: tuple[float, float, float, float]) -> list[tuple]:
    x0, y0, x1, y1 = bbox
    return [w for w in words if x0 <= (w[0] + w[2]) / 2 <= x1 and y0 <= (w[1] + w[3]) / 2 <= y1]


def _cell_text(words: list[tuple], bbox: tuple[float, float, float, float]) -> str:
    inside = sorted(_words_in(words, bbox), key=lambda w: (w[5], w[6], w[7]))
    return " ".join(w[4] for w in inside)


def _inside(item: _Item, table: _Item) -> bool:
    middle_x = (item.x0 + item.x1) / 2
    return table.x0 <= middle_x <= table.x1 and table.y0 <= item.middle <= table.y1
