-- The event outbox (shared/runtime/outbox.py): events the API decided on (a deletion, an access change, a reviewer's
-- approval, re-OCR or rejection), written in the same transaction as the change they announce and deleted once
-- the broker took them. A broker outage delays them; it can no longer lose them or fail the request.
-- (Uploads keep their own outbox: the ledger row of a submission, documents.reason_code.)
CREATE TABLE outbox (
    id          bigserial PRIMARY KEY,
    topic       text NOT NULL,
    event_type  text NOT NULL,
    event       jsonb NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
