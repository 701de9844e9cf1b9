"""refresh_notices by hand, the beat task that refreshes due works, and the schedule."""

from __future__ import annotations

import io
from importlib import import_module
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from curation.notices.models import SourceReceipt
from curation.notices.schedule import CELERY_BEAT_SCHEDULE
from curation.notices.tasks import refresh_due_works, refresh_works

from .conftest import FakeCrossref, load_fixture
from .records import import_citing_record, notice_of, record_json, work_for

# The module, not the function of the same name that the services package exports.
refresh_module = import_module("curation.notices.services.refresh")

pytestmark = pytest.mark.django_db

MICPRO = "10.1016/j.micpro.2020.103053"


def _serve(crossref: FakeCrossref, *dois: str) -> None:
    for doi in dois:
        crossref.work(doi, {"message-type": "work", "message": {"DOI": doi}})
        crossref.notices(doi)


def test_refresh_notices_one_work_by_doi(crossref: FakeCrossref) -> None:
    import_citing_record(dois=[MICPRO])
    crossref.work(MICPRO, load_fixture("crossref_work_micpro_retracted.json"))
    crossref.notices(MICPRO, load_fixture("crossref_notices_micpro.json"))
    out = io.StringIO()

    call_command("refresh_notices", "--work", MICPRO.upper(), stdout=out)

    assert "crossref answered" in out.getvalue()
    assert "retraction_watch failed" in out.getvalue()  # never imported: not an answer
    assert notice_of(record_json(), doi=MICPRO)["events"]


def test_refresh_notices_all_and_unknown_work(crossref: FakeCrossref) -> None:
    import_citing_record(dois=["10.1000/a", "10.1000/b"])
    _serve(crossref, "10.1000/a", "10.1000/b")
    out = io.StringIO()

    call_command("refresh_notices", "--all", "--source", "crossref", stdout=out)

    assert "2 work(s) refreshed" in out.getvalue()
    with pytest.raises(CommandError, match="no cited work"):
        call_command("refresh_notices", "--work", "10.1000/nobody", stdout=io.StringIO())


def test_beat_task_refreshes_never_asked_works_first(
    crossref: FakeCrossref, django_capture_on_commit_callbacks: Any
) -> None:
    import_citing_record(dois=["10.1000/a", "10.1000/b"])
    _serve(crossref, "10.1000/a", "10.1000/b")

    # Each beat job's refreshes are queued on commit: run them as outside a test's transaction.
    with django_capture_on_commit_callbacks(execute=True):
        first = refresh_due_works.delay(batch=1).get()
    with django_capture_on_commit_callbacks(execute=True):
        second = refresh_due_works.delay(batch=5).get()
    with django_capture_on_commit_callbacks(execute=True):
        third = refresh_due_works.delay(batch=5).get()

    assert (first, second, third) == (1, 1, 0)  # each work once, then none is due
    asked = set(SourceReceipt.objects.values_list("work_id", flat=True))
    assert asked == {work_for("10.1000/a").pk, work_for("10.1000/b").pk}


def test_batch_refresh_asks_about_every_work_and_survives_one_failure(
    crossref: FakeCrossref, monkeypatch: pytest.MonkeyPatch
) -> None:
    import_citing_record(dois=["10.1000/a", "10.1000/b", "10.1000/c"])
    _serve(crossref, "10.1000/a", "10.1000/c")
    broken = work_for("10.1000/b")
    real_ask = refresh_module.ask_sources

    def ask_or_fail(keys: Any, *args: Any) -> Any:
        if keys.crossref_doi == broken.doi:
            raise RuntimeError("source blew up")
        return real_ask(keys, *args)

    # The batch asks about each work, then stores every answer in one transaction.
    monkeypatch.setattr(refresh_module, "ask_sources", ask_or_fail)
    ids = [work_for(d).pk for d in ("10.1000/a", "10.1000/b", "10.1000/c")]

    result = refresh_works.delay(ids, reason="first notice check").get()

    assert result["works"] == 3 and result["failed"] == 1
    asked = set(SourceReceipt.objects.values_list("work_id", flat=True))
    assert asked == {work_for("10.1000/a").pk, work_for("10.1000/c").pk}


def _soft_limit_at(monkeypatch: pytest.MonkeyPatch, doi: str) -> list[Any]:
    """Raise the job's soft time limit once, when the sources are asked about `doi`; return
    the batches the job queues again (run at once, as tests run jobs)."""
    from celery.exceptions import SoftTimeLimitExceeded

    real_ask, raised, sent = refresh_module.ask_sources, [], []

    def ask(keys: Any, *args: Any) -> Any:
        if keys.crossref_doi == doi and not raised:
            raised.append(doi)
            raise SoftTimeLimitExceeded()
        return real_ask(keys, *args)

    monkeypatch.setattr(refresh_module, "ask_sources", ask)
    real_send = refresh_works.apply_async

    def send(args: Any, kwargs: Any) -> Any:
        sent.append((*args, *kwargs.values()))
        return real_send(args=args, kwargs=kwargs)

    monkeypatch.setattr(refresh_works, "apply_async", send)
    return sent


def test_a_batch_refresh_at_its_soft_time_limit_stores_what_it_asked_and_goes_on(
    crossref: FakeCrossref, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    dois = ("10.1000/a", "10.1000/b", "10.1000/c")
    import_citing_record(dois=list(dois))
    _serve(crossref, *dois)
    ids = [work_for(d).pk for d in dois]
    sent = _soft_limit_at(monkeypatch, "10.1000/b")

    with django_capture_on_commit_callbacks(execute=True):  # as outside a test's transaction
        result = refresh_works.apply((ids,), {"reason": "first notice check"}).get()

    assert (result["failed"], result["queued_again"]) == (0, 2)
    assert sent == [(ids[1:], "first notice check")]
    assert set(SourceReceipt.objects.values_list("work_id", flat=True)) == set(ids)


def test_a_batch_refresh_that_asked_nothing_before_its_limit_fails_not_loops(
    crossref: FakeCrossref, monkeypatch: pytest.MonkeyPatch
) -> None:
    from celery.exceptions import SoftTimeLimitExceeded

    import_citing_record(dois=["10.1000/a"])
    _serve(crossref, "10.1000/a")
    sent = _soft_limit_at(monkeypatch, "10.1000/a")

    with pytest.raises(SoftTimeLimitExceeded, match="no cited work was asked"):
        refresh_works.apply(([work_for("10.1000/a").pk],)).get()
    assert sent == [] and not SourceReceipt.objects.exists()


def test_the_beat_schedule_names_a_registered_task() -> None:
    from citerec.celery import app

    for entry in CELERY_BEAT_SCHEDULE.values():
        assert entry["task"] in app.tasks
        assert entry["options"]["queue"] == "notices"
