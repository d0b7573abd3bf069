"""The relevance grade: the shipped model loads, grades monotonically and treats unknown words as unknown."""

import json

import numpy as np
import pytest

from precedente.services.search.engine.relevance import (
    BASIS,
    FEATURES,
    MODEL_FILE,
    RelevanceFeatures,
    RelevanceModel,
    coverage,
    idf_weights,
    known_terms,
    relevance_model,
    specificity,
)


def features(**changes: float) -> RelevanceFeatures:
    base = {
        "similarity": 0.86,
        "similarity_gap": 0.03,
        "coverage": 0.5,
        "lead": 0.3,
        "standing": 1.5,
        "known_terms": 1,
        "specificity": 0.6,
    }
    return RelevanceFeatures(**{**base, **changes})


def test_the_shipped_model_loads_and_says_how_it_was_fitted() -> None:
    data = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    assert data["features"] == list(FEATURES)
    assert "report" in data and data["report"]["cross_validated"]["brier"] > 0
    model = relevance_model()
    assert 0 < model.probable < model.strong < 1


def test_more_evidence_never_lowers_the_probability() -> None:
    model = relevance_model()
    weak = model.probability(features(similarity_gap=0.0, coverage=0.0, standing=0.0))
    strong = model.probability(features(similarity_gap=0.08, coverage=1.0, standing=3.0))
    assert strong > weak
    assert model.probability(features(known_terms=0.0)) < model.probability(features(known_terms=1.0))


def test_grades_follow_the_thresholds() -> None:
    n = len(FEATURES)
    model = RelevanceModel(np.zeros(n), np.ones(n), np.zeros(n), 0.0, strong=0.7, probable=0.4)
    assert model.grade(0.7) == "forte"
    assert model.grade(0.5) == "provável"
    assert model.grade(0.39) == "fraca"


def test_a_model_of_other_features_is_refused() -> None:
    data = {**relevance_model().to_json(), "features": ["similarity"]}
    with pytest.raises(ValueError, match="features"):
        RelevanceModel.from_json(data)


def test_the_rarest_known_word_says_how_specific_a_query_is() -> None:
    frequency = {"direit": 50, "franqu": 1}
    weights = idf_weights(["direit", "franqu", "xyzzy"], frequency, chunks=100)
    assert specificity(weights, frequency, 100) == pytest.approx(1.0)  # a word of one chunk
    only_common = idf_weights(["direit"], frequency, chunks=100)
    assert 0 < specificity(only_common, frequency, 100) < 0.3
    assert specificity(idf_weights(["xyzzy"], frequency, 100), frequency, 100) == 0.0  # nothing known


def test_unknown_words_weigh_as_rarest_and_count_as_unknown() -> None:
    frequency = {"arbitr": 40, "clausul": 10}
    weights = idf_weights(["arbitr", "clausul", "xyzzy"], frequency, chunks=100)
    assert weights["xyzzy"] > weights["clausul"] > weights["arbitr"]
    assert known_terms(weights, frequency) == pytest.approx(
        (weights["arbitr"] + weights["clausul"]) / sum(weights.values())
    )
    assert known_terms({}, frequency) == 0.0
    assert coverage(weights, {"clausul": 2}) == pytest.approx(weights["clausul"] / sum(weights.values()))


def test_a_model_reads_the_features_it_names_and_only_those() -> None:
    """A refit may weigh the concept features (dense standing, agreement); the shipped one ignores them."""
    names = ("similarity", "dense_standing", "agreement")
    data = {
        "features": list(names),
        "mean": [0.0, 0.0, 0.0],
        "scale": [1.0, 1.0, 1.0],
        "coefficients": [0.0, 1.0, 1.0],
        "intercept": 0.0,
        "thresholds": {"forte": 0.85, "provável": 0.6},
    }
    model = RelevanceModel.from_json(data)
    assert model.features == names and model.to_json()["features"] == list(names)
    alone = model.probability(features(dense_standing=0.0, agreement=0.0))
    assert model.probability(features(dense_standing=2.0, agreement=3.0)) > alone == pytest.approx(0.5)
    shipped = relevance_model()
    assert shipped.probability(features(dense_standing=5.0, agreement=9.0)) == shipped.probability(features())
    with pytest.raises(ValueError, match="features"):
        RelevanceModel.from_json({**data, "features": ["similarity", "dense_standing", "telepathy"]})


def test_the_basis_names_what_raised_a_grade_and_what_lowered_it() -> None:
    model = RelevanceModel(
        features=("similarity_gap", "coverage", "agreement"),
        mean=np.zeros(3),
        scale=np.ones(3),
        coefficients=np.array([2.0, 1.0, 0.5]),
        intercept=0.0,
        strong=0.85,
        probable=0.5,
    )
    # a paraphrase: the concept near, few of the query's words, several passages of the decision near the question
    paraphrase = features(similarity_gap=1.5, coverage=-0.6, agreement=3.0)
    assert model.basis(paraphrase, "forte") == ("conceito equivalente", "vários trechos da mesma decisão")
    # the words without the concept
    echo = features(similarity_gap=-1.0, coverage=2.0, agreement=0.0)
    assert model.basis(echo, "provável") == ("palavras da consulta",)
    assert model.basis(echo, "fraca") == ("conceito distante da consulta",)
    # nothing stands out by BASIS_MIN: no reason is made up
    assert model.basis(features(similarity_gap=0.05, coverage=0.05, agreement=0.1), "provável") == ()


def test_the_shipped_model_gives_a_reason_for_each_grade_it_gives() -> None:
    model = relevance_model()
    strong = features(similarity_gap=0.12, coverage=1.0, lead=1.0, standing=3.0)
    weak = features(similarity_gap=-0.02, coverage=0.0, lead=0.0, standing=-1.0)
    assert model.grade(model.probability(strong)) == "forte" and model.basis(strong, "forte")
    assert model.grade(model.probability(weak)) == "fraca"
    lowered = {phrase for _, phrase in BASIS.values() if phrase}
    assert model.basis(weak, "fraca") and set(model.basis(weak, "fraca")) <= lowered
