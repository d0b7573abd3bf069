"""Status statements (precedente.shared.legal.status) over ../shared/corpus and ../shared/archive: how many, of what,
where.

    nice -n 10 .venv/bin/python bench/status_corpus.py [--archive] [--list]

Neither holds a label for "this súmula was cancelled": every statement found is printed with its record id and the
sentence (--list), to be read by hand against what the sentence says (the judgement goes into the report, never
the corpus text into the repository).

Read on 2026-12-03 (corpus: ementa, body and dispositivo of each record; archive: each PDF's text layer, cleaned and
annotated as the annotator does, court from its metadata):
- corpus, 10,626 decisions: 73 statements in 30 decisions (cancelada 23, revista 46, superada 4), 20 distinct
  targets. By hand, 71 of 73 say what is stored: the two wrong are Tema 184/STJ read as revised from "em vista da
  revisão dos temas 126, 184, 280, ..." (the Pet 12.344 kept Tema 184) and Súmula 45/STJ "encontra-se superada"
  in a passage that reproduces a party's argument. The negatives the rules leave out there: the STF's
  "Superação da Súmula 691" in habeas corpus (6), "REVISÃO. SÚMULA 7/STJ" headings (about 60), "PROPOSTA DE
  REVISÃO DE TESES REPETITIVAS" and "proposta de revisão do entendimento firmado no Tema 692" (17), "REVISÃO OU
  CANCELAMENTO DA SÚMULA VINCULANTE Nº 9. VIA ADEQUADA", the RG heading "CANCELAMENTO DA SÚMULA VINCULANTE N° 9.
  REPERCUSSÃO GERAL RECONHECIDA", "não promoveu a superação", "A superação da Súmula n. 83 exige".
- archive, 94 PDFs: none. Its one mention, the STF's second ED in RE 1.366.243 (i277), asks for Tema 793 to be
  cancelled and discusses the "suposta obscuridade no cancelamento": a request, not a statement.
"""

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from precedente.shared.legal.status import StatusStatement, find_status_statements  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def corpus() -> list[tuple[str, list[StatusStatement]]]:
    found = []
    for path in sorted((SHARED / "corpus").glob("*.jsonl")):
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                parts = (record["ementa"], record["text"], record["meta"].get("dispositivo") or "")
                found.append((record["id"], find_status_statements("\n\n".join(filter(None, parts)), record["court"])))
    return found


def archive() -> list[tuple[str, list[StatusStatement]]]:
    import pymupdf

    from precedente.services.annotator.logic import annotate
    from precedente.services.cleaner.logic import clean_pages
    from precedente.shared.payloads import Page

    found = []
    for path in sorted((SHARED / "archive").glob("*.pdf")):
        with pymupdf.open(path) as doc:
            raw = [Page(number=i + 1, text=page.get_text()) for i, page in enumerate(doc)]
        cleaned = clean_pages(raw)
        court = annotate(cleaned, path.name, raw_pages=raw).court
        found.append((path.name, find_status_statements("\n\n".join(p.text for p in cleaned), court)))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--archive", action="store_true", help="also read ../shared/archive's PDFs")
    parser.add_argument("--list", action="store_true", help="each statement with its record and sentence")
    args = parser.parse_args()
    sets = [("corpus", corpus())] + ([("archive", archive())] if args.archive else [])
    for name, found in sets:
        kinds = Counter(s.kind for _, statements in found for s in statements)
        targets = {s.target for _, statements in found for s in statements}
        saying = sum(1 for _, statements in found if statements)
        print(f"{name}: {len(found)} documents, {sum(kinds.values())} statements in {saying}, {dict(kinds)}, "
              f"{len(targets)} distinct targets")  # fmt: skip
        if args.list:
            for ident, statements in found:
                for s in statements:
                    print(f"  {ident} | {s.label} {s.kind} | {s.sentence}")


if __name__ == "__main__":
    main()
