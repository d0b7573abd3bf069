-- The redator do acórdão (services/annotator/fields.redator): who wrote the acórdão when the relator was defeated,
-- cited "Red. p/ o acórdão Min. X". The annotator writes every DocumentMetadata field on the document's ledger row,
-- so the name needs its column. redator_unread marks the rows annotated before this migration (every existing row:
-- the default is true while the column is added, false after); the indexer reads those from their stored chunks at
-- start (services/indexer/redator.py), as it did for qualified precedents.
ALTER TABLE documents ADD COLUMN redator text;
ALTER TABLE documents ADD COLUMN redator_unread boolean NOT NULL DEFAULT true;
ALTER TABLE documents ALTER COLUMN redator_unread SET DEFAULT false;
