"""Samples of automatic links for curators to check, and the precision read from the labels
(issue 41 item 3): stratified by band, reproducible from a seed, one-keystroke confirm, and the
figures of curation.resolution.selectors.resolver_precision on labels known in advance."""

from __future__ import annotations

from collections import Counter

import pytest

from curation.models import Observation
from curation.resolution.models import LabelOutcome, LabelWhy, LinkSampleItem, VerdictLabel
from curation.resolution.precision import wilson
from curation.resolution.selectors import automatic_link_bands, resolver_precision
from curation.services.link_samples import link_sample_draw, sampled_link_confirm
from curation.services.observations import (
    CurationError,
    StaleRevision,
    observation_link_arxiv,
    observation_set_state,
)
from curation.states import ResolutionStatus
from tests.resolution.verdicts_data import ALICE, catalogue, fresh, verdict

pytestmark = pytest.mark.django_db


@pytest.fixture
def links() -> list[Observation]:
    """Thirty automatic links: 20 at 0.995, 6 at 0.6, 4 by identifier; plus what is not one."""
    made = [verdict(i, probability=0.995) for i in range(20)]
    made += [verdict(20 + i, probability=0.6) for i in range(6)]
    made += [verdict(26 + i, step="identifier", probability=None) for i in range(4)]
    # Not automatic links: no link, and a link a curator pinned.
    verdict(40, links=None, status=ResolutionStatus.UNRESOLVED, probability=None)
    pinned = verdict(41)
    observation_link_arxiv(observation=pinned, arxiv_id="2301.00001",
                           expected_revision=pinned.revision, actor=ALICE, reason="sure")  # fmt: skip
    VerdictLabel.objects.all().delete()  # that decision's label is not this fixture's business
    return made


def test_bands_are_counted_in_the_database_as_band_of_names_them(links: list[Observation]) -> None:
    assert automatic_link_bands() == {
        "0.99–1.00": 20, "0.50–0.80": 6, "no probability (identifier)": 4,
    }  # fmt: skip


def test_a_sample_draws_per_band_and_keeps_the_band_sizes(links: list[Observation]) -> None:
    sample = link_sample_draw(per_band=5, seed="s1", actor=ALICE, reason="monthly check")
    assert sample.strata == {"0.99–1.00": 20, "0.50–0.80": 6, "no probability (identifier)": 4}
    items = list(sample.items.all())
    assert Counter(i.band for i in items) == {
        "0.99–1.00": 5, "0.50–0.80": 5, "no probability (identifier)": 4,
    }  # fmt: skip
    assert [i.position for i in items] == list(range(14))
    assert all(i.linked == "arXiv:2301.00001" for i in items)
    assert {i.probability for i in items if i.band == "0.50–0.80"} == {0.6}


def test_the_same_seed_draws_the_same_links_and_another_seed_others(links: list[Observation]) -> None:
    def drawn(seed: str) -> list[str]:
        sample = link_sample_draw(per_band=5, seed=seed, actor=ALICE, reason="check")
        return [str(i.observation_id) for i in sample.items.order_by("position")]

    first = drawn("seed-a")
    assert drawn("seed-a") == first
    assert set(drawn("seed-b")) != set(first)  # 5 of 20 twice alike: 1 in 15,504


def test_a_draw_refuses_bad_sizes_and_seeds(links: list[Observation]) -> None:
    for per_band, seed in ((0, "s"), (1001, "s"), (5, "  "), (5, "x" * 65)):
        with pytest.raises(CurationError):
            link_sample_draw(per_band=per_band, seed=seed, actor=ALICE, reason="check")
    assert not LinkSampleItem.objects.exists()


def test_confirming_a_sampled_link_pins_it_and_writes_a_sampled_label(
    links: list[Observation],
) -> None:
    sample = link_sample_draw(per_band=2, seed="s", actor=ALICE, reason="check")
    item = sample.items.order_by("position").first()
    assert item is not None
    before = fresh(item.observation)
    label = sampled_link_confirm(item=item, expected_revision=before.revision, actor=ALICE)
    assert (label.outcome, label.why, label.sample_item_id) == (
        LabelOutcome.CONFIRMED, LabelWhy.SAMPLED, item.pk,
    )  # fmt: skip
    after = fresh(item.observation)
    assert after.pinned and after.revision == before.revision + 1
    item.refresh_from_db()
    assert item.checked_at is not None and item.outcome == LabelOutcome.CONFIRMED
    with pytest.raises(CurationError, match="checked already"):
        sampled_link_confirm(item=item, expected_revision=after.revision, actor=ALICE)


def test_confirming_on_a_stale_revision_is_refused_and_writes_nothing(
    links: list[Observation],
) -> None:
    sample = link_sample_draw(per_band=2, seed="s", actor=ALICE, reason="check")
    item = sample.items.order_by("position").first()
    assert item is not None
    with pytest.raises(StaleRevision):
        sampled_link_confirm(item=item, expected_revision=item.observation.revision - 1, actor=ALICE)
    assert not VerdictLabel.objects.exists()
    item.refresh_from_db()
    assert item.checked_at is None


def test_overturning_a_sampled_link_on_the_reference_page_checks_it(
    links: list[Observation],
) -> None:
    sample = link_sample_draw(per_band=2, seed="s", actor=ALICE, reason="check")
    item = sample.items.order_by("position").first()
    assert item is not None
    o = fresh(item.observation)
    observation_set_state(observation=o, status=ResolutionStatus.UNRESOLVED,
                          expected_revision=o.revision, actor=ALICE, reason="wrong")  # fmt: skip
    item.refresh_from_db()
    assert item.outcome == LabelOutcome.UNLINKED
    label = VerdictLabel.objects.get()
    assert (label.why, label.sample_item_id) == (LabelWhy.SAMPLED, item.pk)


def test_precision_figures_on_known_labels(links: list[Observation]) -> None:
    sample = link_sample_draw(per_band=4, seed="s", actor=ALICE, reason="check")
    catalogue("2301.00009")
    by_band: dict[str, list[LinkSampleItem]] = {}
    for item in sample.items.order_by("position"):
        by_band.setdefault(item.band, []).append(item)
    # Top band: 4 checked, all right. Middle band: 4 checked, 1 relinked. Identifier: 4 right.
    for band, items in by_band.items():
        for n, item in enumerate(items):
            o = fresh(item.observation)
            if band == "0.50–0.80" and n == 0:
                observation_link_arxiv(observation=o, arxiv_id="2301.00009",
                                       expected_revision=o.revision, actor=ALICE, reason="other")  # fmt: skip
            else:
                sampled_link_confirm(item=item, expected_revision=o.revision, actor=ALICE)
    # Two came to curators on their own, outside the sample: one right, one wrong.
    queue = [o for o in links if not LinkSampleItem.objects.filter(observation=o).exists()][:2]
    for o, target in zip(queue, ("2301.00001", "2301.00009"), strict=True):
        o = fresh(o)
        observation_link_arxiv(observation=o, arxiv_id=target, expected_revision=o.revision,
                               actor=ALICE, reason="came up")  # fmt: skip

    figures = resolver_precision()
    rows = {(r.why, r.group["band"]): r.estimate for r in figures.by_band}
    assert rows[("sampled", "0.50–0.80")] == wilson(4, 1)
    assert rows[("sampled", "0.99–1.00")] == wilson(4, 0)
    assert rows[("sampled", "no probability (identifier)")] == wilson(4, 0)
    assert rows[("queue", "0.99–1.00")] == wilson(2, 1)
    steps = {(r.why, r.group["step"], r.group["status"]): r.estimate for r in figures.by_step_state}
    assert steps[("sampled", "string", "verified_fuzzy")] == wilson(8, 1)
    assert steps[("sampled", "identifier", "verified_fuzzy")] == wilson(4, 0)
    assert figures.came_to_curators == wilson(2, 1)
    assert figures.sampled_checked == wilson(12, 1)
    # Stratified: 20/30 * 1 + 6/30 * 0.75 + 4/30 * 1 = 0.95 (unweighted it would be 11/12).
    assert figures.sampled_stratified.precision == pytest.approx(0.95)
    assert figures.sample == sample
    assert [(s.band, s.population, s.checked, s.overturned) for s in figures.strata] == [
        ("0.50–0.80", 6, 4, 1), ("0.99–1.00", 20, 4, 0), ("no probability (identifier)", 4, 4, 0),
    ]  # fmt: skip


def test_the_database_bands_agree_with_band_of_at_every_edge() -> None:
    from curation.resolution.precision import band_of

    probabilities = (0.0, 0.4999, 0.5, 0.7999, 0.8, 0.9, 0.95, 0.9899, 0.99, 1.0)
    for i, p in enumerate(probabilities):
        verdict(i, probability=p)
    verdict(20, step="title", probability=None)
    verdict(21, step="", probability=None)
    expected = Counter(band_of("string", p) for p in probabilities)
    expected.update([band_of("title", None), band_of("", None)])
    assert automatic_link_bands() == dict(expected)


def test_the_command_draws_the_same_sample_as_the_page(links: list[Observation]) -> None:
    import io

    from django.core.management import CommandError, call_command

    out = io.StringIO()
    call_command("draw_link_sample", "--per-band", "5", "--seed", "s1", stdout=out)
    assert "0.50–0.80: 5 drawn of 6 links" in out.getvalue()
    assert "links to check" in out.getvalue()
    by_command = [str(i) for i in LinkSampleItem.objects.order_by("position")
                  .values_list("observation_id", flat=True)]  # fmt: skip
    sample = link_sample_draw(per_band=5, seed="s1", actor=ALICE, reason="check")
    assert [str(i.observation_id) for i in sample.items.order_by("position")] == by_command
    with pytest.raises(CommandError, match="links per band must be 1 to 1000"):
        call_command("draw_link_sample", "--per-band", "0", "--seed", "s1", stdout=out)
