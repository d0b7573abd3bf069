-- Legal metadata per document, and per chunk its place in the document's structure. The filter
-- columns lawyers narrow by are copied to chunks so that filters apply inside the index scans.
ALTER TABLE documents
    ADD COLUMN process_number text,
    ADD COLUMN procedural_class text,
    ADD COLUMN relator text,
    ADD COLUMN judging_body text,
    ADD COLUMN judgment_date date,
    ADD COLUMN publication_date date,
    ADD COLUMN parties jsonb NOT NULL DEFAULT '[]',
    ADD COLUMN subject text,
    ADD COLUMN citations text[] NOT NULL DEFAULT '{}',
    ADD COLUMN metadata_sources jsonb NOT NULL DEFAULT '{}';

ALTER TABLE chunks
    ADD COLUMN section_path text,
    ADD COLUMN is_ementa boolean NOT NULL DEFAULT false,
    ADD COLUMN relator text,
    ADD COLUMN judging_body text,
    ADD COLUMN citations text[] NOT NULL DEFAULT '{}';

CREATE INDEX chunks_citations ON chunks USING gin (citations);
CREATE INDEX chunks_relator ON chunks (relator);
CREATE INDEX chunks_judging_body ON chunks (judging_body);
