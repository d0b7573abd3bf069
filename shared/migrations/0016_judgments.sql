-- The firm's own judgments (issue 20): a lawyer marks a result "relevante" or "não relevante" for the query
-- that produced it. One row per (judge, normalised query, passage): judging again changes the row. Kept with
-- what produced the list (filters, sort and the ranking configuration), so `precedente eval --judgments` can
-- re-run the query and tell a judgment made under one ranking from one made under another.
--
-- A judgment changes nothing anyone sees: search never reads this table. The application role gets its rows
-- like every table's (shared/infra/db.py grant_app_role: SELECT, INSERT, UPDATE, DELETE, and the sequence), so
-- nothing is granted here.
CREATE TABLE judgments (
    id              bigserial PRIMARY KEY,
    judge           text NOT NULL,                 -- Identity.user of the credential, never a body field
    judge_kind      text NOT NULL,                 -- 'user', 'key', 'oidc', 'anonymous'
    judge_groups    text[] NOT NULL DEFAULT '{}',  -- their groups when judging: per practice group figures
    query           text NOT NULL,                 -- as typed (the last time it was judged)
    query_key       text NOT NULL,                 -- folded, lower case, spaces collapsed: what makes it "the same"
    document_id     uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    passage_id      bigint NOT NULL,               -- chunks.id; no foreign key: a re-index renumbers passages
    relevant        boolean NOT NULL,
    note            text,
    filters         jsonb NOT NULL DEFAULT '{}',   -- the SearchFilters of the list, as POST /search took them
    sort            text NOT NULL DEFAULT 'relevance',
    ranking         jsonb NOT NULL,                -- {id, weights, relevance_model, embedding_model, rerank}
    ranking_id      text NOT NULL,                 -- ranking->>'id', indexed
    panel_id        text,                          -- a blind panel's session (issue 20, item 3); NULL: the page
    shown_rank      int,                           -- where the result stood in the list the judge saw, if known
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (judge, query_key, passage_id)
);
CREATE INDEX judgments_updated ON judgments (updated_at);
CREATE INDEX judgments_judge ON judgments (judge, updated_at);
CREATE INDEX judgments_document ON judgments (document_id);
CREATE INDEX judgments_panel ON judgments (panel_id) WHERE panel_id IS NOT NULL;
