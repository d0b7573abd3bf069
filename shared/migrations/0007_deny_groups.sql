-- Ethical walls: besides the groups allowed to see a document (access_groups, '*' for everyone), the
-- groups denied it (deny_groups). A deny wins: a caller with any denied group sees nothing of the
-- document, even if another of their groups, or '*', allows it; '*' in deny_groups hides it from all.
-- Both lists are copied to chunks, so the check applies inside the search's index scans.
ALTER TABLE documents
    ADD COLUMN deny_groups text[] NOT NULL DEFAULT '{}',
    ADD COLUMN access_changed_at timestamptz;  -- the latest access change applied (PUT or documents.access_changed)
ALTER TABLE chunks ADD COLUMN deny_groups text[] NOT NULL DEFAULT '{}';
-- The visibility check below filters by NOT (deny_groups && ...), which no index serves; this one answers
-- "which passages wall group X off" for audits and bulk changes.
CREATE INDEX chunks_deny ON chunks USING gin (deny_groups);

-- The one definition of "the caller may see it", used by every route of the search service. It is a
-- plain SQL expression, so PostgreSQL inlines it into each query: the allow test stays the indexable
-- `access_groups && $groups OR access_groups @> '{*}'` (GIN, a BitmapOr), and the deny test a cheap filter
-- inside the HNSW and GIN scans. '*' stays a constant of its own so that even a generic plan (a prepared
-- statement's, where the groups are unknown) estimates "open to everyone" from the statistics. It must stay
-- inlinable: no STRICT, no SECURITY DEFINER, no plpgsql, nothing volatile.
CREATE FUNCTION public.precedente_visible(access_groups text[], deny_groups text[], caller_groups text[])
    RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN (access_groups && caller_groups OR access_groups @> '{*}')
       AND NOT (deny_groups && caller_groups OR deny_groups @> '{*}');

-- Who changed a document's access lists, from what to what, and through which route.
CREATE TABLE document_access_changes (
    id                bigserial PRIMARY KEY,
    document_id       uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    version           int NOT NULL,
    access_groups     text[] NOT NULL,
    deny_groups       text[] NOT NULL,
    previous_access   text[] NOT NULL,
    previous_deny     text[] NOT NULL,
    actor             text NOT NULL,
    source            text NOT NULL,
    changed_at        timestamptz NOT NULL,
    at                timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX document_access_changes_document ON document_access_changes (document_id, at);
