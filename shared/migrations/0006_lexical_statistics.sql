-- What BM25 needs and PostgreSQL's own text ranking lacks: how many chunks hold each lexeme (document
-- frequency), the collection's size and its mean chunk length. They are materialized views that the
-- indexer refreshes a little after it writes (statistics move slowly: a minute-old document frequency
-- ranks the same), so concurrent writers never contend on shared counters.
CREATE FUNCTION public.tsvector_token_count(tsvector) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN (SELECT coalesce(sum(coalesce(array_length(u.positions, 1), 1)), 0)::integer FROM unnest($1) u);

CREATE MATERIALIZED VIEW lexicon AS
    SELECT word AS lexeme, ndoc AS chunks FROM ts_stat('SELECT tsv FROM public.chunks');
CREATE UNIQUE INDEX lexicon_lexeme ON lexicon (lexeme);

CREATE MATERIALIZED VIEW lexicon_totals AS
    SELECT 1 AS id, count(*)::bigint AS chunks,
           coalesce(avg(public.tsvector_token_count(tsv)), 0)::float8 AS mean_lexemes
    FROM public.chunks;
CREATE UNIQUE INDEX lexicon_totals_id ON lexicon_totals (id);
