"""The search engine, one idea per module; the API's routers and stores stay around it (services/search/routers,
services/search/store).

- models.py: the requests, the result cards, the page the engine returns and the response the routers send.
- search.py: hybrid_search, the orchestrator of one search.
- context.py: what a search reads before its candidates (the query's lexemes and statistics, its languages).
- candidates.py: the candidate and pool statement (named parameters) and running it.
- steps.py: the ranking declared once, the ordered list of steps from fusion to the page's order (and the LLM
  stage the router runs), each with the measurement that justifies it.
- ranking.py: the scores the steps use: BM25, the lead, fusion on z-scores or reciprocal ranks.
- grouping.py: one entry per work, its best passage and up to two others that say something else.
- relevance.py: the calibrated grade ("forte", "provável", "fraca").
- cards.py: the shown works' cards.
- facets.py: the facet counts.
- similar.py: "Mais como este".
"""
