-- Each chunk's length in lexemes, stored: what BM25 normalises by (services/search/ranking.py), the same
-- public.tsvector_token_count(tsv) that lexicon_totals averages. Counted per search it meant unnesting every
-- candidate's whole tsvector, most of a search's PostgreSQL time on a large index. Generated from the same text
-- and configuration as tsv (a generated column cannot read another one), so every writer (the indexer's COPY,
-- a re-index, a bulk load) stores it right without knowing of it.
-- tsv is kept in the row (STORAGE MAIN: out of line only as a last resort, after the text and the embedding):
-- the full-text preselection ranks thousands of matches by ts_rank, and a tsvector out of line cost a TOAST
-- index lookup per match (three in four buffers that query read). The rewrite this ADD COLUMN makes moves the
-- existing rows' tsv back in.
ALTER TABLE chunks
    ALTER COLUMN tsv SET STORAGE MAIN,
    ADD COLUMN lexeme_count integer NOT NULL
        GENERATED ALWAYS AS (public.tsvector_token_count(to_tsvector(public.language_config(language), text))) STORED;
