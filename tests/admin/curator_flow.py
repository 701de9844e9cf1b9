"""A curator's queue of 50 references needing decisions of five kinds, and how to work it in a
browser by keyboard and save-and-next (tests/admin/test_curator_flow.py, bench/bench_curator_flow.py).

Kinds, interleaved in the queue so the curator switches between them:

- `top`: two catalogue papers share the title (a tie, unresolved): accept the top candidate (`a`);
- `second`: a tie again, but the curator knows the second one: its Accept button (it moves on);
- `link`: the arXiv id names another paper than the title (metadata_mismatch): `l`, the id, Enter;
- `norecord`: a GitHub issue: no canonical record (`n`);
- `fragment`: an author-list fragment the resolver calls parse_uncertain: the curator confirms
  it (`4`, the fourth state in the list), which pins it out of "to fix".

Every key press, click and filled field counts as one action; page loads do not.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from curation.audit import Actor
from curation.models import Observation, Paper
from curation.resolution.candidates import candidates_from_evidence
from curation.services import reference_list_import
from tests.browser import shot

from .conftest import IMPORTER, Listed

FLOW_CITING = "2502.00050"
KINDS = ("top", "link", "norecord", "second", "fragment")
DECISIONS = 50
TOPICS = [
    "sparse attention", "protein folding", "graph partitioning", "speech separation",
    "code completion", "weather forecasting", "image matting", "query optimisation",
    "molecule generation", "traffic prediction", "music transcription", "theorem proving",
    "robot grasping", "table parsing", "time series imputation", "federated averaging",
    "neural rendering", "entity linking", "anomaly detection", "program repair",
    "dialogue state tracking", "crop yield estimation", "malware triage", "pose estimation",
    "document layout analysis", "drug repurposing", "sign language recognition",
    "cache replacement", "circuit placement", "satellite image segmentation",
]  # fmt: skip
REASONS = {
    "top": "Same title, authors and year: the first listing is the one cited",
    "second": "The citing paper quotes the later version",
    "link": "The title names this paper; the arXiv id in the reference is a typo",
    "norecord": "A GitHub issue: no paper to link",
    "fragment": "An author-list fragment, no title",
}
# The reason each kind is remembered under (curation/admin/queue.py reason_key) and its key.
SHORTCUTS = {
    "top": ("accept_candidate", "a"),
    "second": ("accept_candidate:other", ""),
    "link": ("link", "l"),
    "norecord": ("no_canonical_record", "n"),
    "fragment": ("set_state:parse_uncertain", "4"),
}
UUID = re.compile(r"/observation/([0-9a-f-]{36})/")


@dataclass
class Planned:
    """What the curator will decide for one reference, and what must then be stored."""

    index: int
    kind: str
    target: str = ""  # the arXiv id the decision links


@dataclass
class Figures:
    """What working the queue took."""

    decisions: int = 0
    actions: int = 0
    seconds: float = 0.0
    widths: dict[str, dict[int, int]] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """Return the figures the bench prints."""
        return {
            "decisions": self.decisions,
            "actions": self.actions,
            "actions_per_decision": round(self.actions / max(self.decisions, 1), 2),
            "seconds_per_decision": round(self.seconds / max(self.decisions, 1), 2),
            "page_widths": self.widths,
        }


def _paper(arxiv_id: str, title: str, author: str, year: int) -> None:
    now = timezone.now()
    Paper.objects.create(
        arxiv_id=arxiv_id, title=title, authors=f"{author}, A.", first_author=author.lower(),
        year=year, in_catalogue=True, submitted_at=now, last_updated=now, latest_version=1,
    )  # fmt: skip


def seed_flow() -> dict[int, Planned]:
    """Create the catalogue and the 50 references, resolve them; return the plan by number."""
    from curation.resolution.services import observations_resolve

    now = timezone.now()
    Paper.objects.create(
        arxiv_id=FLOW_CITING, title="A paper citing fifty works", submitted_at=now,
        last_updated=now, latest_version=1,
    )  # fmt: skip
    plan: dict[int, Planned] = {}
    raws: list[str] = []
    links: list[tuple[int, str]] = []
    for n in range(1, DECISIONS + 1):
        kind = KINDS[(n - 1) % len(KINDS)]
        topic = TOPICS[(n - 1) % len(TOPICS)] + ("" if n <= len(TOPICS) else " revisited")
        title = f"Learning {topic} from weak signals"
        if kind in ("top", "second"):
            _paper(f"2410.{n:03d}01", title, "Okafor", 2024)
            _paper(f"2410.{n:03d}02", title, "Okafor", 2024)
            raws.append(f"C. Okafor. {title}. 2024.")
        elif kind == "link":
            _paper(f"2411.{n:03d}00", title, "Varga", 2023)
            links.append((n, f"2411.{n:03d}00"))
            raws.append("")  # filled below: it needs the next link's id
        elif kind == "norecord":
            raws.append(f"OpenLab. toolkit. https://github.com/openlab/toolkit/issues/{n}")
        else:
            raws.append(f"E., Thekkath, C{'.' * (n % 3)} and M{n}")
        plan[n] = Planned(n, kind)
    # A link reference names its title and the arXiv id of another link target.
    for (n, target), (_, other) in zip(links, links[1:] + links[:1], strict=True):
        title = Paper.objects.get(arxiv_id=target).title
        raws[n - 1] = f"B. Varga. {title}. arXiv:{other}, 2023."
        plan[n].target = target
    reference_list_import(
        arxiv_id=FLOW_CITING,
        references=[Listed(n, str(n), raw) for n, raw in enumerate(raws, 1)],
        actor=IMPORTER,
        reason="flow reference list",
    )
    observations = list(Observation.objects.filter(paper__arxiv_id=FLOW_CITING))
    observations_resolve(observations=observations, actor=Actor.command("test"), reason="flow resolve")
    for o in Observation.objects.select_related("resolution").filter(paper__arxiv_id=FLOW_CITING):
        p = plan[o.reference_index]
        if p.kind in ("top", "second"):
            ranked = candidates_from_evidence(o.resolution.evidence)
            p.target = str(ranked[0 if p.kind == "top" else 1].arxiv_id)
    return plan


class Curator:
    """A curator at the keyboard: every key, click and filled field is one action."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.actions = 0

    def press(self, key: str) -> None:
        self.actions += 1
        self.page.keyboard.press(key)

    def fill(self, selector: str, text: str) -> None:
        self.actions += 1
        self.page.fill(selector, text)

    def click(self, selector: str) -> None:
        self.actions += 1
        self.page.click(selector)

    def remembered(self, key: str) -> bool:
        """Return whether the page offers a reason this session gave for this kind."""
        reasons = self.page.evaluate("JSON.parse(document.getElementById('cr-decide').dataset.reasons)")
        return bool(reasons.get(key))

    def decide(self, planned: Planned) -> None:
        """Make the planned decision on the open page and move to the next reference."""
        page = self.page
        key, shortcut = SHORTCUTS[planned.kind]
        known = self.remembered(key)
        with page.expect_navigation():
            if planned.kind == "link":
                self.press(shortcut)
                self.fill("#id_link_identifier", f"arXiv:{planned.target}")
                if not known:
                    self.fill("#id_reason", REASONS[planned.kind])
                self.press("Enter")
            elif planned.kind == "second":
                if not known:
                    self.fill("#id_reason", REASONS[planned.kind])
                self.click(f"button[name=candidate][value='arXiv:{planned.target}']")
            else:
                self.press(shortcut)  # with a remembered reason this saves and opens the next
                if not known:
                    self.fill("#id_reason", REASONS[planned.kind])
                    self.press("Enter")


def current_observation(page: Any) -> Observation:
    """Return the observation the page shows."""
    found = UUID.search(page.url)
    assert found, page.url
    return Observation.objects.get(pk=found.group(1))


def work_the_queue(page: Any, base: str, plan: dict[int, Planned]) -> tuple[Figures, list[int]]:
    """Open the paper's "to fix" queue and decide every reference; return figures and order."""
    curator = Curator(page)
    page.goto(f"{base}/admin/curation/observation/?queue=to_fix&paper={FLOW_CITING}")
    started = time.monotonic()
    with page.expect_navigation():
        curator.click("#result_list tbody tr:first-child th a")
    order: list[int] = []
    while len(order) < len(plan):
        shown = current_observation(page)
        if shown.reference_index in order:
            shot(page, "flow-failed")
            messages = page.locator(".messagelist, .errornote").all_inner_texts()
            raise AssertionError(f"[{shown.reference_index}] came back after {order}: {messages}")
        order.append(shown.reference_index)
        curator.decide(plan[shown.reference_index])
    figures = Figures(decisions=len(order), actions=curator.actions)
    figures.seconds = time.monotonic() - started
    return figures, order
