-- Passage vectors the indexer computed for a document it has not finished writing (services/indexer/service.py):
-- persisted batch by batch as they are computed, so an indexer that dies mid-document leaves its replacement only
-- the chunks not persisted yet to embed. Keyed by the document's version, the chunk's ordinal and the model
-- (its vector space: engines of one model make interchangeable vectors, `engine` says which made these), and
-- reused only for a chunk whose text still hashes the same. The indexer deletes a document's rows in the
-- transaction that writes its chunks; UNLOGGED: no WAL for a cache a crash of PostgreSQL may only empty.
CREATE UNLOGGED TABLE computed_vectors (
    document_id     uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    version         int NOT NULL,
    ordinal         int NOT NULL,
    embedding_model text NOT NULL,
    text_sha256     bytea NOT NULL,
    embedding       real[] NOT NULL,
    engine          text,
    computed_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (document_id, version, embedding_model, ordinal)
);
