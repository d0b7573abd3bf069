"""Where services/search/auth.py and its tests still import the audit log from: it lives in store/audit.py.

Kept only until their owner points those imports at services.search.store.audit; nothing new imports this.
"""

from services.search.store.audit import AuditEntry, prune, prune_periodically, read, record

__all__ = ["AuditEntry", "prune", "prune_periodically", "read", "record"]
