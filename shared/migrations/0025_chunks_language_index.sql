-- The passages of one language, for the search's exact nearest list of a small language (services/search/query.py
-- _CANDIDATES, dense_exact_languages): a language with a few thousand passages in a large index is read whole
-- through this index and its rows sorted by their float distance to the query. The HNSW walk that served it
-- starts among the query language's neighbours and must visit about LIMIT / share tuples to find a rare
-- language's: at a million chunks, 6,120 of them English, 88 ms p50, and only 12 of 100 rows under a selective
-- filter (it stops at hnsw.max_scan_tuples). No index on chunks.language existed before this one.
CREATE INDEX chunks_language ON chunks (language);
