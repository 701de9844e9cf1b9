"""The English formats Django uses where citerec does not format a time itself (changelists,
read-only fields, the ingestion list): the same "2026-12-07 13:20 UTC" as every page
(`curation.record.timestamps.FOR_PEOPLE`). Times are stored and shown in UTC (TIME_ZONE)."""

DATETIME_FORMAT = r"Y-m-d H:i \U\T\C"
SHORT_DATETIME_FORMAT = DATETIME_FORMAT
DATE_FORMAT = "Y-m-d"
SHORT_DATE_FORMAT = DATE_FORMAT
TIME_FORMAT = "H:i"
