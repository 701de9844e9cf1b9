"""Tests for the Retraction Watch CSV reader and the superseding rules."""

from __future__ import annotations

import csv
import io
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from curation.notice_events import EventType
from curation.notices.parsers.retraction_watch import (
    COLUMNS,
    RetractionWatchHeaderError,
    RetractionWatchRow,
    RowError,
    group_by_paper,
    iter_retraction_watch,
    read_retraction_watch,
    superseding_state,
)

from .conftest import FIXTURES

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "retraction-watch"
SAMPLE_2023 = "rw_sample.csv"
SAMPLE_2026 = "rw_sample_2026_identity_placeholders.csv"
HEADER = ",".join(COLUMNS)


def _rows(path: Path) -> list[RetractionWatchRow]:
    items = list(read_retraction_watch(path))
    assert all(isinstance(i, RetractionWatchRow) for i in items), items
    return [i for i in items if isinstance(i, RetractionWatchRow)]


def _parse(data: bytes) -> list[RetractionWatchRow | RowError]:
    return list(iter_retraction_watch(io.BytesIO(data), name="test.csv"))


def _line(record_id: str = "50001", **cells: str) -> str:
    """Return one CSV data line: a plain retraction unless cells override it."""
    values = {
        "Record ID": record_id,
        "Title": "A placeholder title",
        "Journal": "Placeholder Journal",
        "Publisher": "Placeholder Press",
        "ArticleType": "Research Article;",
        "RetractionDate": "8/16/2023 0:00",
        "RetractionDOI": "10.1155/2023/9804945",
        "RetractionPubMedID": "0",
        "OriginalPaperDate": "9/24/2021 0:00",
        "OriginalPaperDOI": "10.1155/2021/6907871",
        "OriginalPaperPubMedID": "0",
        "RetractionNature": "Retraction",
        "Reason": "+Randomly Generated Content;",
        "Paywalled": "No",
    }
    values.update(cells)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow([values.get(c, "") for c in COLUMNS])
    return out.getvalue()


@pytest.mark.parametrize("name", [SAMPLE_2023, SAMPLE_2026])
def test_fixture_copies_match_the_shared_data(name: str) -> None:
    if not (SHARED / name).exists():
        pytest.skip("shared data folder not present")
    assert (FIXTURES / name).read_bytes() == (SHARED / name).read_bytes()


def test_reads_the_2023_export_with_plus_prefixes() -> None:
    [row] = _rows(FIXTURES / SAMPLE_2023)
    assert row.line == 2
    assert row.record_id == 50438
    assert row.nature is EventType.RETRACTION
    assert row.retraction_date == date(2023, 8, 16)
    assert row.original_date == date(2021, 9, 24)
    assert row.notice_doi == "10.1155/2023/9804945"
    assert row.original_doi == "10.1155/2021/6907871"
    assert row.notice_pubmed_id is None and row.original_pubmed_id is None
    assert row.reasons[0] == "Concerns/Issues About Data"
    assert "Unreliable Results" in row.reasons
    assert not any(r.startswith("+") or not r for r in row.reasons)
    assert row.article_types == ("Research Article",)
    assert row.journal == "Advances in Multimedia" and row.publisher == "Hindawi"
    assert row.paywalled is False
    assert len(row.urls) == 2
    assert not row.redecoded and row.warnings == ()


def test_reads_the_2026_export_with_a_trailing_comma() -> None:
    rows = {r.record_id: r for r in _rows(FIXTURES / SAMPLE_2026)}
    assert sorted(rows) == [34999, 40040, 49720, 67291, 70548, 72853, 72867]
    assert rows[72867].nature is EventType.EXPRESSION_OF_CONCERN
    assert rows[67291].nature is EventType.CORRECTION
    assert rows[49720].nature is EventType.REINSTATEMENT
    assert rows[67291].original_pubmed_id == 27013874
    assert rows[67291].notice_pubmed_id == 35959284
    assert rows[67291].original_doi == "10.2147/ijn.s97476"
    assert rows[72853].reasons[-1] == "Upgrade/Update of Prior Notice(s)"


def test_unavailable_dois_are_none_without_warnings() -> None:
    row = {r.record_id: r for r in _rows(FIXTURES / SAMPLE_2026)}[70548]
    assert row.notice_doi is None and row.original_doi is None
    assert row.warnings == ()
    assert row.to_event() is None  # nothing citerec can attach it to


def test_percent_encoded_sici_doi_is_decoded_and_notice_equals_original() -> None:
    row = {r.record_id: r for r in _rows(FIXTURES / SAMPLE_2026)}[40040]
    assert row.original_doi == "10.1002/1096-9098(200007)74:3<201::aid-jso8>3.0.co;2-5"
    assert row.notice_doi == row.original_doi
    assert row.original_pubmed_id == 10951417


def test_row_to_event() -> None:
    row = {r.record_id: r for r in _rows(FIXTURES / SAMPLE_2026)}[72853]
    event = row.to_event()
    assert event is not None
    assert event.to_v1() == {
        "date": "2024-02-14",
        "notice_doi": "10.1016/j.micpro.2024.105024",
        "notice_url": None,
        "reasons": list(row.reasons),
        "source": "retraction_watch",
        "source_record_id": "72853",
        "type": "retraction",
    }
    assert event.work_doi == "10.1016/j.micpro.2020.103053"


@pytest.mark.parametrize(
    ("unavailable", "expected"),
    [("unavailable", None), ("Unavailable", None), ("", None), ("  ", None)],
)
def test_missing_doi_spellings(unavailable: str, expected: None) -> None:
    [row] = _parse(f"{HEADER}\n{_line(OriginalPaperDOI=unavailable)}".encode())
    assert isinstance(row, RetractionWatchRow)
    assert row.original_doi is expected


def test_a_doi_that_is_not_a_doi_is_dropped_with_a_warning() -> None:
    [row] = _parse(f"{HEADER}\n{_line(RetractionDOI='see notes')}".encode())
    assert isinstance(row, RetractionWatchRow)
    assert row.notice_doi is None
    assert row.warnings == ("RetractionDOI 'see notes' is not a DOI",)


def test_trailing_empty_rows_are_skipped() -> None:
    empty = "," * len(COLUMNS)
    data = f"{HEADER},\n{_line()}" + f"{empty}\n" * 190 + "\n\n"
    items = _parse(data.encode())
    assert len(items) == 1 and isinstance(items[0], RetractionWatchRow)


def test_crlf_line_endings_and_a_bom() -> None:
    data = ("\ufeff" + HEADER + "\r\n" + _line().replace("\n", "\r\n")).encode("utf-8")
    [row] = _parse(data)
    assert isinstance(row, RetractionWatchRow)


def test_non_utf8_bytes_are_redecoded_and_recorded() -> None:
    good = _line(record_id="1").encode()
    # "Universit\xe9 de Montr\xe9al" in cp1252, and a curly quote (0x92)
    bad = _line(record_id="2", Title="TITLE", Journal="JOURNAL").encode()
    bad = bad.replace(b"TITLE", b"Universit\xe9 de Montr\xe9al").replace(
        b"JOURNAL", b"Authors\x92 reply"
    )
    mixed = _line(record_id="3", Title="Caf\u00e9 TAIL").encode()
    mixed = mixed.replace(b"TAIL", b"\x81\xe9")  # valid UTF-8 beside stray bytes
    items = _parse(HEADER.encode() + b"\n" + good + bad + mixed)
    assert [type(i) for i in items] == [RetractionWatchRow] * 3
    first, second, third = (i for i in items if isinstance(i, RetractionWatchRow))
    assert not first.redecoded
    assert second.redecoded and second.title == "Universit\u00e9 de Montr\u00e9al"
    assert second.journal == "Authors\u2019 reply"
    assert second.warnings == ("bytes that are not UTF-8 were decoded as cp1252/latin-1",)
    assert third.title == "Caf\u00e9 \x81\u00e9"  # 0x81 has no cp1252 meaning: latin-1


def test_multiline_quoted_cells_keep_line_numbers() -> None:
    data = HEADER + "\n" + _line(Title="two\nlines") + _line(record_id="x")
    first, second = _parse(data.encode())
    assert isinstance(first, RetractionWatchRow) and first.line == 2
    assert first.title == "two\nlines"
    assert second == RowError(4, "Record ID", "expected an integer, found 'x'")


@pytest.mark.parametrize(
    ("cells", "error"),
    [
        ({"Record ID": ""}, RowError(2, "Record ID", "missing")),
        ({"Record ID": "12a"}, RowError(2, "Record ID", "expected an integer, found '12a'")),
        (
            {"RetractionDate": "13/45/2023 0:00"},
            RowError(
                2, "RetractionDate", "expected a date like 8/16/2023 0:00, found '13/45/2023 0:00'"
            ),
        ),
        (
            {"OriginalPaperDate": "sometime"},
            RowError(
                2, "OriginalPaperDate", "expected a date like 8/16/2023 0:00, found 'sometime'"
            ),
        ),
    ],
)
def test_bad_rows_become_row_errors_and_the_batch_goes_on(
    cells: dict[str, str], error: RowError
) -> None:
    items = _parse(f"{HEADER}\n{_line(**cells)}{_line()}".encode())
    assert items[0] == error
    assert isinstance(items[1], RetractionWatchRow) and items[1].line == 3
    assert str(error).startswith("line 2: ")


def test_an_unreadable_csv_record_is_an_error_and_reading_goes_on() -> None:
    oversized = '50002,"' + "x" * 200_000 + '"\n'  # beyond the csv module's field limit
    items = _parse(f"{HEADER}\n{_line()}{oversized}{_line(record_id='50003')}".encode())
    assert [type(i) for i in items] == [RetractionWatchRow, RowError, RetractionWatchRow]
    assert items[1] == RowError(
        3, "Title", "200,000 characters, longer than the limit of 65,536 characters "
        "(the field size limit)",
    )  # fmt: skip
    assert isinstance(items[2], RetractionWatchRow) and items[2].line == 4


def test_an_oversize_cell_is_named_by_its_column_past_quotes_and_commas() -> None:
    notes = 'a "quoted" word, and a comma; ' * 8_000  # 240,000 characters; quotes escaped in CSV
    items = _parse(f"{HEADER}\n{_line(Notes=notes)}{_line(record_id='50003')}".encode())
    assert items[0] == RowError(
        2, "Notes", "240,000 characters, longer than the limit of 65,536 characters "
        "(the field size limit)",
    )  # fmt: skip
    assert isinstance(items[1], RetractionWatchRow) and items[1].record_id == 50003


def test_an_oversize_cell_over_many_lines_is_named_by_its_column() -> None:
    reason = "a reason\n" * 20_000  # 180,000 characters on 20,000 lines: read only in part
    items = _parse(f"{HEADER}\n{_line(Reason=reason)}".encode())
    assert items[0] == RowError(
        2, "Reason", "longer than the limit of 65,536 characters (the field size limit)"
    )


def test_a_row_with_too_few_or_too_many_fields_is_an_error() -> None:
    short = "50001,Title only\n"
    long = _line().rstrip("\n") + ",extra\n"
    items = _parse(f"{HEADER}\n{short}{long}{_line()}".encode())
    assert items[:2] == [
        RowError(2, "(row)", "expected 20 fields, found 2"),
        RowError(3, "(row)", "expected 20 fields, found 21"),
    ]
    assert isinstance(items[2], RetractionWatchRow)


@pytest.mark.parametrize(
    ("date_text", "expected"),
    [
        ("8/16/2023 0:00", date(2023, 8, 16)),
        ("8/16/2023", date(2023, 8, 16)),
        ("12/1/1999 13:45", date(1999, 12, 1)),
        ("2023-08-16", date(2023, 8, 16)),
        ("", None),
    ],
)
def test_dates(date_text: str, expected: date | None) -> None:
    [row] = _parse(f"{HEADER}\n{_line(RetractionDate=date_text)}".encode())
    assert isinstance(row, RetractionWatchRow)
    assert row.retraction_date == expected


@pytest.mark.parametrize(
    ("pubmed", "expected"), [("0", None), ("", None), ("35959284", 35959284), ("n/a", None)]
)
def test_pubmed_ids(pubmed: str, expected: int | None) -> None:
    [row] = _parse(f"{HEADER}\n{_line(OriginalPaperPubMedID=pubmed)}".encode())
    assert isinstance(row, RetractionWatchRow)
    assert row.original_pubmed_id == expected


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("+Unreliable Results;+Plagiarism of Text;", ("Unreliable Results", "Plagiarism of Text")),
        (
            "Unreliable Results and/or Conclusions;Plagiarism of Text",
            ("Unreliable Results and/or Conclusions", "Plagiarism of Text"),
        ),
        (";; ;", ()),
        ("", ()),
    ],
)
def test_reason_lists(reason: str, expected: tuple[str, ...]) -> None:
    [row] = _parse(f"{HEADER}\n{_line(Reason=reason)}".encode())
    assert isinstance(row, RetractionWatchRow)
    assert row.reasons == expected


@pytest.mark.parametrize(
    ("header", "complaint"),
    [
        ("Record ID,Title,Journal\n", "missing ['Subject'"),
        (HEADER.replace("Notes", "Remarks") + "\n", "unexpected ['Remarks']"),
        (HEADER.replace("Title,Subject", "Subject,Title") + "\n", "columns out of order"),
        ("", "the file is empty"),
    ],
)
def test_a_foreign_header_is_a_clear_error(header: str, complaint: str) -> None:
    with pytest.raises(RetractionWatchHeaderError) as caught:
        _parse(header.encode())
    message = str(caught.value)
    assert message.startswith("test.csv: ")
    assert complaint in message
    assert "Retraction Watch" in message


def test_header_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "crossref-works.csv"
    path.write_text("DOI,Title\n10.1/x,y\n", encoding="utf-8")
    with pytest.raises(RetractionWatchHeaderError, match="crossref-works.csv: line 1"):
        list(read_retraction_watch(path))


def test_the_caller_stream_stays_open() -> None:
    stream = io.BytesIO(f"{HEADER}\n{_line()}".encode())
    list(iter_retraction_watch(stream))
    assert not stream.closed


# --- superseding -----------------------------------------------------------


def _micpro_rows() -> list[RetractionWatchRow]:
    rows = _rows(FIXTURES / SAMPLE_2026)
    return [r for r in rows if r.original_doi == "10.1016/j.micpro.2020.103053"]


def test_expression_of_concern_upgraded_to_retraction() -> None:
    rows = _micpro_rows()
    assert sorted(r.record_id for r in rows) == [72853, 72867]
    # The retraction has the lower record id but the later date: date decides.
    for ordering in (rows, rows[::-1]):
        state = superseding_state(ordering)
        assert state is not None
        assert state.state is EventType.RETRACTION
        assert state.decided_by == 72853
        assert [r.record_id for r in state.rows] == [72867, 72853]


def _row(record_id: int, nature: str, day: str) -> RetractionWatchRow:
    line = _line(str(record_id), RetractionNature=nature, RetractionDate=day)
    [row] = _parse(f"{HEADER}\n{line}".encode())
    assert isinstance(row, RetractionWatchRow)
    return row


NATURES = {"R": "Retraction", "C": "Correction", "E": "Expression of concern", "I": "Reinstatement"}


@pytest.mark.parametrize(
    ("history", "state", "decided_by"),
    [
        # Each item is nature + year; record ids count from 1 in the order given.
        ("E20 R21", "retraction", 2),
        ("R20 I22", "reinstatement", 2),
        ("R20 I22 R23", "retraction", 3),
        ("R20 C21", "retraction", 1),
        ("R20 E21", "retraction", 1),
        ("C20 E21", "expression_of_concern", 2),
        ("E20 C21", "expression_of_concern", 1),
        ("I20 C21", "correction", 2),
        ("C20 C21", "correction", 2),
        ("C20", "correction", 1),
        # Rows arrive in any order: the date decides, not the record id.
        ("R23 E21", "retraction", 1),
    ],
)
def test_superseding_rules(history: str, state: str, decided_by: int) -> None:
    rows = [
        _row(record_id, NATURES[item[0]], f"1/1/20{item[1:]}")
        for record_id, item in enumerate(history.split(), start=1)
    ]
    result = superseding_state(rows)
    assert result is not None
    assert (result.state.value, result.decided_by) == (state, decided_by)


def test_superseding_same_day_falls_back_to_record_id() -> None:
    rows = [_row(9, "Reinstatement", "5/5/2021"), _row(8, "Retraction", "5/5/2021")]
    result = superseding_state(rows)
    assert result is not None
    assert (result.state, result.decided_by) == (EventType.REINSTATEMENT, 9)


def test_superseding_state_of_nothing_is_none() -> None:
    assert superseding_state([]) is None


def test_group_by_paper_joins_rows_through_doi_or_pubmed_id() -> None:
    rows = _rows(FIXTURES / SAMPLE_2026)
    line = _line("99", OriginalPaperDOI="unavailable", OriginalPaperPubMedID="27013874")
    by_pubmed_only = _parse(f"{HEADER}\n{line}".encode())
    groups = group_by_paper([*rows, *by_pubmed_only])  # type: ignore[list-item]
    ids = {frozenset(r.record_id for r in group) for group in groups}
    # 70548 names its paper by nothing and is left out; 99 joins 67291 by PubMed id.
    assert ids == {
        frozenset({34999}),
        frozenset({40040}),
        frozenset({49720}),
        frozenset({67291, 99}),
        frozenset({72853, 72867}),
    }


# --- robustness ------------------------------------------------------------

_cell = st.text(max_size=40) | st.sampled_from(
    ["", "0", "unavailable", "8/16/2023 0:00", "13/13/13", "+a;+b;", '"', "\r\n", "10.1/x,y"]
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(rows=st.lists(st.lists(_cell, min_size=0, max_size=23), max_size=5))
def test_reader_never_raises_on_arbitrary_cell_text(rows: list[list[str]]) -> None:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([*COLUMNS, ""])
    writer.writerows(rows)
    for item in _parse(out.getvalue().encode("utf-8")):
        assert isinstance(item, RetractionWatchRow | RowError)


@settings(max_examples=150, deadline=None)
@given(body=st.binary(max_size=300))
def test_reader_never_raises_on_arbitrary_bytes(body: bytes) -> None:
    for item in _parse(HEADER.encode() + b"\n" + body):
        assert isinstance(item, RetractionWatchRow | RowError)
