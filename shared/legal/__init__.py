"""Legal-domain helpers built on the metadata the pipeline stores: citations of documents."""
