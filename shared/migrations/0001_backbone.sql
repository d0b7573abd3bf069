-- The document ledger, the blob store (claim check), and the searchable chunks.
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- Portuguese stemming that ignores accents: "solidária" and "solidaria" meet.
CREATE TEXT SEARCH CONFIGURATION public.pt_unaccent (COPY = pg_catalog.portuguese);
ALTER TEXT SEARCH CONFIGURATION public.pt_unaccent
    ALTER MAPPING FOR hword, hword_part, word WITH public.unaccent, portuguese_stem;

CREATE TABLE blobs (
    key          text PRIMARY KEY,
    content      bytea NOT NULL,
    content_type text,
    created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE documents (
    id             uuid PRIMARY KEY,
    external_id    text NOT NULL UNIQUE,
    filename       text NOT NULL,
    content_type   text,
    content_hash   text NOT NULL,
    size_bytes     bigint NOT NULL,
    version        int NOT NULL DEFAULT 1,
    source         text NOT NULL,
    access_groups  text[] NOT NULL DEFAULT '{*}',
    hints          jsonb NOT NULL DEFAULT '{}',
    blob_key       text NOT NULL,
    stage          text NOT NULL,
    attempts       int NOT NULL DEFAULT 0,
    last_error     text,
    trace_id       text NOT NULL,
    title          text,
    document_type  text,
    court          text,
    document_date  date,
    page_count     int,
    ocr_pages      int[] NOT NULL DEFAULT '{}',
    ocr_confidence real,
    weak_pages     int[] NOT NULL DEFAULT '{}',
    chunk_count    int,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX documents_content_hash ON documents (content_hash);
CREATE INDEX documents_stage ON documents (stage);

CREATE TABLE document_history (
    id          bigserial PRIMARY KEY,
    document_id uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    version     int NOT NULL,
    stage       text NOT NULL,
    detail      text,
    at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX document_history_document ON document_history (document_id, at);

-- Filter columns are copied from documents so that filters apply inside the vector index scan.
CREATE TABLE chunks (
    id            bigserial PRIMARY KEY,
    document_id   uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    version       int NOT NULL,
    ordinal       int NOT NULL,
    text          text NOT NULL,
    page_start    int NOT NULL,
    page_end      int NOT NULL,
    char_start    int NOT NULL,
    char_end      int NOT NULL,
    token_count   int NOT NULL,
    embedding     vector(384) NOT NULL,
    tsv           tsvector GENERATED ALWAYS AS (to_tsvector('public.pt_unaccent', text)) STORED,
    document_type text,
    court         text,
    document_date date,
    access_groups text[] NOT NULL,
    UNIQUE (document_id, ordinal)
);
CREATE INDEX chunks_embedding ON chunks USING hnsw (embedding vector_cosine_ops);
CREATE INDEX chunks_tsv ON chunks USING gin (tsv);
CREATE INDEX chunks_access ON chunks USING gin (access_groups);
CREATE INDEX chunks_filters ON chunks (document_type, court, document_date);
