-- Identity: people (local accounts), their sessions, and systems' API keys. Secrets are never stored:
-- passwords as scrypt hashes, session tokens and API key secrets as SHA-256 digests (they are random,
-- 256-bit: a fast digest is enough, and a stolen table holds nothing usable).
CREATE TABLE users (
    name            text PRIMARY KEY,
    password_hash   text NOT NULL,
    groups          text[] NOT NULL DEFAULT '{}',
    roles           text[] NOT NULL DEFAULT '{}',  -- 'reviewer', 'admin'
    created_by      text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    disabled_at     timestamptz
);

CREATE TABLE sessions (
    token_hash      bytea PRIMARY KEY,
    user_name       text NOT NULL REFERENCES users (name) ON DELETE CASCADE,
    created_at      timestamptz NOT NULL DEFAULT now(),
    expires_at      timestamptz NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_name);

CREATE TABLE api_keys (
    id              text PRIMARY KEY,             -- the public part of the key (prk_<id>_<secret>)
    secret_hash     bytea NOT NULL,
    name            text NOT NULL,
    scopes          text[] NOT NULL,              -- 'search', 'ingest', 'review', 'admin'
    groups          text[] NOT NULL DEFAULT '{}',
    created_by      text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    revoked_at      timestamptz,
    last_used_at    timestamptz
);

-- Who submitted each document's current version: they may follow its processing (GET /documents/{id}/status)
-- even when its access list leaves them out, and send its next version; nothing else.
ALTER TABLE documents ADD COLUMN submitted_by text;

-- The audit log: who did what, when, to which documents. Append-only: rows are never updated, and only
-- the retention job deletes them (it sets precedente.audit_prune for its own transaction). A superuser
-- can still bypass this, as with any database; the application's role cannot by mistake.
CREATE TABLE audit_log (
    id              bigserial PRIMARY KEY,
    at              timestamptz NOT NULL DEFAULT clock_timestamp(),
    actor           text NOT NULL,
    actor_kind      text NOT NULL,                -- 'user', 'key', 'oidc', 'anonymous'
    action          text NOT NULL,                -- 'search', 'document.open', 'review.approve', ...
    document_ids    uuid[] NOT NULL DEFAULT '{}',
    query           text,                          -- searches only; never written to any other log
    filters         jsonb,
    detail          jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE INDEX audit_log_actor ON audit_log (actor, at);
CREATE INDEX audit_log_documents ON audit_log USING gin (document_ids);

CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('precedente.audit_prune', true) = 'on' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit_log is append-only (% refused)', TG_OP;
END
$$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
