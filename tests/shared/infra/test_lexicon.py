"""RefreshedCache: what search keeps of the statistics is of one database and one refresh, and bounded."""

from precedente.shared.infra.lexicon import MISSING, RefreshedCache


def test_a_value_is_kept_for_its_database_and_version_only() -> None:
    cache, db, other = RefreshedCache(), object(), object()
    cache.put(db, "v1", "centroids", {"pt": 1})
    assert cache.get(db, "v1", "centroids") == {"pt": 1}
    assert cache.get(other, "v1", "centroids") is MISSING  # another pool: another database, maybe
    assert cache.get(db, "v2", "centroids") is MISSING  # a refresh since
    cache.put(db, "v2", "lexemes", 1)
    assert cache.get(db, "v1", "centroids") is MISSING  # the new version emptied it


def test_an_unknown_version_keeps_nothing_and_the_least_recently_used_goes_first() -> None:
    cache, db = RefreshedCache(size=2), object()
    cache.put(db, None, "a", 1)
    assert cache.get(db, None, "a") is MISSING
    cache.put(db, "v", "a", 1)
    cache.put(db, "v", "b", 2)
    assert cache.get(db, "v", "a") == 1  # "b" is now the least recently used
    cache.put(db, "v", "c", 3)
    assert cache.get(db, "v", "b") is MISSING and cache.get(db, "v", "a") == 1 and cache.get(db, "v", "c") == 3
