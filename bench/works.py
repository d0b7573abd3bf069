"""Work identity over a real archive: which files the indexer would put in one work, and why.

    nice -n 10 .venv/bin/python bench/works.py [--archive ../shared/archive] [--docs] [--ocr] [--limit N]

Every PDF goes through the pipeline's own logic as plain functions, as `precedente inspect` runs it: the extractor's
text-layer pass (precedente.services.extractor.logic; pages it would OCR are left empty, and files with no text layer at
all are reported as skipped unless --ocr runs the full extractor on them), the cleaner, the chunker (tokens counted by
the embedding model) and the annotator's rules. The text is the chunks' texts joined in order, as the indexer passes it
to precedente.services.indexer.works.assign_work, and works are formed by precedente.shared.legal.works.form_works, the
function assign_work applies: no second copy of the rules.

Prints the number of files and works, each work of several files with every member's reason (the key or
the similarity that joined it, and to which file), the known groups of the archive's README with what
became of them, and the similarity figures the threshold was chosen from: the lowest similarity inside a
work joined by content, and the highest between files of different works.
"""

import argparse
import itertools
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pymupdf  # noqa: E402

from precedente.services.annotator.logic import annotate  # noqa: E402
from precedente.services.chunker.logic import chunk_document  # noqa: E402
from precedente.services.cleaner.logic import clean_pages  # noqa: E402
from precedente.services.extractor.logic import BadInput, _read_text_layer, extract  # noqa: E402
from precedente.services.extractor.policy import extract_options  # noqa: E402
from precedente.shared.embeddings.embedders import get_model  # noqa: E402
from precedente.shared.legal.works import (  # noqa: E402
    SIMILARITY_THRESHOLD,
    Fingerprint,
    Member,
    fingerprint,
    form_works,
    join_reason,
    similarity,
)
from precedente.shared.payloads import DocumentMetadata, Page  # noqa: E402
from precedente.shared.settings import Settings  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
KNOWN = {  # the archive README's groups; i649 comments on REsp 1.602.076/SP and must stay out of it
    "REsp 1.602.076/SP": {"i641", "i652", "i1034", "i1078"},
    "REsp 1.900.136/SP": {"i630", "i1035", "i1083"},
    "REsp 1.433.940/MG": {"i644", "i1072"},
    "AgInt no AREsp 2.560.760/SE": {"i681", "i1087"},
    "REsp 1.543.564/SP": {"i1325", "i1080"},
    "Regulation (EU) 524/2013": {"i1043", "i1122"},
}
MUST_STAY_OUT = {"REsp 1.602.076/SP": {"i649"}}


@dataclass
class File:
    name: str
    pages: int
    ocr_needed: int
    metadata: DocumentMetadata
    fingerprint: Fingerprint
    seconds: float


def text_layer_pages(path: Path) -> tuple[list[Page], int]:
    """The extractor's first pass: each page's text layer, empty where the extractor would OCR it."""
    with pymupdf.open(path) as doc:
        read = [_read_text_layer(doc, i, path.name) for i in range(doc.page_count)]
    pages = [Page(number=p.number, text="" if p.needs_ocr else p.text) for p in read]
    return pages, sum(p.needs_ocr for p in read)


def read_file(path: Path, settings: Settings, ocr: bool) -> tuple[list[Page], int] | str:
    """Pages of the file, or why it is skipped."""
    pages, ocr_needed = text_layer_pages(path)
    if any(p.text.strip() for p in pages):
        return pages, ocr_needed
    if not ocr:
        return f"no text layer ({len(pages)} page(s) would need OCR)"
    try:
        return extract(path.read_bytes(), path.name, **extract_options(settings)).pages, 0
    except BadInput as bad:
        return bad.reason


def analyse(path: Path, settings: Settings, ocr: bool) -> File | str:
    started = time.perf_counter()
    read = read_file(path, settings, ocr)
    if isinstance(read, str):
        return read
    raw, ocr_needed = read
    cleaned = clean_pages(raw)
    metadata = annotate(cleaned, path.name, None, raw)
    model = get_model(settings.embedding_variant, settings.embedding_threads)
    chunks = chunk_document(
        cleaned, model.token_count, max_tokens=settings.chunk_max_tokens, overlap_tokens=settings.chunk_overlap_tokens
    )
    found = fingerprint(metadata, "\n".join(c.text for c in chunks))  # what the indexer hands assign_work
    return File(path.stem, len(raw), ocr_needed, metadata, found, time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--archive", type=Path, default=SHARED / "archive")
    parser.add_argument("--docs", action="store_true", help="also read ../shared/docs (its copies of the archive's)")
    parser.add_argument("--ocr", action="store_true", help="OCR the files that have no text layer (slow)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N files (a quick look)")
    args = parser.parse_args()
    settings = Settings()
    paths = sorted(args.archive.glob("*.pdf"), key=lambda p: (len(p.stem), p.stem))
    if args.docs:
        paths += sorted((SHARED / "docs").glob("*.pdf")) + sorted((SHARED / "docs" / "scanned").glob("*.pdf"))
    paths = paths[: args.limit]

    files: list[File] = []
    skipped: list[tuple[str, str]] = []
    for path in paths:
        result = analyse(path, settings, args.ocr)
        if isinstance(result, str):
            skipped.append((path.stem, result))
            print(f"  skipped {path.stem}: {result}", flush=True)
            continue
        files.append(result)
        keys = ", ".join(result.fingerprint.keys) or "-"
        print(f"  {result.name}: {result.pages} p., {result.seconds:.1f} s, keys {keys}", flush=True)

    # Files in archive order: the order the indexer would have met them in (the oldest names the work).
    members = [Member(f.name, (i,), f.fingerprint) for i, f in enumerate(files)]
    works = form_works(members)
    groups: dict[str, list[File]] = {}
    for f in files:
        groups.setdefault(str(works[f.name].work or f.name), []).append(f)
    multi = [g for g in groups.values() if len(g) > 1]

    print(f"\n{len(paths)} files: {len(files)} read, {len(skipped)} skipped (no text layer)")
    print(
        f"{len(groups)} works, {len(multi)} of several files (threshold: estimated Jaccard >= {SIMILARITY_THRESHOLD})"
    )
    for group in multi:
        root = group[0]
        label = root.metadata.process_number or root.metadata.title
        print(f"\n  work {root.name} ({root.metadata.document_type}, {label[:70]!r}):")
        for f in group:
            reason = works[f.name].reason
            if reason is None:  # the oldest member: say which of its own links holds the work together
                links = [(join_reason(f.fingerprint, o.fingerprint), o.name) for o in group if o is not f]
                shown = sorted((r, n) for r, n in links if r is not None)
                reason = "oldest member" + (f" ({shown[0][0]} with {shown[0][1]})" if shown else "")
            print(f"    {f.name:<46} {f.pages:>3} p.  {reason}")

    print("\nknown groups (archive README):")
    work_of = {f.name: str(works[f.name].work or f.name) for f in files}
    for label, names in KNOWN.items():
        present = [n for n in sorted(names) if n in work_of]
        found = {work_of[n] for n in present}
        extra = sorted(
            f.name for f in files if work_of[f.name] in found and f.name not in names and f.name.startswith("i")
        )
        intruders = sorted(n for n in MUST_STAY_OUT.get(label, set()) if work_of.get(n) in found)
        verdict = (
            "not in this run"
            if not present
            else "joined"
            if len(found) == 1 and len(present) == len(names)
            else f"split into {len(found)} works"
        )
        missing = sorted(names - set(present))
        print(
            f"  {label:<28} {verdict}; files {', '.join(present)}"
            + (f"; not read: {', '.join(missing)}" if missing else "")
            + (f"; also in it: {', '.join(extra)}" if extra else "")
            + (f"; WRONGLY JOINED: {', '.join(intruders)}" if intruders else "")
        )

    inside = [  # the pairs that joined by content
        (similarity(a.fingerprint.signature, b.fingerprint.signature), a.name, b.name)
        for g in multi
        for a, b in itertools.combinations(g, 2)
        if (join_reason(a.fingerprint, b.fingerprint) or "").startswith("similarity")
    ]
    across = [
        (similarity(a.fingerprint.signature, b.fingerprint.signature), a.name, b.name)
        for a, b in itertools.combinations(files, 2)
        if work_of[a.name] != work_of[b.name]
    ]
    print("\nsimilarity figures (estimated Jaccard, 128 permutations):")
    if inside:
        print(
            "  lowest of the pairs joined by content:", ", ".join(f"{v:.3f} {a}~{b}" for v, a, b in sorted(inside)[:5])
        )
    print("  highest across works:", ", ".join(f"{v:.3f} {a}~{b}" for v, a, b in sorted(across, reverse=True)[:8]))
    seconds = sum(f.seconds for f in files)
    print(f"\n{sum(f.pages for f in files)} pages read in {seconds:.0f} s (extraction to fingerprint)")


if __name__ == "__main__":
    main()
