"""The harvest into the catalogue: pages stored with their token, resumed after a stop, deleted
records out of the catalogue, ingested papers with a new version asked for again."""

from __future__ import annotations

import io
from datetime import date

import pytest
from django.core.management import call_command
from django.test import TestCase

from curation.audit import Actor
from curation.clients.arxiv import ArxivUnavailable
from curation.ingestion.models import HarvestState, IngestionState, PaperIngestion
from curation.ingestion.services import harvest_run
from curation.models import Paper
from tests.ingestion.conftest import add_papers, dev_source

pytestmark = pytest.mark.django_db

ACTOR = Actor.importer("test-harvest")
IDS = ["2401.00001", "2401.00002", "hep-th/9901001", "2401.00004", "2401.00005"]


def five_records(fake, *, versions: int = 1) -> None:  # type: ignore[no-untyped-def]
    for n, arxiv_id in enumerate(IDS):
        if arxiv_id == "2401.00004":
            fake.add_deleted(arxiv_id, datestamp=date(2024, 1, 4))
        else:
            fake.add_record(arxiv_id, title=f"Paper number {n}", categories="cs.LG",
                            datestamp=date(2024, 1, 2 + n), versions=versions)  # fmt: skip


def test_a_harvest_stores_every_page_and_remembers_the_latest_datestamp(fake_arxiv) -> None:  # type: ignore[no-untyped-def]
    five_records(fake_arxiv)
    Paper.objects.create(arxiv_id="2401.00004", title="Deleted later", in_catalogue=True)

    outcome = harvest_run(actor=ACTOR, reason="test", client=fake_arxiv.client())

    assert (outcome.pages, outcome.records, outcome.inserted, outcome.deleted) == (3, 5, 4, 1)
    assert set(Paper.objects.filter(in_catalogue=True).values_list("arxiv_id", flat=True)) == set(IDS) - {"2401.00004"}
    assert Paper.objects.get(arxiv_id="hep-th/9901001").title == "Paper number 2"
    state = HarvestState.objects.get(set_spec="")
    assert (state.last_datestamp, state.resumption_token, state.harvested) == (date(2024, 1, 6), "", 4)

    # The next harvest starts at that datestamp (inclusive: the day is asked again, harmlessly).
    again = harvest_run(actor=ACTOR, reason="test", client=fake_arxiv.client())
    assert again.from_date == date(2024, 1, 6)
    assert dict(fake_arxiv.requests("oai")[-1].args)["from"] == "2024-01-06"
    assert (again.inserted, again.updated) == (0, 0)


def test_a_stopped_harvest_resumes_at_the_page_after_the_last_one_stored(fake_arxiv) -> None:  # type: ignore[no-untyped-def]
    five_records(fake_arxiv)

    def break_after_first_page(outcome) -> None:  # type: ignore[no-untyped-def]
        if outcome.pages == 1:
            fake_arxiv.fail_next(500, times=50)

    with pytest.raises(ArxivUnavailable):
        harvest_run(actor=ACTOR, reason="test", client=fake_arxiv.client(max_retries=1), progress=break_after_first_page)
    state = HarvestState.objects.get(set_spec="")
    assert state.resumption_token and state.last_datestamp is None
    assert Paper.objects.count() == 2
    fake_arxiv._faults.clear()

    outcome = harvest_run(actor=ACTOR, reason="test", client=fake_arxiv.client())
    assert outcome.resumed and outcome.records == 3
    assert dict(fake_arxiv.requests("oai")[-2].args) == {"verb": "ListRecords", "resumptionToken": state.resumption_token}
    assert Paper.objects.filter(in_catalogue=True).count() == 4
    assert HarvestState.objects.get(set_spec="").resumption_token == ""


def test_an_ingested_paper_with_a_new_version_is_read_again(fake_arxiv) -> None:  # type: ignore[no-untyped-def]
    fake_arxiv.add_record("2401.00001", title="Eyewall", versions=1, datestamp=date(2024, 1, 2))
    fake_arxiv.add_eprint("2401.00001", dev_source("Eyewall__2018jas"), version=1)
    add_papers("2401.00001")
    assert PaperIngestion.objects.get().version == 1

    fake_arxiv.add_record("2401.00001", title="Eyewall", versions=2, datestamp=date(2024, 2, 1))
    fake_arxiv.add_eprint("2401.00001", dev_source("Eyewall__2018jas"), version=2)
    out = io.StringIO()
    with TestCase.captureOnCommitCallbacks(execute=True):
        call_command("harvest_arxiv", "--from", "2024-01-15", stdout=out, stderr=io.StringIO())
    assert "1 ingested papers have a new version (queued)" in out.getvalue()
    ingestion = PaperIngestion.objects.get()
    assert (ingestion.state, ingestion.version) == (IngestionState.DONE, 2)


def test_harvest_arxiv_refuses_a_date_it_cannot_read(fake_arxiv) -> None:  # type: ignore[no-untyped-def]
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="expected a date as YYYY-MM-DD"):
        call_command("harvest_arxiv", "--from", "yesterday", stdout=io.StringIO())


def _soft_limit_on_page(monkeypatch: pytest.MonkeyPatch, page: int) -> list[dict[str, object]]:
    """Raise the job's soft time limit while page `page` is stored (once); return what the
    harvest job queues of itself (run at once, as tests run jobs)."""
    from celery.exceptions import SoftTimeLimitExceeded

    from curation.ingestion import tasks
    from curation.ingestion.services import harvest as harvest_services

    real_store, stores = harvest_services.metadata_store, []

    def store(**kwargs: object) -> tuple[int, int]:
        stores.append(1)
        if len(stores) == page:
            raise SoftTimeLimitExceeded()
        return real_store(**kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(harvest_services, "metadata_store", store)
    real_send, sent = tasks.harvest_arxiv.apply_async, []

    def send(*args: object, **kwargs: object) -> object:
        sent.append({k: v for k, v in kwargs.items() if v})  # queue_on_commit sends args=()
        return real_send(*args, **kwargs)

    monkeypatch.setattr(tasks.harvest_arxiv, "apply_async", send)
    return sent


def test_harvest_arxiv_at_its_soft_time_limit_keeps_its_pages_and_goes_on_at_once(
    fake_arxiv, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    from curation.ingestion import tasks

    five_records(fake_arxiv)
    sent = _soft_limit_on_page(monkeypatch, 2)
    with django_capture_on_commit_callbacks(execute=True):  # as outside a test's transaction
        first = tasks.harvest_arxiv.apply(kwargs={"from_date": "2024-01-01"}).get()
    assert first["continued"] is True and sent == [{"kwargs": {"set_spec": ""}}]
    # The continuation resumed at the page the limit interrupted, and finished the harvest.
    assert set(Paper.objects.filter(in_catalogue=True).values_list("arxiv_id", flat=True)) == (
        set(IDS) - {"2401.00004"}
    )
    state = HarvestState.objects.get(set_spec="")
    assert (state.resumption_token, state.last_datestamp, state.harvested) == ("", date(2024, 1, 6), 4)


def test_harvest_arxiv_that_stores_no_page_before_its_limit_fails_not_loops(
    fake_arxiv, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    from celery.exceptions import SoftTimeLimitExceeded

    from curation.ingestion import tasks

    five_records(fake_arxiv)
    sent = _soft_limit_on_page(monkeypatch, 1)
    with pytest.raises(SoftTimeLimitExceeded, match="stored no page"):
        tasks.harvest_arxiv.apply(kwargs={"from_date": "2024-01-01"}).get()
    assert sent == [] and not Paper.objects.exists()
