"""One entry per work: copies and repeats collapse, distinct passages of one work stay (up to two)."""

import numpy as np

from precedente.services.search.engine.grouping import OTHER_PASSAGES, Passage, group_by_work


def unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_copies_of_one_work_are_one_group_and_works_keep_their_best_first_order() -> None:
    passages = [
        Passage(0, "w1", "pdf", 0, 500),
        Passage(1, "w1", "scan", 0, 500),  # the same text in the scan: a repeat
        Passage(2, "w2", "other", 0, 500),
        Passage(3, "w1", "pdf", 2000, 2500),  # another part of the decision
    ]
    embeddings = np.vstack([unit(1, 0, 0), unit(1, 0.01, 0), unit(0, 1, 0), unit(0.6, 0, 0.8)])
    groups = group_by_work([0, 1, 2, 3], passages, embeddings)
    assert [g.best for g in groups] == [0, 2]
    assert groups[0].others == [3]  # the scan's copy of the same passage is dropped
    assert groups[1].others == []


def test_chunks_of_one_document_sharing_most_of_their_text_are_not_two_passages() -> None:
    passages = [Passage(0, "w", "d", 0, 1000), Passage(1, "w", "d", 300, 1300), Passage(2, "w", "d", 3000, 4000)]
    embeddings = np.vstack([unit(1, 0, 0), unit(0, 1, 0), unit(0, 0, 1)])
    (group,) = group_by_work([0, 1, 2], passages, embeddings)
    assert group.best == 0 and group.others == [2]


def test_a_work_keeps_at_most_two_other_passages() -> None:
    passages = [Passage(i, "w", "d", i * 1000, i * 1000 + 500) for i in range(5)]
    embeddings = np.eye(5, dtype=np.float32)
    (group,) = group_by_work(list(range(5)), passages, embeddings)
    assert len(group.others) == OTHER_PASSAGES == 2
    assert group.others == [1, 2]


def test_five_works_when_five_are_candidates_whatever_one_work_holds() -> None:
    passages = [Passage(i, "big", "d", i * 1000, i * 1000 + 500) for i in range(30)]
    passages += [Passage(30 + k, f"w{k}", f"d{k}", 0, 500) for k in range(4)]
    embeddings = np.eye(34, dtype=np.float32)
    groups = group_by_work(list(range(34)), passages, embeddings)
    assert len(groups) == 5
    assert [g.best for g in groups] == [0, 30, 31, 32, 33]
