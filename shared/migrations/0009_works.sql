-- Work identity (shared/legal/works.py, services/indexer/works.py): copies of one decision or act (a PDF,
-- a scan, an ementa-only extract) share a work. work_id NULL means the document is a work of its own:
-- readers group by coalesce(work_id, id). A work of several documents is named by its oldest member,
-- whose own work_id then equals its id. Rows indexed before this migration keep work_id NULL.
ALTER TABLE documents
    ADD COLUMN work_id uuid,
    ADD COLUMN work_keys text[] NOT NULL DEFAULT '{}',     -- "stj:resp:1602076:acordao", "act:br:lei:-:8078:1990"
    ADD COLUMN work_bands text[] NOT NULL DEFAULT '{}',    -- MinHash LSH band hashes: candidates for similarity
    ADD COLUMN work_minhash bigint[] NOT NULL DEFAULT '{}',  -- the signature: estimated Jaccard of candidates
    ADD COLUMN work_reason text;                           -- how it joined its work ("key ... with <id>")

CREATE INDEX documents_work ON documents ((coalesce(work_id, id)));
CREATE INDEX documents_work_keys ON documents USING gin (work_keys);
CREATE INDEX documents_work_bands ON documents USING gin (work_bands);
