-- Research that lasts beyond one query (issue 34, items 5 and 1): each person's search history and their saved
-- searches with alerts. Rows belong to a caller, (owner_kind, owner) = Identity.kind and Identity.user, and
-- every route reads only the caller's own. Neither table holds a document: what a saved search finds is
-- computed again, under the person's groups of the moment, whenever it is shown or mailed, so an access
-- change after the search was saved is obeyed from the next look.

-- What a person searched (POST /search, first page): shown to them alone, re-run, cleared; rows older than
-- PRECEDENTE_HISTORY_RETENTION_DAYS are deleted (services/search/store/history.py). The audit log keeps its
-- own copy of every search for administrators, under its own retention.
CREATE TABLE search_history (
    id          bigserial PRIMARY KEY,
    owner_kind  text NOT NULL,                          -- 'user', 'key', 'oidc', 'anonymous'
    owner       text NOT NULL,
    query       text NOT NULL,
    filters     jsonb NOT NULL DEFAULT '{}',            -- SearchFilters, as sent (nulls left out)
    sort        text NOT NULL DEFAULT 'relevance',
    results     int NOT NULL DEFAULT 0,                 -- works found (SearchResponse.total) when it ran
    at          timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX search_history_owner ON search_history (owner_kind, owner, at DESC);
CREATE INDEX search_history_at ON search_history (at);

-- A saved search: the query, its filters and sort, under a name the person chose. "Novos desde a última
-- visita" are the works the search returns now at least "provável", within the person's access, first indexed
-- after last_visited_at; opening the search on the page (POST /saved-searches/{id}/visit) moves it to now.
CREATE TABLE saved_searches (
    id              bigserial PRIMARY KEY,
    owner_kind      text NOT NULL,
    owner           text NOT NULL,
    owner_groups    text[] NOT NULL DEFAULT '{}',       -- the caller's groups when last seen: the digest's, for
                                                        -- callers without an account row (OIDC, keys)
    name            text NOT NULL,
    query           text NOT NULL,
    filters         jsonb NOT NULL DEFAULT '{}',
    sort            text NOT NULL DEFAULT 'relevance',
    email           text,                               -- the daily digest's recipient; NULL: no e-mail
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    last_visited_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    digest_sent_at  timestamptz,                        -- the last digest that carried this search's news
    UNIQUE (owner_kind, owner, name)
);
CREATE INDEX saved_searches_owner ON saved_searches (owner_kind, owner, created_at DESC);
CREATE INDEX saved_searches_email ON saved_searches (email) WHERE email IS NOT NULL;

-- When each document's current content first became searchable: the first 'indexed' entry of its history.
-- document_history (document_id, at) already serves the lookup; this index narrows it to that stage.
CREATE INDEX document_history_indexed ON document_history (document_id, at) WHERE stage = 'indexed';
