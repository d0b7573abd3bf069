-- What the services do at run time that only the tables' owner may do, for an application role that owns
-- nothing (shared/infra/db.py grants it rows, not structure). SECURITY DEFINER: they run as their owner, the
-- migrating role, with a fixed search_path (the application role cannot create objects in public, and
-- pg_temp comes last) so that no object of the caller's can stand in for ours. PUBLIC may not call them;
-- shared/infra/db.py grants EXECUTE to the application role.

-- The indexer's debounced refresh of the BM25 statistics (shared/infra/lexicon.py): REFRESH needs the owner.
CREATE FUNCTION refresh_lexical_statistics() RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
AS $$
BEGIN
    REFRESH MATERIALIZED VIEW CONCURRENTLY public.lexicon;
    REFRESH MATERIALIZED VIEW CONCURRENTLY public.lexicon_totals;
END
$$;

-- The audit log's retention job (services/search/audit.py): the only deletion there is, of entries older
-- than the retention (at least a day). The application role has no DELETE on audit_log at all.
CREATE FUNCTION prune_audit_log(retention_days integer) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
AS $$
DECLARE
    gone bigint;
BEGIN
    IF retention_days IS NULL OR retention_days < 1 THEN
        RAISE EXCEPTION 'audit retention must be at least one day (got %)', retention_days;
    END IF;
    PERFORM set_config('precedente.audit_prune', 'on', true);
    DELETE FROM public.audit_log WHERE at < now() - make_interval(days => retention_days);
    GET DIAGNOSTICS gone = ROW_COUNT;
    PERFORM set_config('precedente.audit_prune', 'off', true);
    RETURN gone;
END
$$;

REVOKE EXECUTE ON FUNCTION refresh_lexical_statistics() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION prune_audit_log(integer) FROM PUBLIC;
