"""The search service's SQL, one module per aggregate (documents, the review queue, the audit log): routes call
these functions and get typed objects back, so no route writes SQL or reads a row by column name."""
