-- Whether a passage is a bibliography, not prose (services/search/engine/steps.references_last ranks it below every
-- other passage): at least 5 of its non-blank lines, and 45% of them, open an entry ("MARQUES, Claudia Lima.",
-- "SALOMÃO FILHO, Calixto.", "______."), name a publisher ("São Paulo: RT, 2011") or say where the work was read
-- ("Disponível em", "Acesso em"), two of them entries. On the archive and docs (9,667 chunks) it marks 289, 248 in a
-- NOTAS/REFERÊNCIAS section, none of a Jurisprudência em Teses' "Julgados: REsp ..., Rel. Ministro ..." lists; a
-- footnote's single reference leaves its passage prose. A property of the text, so a generated column: every writer
-- (the indexer's COPY, a re-index) stores it without knowing of it. Read per search instead, over the candidates'
-- texts, it cost about 5 ms of PostgreSQL per 300 candidates (2026-12-06). Only a text with an entry-like line is
-- split into lines.
CREATE FUNCTION public.reference_list(passage text) RETURNS boolean
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN CASE
        WHEN passage ~ '(?n)^([A-ZÀ-Ý][A-ZÀ-Ý''’ -]+, [A-ZÀ-Ý]|_{2,}\.)' THEN (
            SELECT count(*) FILTER (WHERE entry OR line ~ '[A-ZÀ-Ý][a-zà-ÿ]+( [A-ZÀ-Ý][a-zà-ÿ]+)?: ?[A-ZÀ-Ý][^,:]{1,40}, (19|20)[0-9]{2}'
                                       OR line ~* 'dispon[ií]vel em|acess(o|ado) em|available (at|from)|accessed')
                       >= greatest(5, 0.45 * count(*))
                   AND count(*) FILTER (WHERE entry) >= 2
            FROM regexp_split_to_table(passage, '\n') line
            CROSS JOIN LATERAL (
                SELECT line ~ '^([A-ZÀ-Ý][A-ZÀ-Ý''’-]+( ([A-ZÀ-Ý][A-ZÀ-Ý''’-]+|DE|DA|DOS|DAS|E))*, ([A-ZÀ-Ý][a-zà-ÿ]+|[A-Z]\.)|_{2,}\.)'
                    AS entry
            ) shape
            WHERE line ~ '\S'
        )
        ELSE false
    END;

ALTER TABLE chunks ADD COLUMN reference_list boolean NOT NULL GENERATED ALWAYS AS (public.reference_list(text)) STORED;
