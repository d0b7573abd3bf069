-- Folders per matter ("pastas", issue 34, item 2): a lawyer keeps results of a search (the passage of a work, its
-- page) with a note each, grouped by client or case, and may share the folder with groups of the firm.
--
-- An item keeps a reference to the document and passage and a copy of the passage's text and page as they were
-- when it was added (a re-index renumbers passages, so the copy is what stays). The citation, the title and the
-- ementa are read from the document's row at every reading, so a corrected metadata field shows at once. Every
-- reading joins `documents` under the reader's own groups (public.precedente_visible, the rule search applies)
-- and leaves out deleted ones: an item whose document is walled off or deleted later disappears for whoever lost
-- sight of it, and only for them. The application role gets its rows like every table's (shared/infra/db.py).
CREATE TABLE folders (
    id             text PRIMARY KEY,                  -- short random id, typed in `precedente pastas mostrar ID`
    name           text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    owner          text NOT NULL,                     -- Identity.user of who made it: renames, shares, deletes it
    shared_groups  text[] NOT NULL DEFAULT '{}',      -- groups whose members may read it and add to it
    created_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at     timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX folders_owner ON folders (owner, updated_at);
CREATE INDEX folders_shared ON folders USING gin (shared_groups);

CREATE TABLE folder_items (
    id           bigserial PRIMARY KEY,
    folder_id    text NOT NULL REFERENCES folders (id) ON DELETE CASCADE,
    document_id  uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    passage_id   bigint NOT NULL,                     -- chunks.id when added; no foreign key: a re-index renumbers
    work_id      text NOT NULL,                       -- the decision or act the file is a copy of
    passage      text NOT NULL,                       -- the passage's text when added
    page_start   int NOT NULL,
    page_end     int NOT NULL,
    note         text CHECK (length(note) <= 4000),
    added_by     text NOT NULL,
    added_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    UNIQUE (folder_id, document_id, passage_id)
);
CREATE INDEX folder_items_folder ON folder_items (folder_id, id);
CREATE INDEX folder_items_document ON folder_items (document_id);
