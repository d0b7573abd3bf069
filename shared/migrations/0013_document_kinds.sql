-- Fields of documents that are not decisions (shared/legal/describe.py): which act, work or filing a document
-- is, an act's number and issuer, a work's authors, venue and year. The subtype is copied to chunks, like the
-- type, so that a filter on it applies inside the index scans.
ALTER TABLE documents
    ADD COLUMN document_subtype text,
    ADD COLUMN act_number text,
    ADD COLUMN issuing_body text,
    ADD COLUMN authors text[] NOT NULL DEFAULT '{}',
    ADD COLUMN venue text,
    ADD COLUMN year integer;

ALTER TABLE chunks
    ADD COLUMN document_subtype text;

CREATE INDEX chunks_document_subtype ON chunks (document_subtype);
