"""Team-draft interleaving (Radlinski, Kurup and Joachims, "How does clickthrough data reflect retrieval
quality?", CIKM 2008): two rankings merged into one list so a judge cannot tell which produced which result,
each result remembered as its team's pick; a judged-relevant result credits the team that picked it.

Each round the team with fewer picks (a coin between equal ones) adds its best result not yet shown, so at every
prefix of the list the teams' picks differ by at most one: neither ranking is favoured by position. A result both
rankings hold is shown once, credited to whichever picked it first. Once one ranking runs out, the other fills
the rest of the list: a ranking that finds nothing loses to one that finds something relevant.

The significance test is the firm's by-hand one: a two-sided sign test over the queries one configuration won.
"""

import hashlib
import math
import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

Team = Literal["a", "b"]
Winner = Literal["a", "b", "tie"]
K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Pick:
    """One result of the merged list: which result (its key), which team picked it, and where it stood in that
    team's own ranking (from 1)."""

    key: Hashable
    team: Team
    rank_in_team: int


def seeded_random(*parts: object) -> random.Random:
    """A generator fixed by its parts (a panel's seed, the judge, the query's position): the same judge asking
    again for the same query gets the same list, another judge another coin sequence."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def team_draft(a: Sequence[K], b: Sequence[K], length: int, rng: random.Random) -> list[Pick]:
    """The merged list of at most `length` results from rankings `a` and `b` (best first; keys identify a
    result, duplicates within one ranking are ignored)."""
    merged: list[Pick] = []
    shown: set[Hashable] = set()
    picks = {"a": 0, "b": 0}
    cursor = {"a": 0, "b": 0}
    rankings: dict[Team, Sequence[K]] = {"a": a, "b": b}

    def next_of(team: Team) -> int | None:
        ranking = rankings[team]
        while cursor[team] < len(ranking) and ranking[cursor[team]] in shown:
            cursor[team] += 1
        return cursor[team] if cursor[team] < len(ranking) else None

    while len(merged) < length:
        left: dict[Team, int | None] = {"a": next_of("a"), "b": next_of("b")}
        if left["a"] is None and left["b"] is None:
            break
        if left["a"] is None or left["b"] is None:
            team: Team = "b" if left["a"] is None else "a"
        elif picks["a"] != picks["b"]:
            team = "a" if picks["a"] < picks["b"] else "b"
        else:
            team = "a" if rng.random() < 0.5 else "b"
        index = left[team]
        assert index is not None
        key = rankings[team][index]
        merged.append(Pick(key, team, index + 1))
        shown.add(key)
        picks[team] += 1
    return merged


def credit(teams: Sequence[Team], relevant: Sequence[bool | None]) -> tuple[int, int]:
    """Each team's credit: its picks judged relevant (an unjudged pick credits nobody)."""
    a = sum(1 for team, judged in zip(teams, relevant, strict=True) if judged and team == "a")
    b = sum(1 for team, judged in zip(teams, relevant, strict=True) if judged and team == "b")
    return a, b


def winner(credit_a: int, credit_b: int) -> Winner:
    return "a" if credit_a > credit_b else "b" if credit_b > credit_a else "tie"


def sign_test(wins_a: int, wins_b: int) -> float:
    """Two-sided p-value of the sign test (exact binomial, p = 1/2) over the queries with a winner; ties are
    left out, as the sign test does. 1.0 with no winner at all."""
    n = wins_a + wins_b
    if n == 0:
        return 1.0
    try:
        from scipy.stats import binomtest  # type: ignore[import-not-found]
    except ImportError:
        tail = sum(math.comb(n, i) for i in range(min(wins_a, wins_b) + 1))
        return min(1.0, 2 * tail / 2**n)
    return float(binomtest(wins_a, n, 0.5, alternative="two-sided").pvalue)
