-- Each document's language (shared/legal/language.py: ISO 639-1, "und" when too little text), and the
-- full-text index stemming each chunk under it: an English directive's "directives" meets "directive",
-- which the Portuguese stemmer never did. Rows indexed before this are Portuguese, as the index was.
ALTER TABLE documents ADD COLUMN language text;

-- PostgreSQL's stemmer and stop words of each language after unaccent, as pt_unaccent (migration 0001).
CREATE TEXT SEARCH CONFIGURATION public.en_unaccent (COPY = pg_catalog.english);
ALTER TEXT SEARCH CONFIGURATION public.en_unaccent
    ALTER MAPPING FOR hword, hword_part, word WITH public.unaccent, english_stem;
CREATE TEXT SEARCH CONFIGURATION public.es_unaccent (COPY = pg_catalog.spanish);
ALTER TEXT SEARCH CONFIGURATION public.es_unaccent
    ALTER MAPPING FOR hword, hword_part, word WITH public.unaccent, spanish_stem;
CREATE TEXT SEARCH CONFIGURATION public.fr_unaccent (COPY = pg_catalog.french);
ALTER TEXT SEARCH CONFIGURATION public.fr_unaccent
    ALTER MAPPING FOR hword, hword_part, word WITH public.unaccent, french_stem;
CREATE TEXT SEARCH CONFIGURATION public.de_unaccent (COPY = pg_catalog.german);
ALTER TEXT SEARCH CONFIGURATION public.de_unaccent
    ALTER MAPPING FOR hword, hword_part, word WITH public.unaccent, german_stem;
CREATE TEXT SEARCH CONFIGURATION public.it_unaccent (COPY = pg_catalog.italian);
ALTER TEXT SEARCH CONFIGURATION public.it_unaccent
    ALTER MAPPING FOR hword, hword_part, word WITH public.unaccent, italian_stem;
-- Any other language, and "und": words lower-cased and accents folded, nothing stemmed or dropped.
CREATE TEXT SEARCH CONFIGURATION public.simple_unaccent (COPY = pg_catalog.simple);
ALTER TEXT SEARCH CONFIGURATION public.simple_unaccent
    ALTER MAPPING FOR hword, hword_part, word WITH public.unaccent, simple;

-- The configuration of a language code (shared/legal/language.py TS_CONFIGS says the same). Chunks keep the
-- code, not a regconfig: pg_upgrade refuses tables with reg* columns other than regclass/regtype/regrole.
-- IMMUTABLE: the configurations' oids are bound when this body is parsed, here.
CREATE FUNCTION public.language_config(language text) RETURNS regconfig
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE language
        WHEN 'pt' THEN 'public.pt_unaccent'::regconfig
        WHEN 'en' THEN 'public.en_unaccent'::regconfig
        WHEN 'es' THEN 'public.es_unaccent'::regconfig
        WHEN 'fr' THEN 'public.fr_unaccent'::regconfig
        WHEN 'de' THEN 'public.de_unaccent'::regconfig
        WHEN 'it' THEN 'public.it_unaccent'::regconfig
        ELSE 'public.simple_unaccent'::regconfig
    END;

-- lexicon_totals reads chunks.tsv, which is rebuilt: it goes first and comes back knowing the languages.
DROP MATERIALIZED VIEW lexicon_totals;
ALTER TABLE chunks ADD COLUMN language text NOT NULL DEFAULT 'pt';
ALTER TABLE chunks DROP COLUMN tsv;  -- and its index chunks_tsv
ALTER TABLE chunks ADD COLUMN tsv tsvector
    GENERATED ALWAYS AS (to_tsvector(public.language_config(language), text)) STORED;
CREATE INDEX chunks_tsv ON chunks USING gin (tsv);

-- The languages the index holds: the search stems a query under each of them (services/search/query.py).
CREATE MATERIALIZED VIEW lexicon_totals AS
    SELECT 1 AS id, count(*)::bigint AS chunks,
           coalesce(avg(public.tsvector_token_count(tsv)), 0)::float8 AS mean_lexemes,
           coalesce(array_agg(DISTINCT language), '{}') AS languages
    FROM public.chunks;
CREATE UNIQUE INDEX lexicon_totals_id ON lexicon_totals (id);
REFRESH MATERIALIZED VIEW lexicon;
