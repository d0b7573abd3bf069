-- What a document says was cancelled, revised or overruled (shared/legal/status.py, issue 33 item 3), in order, as
-- [{"kind", "target", "label", "sentence"}]: the annotator writes every DocumentMetadata field on the document's
-- ledger row, so the list needs its column. NULL: not read yet (indexed before this migration); the indexer reads
-- those from their stored chunks at start (services/indexer/status.py), as it does for qualified precedents.
ALTER TABLE documents ADD COLUMN status_signals jsonb;

-- The targets the statements name ("sumula:STJ:408", "repetitivo:STJ:931", "case:REsp 1.328.993"), kept by
-- PostgreSQL beside the list: a card finds the statements about its work's precedents through the GIN index (?|)
-- without unnesting every document's list.
ALTER TABLE documents ADD COLUMN status_targets jsonb
    GENERATED ALWAYS AS (jsonb_path_query_array(status_signals, '$[*].target')) STORED;
CREATE INDEX documents_status_targets ON documents USING gin (status_targets);
