"""Work identity, pure: keys from the metadata forms the annotator and submitters write, MinHash on real
decisions of ../shared/docs (a copy, an OCR-noisy copy, an unrelated decision), and work formation."""

import json
from datetime import date
from pathlib import Path

import pytest

from precedente.services.annotator.logic import annotate
from precedente.services.cleaner.logic import clean_pages
from precedente.shared.legal.works import (
    BANDS,
    NUM_PERM,
    SIMILARITY_THRESHOLD,
    Fingerprint,
    Member,
    act_key,
    fingerprint,
    form_works,
    higher_court_key,
    join_reason,
    lsh_bands,
    minhash,
    shingles,
    similarity,
    work_keys,
)
from precedente.shared.payloads import DocumentMetadata
from tests.helpers.ocr import ocr_noisy
from tests.helpers.samples import DOCS, read_pages

GOLD = Path(__file__).parents[2] / "data" / "metadata_gold.json"
PLAIN = DocumentMetadata(title="decisao.pdf")  # a file whose metadata says nothing about what it is
SCANNED = DOCS / "scanned"


def gold(name: str) -> DocumentMetadata:
    entry = next(d for d in json.loads(GOLD.read_text())["documents"] if d["file"] == name)
    return DocumentMetadata.model_validate({k: v for k, v in entry.items() if k != "file"})


def text_of(name: str) -> str:
    return "\n".join(p.text for p in read_pages(name))


def exact_jaccard(a: str, b: str) -> float:
    sa, sb = set(shingles(a).tolist()), set(shingles(b).tolist())
    return len(sa & sb) / len(sa | sb)


# ------------------------------------------------------------------------------------------------ keys


def test_the_gold_decisions_give_one_key_each_and_the_parecer_and_petition_none() -> None:
    assert work_keys(gold("stj_resp_1602076_sp_acordao.pdf")) == ["stj:resp:1602076:acordao"]
    assert work_keys(gold("stj_agint_aresp_2560760_se_acordao.pdf")) == ["stj:agint-aresp:2560760:acordao"]
    assert work_keys(gold("tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf")) == [
        "cnj:00173873320178190000:acordao"
    ]
    assert work_keys(gold("tjsp_sentenca_vara_empresarial_arbitragem.pdf")) == ["cnj:10481063020248260100:sentenca"]
    # The parecer's "19.16.2470.0122952/2021-19" is an internal administrative number: it names no decision.
    assert work_keys(gold("parecer_pgjmg_procon_16-2022.pdf")) == []
    assert work_keys(gold("mp_acao_civil_publica_peticao_inicial.pdf")) == []


@pytest.mark.parametrize(
    "written",
    ["REsp 1.602.076/SP", "RECURSO ESPECIAL Nº 1.602.076 - SP", "REsp 1602076", "RECURSO ESPECIAL Nº 1.602.076 - SP "
     "(2016/0134010-1)", "Recurso Especial n. 1.602.076/SP"],
)  # fmt: skip
def test_the_forms_of_one_stj_case_number_give_one_key(written: str) -> None:
    metadata = DocumentMetadata(title="Acórdão", document_type="acordao", court="stj", process_number=written)
    assert work_keys(metadata) == ["stj:resp:1602076:acordao"]


def test_an_incidental_appeal_is_another_decision_than_the_appeal_it_is_lodged_in() -> None:
    assert higher_court_key("AgInt no AREsp 2.560.760/SE", "stj") == "stj:agint-aresp:2560760"
    assert higher_court_key("AGRAVO INTERNO NO AGRAVO EM RECURSO ESPECIAL Nº 2560760 - SE", "stj") == (
        "stj:agint-aresp:2560760"
    )
    assert higher_court_key("AREsp 2.560.760/SE", "stj") == "stj:aresp:2560760"
    assert higher_court_key("AgInt nos EDcl no REsp 1.431.391/SP", None) == "stj:agint-edcl-resp:1431391"
    # A bare number takes its class from procedural_class; a class that several courts share needs the court.
    assert higher_court_key("1.602.076", "stj", "Recurso Especial") == "stj:resp:1602076"
    assert higher_court_key("HC 123.456", None) is None
    assert higher_court_key("HC 123.456", "stf") == "stf:hc:123456"


def test_what_names_no_single_decision_gives_no_key() -> None:
    # What the annotator makes of i649, a comment printed above the decision it comments: the caption's number,
    # type "outro". It must not join the decision.
    comment = DocumentMetadata(
        title=": MINISTRA NANCY ANDRIGHI", document_type="outro", court="stj", process_number="REsp 1.602.076/SP"
    )
    assert work_keys(comment) == []
    despacho = DocumentMetadata(title="Despacho", document_type="despacho", process_number="0017387-33.2017.8.19.0000")
    assert work_keys(despacho) == []  # a case has dozens of despachos
    wrong_digits = DocumentMetadata(
        title="Acórdão", document_type="acordao", process_number="0017387-34.2017.8.19.0000"
    )
    assert work_keys(wrong_digits) == []
    # A CNJ number is one case, not one decision: its sentença and its acórdão stay apart.
    sentenca = gold("tjsp_sentenca_vara_empresarial_arbitragem.pdf")
    acordao = sentenca.model_copy(update={"document_type": "acordao"})
    assert set(work_keys(sentenca)).isdisjoint(work_keys(acordao))


def test_the_annotator_reads_the_same_key_from_a_real_decision() -> None:
    pages = read_pages("stj_resp_1602076_sp_acordao.pdf")
    metadata = annotate(clean_pages(pages), "stj_resp_1602076_sp_acordao.pdf", None, pages)
    assert work_keys(metadata) == ["stj:resp:1602076:acordao"]


def test_the_forms_of_one_act_give_one_key() -> None:
    def act(title: str, court: str | None = None, when: date | None = None) -> list[str]:
        metadata = DocumentMetadata(title=title, document_type="ato_normativo", court=court, judgment_date=when)
        return work_keys(metadata)

    cdc = ["act:br:lei:-:8078:1990"]
    assert act("Lei 8.078/1990") == act("Lei nº 8.078, de 11 de setembro de 1990") == act("LEI N. 8.078/90") == cdc
    odr = ["act:eu:regulation:524:2013"]
    assert act("Regulation (EU) No 524/2013 of the European Parliament and of the Council of 21 May 2013") == odr
    assert act("Regulamento (UE) n.º 524/2013 do Parlamento Europeu e do Conselho") == odr
    assert act("Directive 2002/22/EC of the European Parliament") == act("Diretiva 2002/22/CE") != odr
    decree = ["act:br:decreto:-:8660:2016"]
    assert (
        act("DECRETO Nº 8.660, DE 29 DE JANEIRO DE 2016") == act("Decreto nº 8.660", when=date(2016, 1, 29)) == decree
    )
    assert act("Decreto nº 8.660") == []  # no year anywhere: a decree number alone is not certain enough
    # Acts their issuer numbers: the issuer comes from the title or the origin, and without one no key.
    assert act("RESOLUÇÃO 228, DE 22 DE JUNHO DE 2016.", "cnj") == act("Resolução CNJ nº 228/2016") != []
    assert act("Resolução nº 228/2016") == []
    assert act("Lei Estadual nº 1.234/2001") == []
    assert act("Comentários à Lei 8.078/1990") == []  # a commentary names the act later in its title
    assert work_keys(DocumentMetadata(title="Lei 8.078/1990", document_type="outro")) == []
    assert act_key("Regulation (EU) 2016/679") == "act:eu:regulation:679:2016"


# --------------------------------------------------------------------------------------------- MinHash


def test_minhash_tells_a_copy_and_an_ocr_noisy_copy_from_an_unrelated_decision() -> None:
    original = text_of("stj_resp_1433940_mg_acordao.pdf")
    copy = (SCANNED / "stj_resp_1433940_mg_scan.groundtruth.txt").read_text()
    noisy = ocr_noisy(copy, rate=0.04)
    unrelated = text_of("stj_resp_1543564_sp_acordao.pdf")
    sig = {name: minhash(text) for name, text in [("o", original), ("c", copy), ("n", noisy), ("u", unrelated)]}
    assert all(len(s) == NUM_PERM for s in sig.values())
    assert similarity(sig["o"], sig["c"]) > 0.95  # the scan's ground truth is the same text, laid out anew
    assert SIMILARITY_THRESHOLD + 0.05 < similarity(sig["o"], sig["n"]) < 0.9
    assert similarity(sig["o"], sig["u"]) < 0.2  # two STJ acórdãos share their formulas, not their text
    # The estimate follows the true Jaccard similarity of the shingle sets (its standard error at 0.67 is 0.04).
    assert abs(similarity(sig["o"], sig["n"]) - exact_jaccard(original, noisy)) < 0.15
    assert abs(similarity(sig["o"], sig["u"]) - exact_jaccard(original, unrelated)) < 0.1
    # LSH: the noisy copy is found by its bands, the unrelated decision is not even a candidate.
    bands = {name: set(lsh_bands(s)) for name, s in sig.items()}
    assert len(bands["o"]) == BANDS
    assert bands["o"] & bands["n"]
    assert not bands["o"] & bands["u"]


def test_minhash_is_stable_and_ignores_case_accents_digits_and_spacing() -> None:
    text = text_of("stj_agint_aresp_2560760_se_acordao.pdf")
    assert minhash(text) == minhash(text)
    variant = text.upper().replace("ç", "c").replace(" ", "  ").replace("2024", "2O24")
    assert similarity(minhash(text), minhash(variant)) > 0.97
    assert minhash("Vistos, relatados e discutidos.") == []  # too short to say anything
    assert lsh_bands([]) == []
    assert similarity([], minhash(text)) == 0.0


# ------------------------------------------------------------------------------------------------ works


def full_and_ementa() -> tuple[str, str]:
    """REsp 1.602.076/SP's full text and an ementa-only extract of it (its first page, as the archive's
    i652 and i1034 are)."""
    pages = [p.text for p in read_pages("stj_resp_1602076_sp_acordao.pdf")]
    return "\n".join(pages), pages[0]


def test_an_ementa_only_copy_joins_its_decision_through_the_key_not_through_its_text() -> None:
    full, ementa = full_and_ementa()
    resp = gold("stj_resp_1602076_sp_acordao.pdf")
    whole, extract = fingerprint(resp, full), fingerprint(resp, ementa)
    assert similarity(whole.signature, extract.signature) < SIMILARITY_THRESHOLD  # containment is no similarity
    assert join_reason(whole, extract) == "key stj:resp:1602076:acordao"
    unnamed = Fingerprint([], extract.signature, extract.bands)  # the same extract with no case number read
    assert join_reason(whole, unnamed) is None


def test_identical_texts_of_two_named_cases_stay_two_works() -> None:
    # Courts issue one text in dozens of cases (julgamentos em bloco): the case numbers tell them apart.
    text, _ = full_and_ementa()
    one = DocumentMetadata(title="REsp 1.602.076/SP", document_type="acordao", court="stj")
    another = DocumentMetadata(title="REsp 1.602.077/SP", document_type="acordao", court="stj")
    assert join_reason(fingerprint(one, text), fingerprint(another, text)) is None
    assert join_reason(fingerprint(one, text), fingerprint(PLAIN, text)) == "similarity 1.00"


def test_works_are_components_named_by_the_oldest_member_and_a_bridge_merges_two() -> None:
    full, ementa = full_and_ementa()
    resp = gold("stj_resp_1602076_sp_acordao.pdf")
    other = text_of("stj_resp_1433940_mg_acordao.pdf")
    members = [
        Member("pdf-without-metadata", (1,), fingerprint(PLAIN, full)),
        Member("ementa", (2,), fingerprint(resp, ementa)),
        Member("unrelated", (3,), fingerprint(gold("stj_resp_1433940_mg_acordao.pdf"), other)),
    ]
    works = form_works(members)
    assert {name: a.work for name, a in works.items()} == {
        "pdf-without-metadata": None,
        "ementa": None,
        "unrelated": None,
    }
    # A noisy copy of the full text that also carries the case number bridges the two: one work, named by
    # the oldest member, each member saying how it joined.
    bridge = Member("scan", (4,), fingerprint(resp, ocr_noisy(full, rate=0.03)))
    works = form_works([*members, bridge])
    assert works["pdf-without-metadata"].work == "pdf-without-metadata"
    assert works["pdf-without-metadata"].reason is None
    assert works["ementa"].work == works["scan"].work == "pdf-without-metadata"
    assert works["ementa"].reason == "key stj:resp:1602076:acordao with scan"
    assert works["scan"].reason is not None and works["scan"].reason.startswith("key stj:resp:1602076:acordao")
    assert works["unrelated"].work is None
    # The order members come in does not matter: the same works, the same names.
    assert form_works([bridge, *reversed(members)]) == works
