"""Qualified-precedent rules (precedente.shared.legal.precedents) over the court-decision corpus, against its official
labels.

    nice -n 10 .venv/bin/python bench/precedents_corpus.py [--half test|tune|all] [--sample 30] [--seed 7]

../shared/corpus/tjrn_stj_stf_execucao_penal.jsonl holds STJ recursos repetitivos (meta.kind
"acordao_recurso_repetitivo", meta.tema) and STF repercussão-geral records (meta.kind
"acordao_repercussao_geral", no tema): the positives of role "is". Every record of a court that cannot fix
such a precedent for the kind found (TJs, TNU, STJ monocráticas, which are never repetitivos) is a negative;
the STF ementas of stf_tjms_ementas are labelled by their id's suffix (see expected_is) and those with a
bare class and number are only counted. The text given to the rules is
the ementa, the body and the certidão (meta.dispositivo); the `tese` field is left out, because the source
appended "Veja o Tema Repetitivo N" to it, which would leak the label.

Records are split in two halves by a hash of their id: rules are tuned on "tune" and reported on "test".
Role "applies" has no label in the corpus: the bench prints a seeded sample of detections with their context
to be read by hand (the judgement goes into the report, never the corpus text into the repository).
"""

import argparse
import hashlib
import json
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from precedente.shared.legal.precedents import find_qualified_precedents, label  # noqa: E402

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
LABELLED_KINDS = {"acordao_recurso_repetitivo": "repetitivo", "acordao_repercussao_geral": "repercussao_geral"}


def half(record_id: str) -> str:
    return "test" if hashlib.sha1(record_id.encode()).digest()[0] % 2 else "tune"


def records(which: str):
    for path in sorted(CORPUS.glob("*.jsonl")):
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                if which == "all" or half(record["id"]) == which:
                    yield path.stem, record


def expected_is(record: dict) -> tuple[str | None, bool]:
    """(kind the record is, whether that is known). Besides meta.kind, the STF's own id suffix labels its
    ementas: "_RG" is a repercussão-geral manifestation, "_AgR", "_ED", "_MC", "_QO" are appeals, embargos,
    injunctions and questions of order, which never fix a precedent; a bare "RE_123" may or may not."""
    kind = LABELLED_KINDS.get(record["meta"].get("kind", ""))
    if kind:
        return kind, True
    if record["court"] != "STF":
        return None, True
    suffix = record["id"].split("_", 2)[2] if record["id"].count("_") >= 2 else ""
    if suffix == "RG":
        return "repercussao_geral", True
    return None, bool(suffix)


def document_text(record: dict) -> str:
    parts = [record["ementa"], record["text"], record["meta"].get("dispositivo", "")]
    return "\n".join(p for p in parts if p)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--half", default="test", choices=["test", "tune", "all"])
    parser.add_argument("--sample", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show-errors", action="store_true")
    args = parser.parse_args()

    tp = fp = fn = 0
    number_right = number_wrong = number_missing = 0
    is_kinds: Counter[str] = Counter()
    applies: list[tuple[str, dict, object, str]] = []
    applies_kinds: Counter[str] = Counter()
    unlabelled_is: list[tuple[str, str, str]] = []
    errors: list[str] = []
    n = 0
    for source, record in records(args.half):
        n += 1
        court = record["court"].lower()
        text = document_text(record)
        found = find_qualified_precedents(text, court)
        own = [p for p in found if p.role == "is"]
        expected, labelled = expected_is(record)
        if own:
            is_kinds[own[0].kind] += 1
        if expected:
            if own and own[0].kind == expected:
                tp += 1
                tema = record["meta"].get("tema")
                if tema:
                    if own[0].number is None:
                        number_missing += 1
                    elif own[0].number == tema:
                        number_right += 1
                    else:
                        number_wrong += 1
                        errors.append(f"wrong number {record['id']}: {own[0].number} != {tema}")
            else:
                fn += 1
                errors.append(f"missed {record['id']} ({expected}): {record['ementa'][:160]!r}")
        elif own and labelled:
            fp += 1
            errors.append(f"false 'is' {record['id']} {label(own[0])}: {text[:160]!r}")
        elif own:
            unlabelled_is.append((record["id"], label(own[0]), text[:200]))
        for p in found:
            if p.role == "applies":
                applies_kinds[p.kind] += 1
                applies.append((source, record, p, text))

    print(f"half={args.half} records={n}")
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    print(f"role 'is' (kind): tp={tp} fp={fp} fn={fn} precision={precision:.3f} recall={recall:.3f}")
    print(
        f"role 'is' Tema number on STJ repetitivos found: right={number_right} wrong={number_wrong} "
        f"not in text={number_missing}"
    )
    print(f"'is' by kind: {dict(is_kinds)}; unlabelled STF ementas read as 'is': {len(unlabelled_is)}")
    print(f"'applies' by kind: {dict(applies_kinds)}")
    if args.show_errors:
        print("\n".join(errors))
    rng = random.Random(args.seed)
    print(f"\n--- {args.sample} 'applies' detections to read by hand ---")
    for i, (source, record, p, text) in enumerate(rng.sample(applies, min(args.sample, len(applies))), 1):
        pos = p.at
        print(f"{i:2d}. {record['id']} [{source}] {label(p)}: ...{text[max(0, pos - 200) : pos + 90]!r}...")
    print("\n--- up to 10 STF ementas read as 'is' (no label) ---")
    for rid, lab, head in rng.sample(unlabelled_is, min(10, len(unlabelled_is))):
        print(f"{rid} {lab}: {head!r}")


if __name__ == "__main__":
    main()
