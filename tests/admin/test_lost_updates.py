"""Two curators on one reference: the second save is refused and shows the first change."""

from __future__ import annotations

import re
from typing import Any

from django.test import Client

from curation.models import Observation

from .helpers import decide, fresh, last_context, page_url


def test_the_second_curator_is_refused_and_sees_the_first_change(resolved: Any, alice: Client, bob: Client) -> None:
    observation = resolved[1]
    seen = fresh(observation).revision
    assert alice.get(page_url(observation)).status_code == 200
    assert bob.get(page_url(observation)).status_code == 200

    first = decide(alice, observation, "accept_candidate", revision=seen, identifier="arXiv:2301.00001", reason="first version")
    second = decide(bob, observation, "accept_candidate", revision=seen, identifier="arXiv:2301.00002", reason="the v2")

    assert first.status_code == 302
    assert second.status_code == 409
    body = second.content.decode()
    assert "someone else changed this reference first" in body
    assert "alice at <time" in body and "first version" in body
    after = fresh(observation)
    assert after.cited_paper is not None and after.cited_paper.arxiv_id == "2301.00001"
    # Bob's reason survives on the refreshed page, on the new revision.
    assert "the v2" in body and f'value="{after.revision}"' in body


def test_a_stale_bulk_action_skips_the_changed_reference(resolved: Any, alice: Client, bob: Client) -> None:
    observation = resolved[3]
    seen = fresh(observation).revision
    decide(alice, observation, "set_state", status="parse_uncertain", reason="artefact")
    response = bob.post("/admin/curation/observation/", {
        "action": "retire_junk", "apply": "1", "_selected_action": [str(observation.pk)],
        "seen": [f"{observation.pk}:{seen}"], "reason": "junk",
    }, follow=True)
    assert "Skipped 1" in response.content.decode()
    assert fresh(observation).retired_at is None


def _correct(client: Client, observation: Any, revision: int, **values: Any) -> Any:
    shown = fresh(observation)
    data = {"work_title": shown.work_title or "", "work_year": shown.work_year or "",
            "work_venue": shown.work_venue or "", "reference_index": shown.reference_index}
    return decide(client, observation, "correct", revision=revision, **{**data, **values})


def _conflict_fields(body: str) -> dict[str, Any]:
    """Return the hidden fields of the conflict panel (what saving it again posts)."""
    panel = body[body.index('id="cr-conflict"'):]
    panel = panel[: panel.index("</form>")]
    return dict(re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', panel))


def _stale_year(alice: Client, bob: Client, observation: Any) -> tuple[int, Any]:
    """Alice corrects the title; Bob, on the page he opened before, changes only the year."""
    seen = fresh(observation).revision
    title_seen = fresh(observation).work_title
    assert _correct(alice, observation, seen, work_title="Corrected by Alice", reason="typo").status_code == 302
    refused = _correct(bob, observation, seen, work_title=title_seen, work_year=1999, reason="Bob: year")
    return seen, refused


def test_saving_again_after_a_409_needs_an_explicit_choice(resolved: Any, alice: Client, bob: Client) -> None:
    observation = resolved[1]
    seen, refused = _stale_year(alice, bob, observation)
    assert refused.status_code == 409
    body = refused.content.decode()
    current = fresh(observation)
    # The panel shows Bob's values beside the current ones, on the revision now stored...
    assert 'id="cr-conflict"' in body and "Corrected by Alice" in body and "1999" in body
    fields = _conflict_fields(body)
    assert fields["conflict"] == fields["revision"] == str(current.revision)
    assert fields["work_year"] == "1999" and fields["work_title"] != "Corrected by Alice"
    # ...and the ordinary form no longer carries Bob's stale values with the new revision.
    form = body[body.index('id="cr-decide"'):]
    assert 'value="Corrected by Alice"' in form[: form.index("</form>")]

    # Saving the panel again without a choice is refused and changes nothing.
    again = bob.post(page_url(observation), fields)
    assert again.status_code == 400 and 'id="cr-conflict"' in again.content.decode()
    assert fresh(observation).work_title == "Corrected by Alice"
    # Pressing the ordinary save (now holding the current values) saves nothing either.
    assert _correct(bob, observation, current.revision, reason="again").status_code == 400
    assert fresh(observation).revision == current.revision

    kept = bob.post(page_url(observation), {**fields, "choice": "keep_current"}, follow=True)
    assert "Kept the current version" in kept.content.decode()
    after = fresh(observation)
    assert (after.work_title, after.work_year, after.revision) == ("Corrected by Alice", 2023, current.revision)


def test_apply_mine_after_a_409_applies_exactly_the_values_shown_as_mine(resolved: Any, alice: Client, bob: Client) -> None:
    observation = resolved[1]
    title_seen = fresh(observation).work_title
    _, refused = _stale_year(alice, bob, observation)
    fields = _conflict_fields(refused.content.decode())

    applied = bob.post(page_url(observation), {**fields, "choice": "apply_mine"})

    assert applied.status_code == 302
    after = fresh(observation)
    assert (after.work_title, after.work_year) == (title_seen, 1999)  # both shown in "yours"
    assert last_context(observation)["reason"] == "Bob: year"


def test_a_choice_made_on_a_revision_that_moved_again_is_refused_again(resolved: Any, alice: Client, bob: Client) -> None:
    observation = resolved[1]
    _, refused = _stale_year(alice, bob, observation)
    fields = _conflict_fields(refused.content.decode())
    _correct(alice, observation, fresh(observation).revision, work_venue="ICML", reason="venue")

    again = bob.post(page_url(observation), {**fields, "choice": "apply_mine"})

    assert again.status_code == 409 and "venue" in again.content.decode()
    assert fresh(observation).work_title == "Corrected by Alice" and fresh(observation).work_venue == "ICML"


def test_bulk_accept_top_says_a_pinned_row_is_pinned(resolved: Any, alice: Client, bob: Client) -> None:
    observation = resolved[1]
    decide(alice, observation, "set_state", status="unresolved", reason="Alice looked at it")
    response = bob.post("/admin/curation/observation/", {
        "action": "accept_top_candidate", "apply": "1", "_selected_action": [str(observation.pk)],
        "seen": [f"{observation.pk}:{fresh(observation).revision}"], "threshold": "5", "reason": "bulk",
    }, follow=True)
    body = response.content.decode()
    assert "Skipped 1" in body and "pinned by a curator" in body and "Alice looked at it" in body
    assert "no candidate" not in body


def test_a_stale_bulk_merge_or_rerun_reports_who_changed_what(resolved: Any, alice: Client, bob: Client) -> None:
    keep, duplicate, other = resolved[1], resolved[2], resolved[4]
    shown = {o.pk: fresh(o).revision for o in (keep, duplicate, other)}
    decide(alice, duplicate, "set_state", status="parse_uncertain", reason="Alice: not a duplicate")
    decide(alice, other, "set_state", status="unresolved", reason="Alice: pinned it")

    merge = bob.post("/admin/curation/observation/", {
        "action": "merge_duplicates", "apply": "1", "_selected_action": [str(keep.pk), str(duplicate.pk)],
        "seen": [f"{pk}:{rev}" for pk, rev in shown.items()], "reason": "dup",
    }, follow=True).content.decode()
    assert "Nothing merged" in merge and "Alice: not a duplicate" in merge
    assert fresh(duplicate).retired_at is None

    rerun = bob.post("/admin/curation/observation/", {
        "action": "rerun_resolver", "apply": "1", "_selected_action": [str(other.pk)],
        "seen": [f"{other.pk}:{shown[other.pk]}"], "reason": "rerun",
    }, follow=True).content.decode()
    assert "Skipped 1" in rerun and "Alice: pinned it" in rerun


def test_the_pages_same_text_fix_writes_only_the_targets_shown_at_their_revisions(
    resolved: Any, alice: Client, bob: Client, sample: None
) -> None:
    from curation.services import reference_list_import

    from .conftest import IMPORTER, Listed

    reference_list_import(arxiv_id="2412.14374", references=[Listed(1, "1", "write newline")], actor=IMPORTER, reason="list")
    source = resolved[3]
    decide(alice, source, "set_state", status="parse_uncertain", reason="artefact")
    page = alice.get(page_url(source)).content.decode()
    targets = re.search(r'name="targets" value="([^"]*)"', page)
    assert targets is not None and len(targets.group(1).split()) == 1
    other = Observation.objects.get(paper__arxiv_id="2412.14374", raw_text="write newline")
    decide(bob, other, "retire", reason="Bob: junk in this paper")

    assert decide(alice, source, "apply_same_text", targets=targets.group(1), reason="same text").status_code == 302

    body = alice.get(page_url(source)).content.decode()
    assert "Applied this decision to 0 other observations" in body
    assert "Skipped 1" in body and "retired by bob" in body and "Bob: junk in this paper" in body
    assert not hasattr(fresh(other), "resolution")  # Alice's decision was not copied onto it
