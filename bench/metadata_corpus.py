"""The annotator's rules and the citation they make, checked on decisions they were not written for.

    nice -n 10 .venv/bin/python bench/metadata_corpus.py [--sample 300] [--seed 36] [--show 0]

Reads ../shared/corpus (TEST material only: nothing of it is copied into the project): the STJ monocráticas,
whose `text` is the decision body on one line, and the LeNER-Br acórdãos, whose `text` is the inteiro teor with
its lines. Each text is annotated as one page (the annotator's rules, no LLM) and compared with the official
metadata the corpus carries. Per field, three counts:

- right: the value agrees with the official one (class and number by their digits and class prefix, relator by
  the words of the name, judging body by its ordinal and kind, a judgment date exactly, a DJe date within
  PUBLISHED_WITHIN days after the signature the body prints);
- wrong: a value that disagrees (the costly case: a card that prints it);
- absent: no value (the citation leaves the field out: honest, but a miss).

A process number is the record's CNJ number, else the one after "Nº", else its last word. Five LeNER-Br records give
another numbering of the case than the one read (an acórdão's own number, the TJDFT's older numbering, the TJMG's own
beside the CNJ's): both print in the text, and those count as wrong (2026-12-06, each checked by hand).

"relator (person)" counts the relators given that are not a person's name by
precedente.shared.legal.people.is_person_name, and "citation PII" the citations holding a personal identifier
(precedente.shared.legal.identifiers): both must be 0."""

import argparse
import json
import random
import re
import sys
import unicodedata
from collections import defaultdict
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
PUBLISHED_WITHIN = 30  # days from a monocrática's signature to its DJe: 2 to 6 in 281 of 300 sampled (seed 36)

from precedente.services.annotator.logic import annotate  # noqa: E402
from precedente.shared.legal.citing import CitationFields, format_citation  # noqa: E402
from precedente.shared.payloads import DocumentMetadata, Page  # noqa: E402

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
"""../shared/corpus beside the checkout (--corpus for another place)."""
_TITLES = {"ministro", "ministra", "desembargador", "desembargadora", "des", "desa", "min", "juiz", "juiza", "relator"}


def norm(value: object) -> str:
    text = unicodedata.normalize("NFD", str(value))
    text = "".join(c for c in text if not unicodedata.combining(c))
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def name_words(value: str) -> set[str]:
    return {w for w in norm(value).split() if w not in _TITLES and len(w) > 1}


def records(corpus: Path, sample: int, seed: int) -> list[dict]:
    stj = [json.loads(line) for line in (corpus / "stj_monocraticas.jsonl").open()]
    stj = [r for r in stj if r["text"]]
    random.Random(seed).shuffle(stj)
    lener = [json.loads(line) for line in (corpus / "lener_br_decisoes.jsonl").open()]
    return stj[:sample] + [r for r in lener if r["text"]]


def _body_key(value: str) -> str:
    text = norm(value)
    ordinal = re.search(r"\b(\d{1,2})\s*[ao]?\b", text)
    words = {"primeira": 1, "segunda": 2, "terceira": 3, "quarta": 4, "quinta": 5, "sexta": 6, "setima": 7}
    roman = re.search(r"\b(i{1,3})\b", text)  # "Subseção I Especializada em Dissídios Individuais"
    spelt = next((v for w, v in words.items() if w in text.split()), 0)
    n = int(ordinal[1]) if ordinal else len(roman[1]) if roman else spelt
    kind = next((k for k in ("turma", "camara", "secao", "corte especial", "pleno", "plenario") if k in text), "")
    return f"{n} {kind}"


def compare(record: dict, got: DocumentMetadata) -> dict[str, str]:
    """field -> right | wrong | absent (fields the record has no official value for are not judged)."""
    verdicts: dict[str, str] = {}
    meta = record["meta"]

    def judge(field: str, value: object, right: bool) -> None:
        verdicts[field] = "absent" if value in (None, "") else "right" if right else "wrong"

    number = record["number"] or ""
    # the case's own number: a CNJ number, else the one after "Nº" (an STJ caption ends on the registration number,
    # "HABEAS CORPUS Nº 418.951 - PR (2017/0255149-8)"), else the last word
    cnj = re.search(r"\d{7}-\d{2}\.\d{4}\.\d\.\d{2}\.\d{4}", number)
    numbered = re.search(r"\bN[º°o]\.?\s*(\d[\d.]*)", number)
    digits = re.sub(r"\D", "", cnj[0] if cnj else numbered[1] if numbered else number.split()[-1] if number else "")
    if digits:
        judge("process_number", got.process_number, digits in re.sub(r"\D", "", got.process_number or ""))
    if record["class"] and record["court"] == "STJ":
        judge("procedural_class", got.procedural_class, norm(got.procedural_class or "") != "")
    if meta.get("relator"):
        value = got.relator or ""
        a, b = name_words(value), name_words(meta["relator"])
        judge("relator", got.relator, bool(a) and (a <= b or b <= a))
    else:  # no official relator (LeNER-Br): a value is checked by hand (--show)
        verdicts["relator"] = "absent" if got.relator is None else "unverified"
    if meta.get("orgao_julgador"):
        judge("judging_body", got.judging_body, _body_key(got.judging_body or "") == _body_key(meta["orgao_julgador"]))
    if record["date"]:
        # The corpus gives one date, its kind in meta.date_kind. A judgment date must be read exactly. A publication
        # date (the DJe) is printed in no monocrática's body, which ends "Brasília, <the day it was signed>": the
        # date read is right when it is that publication's day or one of the PUBLISHED_WITHIN days before it.
        official = date.fromisoformat(record["date"])
        read = [d for d in (got.judgment_date, got.publication_date) if d]
        if meta.get("date_kind") == "publicacao":
            right = any(timedelta(0) <= official - d <= timedelta(days=PUBLISHED_WITHIN) for d in read)
        else:
            right = official in read
        judge("date", got.document_date, right)
    judge("court", got.court, norm(got.court or "") == norm(record["court"]))
    return verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sample", type=int, default=300, help="STJ monocráticas read (all 61 LeNER-Br acórdãos too)")
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--show", type=int, default=0, help="print this many wrong or unverified values per field")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    try:
        from precedente.shared.legal.identifiers import find_identifiers
        from precedente.shared.legal.people import is_person_name
    except ImportError:  # before those modules existed: the counts they feed are not measured
        find_identifiers, is_person_name = None, None
    tally: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    shown: dict[str, int] = defaultdict(int)
    not_person = pii = cited = 0
    for record in records(args.corpus, args.sample, args.seed):
        got = annotate([Page(number=1, text=record["text"])], f"{record['id']}.pdf")
        for field, verdict in compare(record, got).items():
            tally[field][verdict] += 1
            if verdict in ("wrong", "unverified") and shown[field] < args.show:
                shown[field] += 1
                value = getattr(got, field, None) if field != "date" else got.document_date
                print(f"  {record['id']} {field}: got {value!r}")
        citation = format_citation(CitationFields.from_mapping(got.model_dump()))
        cited += citation is not None
        if is_person_name and got.relator and not is_person_name(got.relator):
            not_person += 1
        if find_identifiers and citation and find_identifiers(citation):
            pii += 1
    print(f"{'field':18} {'right':>6} {'wrong':>6} {'absent':>6} {'unverif':>7}  agreement(of given)")
    for field, counts in sorted(tally.items()):
        given = counts["right"] + counts["wrong"]
        share = f"{counts['right'] / given:.1%}" if given else "-"
        print(
            f"{field:18} {counts['right']:6} {counts['wrong']:6} {counts['absent']:6} {counts['unverified']:7}  {share}"
        )
    print(f"citations made: {cited}; relators not a person: {not_person}; citations with an identifier: {pii}")


if __name__ == "__main__":
    main()
