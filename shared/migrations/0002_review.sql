-- The review queue: which stage held a document back and why (a stable code), and what reviewers did.
ALTER TABLE documents ADD COLUMN halted_in text;
ALTER TABLE documents ADD COLUMN reason_code text;

CREATE TABLE review_actions (
    id          bigserial PRIMARY KEY,
    document_id uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    version     int NOT NULL,
    action      text NOT NULL CHECK (action IN ('approve', 'reocr', 'correct', 'reject')),
    actor       text NOT NULL,
    detail      jsonb NOT NULL DEFAULT '{}',
    at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX review_actions_document ON review_actions (document_id, at);
