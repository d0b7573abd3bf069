"""The search engine, one idea per module; the API's routers and stores stay around it (services/search/routers,
services/search/store).

- models.py: the requests, the result cards, the page the engine returns and the response the routers send.
- search.py: hybrid_search, the orchestrator of one search.
- context.py: what a search reads before its candidates (the query's lexemes and statistics, its languages).
- candidates.py: the candidate and pool statement (named parameters) and running it.
- ranking.py: BM25 and the dense score fused, the lead, pseudo-relevance feedback.
- grouping.py: one entry per work, its best passage and up to two others that say something else.
- relevance.py: the calibrated grade ("forte", "provável", "fraca").
- policy.py: after fusion and grouping: grades, the named case first, sources before comments, by date.
- cards.py: the shown works' cards.
- facets.py: the facet counts.
- similar.py: "Mais como este".
"""
