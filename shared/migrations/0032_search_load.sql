-- What each search replica is living through (issue 31 item 2, shared/runtime/search_load.py): searches in flight and the
-- p95 latency of those that ended within its recent window, written every PRECEDENTE_SEARCH_LOAD_INTERVAL_S while
-- it has any and deleted when it has none. The pipeline stages read it before taking their next piece of work and
-- wait, bounded, while search is busy (shared/runtime/admission.py): ingestion yields to search in every deployment
-- (embedded `up`, compose, k8s, several replicas), where niceness alone reaches neither PostgreSQL nor another host.
-- UNLOGGED: no WAL for a figure that is stale within seconds; a crash of PostgreSQL only empties it.
CREATE UNLOGGED TABLE search_load (
    replica    text PRIMARY KEY CHECK (length(replica) <= 200),  -- host:pid of the search process
    in_flight  integer NOT NULL CHECK (in_flight >= 0),
    p95_ms     real NOT NULL CHECK (p95_ms >= 0),
    at         timestamptz NOT NULL DEFAULT clock_timestamp()
);
