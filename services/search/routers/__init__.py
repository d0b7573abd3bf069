"""The search service's HTTP routes, one module per concern; services/search/app.py includes them."""
