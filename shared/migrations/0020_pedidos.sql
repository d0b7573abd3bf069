-- A petition's requests (shared/legal/pedidos.py), in order, one line each: the annotator writes every
-- DocumentMetadata field on the document's ledger row, so the list needs its column.
ALTER TABLE documents ADD COLUMN pedidos text[] NOT NULL DEFAULT '{}';
