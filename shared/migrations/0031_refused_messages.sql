-- Messages a consumer refused for breaking their contract (issue 35, point 2): shared/runtime/stage.py's _refuse writes a
-- row for each, beside the dead letter it publishes, so that one naming no document at all (undecodable bytes, a
-- JSON array, no document id in its body or key) is still seen by a person: GET /refused-messages, the page
-- /ingestao ("Mensagens recusadas") and `precedente recusadas`. Nothing in the product reads the dead-letter topic.
--
-- Bounded: every write deletes what lies past the newest PRECEDENTE_REFUSED_MESSAGES_KEPT rows (shared/runtime/refused.py),
-- so a flood of malformed messages cannot fill the database; the dead-letter topic keeps every one.
CREATE TABLE refused_messages (
    id             bigserial PRIMARY KEY,
    at             timestamptz NOT NULL DEFAULT clock_timestamp(),
    consumer       text NOT NULL CHECK (length(consumer) <= 200),  -- the stage or consumer that refused it
    topic          text NOT NULL CHECK (length(topic) <= 200),     -- the contract's topic name (documents.submitted)
    reason         text NOT NULL CHECK (length(reason) <= 4000),   -- what is wrong with it, in words
    message_start  text NOT NULL CHECK (length(message_start) <= 1000),  -- its first bytes, quoted (NULs escaped)
    document_id    uuid                                           -- from its body or key; NULL: it names none
);
CREATE INDEX refused_messages_document ON refused_messages (document_id) WHERE document_id IS NOT NULL;
