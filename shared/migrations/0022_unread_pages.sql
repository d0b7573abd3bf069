-- A born-digital document with a few weak OCR pages (a photo, a scanned annex) is indexed without their text
-- (services/extractor/policy.py): which pages, and why in words a reviewer can act on. The review queue lists
-- such an indexed document under reason code "unread_pages" until a reviewer corrects, re-reads or accepts them.
ALTER TABLE documents ADD COLUMN unread_pages int[] NOT NULL DEFAULT '{}';
ALTER TABLE documents ADD COLUMN unread_reason text;
CREATE INDEX documents_unread ON documents (updated_at) WHERE unread_pages <> '{}';
