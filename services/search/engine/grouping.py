"""One entry per work: the ranked passages of a query grouped by the decision or act they belong to.

A firm's drive holds one decision several times (its PDF, a scan, an ementa-only extract): the indexer
gives each copy the same work id (services/indexer/works.py). A lawyer wants five decisions, not one
decision five times, so the ranked candidates are walked best first and each work keeps its best passage
plus up to two more that say something else. A passage that repeats one already kept (the ementa a PDF
reprints on page 3, the same ementa in the scan) is dropped: copies of one text embed to nearly the same
vector, so a cosine above REPEAT_COSINE between two passages of one work is a repeat, as is an overlap of
more than half the shorter one inside one document (consecutive chunks share a tail).
"""

from dataclasses import dataclass, field

import numpy as np

REPEAT_COSINE = 0.95
OTHER_PASSAGES = 2


@dataclass(frozen=True)
class Passage:
    """What grouping needs of one ranked candidate."""

    index: int  # position in the candidate pool
    work_id: str
    document_id: str
    char_start: int
    char_end: int


@dataclass
class WorkGroup:
    best: int  # pool index of the work's best passage
    others: list[int] = field(default_factory=list)  # pool indexes, best first


def _overlap(a: Passage, b: Passage) -> bool:
    if a.document_id != b.document_id:
        return False
    shared = min(a.char_end, b.char_end) - max(a.char_start, b.char_start)
    shorter = min(a.char_end - a.char_start, b.char_end - b.char_start)
    return shorter > 0 and shared > shorter / 2


def group_by_work(
    order: list[int], passages: list[Passage], embeddings: np.ndarray, other_passages: int = OTHER_PASSAGES
) -> list[WorkGroup]:
    """Works in the order of their best passage; `order` is the pool ranked best first, `embeddings` the
    pool's unit vectors (row i for pool index i)."""
    groups: dict[str, WorkGroup] = {}
    for i in order:
        passage = passages[i]
        group = groups.get(passage.work_id)
        if group is None:
            groups[passage.work_id] = WorkGroup(best=i)
            continue
        if len(group.others) >= other_passages:
            continue
        kept = [group.best, *group.others]
        if any(_overlap(passage, passages[k]) for k in kept):
            continue
        if float((embeddings[kept] @ embeddings[i]).max()) >= REPEAT_COSINE:  # the method: np.max's wrapper costs
            continue
        group.others.append(i)
    return list(groups.values())
