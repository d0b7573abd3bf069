-- The relevance grade recalibrated from the firm's judgments (issue 20, item 4): `precedente eval --judgments
-- --apply` fits p' = sigmoid(a * logit(p) + b) (Platt scaling) on the shipped model's probability of the judged
-- results, and the search service applies the active row before the grade's thresholds
-- (services/search/relevance.py). No active row: the shipped model exactly. Rows are kept, never updated but
-- for `active`, so the history of what the firm's grade was says itself; at most one row is active.
-- The application role gets its rows by default (shared/infra/db.py grant_app_role).
CREATE TABLE relevance_calibration (
    id              bigserial PRIMARY KEY,
    a               double precision NOT NULL CHECK (a > 0),  -- a slope above 0: the grade's order is kept
    b               double precision NOT NULL,
    judged_results  int NOT NULL CHECK (judged_results >= 0),  -- judged results (in the re-run top 10) fitted on
    brier_before    double precision NOT NULL,                 -- the shipped model's Brier score on them
    brier_after     double precision NOT NULL,                 -- the refit's, cross-validated over queries
    created_by      text NOT NULL,                             -- Identity.user of the administrator
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    active          boolean NOT NULL DEFAULT true
);
CREATE UNIQUE INDEX relevance_calibration_one_active ON relevance_calibration (active) WHERE active;
