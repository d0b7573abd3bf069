"""bench/adapt_e5.py: the pairs it mines from an ementa, and a LoRA delta that starts as the base model and survives
its file."""

import importlib.util
import random
from pathlib import Path
from types import ModuleType

import numpy as np
import torch

BENCH = Path(__file__).resolve().parents[1] / "bench"
EMENTA = (
    "APELAÇÃO CÍVEL. DIREITO DO CONSUMIDOR. INSCRIÇÃO INDEVIDA EM CADASTRO DE INADIMPLENTES. DANO MORAL IN RE IPSA. "
    "QUANTUM INDENIZATÓRIO MANTIDO. RECURSO CONHECIDO E NÃO PROVIDO. 1. A inscrição indevida do nome do consumidor em "
    "cadastro de proteção ao crédito gera dano moral presumido, que dispensa a prova do prejuízo sofrido."
)


def adapt() -> ModuleType:
    spec = importlib.util.spec_from_file_location("adapt_e5", BENCH / "adapt_e5.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_ementa_splits_into_its_heading_segments_and_its_prose() -> None:
    bench = adapt()
    segments, body = bench.heading_and_body(EMENTA)
    assert body.startswith("A inscrição indevida do nome do consumidor")  # its item number stays in the heading
    assert "INSCRIÇÃO INDEVIDA EM CADASTRO DE INADIMPLENTES" in segments and "DANO MORAL IN RE IPSA" in segments
    for _ in range(20):  # the query is lower-case subject segments, never the appeal's class or outcome
        query = bench.keyword_query(segments, random.Random(_))
        assert query and query == query.lower() and "apelação" not in query and "provido" not in query


def test_a_delta_starts_as_the_base_model_and_is_read_back_from_its_file(tmp_path: Path) -> None:
    bench = adapt()
    lora = bench.LoraE5(rank=2, alpha=4.0)
    text = ["responsabilidade solidária dos fornecedores"]
    base = lora.embed(text, True, 64).detach()
    with torch.no_grad():
        lora.merge()
        assert torch.allclose(lora.embed(text, True, 64), base, atol=1e-6), "B starts at zero: the base model"
        lora.params["l0.qkv.B"] += 0.05
        lora.merge()
        moved = lora.embed(text, True, 64)
    assert not torch.allclose(moved, base, atol=1e-4)
    lora.save(tmp_path / "delta.npz", {"pairs": 1})
    again = bench.LoraE5(rank=2, alpha=4.0)
    again.load(tmp_path / "delta.npz")
    with torch.no_grad():
        again.merge()
        assert np.allclose(again.embed(text, True, 64).numpy(), moved.numpy(), atol=1e-6)


def test_a_near_topic_batch_holds_one_area_and_one_pair_per_subject() -> None:
    bench = adapt()
    assert bench.stf_area("direito processual civil instrumento de mandato juntado por cópia") == (
        "direito processual civil"
    )
    assert bench.stf_area("direito tributário imunidade de templos") == "direito tributário"
    pairs = [
        {"kind": "subject-ementa", "source": f"{area}{k}{n}", "query": f"direito {area} assunto {k}", "passage": "x"}
        for area, subjects in (("penal", 10), ("tributário", 9), ("eleitoral", 3))
        for k in range(subjects)
        for n in range(2)
    ] + [{"kind": "heading-body", "source": "h", "query": "direito penal assunto 0", "passage": "y"}]
    stream = bench.near_topic_batches(pairs, 6, random.Random(0))
    seen = set()
    for _ in range(30):
        batch = next(stream)
        areas = {bench.stf_area(p["query"]) for p in batch}
        assert len(batch) == 6 and len(areas) == 1 and len({p["query"] for p in batch}) == 6
        assert all(p["kind"] == "subject-ementa" for p in batch)
        seen |= areas
    assert seen == {"direito penal", "direito tributário"}  # an area of 3 subjects offers no near-topic batch


def test_the_near_topic_rank_counts_only_other_subjects_of_the_same_area() -> None:
    bench = adapt()
    pairs = [
        {"kind": "subject-ementa", "query": "direito penal furto"},
        {"kind": "subject-ementa", "query": "direito penal furto"},  # the same subject: answers it too
        {"kind": "subject-ementa", "query": "direito penal roubo"},
        {"kind": "subject-ementa", "query": "direito tributário icms"},  # another area
        {"kind": "heading-body", "query": "furto qualificado"},
    ]
    sims = torch.tensor(
        [
            [0.5, 0.9, 0.6, 0.9, 0.9],
            [0.9, 0.5, 0.4, 0.9, 0.9],
            [0.9, 0.9, 0.5, 0.9, 0.9],
            [0.9, 0.9, 0.9, 0.5, 0.9],
            [0.9, 0.9, 0.9, 0.9, 0.5],
        ]
    )
    assert bench.near_topic_ranks(sims, pairs) == [1, 0, 2, 0]


def test_a_question_and_its_reasons_are_read_from_an_ementa_and_from_a_decision_that_quotes_one() -> None:
    """The "questão em discussão" without its "consiste em saber se", and the "razões de decidir"; in a whole decision
    (whole=True) the reasons end at the quoted ementa's DISPOSITIVO, not in the decision's own body."""
    bench = adapt()
    question = "A questão em discussão consiste em saber se incidem juros de mora entre a conta e o precatório."
    reasons = "O Tema 96 do STF determina que os juros de mora incidem no período entre a data da conta de " * 3
    ementa = f"I. CASO EM EXAME 1. Agravo. II. QUESTÃO EM DISCUSSÃO 2. {question} III. RAZÕES DE DECIDIR 3. {reasons}"
    asked, said = bench.question_reasons(ementa)
    assert asked == "incidem juros de mora entre a conta e o precatório."
    assert said.startswith("3. O Tema 96") and said.endswith("data da conta de")
    decision = f"DECISÃO Trata-se de agravo. EMENTA {ementa} IV. DISPOSITIVO 4. Agravo provido. Passo a decidir. " + (
        "O recurso não merece prosperar. " * 200
    )
    assert bench.question_reasons(decision, whole=True)[1] == said
    assert bench.question_reasons(decision.replace("DISPOSITIVO", "CONCLUSÃO"), whole=True) is None
    assert bench.question_reasons("EMENTA: APELAÇÃO CÍVEL. DANO MORAL. 1. Recurso provido.") is None
