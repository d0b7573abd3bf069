-- The firm's thesaurus (issue 34, item 4): equivalence sets an administrator adds, edits and removes (the names one
-- concept goes by in this firm: a client's name for a contract type, a regional variant, the Latin its partners
-- use), on top of the general concepts shipped with the code (services/search/data/legal_concepts.tsv).
--
-- Every replica of the search service reads the sets from here. firm_thesaurus_version holds one row whose
-- version a statement trigger raises on every change to firm_concepts, in the same transaction: each search reads
-- that one row (a primary-key read) and rebuilds its concept index only when the number moved, so a change takes
-- effect on the next search of every replica, without a restart. Every change is also in the audit log
-- (thesaurus.add, thesaurus.edit, thesaurus.remove). The application role gets its rows like every table's
-- (shared/infra/db.py).
CREATE TABLE firm_concepts (
    id          bigserial PRIMARY KEY,
    names       text[] NOT NULL CHECK (cardinality(names) BETWEEN 2 AND 50),
    created_by  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_by  text NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE firm_thesaurus_version (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    version    bigint NOT NULL DEFAULT 0
);
INSERT INTO firm_thesaurus_version DEFAULT VALUES;

CREATE FUNCTION firm_thesaurus_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE firm_thesaurus_version SET version = version + 1;
    RETURN NULL;
END;
$$;

CREATE TRIGGER firm_concepts_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON firm_concepts
    FOR EACH STATEMENT EXECUTE FUNCTION firm_thesaurus_changed();
