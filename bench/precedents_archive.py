"""What the firm-like archive holds in qualified precedents (issue 33, item 1), as the annotator stores them.

    nice -n 10 .venv/bin/python bench/precedents_archive.py [--archive ../shared/archive] [--files]

Every PDF is read as tests/services/annotator/test_archive_gold.py reads it: the text layer of every page (no OCR:
a page without one adds nothing), cleaned by the cleaner, annotated with the raw pages beside the cleaned ones.
The annotator reads qualified precedents of decisions only (shared/legal/precedents.py through
services/annotator/logic.py), so the table counts, per kind, the decisions that *are* one (role "is"), the
decisions that *apply* one, and the distinct precedents applied (kind, court, number). --files lists each decision
with what it is and applies.
"""

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pymupdf

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from precedente.services.annotator.logic import annotate  # noqa: E402
from precedente.services.cleaner.logic import clean_pages  # noqa: E402
from precedente.shared.legal.codes import DECISION_TYPES  # noqa: E402
from precedente.shared.legal.precedents import KIND_LABELS, QualifiedPrecedent, label  # noqa: E402
from precedente.shared.payloads import DocumentMetadata, Page  # noqa: E402

ARCHIVE = Path(__file__).resolve().parents[1].parent / "shared" / "archive"


def read(path: Path) -> DocumentMetadata:
    with pymupdf.open(path) as doc:
        raw = [Page(number=i + 1, text=page.get_text()) for i, page in enumerate(doc)]
    return annotate(clean_pages(raw), path.name, raw_pages=raw)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--archive", type=Path, default=ARCHIVE)
    parser.add_argument("--files", action="store_true", help="each decision with what it is and applies")
    args = parser.parse_args()
    files = sorted(args.archive.glob("*.pdf"))
    decisions = 0
    is_docs: Counter[str] = Counter()
    applies_docs: Counter[str] = Counter()
    distinct: dict[str, set[tuple[str | None, str | None, str | None]]] = defaultdict(set)
    for path in files:
        meta = read(path)
        if meta.document_type not in DECISION_TYPES:
            continue
        decisions += 1
        found = [QualifiedPrecedent(p.kind, p.court, p.number, p.role, p.item) for p in meta.qualified_precedents]
        for kind in {p.kind for p in found if p.role == "is"}:
            is_docs[kind] += 1
        for kind in {p.kind for p in found if p.role == "applies"}:
            applies_docs[kind] += 1
        for p in found:
            if p.role == "applies":
                distinct[p.kind].add((p.court, p.number, p.item))
        if args.files and found:
            own = ", ".join(label(p) for p in found if p.role == "is") or "-"
            applied = "; ".join(label(p) for p in found if p.role == "applies") or "-"
            number = meta.process_number or "-"
            print(f"{path.name:10s} {meta.court or '-':6s} {number:28s} é: {own} | aplica: {applied}")
    print(f"{len(files)} files, {decisions} decisions ({', '.join(sorted(DECISION_TYPES))})")
    print(f"{'kind':26s} {'decisions that are':>18s} {'decisions applying':>19s} {'distinct applied':>17s}")
    for kind, name in KIND_LABELS.items():
        print(f"{name:26s} {is_docs[kind]:18d} {applies_docs[kind]:19d} {len(distinct[kind]):17d}")
    any_is = sum(is_docs.values())
    print(f"{'any':26s} {any_is:18d} {sum(applies_docs.values()):19d} {sum(len(v) for v in distinct.values()):17d}")


if __name__ == "__main__":
    main()
