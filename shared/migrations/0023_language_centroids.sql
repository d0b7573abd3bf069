-- Each language's mean passage vector (services/search/languages.py): the search takes a passage's language share
-- out of its dense score, so that a Portuguese query meets the English directive that answers it (issue 16,
-- item 4). Refreshed with the lexical statistics (shared/infra/lexicon.py), by the owner's function below: one pass
-- over chunks.embedding, pgvector's avg(vector) per language. `chunks` says how many passages each mean is of
-- (the search ignores a language with too few); a language no chunk has any more loses its row.
CREATE TABLE language_centroids (
    language      text PRIMARY KEY,
    centroid      vector NOT NULL,
    chunks        bigint NOT NULL CHECK (chunks > 0),
    refreshed_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE FUNCTION refresh_language_centroids() RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
AS $$
BEGIN
    -- One statement, one snapshot: the languages gone and the means of those there are touch disjoint rows.
    WITH fresh AS (
        SELECT language, avg(embedding) AS centroid, count(*) AS chunks FROM public.chunks GROUP BY language
    ), gone AS (
        DELETE FROM public.language_centroids l WHERE l.language NOT IN (SELECT language FROM fresh)
    )
    INSERT INTO public.language_centroids (language, centroid, chunks, refreshed_at)
        SELECT language, centroid, chunks, clock_timestamp() FROM fresh
        ON CONFLICT (language) DO UPDATE
            SET centroid = excluded.centroid, chunks = excluded.chunks, refreshed_at = excluded.refreshed_at;
END
$$;

REVOKE EXECUTE ON FUNCTION refresh_language_centroids() FROM PUBLIC;
SELECT refresh_language_centroids();
