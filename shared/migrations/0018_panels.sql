-- Blind panels (issue 20, item 3): the same queries ranked by two configurations, merged by team-draft
-- interleaving (services/search/interleaving.py) so the judge cannot tell which produced which result. The
-- judgments themselves land in `judgments` (0016) with panel_id and shown_rank; these tables keep what the
-- judge was shown and which team picked each result, server-side only: no route gives a judge `team`.
--
-- A judge's list is computed with their own groups when they first ask for it (the access wall), and kept so
-- that asking again shows the same list; a stored item they may no longer see is not shown again.
CREATE TABLE panels (
    id          text PRIMARY KEY,                      -- short random id, typed in `precedente panel judge ID`
    name        text NOT NULL,
    created_by  text NOT NULL,
    a           jsonb NOT NULL,                        -- {name, lexical_only, weights, ranking}: configuration A
    b           jsonb NOT NULL,                        -- configuration B
    judges      text[] NOT NULL DEFAULT '{}',          -- invited judges (Identity.user); administrators always may
    depth       int NOT NULL CHECK (depth BETWEEN 1 AND 50),  -- results shown per query
    filters     jsonb NOT NULL DEFAULT '{}',           -- SearchFilters every list of the panel runs under
    seed        bigint NOT NULL,                       -- the interleaving's coins: the same judge, the same list
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE panel_queries (
    panel_id    text NOT NULL REFERENCES panels (id) ON DELETE CASCADE,
    position    int NOT NULL,                          -- from 1, in the order of the queries file
    query       text NOT NULL,
    query_key   text NOT NULL,                         -- as judgments.query_key: what a judgment is joined on
    PRIMARY KEY (panel_id, position)
);

-- One judge's merged list of one query, made when they first asked for it.
CREATE TABLE panel_lists (
    panel_id     text NOT NULL,
    position     int NOT NULL,
    judge        text NOT NULL,
    judge_groups text[] NOT NULL,                      -- the groups the list was computed with
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (panel_id, position, judge),
    FOREIGN KEY (panel_id, position) REFERENCES panel_queries (panel_id, position) ON DELETE CASCADE
);

CREATE TABLE panel_items (
    panel_id     text NOT NULL,
    position     int NOT NULL,
    judge        text NOT NULL,
    shown_rank   int NOT NULL,                         -- from 1, in the merged list
    team         text NOT NULL CHECK (team IN ('a', 'b')),  -- who picked it: never sent to the judge
    rank_in_team int NOT NULL,                         -- where it stood in that team's own ranking
    work_id      text NOT NULL,
    document_id  uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    passage_id   bigint NOT NULL,
    shown        jsonb NOT NULL,                       -- what the judge sees of it (title, passage, citation)
    PRIMARY KEY (panel_id, position, judge, shown_rank),
    FOREIGN KEY (panel_id, position, judge) REFERENCES panel_lists (panel_id, position, judge) ON DELETE CASCADE
);
CREATE INDEX panel_items_document ON panel_items (document_id);
