-- The qualified precedents a decision is or applies (shared/legal/precedents.py, CPC art. 927), in order, as
-- [{"kind", "court", "number", "role"[, "item"]}]: the annotator writes every DocumentMetadata field on the
-- document's ledger row, so the list needs its column. NULL: not read yet (indexed before this migration); the
-- indexer reads those from their stored chunks at start (services/indexer/precedents.py), as it did for works.
ALTER TABLE documents ADD COLUMN qualified_precedents jsonb;

-- The kinds the document itself is (["repetitivo"], ["repercussao_geral"]), kept by PostgreSQL beside the list:
-- the search's filter "Precedente qualificado" (?|) and its facet read them without unnesting the list per row.
ALTER TABLE documents ADD COLUMN qualified_kinds jsonb
    GENERATED ALWAYS AS (jsonb_path_query_array(qualified_precedents, '$[*] ? (@.role == "is").kind')) STORED;
