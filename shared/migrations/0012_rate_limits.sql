-- Request budgets shared by every replica of the search service (services/search/ratelimit.py): one row per
-- limited key, holding its "theoretical arrival time" (GCRA, a token bucket kept as one timestamp). A key
-- whose tat has passed has its whole burst back, the same as a key without a row, so such rows are deleted
-- whenever convenient. UNLOGGED: no WAL for a counter; a crash forgets the budgets, which only forgives callers.
-- The bucket is a SHA-256 digest of the limit's name and the key (a user name, a client address, a
-- credential), so the table holds no name nor address.
CREATE UNLOGGED TABLE rate_limits (
    bucket      bytea PRIMARY KEY,
    tat         timestamptz NOT NULL
);
CREATE INDEX rate_limits_tat ON rate_limits (tat);

-- An account whose password someone else chose (the first administrator, made by `precedente up`): every
-- route but /auth/me, /auth/password and /auth/logout refuses its sessions until its owner sets a new one.
ALTER TABLE users ADD COLUMN must_change_password boolean NOT NULL DEFAULT false;
