"""Build a database shaped like whole arXiv's references, at a given size, in bulk SQL.

Usage: python bench/make_arxiv_db.py --papers 250000 --observations 10000000 \
           --database citerec_h_wholearxiv_10m [--replace]

It creates the database next to the configured one (DATABASE_URL; owned by that role), migrates
it, and fills it with `INSERT ... SELECT generate_series` in the shapes the product's own import
paths write (a reference-list import per paper, then a resolution run, then a few curators):

- papers: arXiv ids by month (2007-2026), titles from a Zipf vocabulary (4-12 words), authors,
  categories, the catalogue fields the resolver reads (title_norm, title_key, first_author, year);
- observations, --observations / --papers per paper (source `reference_list`): raw text with
  authors, title, venue, year and pages, and the parsed fields; the mix of a physics/CS
  bibliography: 25 % cite an arXiv id (a paper of this database, popular ones more often), 35 %
  a DOI (a Zipf-popular pool of works), 35 % title only, 5 % junk (ibid., URLs, fragments);
- resolutions with evidence (identifiers, 1-3 candidates with scores and checks) in realistic
  proportions per kind; verified ones linked as the verdict service links them (cited_paper,
  cited_work, work_pith_arxiv_id); cited works (DOIs and arXiv ids) for every link;
- standing notices for every observation (measured with receipts when linked, else
  unavailable), notice events (retractions, corrections, expressions of concern) on 0.3 % of
  cited works with their staff reviews and source receipts;
- history as the triggers write it: one context per paper import (task actor), one per
  resolution chunk of 1,000 references (task actor), an insert event per observation and per
  resolution, the context's origin row; record versions per paper;
- curator decisions on 0.2 % of the observations: each its own context (user alice or bob,
  source admin, a reason), the observation pinned (and linked, or marked no canonical record),
  the resolution origin `curator`, with an update event for each.

Fast because it is bulk: the big tables' user triggers are disabled, their secondary indexes,
unique and foreign-key constraints dropped and rebuilt after the load (the definitions are read
from the catalogue, so they are exactly the migrated ones), then VACUUM ANALYZE. Prints the time
of each step, the rows and the size of each table.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_admin import _admin, _base_url  # noqa: E402
from bench_api import _with_database  # noqa: E402

# The tables the load writes in bulk: their triggers are off and their indexes rebuilt after.
BULK_TABLES = (
    "curation_paper",
    "curation_citedwork",
    "curation_observation",
    "curation_resolution",
    "curation_standingnotice",
    "curation_observationevent",
    "curation_resolutionevent",
    "record_recordversion",
    "record_recordchange",
    "notices_sourcereceipt",
)
CURATED_SHARE = 0.002  # observations a curator decided
NOTICE_SHARE = 0.003  # cited works with a notice event
CHUNK = 1000  # references per resolution chunk (one history context each)

_SYLLABLES = (
    "ka ri to na mo se lu vi de ra po ti ne sa lo mi ku be fa ge ha jo ly qu wo xe zy an el or "
    "us im on ar en ul ix"
).split()
_COMMON = (
    "learning deep neural networks model models data analysis via for the of and in on with "
    "quantum field theory gravitational waves dark matter energy black holes galaxy galaxies "
    "stellar cosmological constraints survey large scale structure inflation universe spin "
    "graph optimization stochastic gradient methods convex robust efficient fast algorithms "
    "approach method framework estimation inference bayesian probabilistic sparse low rank "
    "matrix tensor representation language transformer attention generative adversarial "
    "reinforcement policy control dynamics nonlinear systems equations partial differential "
    "boundary value problems numerical simulation simulations magnetic superconductivity phase "
    "transitions topological insulators lattice gauge symmetry breaking higgs boson collider "
    "measurement detection observations spectral properties evolution formation high low "
    "temperature density functional electronic structure materials two dimensional strongly "
    "correlated electrons entanglement information channel coding wireless communication "
    "networks distributed privacy secure federated image segmentation classification object "
    "recognition visual video speech audio text retrieval knowledge reasoning benchmark "
    "analysis towards understanding theory applications review new results improved bounds "
    "random walks processes markov chains finite groups algebras modules manifolds geometry "
    "curvature flows surfaces invariants operators spaces functions"
).split()
_VENUES = (
    "Phys. Rev. D|Phys. Rev. Lett.|Astrophys. J.|Mon. Not. R. Astron. Soc.|J. High Energy Phys.|"
    "Nucl. Phys. B|Phys. Lett. B|Nature|Science|Adv. Neural Inf. Process. Syst.|Proc. ICML|"
    "Proc. CVPR|IEEE Trans. Inf. Theory|Ann. Math.|Invent. Math.|Commun. Math. Phys.|"
    "J. Mach. Learn. Res.|Phys. Rev. B|Rev. Mod. Phys.|Astron. Astrophys.|Class. Quantum Grav.|"
    "J. Chem. Phys.|Nat. Phys.|Proc. ACL|Proc. STOC"
).split("|")
_CATEGORIES = (
    "hep-th hep-ph astro-ph.CO astro-ph.GA gr-qc quant-ph cond-mat.str-el cond-mat.mes-hall "
    "math.AG math.PR math.CO cs.LG cs.CV cs.CL cs.IT stat.ML physics.optics nucl-th"
).split()
_JUNK = (
    "ibid.|Ibid., p. 12|op. cit.|et al., in preparation|private communication|"
    "https://github.com/|see also Ref. [12]|in preparation (2024)|E., Thekkath, C|"
    "Supplementary Material|http://www.example.org/data|[Online]. Available:|A. B.|"
    "Tech. Rep.|unpublished|arXiv:hep-th/99|doi:10.|(2019)|Ph.D. thesis"
).split("|")


def vocabulary() -> list[str]:
    """Return words, the common ones first: titles pick index ~ N * u**3 (a Zipf-like tail)."""
    words = list(dict.fromkeys(_COMMON))
    for a in _SYLLABLES:
        for b in _SYLLABLES:
            for c in ("", "n", "tion", "ic", "al", "ity"):
                words.append(a + b + c)
    return words


def surnames() -> list[str]:
    names = []
    for a in _SYLLABLES:
        for b in _SYLLABLES:
            names.append((a + b + "er").capitalize())
            names.append((b + a + "ov").capitalize())
    return names


# Helpers in pg_temp: they live only in the loading session, the product schema gets nothing.
FUNCTIONS = [
    # A deterministic uniform number in [0, 1) from a seed.
    """CREATE FUNCTION pg_temp.u(seed bigint) RETURNS double precision LANGUAGE sql IMMUTABLE
       AS $$ SELECT (hashint8(seed)::bigint + 2147483648) / 4294967296.0 $$""",
    # A phrase of 2-6 words from the vocabulary, common words far more often (pool only).
    """CREATE FUNCTION pg_temp.phrase(seed bigint, words text[]) RETURNS text LANGUAGE sql
       IMMUTABLE AS $$
       SELECT string_agg(words[1 + floor(cardinality(words)
                         * power(pg_temp.u(seed * 37 + i), 3))::int], ' ' ORDER BY i)
       FROM generate_series(1, 2 + floor(pg_temp.u(seed * 41) * 5)::int) i $$""",
    """CREATE FUNCTION pg_temp.authors(seed bigint, names text[]) RETURNS text LANGUAGE sql
       IMMUTABLE AS $$
       SELECT string_agg(chr(65 + floor(pg_temp.u(seed * 43 + i) * 26)::int) || '. '
                         || names[1 + floor(cardinality(names) * pg_temp.u(seed * 47 + i))::int],
                         ', ' ORDER BY i)
       FROM generate_series(1, 1 + floor(power(pg_temp.u(seed * 53), 2) * 6)::int) i $$""",
    """CREATE FUNCTION pg_temp.pick(seed bigint, items text[]) RETURNS text LANGUAGE sql
       IMMUTABLE AS $$ SELECT items[1 + floor(cardinality(items) * pg_temp.u(seed))::int] $$""",
    # The arXiv id of paper number n (1-based): months from 2007-04 on, in order. One
    # expression, so the planner inlines it.
    """CREATE FUNCTION pg_temp.arxiv_id(n bigint, papers bigint) RETURNS text LANGUAGE sql
       STABLE AS $$
       SELECT to_char(date '2007-04-01' + make_interval(
                  months => ((n - 1) / greatest(papers / 236, 1))::int), 'YYMM') || '.'
              || lpad((n - ((n - 1) / greatest(papers / 236, 1)) * greatest(papers / 236, 1))::text,
                      5, '0') $$""",
    # Pools the rows draw from by a hash of their seed (hash joins: fast at 10M rows): a title
    # is two phrases (2**30 combinations), an author list one of the pool.
    "CREATE TEMP TABLE phrase AS SELECT i, pg_temp.phrase(i, %(words)s) AS t"
    " FROM generate_series(0, 32767) i",
    "CREATE TEMP TABLE author_list AS SELECT i, pg_temp.authors(i, %(names)s) AS t"
    " FROM generate_series(0, 32767) i",
    "CREATE UNIQUE INDEX ON phrase (i); CREATE UNIQUE INDEX ON author_list (i);"
    " ANALYZE phrase; ANALYZE author_list",
]


# A title and author list for a seed: joins to the pools (see FUNCTIONS).
def _pool_joins(seed: str, alias: str) -> str:
    return (
        f" JOIN phrase {alias}1 ON {alias}1.i = hashint8(({seed}) * 37) & 32767"
        f" JOIN phrase {alias}2 ON {alias}2.i = hashint8(({seed}) * 41) & 32767"
        f" JOIN author_list {alias}a ON {alias}a.i = hashint8(({seed}) * 43) & 32767"
    )


def _candidates() -> str:
    """The evidence's candidates: none for half the unresolved, else 1-3 (inline: no subquery)."""

    def candidate(c: int) -> str:
        first = c == 1
        suffix = "" if first else f" || ' {c}'"
        return (
            "jsonb_build_object("
            f"'arxiv_id', {'o.work_arxiv_id' if first else 'NULL'}, 'doi', {'o.work_doi' if first else 'NULL'}, "
            f"'title', coalesce(o.work_title, ''){suffix}, "
            f"'source', v.source, 'score', {95 - c * 9} - floor(v.u * 10), 'title_similarity', {98 - c * 8}, "
            f"'year_check', 'consistent', 'author_check', '{'consistent' if first else 'unknown'}', "
            "'venue_check', 'unknown')"
        )

    lists = [", ".join(candidate(c) for c in range(1, k + 1)) for k in (1, 2, 3)]
    return (
        "CASE WHEN v.status IN ('unresolved', 'parse_uncertain') AND v.u > 0.5 THEN '[]'::jsonb"
        f" WHEN v.u < 0.33 THEN jsonb_build_array({lists[0]})"
        f" WHEN v.u < 0.66 THEN jsonb_build_array({lists[1]})"
        f" ELSE jsonb_build_array({lists[2]}) END"
    )


def _title(alias: str) -> str:
    return f"initcap({alias}1.t) || ' ' || {alias}2.t"


def _index_and_constraint_ddl(
    cursor: object, tables: tuple[str, ...]
) -> tuple[list[str], list[str], list[str]]:
    """Return (drops, creates of keys and indexes, creates of foreign keys) for the tables."""
    cursor.execute(  # type: ignore[attr-defined]
        """
        SELECT c.conname, c.conrelid::regclass::text, c.contype, pg_get_constraintdef(c.oid)
        FROM pg_constraint c
        WHERE c.contype IN ('p', 'u', 'f')
          AND (c.conrelid::regclass::text = ANY(%s) OR c.confrelid::regclass::text = ANY(%s))
        """,
        [list(tables), list(tables)],
    )
    constraints = cursor.fetchall()  # type: ignore[attr-defined]
    cursor.execute(  # type: ignore[attr-defined]
        """
        SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
        FROM pg_index i
        WHERE i.indrelid::regclass::text = ANY(%s)
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid
                          AND c.contype IN ('p', 'u'))
        """,
        [list(tables)],
    )
    indexes = cursor.fetchall()  # type: ignore[attr-defined]
    foreign = [(n, t, d) for n, t, k, d in constraints if k == "f"]
    keys = [(n, t, d) for n, t, k, d in constraints if k != "f"]
    drops = [f'ALTER TABLE {t} DROP CONSTRAINT "{n}"' for n, t, _ in foreign]
    drops += [f'ALTER TABLE {t} DROP CONSTRAINT "{n}"' for n, t, _ in keys]
    drops += [f"DROP INDEX {name}" for name, _ in indexes]
    creates = [f'ALTER TABLE {t} ADD CONSTRAINT "{n}" {d}' for n, t, d in keys]
    creates += [ddl for _, ddl in indexes]
    foreign_creates = [f'ALTER TABLE {t} ADD CONSTRAINT "{n}" {d}' for n, t, d in foreign]
    return drops, creates, foreign_creates


def _columns(cursor: object, table: str) -> list[str]:
    cursor.execute(  # type: ignore[attr-defined]
        "SELECT column_name FROM information_schema.columns WHERE table_name = %s"
        " ORDER BY ordinal_position",
        [table],
    )
    return [row[0] for row in cursor.fetchall()]  # type: ignore[attr-defined]


class Loader:
    """Runs the load's statements, timing each one."""

    def __init__(
        self, cursor: object, papers: int, observations: int, curators: tuple[int, int]
    ) -> None:
        self.cursor = cursor
        self.curators = curators
        self.papers = papers
        self.observations = observations
        self.per_paper = max(observations // papers, 1)

    def run(
        self, label: str, sql: str, params: list[object] | dict[str, object] | None = None
    ) -> None:
        started = time.perf_counter()
        # Always with parameters, so every statement writes % as %%.
        self.cursor.execute(sql, params if params is not None else {})  # type: ignore[attr-defined]
        rows = self.cursor.rowcount  # type: ignore[attr-defined]
        print(f"  {label}: {rows:,} rows in {time.perf_counter() - started:.0f} s", flush=True)

    def load(self) -> None:
        words, names = vocabulary(), surnames()
        p = {
            "papers": self.papers,
            "n": self.observations,
            "per": self.per_paper,
            "words": words,
            "names": names,
            "venues": _VENUES,
            "cats": _CATEGORIES,
            "junk": _JUNK,
            "chunk": CHUNK,
        }
        for sql in FUNCTIONS:
            self.cursor.execute(sql, p if "%(" in sql else None)  # type: ignore[attr-defined]
        self.run(
            "papers",
            f"""
            INSERT INTO curation_paper (id, arxiv_id, title, authors, doi, categories,
                primary_category, latest_version, submitted_at, last_updated,
                snapshot_observed_at, journal_ref, comments, in_catalogue, first_author, year,
                title_norm, title_key, withdrawn)
            SELECT g, pg_temp.arxiv_id(g, %(papers)s), t.title, t.authors,
                   CASE WHEN pg_temp.u(g * 3) < 0.4 THEN '10.1103/physrev.' || g ELSE '' END,
                   t.cat, t.cat, 1 + floor(power(pg_temp.u(g * 5), 2) * 4)::int, t.at, t.at,
                   now(), '', '', true, lower(split_part(split_part(t.authors, ', ', 1), ' ', 2)),
                   extract(year FROM t.at)::int, lower(t.title),
                   left(regexp_replace(lower(t.title), '[^a-z0-9]', '', 'g'), 255),
                   pg_temp.u(g * 7) < 0.002
            FROM (SELECT g, {_title("p")} AS title, pa.t AS authors,
                    pg_temp.pick(g * 11, %(cats)s) AS cat,
                    timestamptz '2007-04-01' + ((g - 1)::double precision / %(papers)s)
                        * interval '7000 days' AS at
                  FROM generate_series(1, %(papers)s) g {_pool_joins("g", "p")}) t
            """,
            p,
        )
        # One row per reference, kind by a uniform draw: arXiv id, DOI, title only, junk.
        # arXiv references cite papers of this database, popular ones (low u) more often, with
        # the cited paper's own title and authors; DOI references draw from a pool of n/5
        # works, Zipf-like, each with its own title; title-only references are unique works.
        self.run(
            "observations",
            f"""
            INSERT INTO curation_observation (id, paper_id, source, reference_index,
                source_observed_at, raw_text, normalized_text, occurrence, work_described,
                work_title, work_year, work_venue, work_doi, work_arxiv_id, work_metadata_source,
                pinned, no_canonical_record, revision, changed_at)
            SELECT gen_random_uuid(), 1 + g / %(per)s, 'reference_list', g %% %(per)s + 1,
                   at, raw, lower(raw), 1, kind <> 'junk', CASE WHEN kind <> 'junk' THEN title END,
                   CASE WHEN kind <> 'junk' THEN year END,
                   CASE WHEN kind <> 'junk' THEN venue END, doi, arxiv,
                   'raw_reference', false, false, 1, at
            FROM (
              SELECT k.*,
                CASE k.kind
                  WHEN 'junk' THEN pg_temp.pick(g * 17, %(junk)s) || ' ' || (g %% 97)
                  ELSE k.authors || '. ' || k.title || '. ' || k.venue || ' ' || (1 + g %% 120)
                       || ', ' || (1 + g %% 9000) || ' (' || k.year || ')'
                       || CASE WHEN k.arxiv IS NOT NULL THEN ' [arXiv:' || k.arxiv || ']' ELSE '' END
                       || CASE WHEN k.doi IS NOT NULL THEN ' doi:' || k.doi ELSE '' END
                END AS raw
              FROM (SELECT d.g, d.kind, d.at, {_title("w")} AS title, wa.t AS authors,
                  pg_temp.pick(CASE d.kind WHEN 'doi' THEN -d.work ELSE d.g END * 29, %(venues)s) AS venue,
                  1960 + floor(pg_temp.u(d.g * 31) * 66)::int AS year,
                  CASE WHEN d.kind = 'doi' THEN '10.' || (1000 + d.work %% 3000) || '/j.' || d.work END AS doi,
                  CASE WHEN d.kind = 'arxiv' THEN pg_temp.arxiv_id(d.cited, %(papers)s) END AS arxiv
                FROM (SELECT g, kind, cited, work, at,
                        CASE kind WHEN 'arxiv' THEN cited WHEN 'doi' THEN -work
                                  ELSE g + 1000000000 END AS seed
                      FROM (SELECT g,
                          CASE WHEN u < 0.25 THEN 'arxiv' WHEN u < 0.60 THEN 'doi'
                               WHEN u < 0.95 THEN 'title' ELSE 'junk' END AS kind,
                          1 + floor(power(pg_temp.u(g * 19), 2) * %(papers)s)::bigint AS cited,
                          1 + floor(power(pg_temp.u(g * 23), 2) * (%(n)s / 5 + 1))::bigint AS work,
                          timestamptz '2007-04-01' + ((g / %(per)s)::double precision / %(papers)s)
                              * interval '7000 days' + interval '3 days' AS at
                        FROM (SELECT g, pg_temp.u(g * 13) AS u
                              FROM generate_series(0, %(n)s - 1) g) r) q) d
                {_pool_joins("d.seed", "w")}) k
            ) s
            """,
            p,
        )
        # The verdicts: status by kind, in the proportions a run over real lists gives.
        self.run(
            "resolutions",
            f"""
            INSERT INTO curation_resolution (observation_id, status, resolver_source, observed_at,
                evidence, origin, resolver_version)
            SELECT o.id, v.status, v.source, o.changed_at + interval '1 hour',
                   jsonb_build_object('decision', v.status, 'resolver_version', 'resolver-1.4',
                     'identifiers', jsonb_build_object('doi', o.work_doi, 'arxiv', o.work_arxiv_id),
                     'candidates', {_candidates()}),
                   'computed', 'resolver-1.4'
            FROM curation_observation o
            CROSS JOIN LATERAL (SELECT pg_temp.u(hashtext(o.id::text)) AS u) r
            CROSS JOIN LATERAL (SELECT r.u, CASE
                WHEN o.work_arxiv_id IS NOT NULL THEN CASE WHEN r.u < 0.85 THEN 'verified_exact'
                    WHEN r.u < 0.90 THEN 'verified_fuzzy' WHEN r.u < 0.95 THEN 'metadata_mismatch'
                    ELSE 'malformed_identifier' END
                WHEN o.work_doi IS NOT NULL THEN CASE WHEN r.u < 0.80 THEN 'verified_exact'
                    WHEN r.u < 0.85 THEN 'verified_fuzzy' WHEN r.u < 0.90 THEN 'metadata_mismatch'
                    ELSE 'unresolved' END
                WHEN o.work_described THEN CASE WHEN r.u < 0.35 THEN 'verified_fuzzy'
                    WHEN r.u < 0.40 THEN 'metadata_mismatch' WHEN r.u < 0.95 THEN 'unresolved'
                    ELSE 'parse_uncertain' END
                ELSE CASE WHEN r.u < 0.6 THEN 'parse_uncertain' ELSE 'unresolved' END
              END AS status,
              CASE WHEN o.work_arxiv_id IS NOT NULL THEN 'local_arxiv'
                   WHEN o.work_doi IS NOT NULL THEN 'doi'
                   WHEN o.work_described AND r.u < 0.20 THEN 'local_arxiv'
                   WHEN o.work_described AND r.u < 0.35 THEN 'doi'
                   ELSE 'raw_fallback' END AS source) v
            """,
        )
        self.run(
            "cited works (DOIs)",
            """
            INSERT INTO curation_citedwork (doi, title, created_at)
            SELECT DISTINCT ON (o.work_doi) o.work_doi, o.work_title, now()
            FROM curation_observation o JOIN curation_resolution r ON r.observation_id = o.id
            WHERE o.work_doi IS NOT NULL AND r.status IN ('verified_exact', 'verified_fuzzy')
            """,
        )
        self.run(
            "cited works (arXiv)",
            """
            INSERT INTO curation_citedwork (arxiv_id, title, created_at)
            SELECT DISTINCT ON (o.work_arxiv_id) o.work_arxiv_id, o.work_title, now()
            FROM curation_observation o JOIN curation_resolution r ON r.observation_id = o.id
            WHERE o.work_arxiv_id IS NOT NULL AND r.status IN ('verified_exact', 'verified_fuzzy')
            """,
        )
        self.cursor.execute(
            "CREATE TEMP TABLE doi_work AS SELECT doi, id FROM curation_citedwork WHERE doi IS NOT NULL"
        )  # type: ignore[attr-defined]
        self.cursor.execute(
            "CREATE TEMP TABLE arxiv_work AS SELECT arxiv_id, id FROM curation_citedwork WHERE arxiv_id IS NOT NULL"
        )  # type: ignore[attr-defined]
        self.cursor.execute("CREATE UNIQUE INDEX ON doi_work (doi)")  # type: ignore[attr-defined]
        self.cursor.execute("CREATE UNIQUE INDEX ON arxiv_work (arxiv_id)")  # type: ignore[attr-defined]
        self.cursor.execute("ANALYZE doi_work; ANALYZE arxiv_work")  # type: ignore[attr-defined]
        # Linked as the verdict service links: cited work, cited paper, the pith arXiv id.
        # A rewrite, not an UPDATE: one pass, no dead tuples.
        self.run(
            "observations linked",
            """
            CREATE TEMP TABLE linked AS
            SELECT o.id, coalesce(dw.id, aw.id) AS work_id, cp.id AS paper_id, cp.arxiv_id
            FROM curation_observation o JOIN curation_resolution r ON r.observation_id = o.id
            LEFT JOIN doi_work dw ON dw.doi = o.work_doi
            LEFT JOIN arxiv_work aw ON aw.arxiv_id = o.work_arxiv_id
            LEFT JOIN curation_paper cp ON cp.arxiv_id = o.work_arxiv_id
            WHERE r.status IN ('verified_exact', 'verified_fuzzy')
              AND (o.work_doi IS NOT NULL OR o.work_arxiv_id IS NOT NULL)
            """,
        )
        self.cursor.execute("CREATE UNIQUE INDEX ON linked (id); ANALYZE linked")  # type: ignore[attr-defined]
        cols = _columns(self.cursor, "curation_observation")
        linked = {
            "cited_work_id": "l.work_id",
            "cited_paper_id": "l.paper_id",
            "work_pith_arxiv_id": "l.arxiv_id",
        }
        select = ", ".join(f"{linked.get(c, 'o.' + c)} AS {c}" for c in cols)
        self.run(
            "observations rewritten with links",
            f"""
            CREATE TABLE curation_observation_linked AS
            SELECT {select} FROM curation_observation o LEFT JOIN linked l ON l.id = o.id
            ORDER BY o.paper_id, o.reference_index
            """,
        )
        self.cursor.execute("TRUNCATE curation_observation")  # type: ignore[attr-defined]
        self.run(
            "observations copied back",
            "INSERT INTO curation_observation SELECT * FROM curation_observation_linked",
        )
        self.cursor.execute("DROP TABLE curation_observation_linked")  # type: ignore[attr-defined]
        # Notice events and reviews are few: the product's own triggers write their history,
        # under the context a notice refresh task carries.
        from curation.audit import Actor, audited

        with audited(
            Actor.task("curation.notices.tasks.refresh_notices", "bench"), "notice refresh"
        ):
            self._notices(p)
        self._history(p)
        self._curators(p)
        self.run(
            "record versions",
            """
            INSERT INTO record_recordversion (paper_id, version, token, changed_at)
            SELECT paper_id, 2 + count(*) / 40, gen_random_uuid(), max(changed_at)
            FROM curation_observation GROUP BY paper_id
            """,
        )
        # The feed's stored change times, as migration record/0003's FILL makes them (the
        # triggers that keep them are off, and its upsert's primary key is dropped, during the
        # load).
        self.run(
            "record changes",
            """
            INSERT INTO record_recordchange (paper_id, changed_at)
            SELECT id, max(at) FROM (
              SELECT paper_id, changed_at FROM curation_observation UNION ALL
              SELECT cited_paper_id, changed_at FROM curation_observation
               WHERE cited_paper_id IS NOT NULL) s(id, at)
            GROUP BY id
            """,
        )

    def _notices(self, p: dict[str, object]) -> None:
        self.run(
            "notice events",
            """
            INSERT INTO notices_noticeevent (work_id, source, identity, type, severity, work_doi,
                notice_doi, notice_url, date, reasons, source_record_id, first_seen_at,
                last_seen_at, still_reported, superseded, dismissed)
            SELECT w.id, CASE WHEN u < 0.5 THEN 'crossref' ELSE 'retraction_watch' END,
                   '10.5555/notice.' || w.id,
                   CASE WHEN u < 0.6 THEN 'retraction' WHEN u < 0.9 THEN 'correction'
                        ELSE 'expression_of_concern' END,
                   CASE WHEN u < 0.6 THEN 0 WHEN u < 0.9 THEN 2 ELSE 1 END, w.doi,
                   '10.5555/notice.' || w.id, NULL, date '2015-01-01' + (w.id %% 3000)::int,
                   '["bench"]'::jsonb, NULL, now(), now(), true, false, false
            FROM (SELECT id, doi, pg_temp.u(id * 59) AS u FROM curation_citedwork) w
            WHERE pg_temp.u(w.id * 61) < %(share)s
            """,
            {"share": NOTICE_SHARE},
        )
        self.run(
            "notice reviews",
            """
            INSERT INTO notices_noticereview (event_id, status, severity, opened_at, note, revision)
            SELECT id, CASE WHEN id %% 3 = 0 THEN 'confirmed' ELSE 'new' END, severity, now(), '', 1
            FROM notices_noticeevent
            """,
        )
        self.run(
            "source receipts",
            """
            INSERT INTO notices_sourcereceipt (work_id, source, observed_at, outcome, query,
                events_found, detail)
            SELECT w.id, s.source, now() - (w.id %% 90) * interval '1 day', 'answered',
                   coalesce(w.doi, w.arxiv_id), (e.id IS NOT NULL)::int, ''
            FROM curation_citedwork w
            CROSS JOIN (VALUES ('crossref'), ('retraction_watch')) s(source)
            LEFT JOIN notices_noticeevent e ON e.work_id = w.id AND e.source = s.source
            WHERE w.doi IS NOT NULL
            """,
        )
        self.run(
            "standing notices",
            """
            INSERT INTO curation_standingnotice (observation_id, state, reason, observation_text,
                events, source_receipts, origin, refreshed_at)
            SELECT o.id, CASE WHEN o.cited_work_id IS NULL THEN 'unavailable' ELSE 'measured' END,
                   CASE WHEN o.cited_work_id IS NULL THEN 'canonical_work_link_unavailable' END,
                   CASE WHEN o.cited_work_id IS NOT NULL AND e.work_id IS NULL
                        THEN 'No event found in the named queried sources.' END,
                   coalesce(e.events, '[]'::jsonb),
                   CASE WHEN o.cited_work_id IS NULL THEN '[]'::jsonb ELSE
                     '[{"source": "crossref", "outcome": "answered", "observed_at": "2026-11-01T00:00:00+00:00"}]'::jsonb END,
                   'computed', o.changed_at + interval '2 hours'
            FROM curation_observation o
            LEFT JOIN (SELECT work_id, jsonb_agg(jsonb_build_object('type', type, 'source', source,
                           'date', date, 'notice_doi', notice_doi, 'notice_url', notice_url,
                           'reasons', reasons, 'source_record_id', source_record_id)) AS events
                       FROM notices_noticeevent GROUP BY work_id) e ON e.work_id = o.cited_work_id
            """,
        )

    def _history(self, p: dict[str, object]) -> None:
        """Contexts and insert events, as the import and the resolution run write them."""
        # Context ids: uuids made from numbers, so events can name them without a join.
        self.run(
            "contexts: reference-list imports",
            """
            INSERT INTO pghistory_context (id, created_at, updated_at, metadata)
            SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(id), 12, '0'))::uuid,
                   submitted_at + interval '3 days', submitted_at + interval '3 days',
                   jsonb_build_object('actor', 'task:curation.tasks.import_reference_list',
                       'source', 'task', 'reason', 'reference list of arXiv:' || arxiv_id,
                       'user', NULL, 'task_id', gen_random_uuid()::text)
            FROM curation_paper
            """,
        )
        self.run(
            "contexts: resolution chunks",
            """
            INSERT INTO pghistory_context (id, created_at, updated_at, metadata)
            SELECT ('00000000-0000-4000-9000-' || lpad(to_hex(c), 12, '0'))::uuid, now(), now(),
                   jsonb_build_object('actor', 'task:curation.tasks.resolve_chunk',
                       'source', 'task', 'reason', 'resolution run 1, chunk ' || c,
                       'user', NULL, 'task_id', gen_random_uuid()::text)
            FROM generate_series(0, %(n)s / %(chunk)s) c
            """,
            p,
        )
        for table, context in (
            ("observation", "'00000000-0000-4000-8000-' || lpad(to_hex(o.paper_id), 12, '0')"),
            ("resolution", None),
        ):
            self._insert_events(table, context, p)

    def _insert_events(self, table: str, context: str | None, p: dict[str, object]) -> None:
        model_cols = _columns(self.cursor, f"curation_{table}")
        event_cols = _columns(self.cursor, f"curation_{table}event")
        if table == "observation":
            source = "curation_observation o"
            created = "o.source_observed_at"
            obj = "o.id"
        else:
            source = (
                "curation_resolution o JOIN (SELECT id, row_number() OVER (ORDER BY paper_id,"
                " reference_index) - 1 AS n FROM curation_observation) k ON k.id = o.observation_id"
            )
            created = "o.observed_at"
            obj = "o.observation_id"
            context = f"'00000000-0000-4000-9000-' || lpad(to_hex(k.n / {CHUNK}), 12, '0')"
        values = {
            "pgh_created_at": created,
            "pgh_label": "'insert'",
            "pgh_obj_id": obj,
            "pgh_context_id": f"({context})::uuid",
        }
        cols = [c for c in event_cols if c != "pgh_id"]
        exprs = [values.get(c) or (f"o.{c}" if c in model_cols else "NULL") for c in cols]
        self.run(
            f"{table} insert events",
            f"""
            INSERT INTO curation_{table}event ({", ".join(cols)})
            SELECT {", ".join(exprs)} FROM {source}
            """,
        )

    def _curators(self, p: dict[str, object]) -> None:
        """Decisions by two curators: pinned, origin curator, one context and events each."""
        self.run(
            "curator decisions chosen",
            """
            CREATE TEMP TABLE decided AS
            SELECT o.id, row_number() OVER () AS n, pg_temp.u(hashtext(o.id::text) + 7) AS u
            FROM curation_observation o JOIN curation_resolution r ON r.observation_id = o.id
            WHERE r.status IN ('metadata_mismatch', 'unresolved', 'parse_uncertain')
              AND pg_temp.u(hashtext(o.id::text) + 3) < %(share)s
            """,
            {"share": CURATED_SHARE * 2.2},
        )
        self.cursor.execute("CREATE UNIQUE INDEX ON decided (id); ANALYZE decided")  # type: ignore[attr-defined]
        self.run(
            "contexts: curator decisions",
            """
            INSERT INTO pghistory_context (id, created_at, updated_at, metadata)
            SELECT ('00000000-0000-4000-a000-' || lpad(to_hex(d.n), 12, '0'))::uuid,
                   now() - (d.n %% 300) * interval '1 day', now() - (d.n %% 300) * interval '1 day',
                   jsonb_build_object('actor', CASE WHEN d.u < 0.6 THEN 'user:alice' ELSE 'user:bob' END,
                       'source', 'admin', 'user', CASE WHEN d.u < 0.6 THEN %(alice)s ELSE %(bob)s END,
                       'task_id', NULL, 'reason', CASE WHEN d.u < 0.5 THEN 'not a citable work'
                           ELSE 'title and authors match the arXiv record' END)
            FROM decided d
            """,
            {"alice": self.curators[0], "bob": self.curators[1]},
        )
        # The decision: a no-canonical-record mark or a link to a paper, pinned either way.
        self.cursor.execute("ALTER TABLE curation_observation SET (fillfactor = 100)")  # type: ignore[attr-defined]
        self.run(
            "observations decided",
            """
            UPDATE curation_observation o SET pinned = true, revision = o.revision + 1,
                no_canonical_record = d.u < 0.5,
                cited_paper_id = CASE WHEN d.u >= 0.5 THEN 1 + (d.n * 7919) %% %(papers)s END,
                changed_at = now() - (d.n %% 300) * interval '1 day'
            FROM decided d WHERE d.id = o.id
            """,
            p,
        )
        self.run(
            "resolutions decided",
            """
            UPDATE curation_resolution r SET origin = 'curator',
                status = CASE WHEN d.u < 0.5 THEN r.status ELSE 'verified_exact' END,
                resolver_source = CASE WHEN d.u < 0.5 THEN r.resolver_source ELSE 'local_arxiv' END,
                observed_at = now() - (d.n %% 300) * interval '1 day'
            FROM decided d WHERE d.id = r.observation_id
            """,
        )
        for table, key in (("observation", "id"), ("resolution", "observation_id")):
            model_cols = _columns(self.cursor, f"curation_{table}")
            cols = [c for c in _columns(self.cursor, f"curation_{table}event") if c != "pgh_id"]
            values = {
                "pgh_created_at": "now() - (d.n %% 300) * interval '1 day'",
                "pgh_label": "'update'",
                "pgh_obj_id": f"o.{key}",
                "pgh_context_id": "('00000000-0000-4000-a000-' || lpad(to_hex(d.n), 12, '0'))::uuid",
            }
            exprs = [values.get(c) or (f"o.{c}" if c in model_cols else "NULL") for c in cols]
            self.run(
                f"{table} update events",
                f"""
                INSERT INTO curation_{table}event ({", ".join(cols)})
                SELECT {", ".join(exprs)} FROM curation_{table} o JOIN decided d ON d.id = o.{key}
                """,
            )


def _context_origins(cursor: object) -> None:
    """Give every bulk context the origin row the database writes when it attaches one."""
    cursor.execute(  # type: ignore[attr-defined]
        """
        INSERT INTO citerec_history_context_origin (context_id, db_role, backend_pid, signed,
            recorded_at)
        SELECT c.id, current_user, pg_backend_pid(), true, c.created_at FROM pghistory_context c
        WHERE NOT EXISTS (SELECT 1 FROM citerec_history_context_origin o WHERE o.context_id = c.id)
        """
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=2_500)
    parser.add_argument("--observations", type=int, default=100_000)
    parser.add_argument("--database", required=True, help="the database to create")
    parser.add_argument("--replace", action="store_true", help="drop it first if it exists")
    args = parser.parse_args()
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", args.database):
        raise SystemExit("--database: lower-case letters, digits and _ only")
    if args.observations < args.papers:
        raise SystemExit("--observations: at least one per paper")

    base = _base_url()
    if args.replace:
        _admin(base, f"DROP DATABASE IF EXISTS {args.database}")
    _admin(base, f"CREATE DATABASE {args.database}")
    os.environ.update(
        {
            "DATABASE_URL": _with_database(base, args.database),
            "DJANGO_SETTINGS_MODULE": "citerec.settings",
            "DEBUG": "1",
        }
    )
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    print(f"migrated in {time.perf_counter() - started:.0f} s", flush=True)
    users = get_user_model()
    alice = users.objects.create_user(
        "alice", "alice@example.org", "bench-pw-long-1", is_staff=True
    )
    bob = users.objects.create_user("bob", "bob@example.org", "bench-pw-long-2", is_staff=True)
    users.objects.create_superuser("bench", "bench@example.org", "bench-pw-long-3")
    with connection.cursor() as cursor:
        for setting in (
            "maintenance_work_mem = '2GB'",
            "work_mem = '256MB'",
            "synchronous_commit = off",
            "statement_timeout = 0",
            "max_parallel_maintenance_workers = 1",
        ):
            cursor.execute(f"SET {setting}")
        drops, creates, foreign = _index_and_constraint_ddl(cursor, BULK_TABLES)
        for table in BULK_TABLES:
            cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
        for sql in drops:
            cursor.execute(sql)
        print(f"dropped {len(drops)} indexes and constraints", flush=True)
        loader = Loader(cursor, args.papers, args.observations, (alice.pk, bob.pk))
        loaded = time.perf_counter()
        try:
            loader.load()
        finally:
            print(f"loaded in {time.perf_counter() - loaded:.0f} s", flush=True)
        _context_origins(cursor)
        built = time.perf_counter()
        for sql in creates + foreign:
            step = time.perf_counter()
            cursor.execute(sql)
            print(f"  {time.perf_counter() - step:5.0f} s  {sql[:110]}", flush=True)
        print(f"indexes and constraints rebuilt in {time.perf_counter() - built:.0f} s", flush=True)
        for table in BULK_TABLES:
            cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")
        cursor.execute(
            "SELECT setval(pg_get_serial_sequence('curation_paper', 'id'), max(id)) FROM curation_paper"
        )
    connection.close()
    _vacuum(_with_database(base, args.database))
    _report(_with_database(base, args.database), time.perf_counter() - started)


def _vacuum(url: str) -> None:
    import psycopg

    started = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET maintenance_work_mem = '2GB'")
        conn.execute("VACUUM (ANALYZE)")
    print(f"VACUUM ANALYZE in {time.perf_counter() - started:.0f} s", flush=True)


def _report(url: str, elapsed: float) -> None:
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute(
            """
            SELECT c.relname, c.reltuples::bigint, pg_total_relation_size(c.oid)
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relkind = 'r' AND n.nspname = 'public' AND pg_total_relation_size(c.oid) > 1000000
            ORDER BY 3 DESC
            """
        ).fetchall()
        total = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]  # type: ignore[index]
    print(f"{'table':36} {'rows':>12} {'GiB':>7}")
    for name, count, size in rows:
        print(f"{name:36} {count:>12,} {size / 2**30:>7.2f}")
    print(f"database {total / 2**30:.2f} GiB; built in {elapsed:.0f} s")


if __name__ == "__main__":
    main()
