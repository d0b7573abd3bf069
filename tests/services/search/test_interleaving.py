"""Team-draft interleaving (services/search/interleaving.py): no result shown twice, each team's picks from its
own ranking in its own order, every prefix fair, the same coins for the same seed, credit to the team that
picked a relevant result, and the sign test the firm's panel reports."""

import math
from collections import Counter

import pytest

from precedente.services.search.interleaving import credit, seeded_random, sign_test, team_draft, winner

A = ["d1", "d2", "d3", "d4", "d5", "d6"]
B = ["d3", "d7", "d1", "d8", "d9", "d2"]


def test_no_result_is_shown_twice_and_each_team_picks_its_own_next_best() -> None:
    merged = team_draft(A, B, 10, seeded_random(7))
    keys = [p.key for p in merged]
    assert len(keys) == len(set(keys)) == len(set(A) | set(B))
    for team, ranking in (("a", A), ("b", B)):
        picked = [p for p in merged if p.team == team]
        assert [p.rank_in_team for p in picked] == sorted(p.rank_in_team for p in picked)
        for pick in picked:
            assert ranking[pick.rank_in_team - 1] == pick.key
            # Everything this team ranked above its pick was already shown when it picked.
            before = {p.key for p in merged[: merged.index(pick)]}
            assert set(ranking[: pick.rank_in_team - 1]) <= before


@pytest.mark.parametrize("seed", range(40))
def test_every_prefix_is_fair_while_both_rankings_have_results(seed: int) -> None:
    merged = team_draft(A, B, 8, seeded_random(seed))
    counts = Counter()
    for pick in merged:
        counts[pick.team] += 1
        assert abs(counts["a"] - counts["b"]) <= 1
    assert counts["a"] == counts["b"] == 4


def test_the_first_pick_goes_to_either_team_by_the_coin() -> None:
    first = Counter(team_draft(A, B, 2, seeded_random("panel", s))[0].team for s in range(200))
    assert 60 < first["a"] < 140 and first["a"] + first["b"] == 200


def test_the_same_seed_gives_the_same_list_and_another_judge_another_coin() -> None:
    once = team_draft(A, B, 10, seeded_random(42, "ana", 3))
    assert team_draft(A, B, 10, seeded_random(42, "ana", 3)) == once
    lists = {tuple(p.team for p in team_draft(A, B, 10, seeded_random(42, judge, 3))) for judge in "abcdefgh"}
    assert len(lists) > 1


def test_identical_rankings_share_the_list_and_the_credit_evenly() -> None:
    merged = team_draft(A, A, 6, seeded_random(1))
    assert [p.key for p in merged] == A
    assert Counter(p.team for p in merged) == {"a": 3, "b": 3}
    a, b = credit([p.team for p in merged], [True] * 6)
    assert a == b == 3 and winner(a, b) == "tie"


def test_the_list_stops_at_its_length_and_one_exhausted_ranking_lets_the_other_fill_it() -> None:
    assert len(team_draft(A, B, 3, seeded_random(0))) == 3
    merged = team_draft(A, [], 4, seeded_random(0))
    assert [p.key for p in merged] == A[:4] and {p.team for p in merged} == {"a"}
    short = team_draft(["x"], B, 5, seeded_random(3))
    assert [p.key for p in short].count("x") == 1 and len(short) == 5
    assert team_draft([], [], 5, seeded_random(0)) == []


def test_credit_goes_to_the_team_that_picked_each_relevant_result() -> None:
    teams = ["a", "b", "b", "a", "b"]
    assert credit(teams, [True, True, False, None, True]) == (1, 2)
    assert winner(*credit(teams, [True, True, False, None, True])) == "b"
    assert credit(teams, [None] * 5) == (0, 0) and winner(0, 0) == "tie"
    with pytest.raises(ValueError):
        credit(teams, [True])


def exact_sign_test(wins: int, losses: int) -> float:
    n = wins + losses
    probabilities = [math.comb(n, k) / 2**n for k in range(n + 1)]
    observed = probabilities[wins]
    return min(1.0, sum(p for p in probabilities if p <= observed * (1 + 1e-9)))


@pytest.mark.parametrize(("wins_a", "wins_b"), [(0, 0), (1, 0), (5, 5), (8, 2), (2, 8), (12, 3), (30, 10), (0, 6)])
def test_the_sign_test_is_the_exact_two_sided_binomial(wins_a: int, wins_b: int) -> None:
    assert sign_test(wins_a, wins_b) == pytest.approx(exact_sign_test(wins_a, wins_b) if wins_a + wins_b else 1.0)


def test_the_sign_test_figures_a_reader_can_check() -> None:
    assert sign_test(8, 2) == pytest.approx(0.109375)  # 2 * (1 + 10 + 45) / 1024
    assert sign_test(9, 1) == pytest.approx(0.021484375)  # 2 * (1 + 10) / 1024
    assert sign_test(0, 6) == pytest.approx(0.03125)
    assert sign_test(3, 3) == 1.0
