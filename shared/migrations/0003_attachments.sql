-- E-mail attachments become documents of their own, linked to the message that carried them.
ALTER TABLE documents ADD COLUMN parent_id uuid REFERENCES documents (id) ON DELETE CASCADE;
CREATE INDEX documents_parent ON documents (parent_id) WHERE parent_id IS NOT NULL;
