"""citerec_analyze_stale(tables, min_rows, fraction): the owner's ANALYZE after bulk writes.

Only a table's owner (or a superuser) may ANALYZE it, and the web and workers connect as the
runtime role, which owns nothing (README "Database roles"); so after a bulk import nothing
refreshed the planner's statistics and admin searches ran on estimates for an empty table
(issue 43: 11-16 s after 118k references, until ANALYZE by hand). This function runs as its
owner (SECURITY DEFINER, search path pinned with pg_temp last) and ANALYZEs only tables of a
fixed list, and of those only the ones whose rows changed since their last ANALYZE number more
than max(min_rows, fraction x the rows the planner thinks they have): 50 references into a
large table do nothing, a bulk import into a table a tenth its size does.

The changes counted are the shared statistics' n_mod_since_analyze. PostgreSQL 15 flushes a
session's counts to them at most once a second, when the session goes idle, so a bulk write that
has just committed is not in it yet: the caller first runs `SELECT pg_stat_force_next_flush()`
as a statement of its own (curation/statistics.py). Counting the session's unflushed changes
here instead would count them twice: ANALYZE resets n_mod_since_analyze, and the flush after it
adds them back, so the next small write would ANALYZE again. ANALYZE
takes SHARE UPDATE EXCLUSIVE; a table another session is analyzing through this function is
skipped (pg_try_advisory_xact_lock), not queued for. It returns the tables it analyzed.
EXECUTE is taken from PUBLIC; `grant_runtime_role` grants it to the runtime role.
"""

from django.db import migrations

# What an admin page or the resolver plans queries on, written in bulk by imports, ingestion
# and resolution runs (curation/statistics.py names them per service).
TABLES = (
    "curation_paper",
    "curation_citedwork",
    "curation_observation",
    "curation_resolution",
    "curation_standingnotice",
    "curation_paperevent",
    "curation_citedworkevent",
    "curation_observationevent",
    "curation_resolutionevent",
    "curation_standingnoticeevent",
    "pghistory_context",
)

CREATE = r"""
DO $do$
BEGIN
    EXECUTE format($fn$
        CREATE OR REPLACE FUNCTION citerec_analyze_stale(
            tables text[], min_rows bigint, fraction double precision
        ) RETURNS text[]
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = %I, pg_temp AS $body$
        DECLARE
            allowed constant text[] := %L;
            stale text;
            analyzed text[] := '{}';
        BEGIN
            IF NOT tables <@ allowed THEN
                RAISE EXCEPTION 'citerec_analyze_stale: %% not among the tables it analyzes',
                    array(SELECT unnest(tables) EXCEPT SELECT unnest(allowed))
                    USING ERRCODE = 'insufficient_privilege';
            END IF;
            FOR stale IN
                SELECT c.relname FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid
                WHERE c.relnamespace = current_schema()::regnamespace
                  AND c.relname = ANY(tables)
                  AND s.n_mod_since_analyze
                      > greatest(min_rows, 1, fraction * greatest(c.reltuples, 0))
                ORDER BY c.relname
            LOOP
                IF pg_try_advisory_xact_lock(hashtext('citerec_analyze_stale'), hashtext(stale)) THEN
                    EXECUTE format('ANALYZE %%I', stale);
                    analyzed := analyzed || stale;
                END IF;
            END LOOP;
            RETURN analyzed;
        END
        $body$
    $fn$, current_schema(), %(tables)s);
END
$do$;
REVOKE ALL ON FUNCTION citerec_analyze_stale(text[], bigint, double precision) FROM PUBLIC;
""".replace("%(tables)s", "'{" + ",".join(TABLES) + "}'")

DROP = "DROP FUNCTION IF EXISTS citerec_analyze_stale(text[], bigint, double precision);"


class Migration(migrations.Migration):
    dependencies = [("curation", "0011_observation_search_document")]

    operations = [migrations.RunSQL(CREATE, DROP)]
