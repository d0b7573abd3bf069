"""Which documents of the firm-like archive cite which of its decisions (issue 33, item 2), to be checked by hand.

    nice -n 10 .venv/bin/python bench/citation_graph_archive.py [--archive ../shared/archive]

Every PDF is read as bench/precedents_archive.py reads it (text layer, cleaner, annotator). A decision is cited by the
ids precedente.shared.legal.graph.cited_as gives for its case number; a document cites it when its citations (the
annotator's) hold one of them. The files of one decision (copies: the same first id) are one work. Each pair (citing
file, cited work) is printed with the sentence around the first mention, to be read: a pair is right when the text cites
that very decision. Precision is what the reader counts; the bench prints the pairs and the totals."""

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

import pymupdf

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.precedents_archive import ARCHIVE, read  # noqa: E402
from precedente.shared.legal.graph import cited_as  # noqa: E402


def context(path: Path, ident: str, width: int = 140) -> str:
    """The text around the first mention of the id's number in the file (its dots optional)."""
    with pymupdf.open(path) as doc:
        text = re.sub(r"\s+", " ", " ".join(page.get_text() for page in doc))
    number = re.search(r"\d[\d.]*", ident.split(" ")[-1] if "/" not in ident else ident.split("/")[0])
    pattern = re.escape(number.group()).replace(r"\.", r"\.?") if number else re.escape(ident)
    found = re.search(pattern, text)
    return text[max(0, found.start() - width) : found.end() + 40] if found else "(not found in the text layer)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--archive", type=Path, default=ARCHIVE)
    args = parser.parse_args()
    files = sorted(args.archive.glob("*.pdf"))
    metas = {path: read(path) for path in files}
    works: dict[str, list[Path]] = defaultdict(list)  # a work's first id -> its files
    ids: dict[str, str] = {}  # every id that names a work -> that work's first id
    for path, meta in metas.items():
        names = cited_as(meta.process_number)
        if names:
            works[names[0].split("/")[0]].append(path)
            ids |= {name: names[0].split("/")[0] for name in names}
    pairs = []
    for path, meta in metas.items():
        for work in dict.fromkeys(ids[c] for c in meta.citations if c in ids):
            if path not in works[work]:
                pairs.append((path, meta.document_type, work))
    for path, kind, work in pairs:
        cited = ", ".join(p.name for p in works[work])
        print(f"{path.name} ({kind}) cites {work} [{cited}]\n    ...{context(path, work)}...")
    print(f"{len(files)} files; {len(works)} works the base can resolve citations to; {len(pairs)} pairs")


if __name__ == "__main__":
    main()
