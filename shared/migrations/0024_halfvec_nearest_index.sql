-- The nearest-passage HNSW index holds half-precision vectors (pgvector's halfvec): about half the float index
-- at a million chunks, so that it stays in memory, with the same nearest passages once the search has scored its
-- candidates exactly (chunks.embedding stays float: the pool reads and scores the float vectors; measured by
-- bench/scale_vectors.py). The search orders by this very expression (services/search/query.py NEAREST); the
-- dimension is the column's, whichever model the index holds (precedente reembed builds its side index alike).
-- Rebuilding it takes a while on a large index (about as long as the float one took), writes waiting meanwhile.
DO $$
DECLARE
    dimensions int := (SELECT atttypmod FROM pg_attribute
                       WHERE attrelid = 'public.chunks'::regclass AND attname = 'embedding' AND NOT attisdropped);
BEGIN
    DROP INDEX IF EXISTS public.chunks_embedding;
    EXECUTE format('CREATE INDEX chunks_embedding ON public.chunks'
                   ' USING hnsw ((embedding::halfvec(%s)) halfvec_cosine_ops)', dimensions);
END
$$;
