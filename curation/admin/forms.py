"""The curator's decision forms: each needs a reason and carries the revision it was made on."""

from __future__ import annotations

from typing import Any

from django import forms

from curation.references.identifiers import curated_identifier
from curation.states import VERIFIED_STATUSES, ResolutionStatus

APPLY_MINE, KEEP_CURRENT = "apply_mine", "keep_current"
CONFLICT_CHOICES = [
    (APPLY_MINE, "Apply mine: replace the current values with the ones I entered"),
    (KEEP_CURRENT, "Keep current: discard what I entered"),
]


class DecisionForm(forms.Form):
    """A decision on one observation: why, and on which revision the curator saw.

    After a refusal the decision comes back with `conflict` set to the revision the curator
    was then shown, and saving it again needs an explicit `choice` made on that revision.
    """

    # The page's one Decide form holds every decision's fields: the server checks what the
    # chosen decision needs (a browser would refuse to submit over another decision's blanks).
    use_required_attribute = False

    revision = forms.IntegerField(widget=forms.HiddenInput, min_value=1)
    reason = forms.CharField(
        max_length=500,
        strip=True,
        widget=forms.TextInput(attrs={"placeholder": "Why? (kept in the history)", "size": 48}),
    )
    conflict = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=1)
    choice = forms.ChoiceField(
        choices=CONFLICT_CHOICES,
        required=False,
        widget=forms.RadioSelect,
        label="I have seen the current values",
    )

    def clean(self) -> dict[str, Any] | None:
        data = super().clean() or {}
        if data.get("conflict") is None:
            return data
        if data.get("conflict") != data.get("revision"):
            raise forms.ValidationError("the choice was made on another revision: reload")
        if not data.get("choice"):
            self.add_error("choice", "Choose: apply your values or keep the current ones.")
        return data


def parse_identifier(value: str) -> tuple[str, str]:
    """Return ("arxiv", id) or ("doi", doi) for what a curator typed, or raise ValidationError."""
    identifier = curated_identifier(value)
    if identifier is None:
        raise forms.ValidationError(f"{value!r} is neither an arXiv id nor a DOI")
    return identifier


class LinkForm(DecisionForm):
    """Link by arXiv id or DOI (checked against the catalogues before saving)."""

    identifier = forms.CharField(
        max_length=300,
        widget=forms.TextInput(attrs={"placeholder": "arXiv id or DOI", "size": 24}),
    )

    def clean_identifier(self) -> tuple[str, str]:
        return parse_identifier(self.cleaned_data["identifier"])


class AcceptCandidateForm(LinkForm):
    """Accept one ranked candidate: a link to its identifier (a low score needs confirming)."""

    identifier = forms.CharField(max_length=300, widget=forms.HiddenInput)
    confirm_low_score = forms.BooleanField(required=False, widget=forms.HiddenInput)


# Keys 1-4 on the observation page pick these in this order (decide.js reads the options).
STATE_CHOICES = [
    (s.value, f"{n} · {s.label}")
    for n, s in enumerate((s for s in ResolutionStatus if s not in VERIFIED_STATUSES), 1)
]


class StateForm(DecisionForm):
    """Set a state that links nothing (parse_uncertain, unresolved, ...)."""

    status = forms.ChoiceField(choices=STATE_CHOICES)


class CorrectForm(DecisionForm):
    """Correct what the reference says: title, year, venue, reference number."""

    work_title = forms.CharField(
        required=False, label="Title", widget=forms.TextInput(attrs={"size": 60})
    )
    work_year = forms.IntegerField(required=False, label="Year", min_value=1000, max_value=2100)
    work_venue = forms.CharField(
        required=False, label="Venue", widget=forms.TextInput(attrs={"size": 40})
    )
    reference_index = forms.IntegerField(label="Reference number", min_value=0)

    def changes(self, observation: Any) -> dict[str, Any]:
        """Return the fields the curator actually changed (blank text means none)."""
        wanted = {
            k: self.cleaned_data[k]
            for k in ("work_title", "work_year", "work_venue", "reference_index")
        }
        for name in ("work_title", "work_venue"):
            wanted[name] = wanted[name] or None
        return {k: v for k, v in wanted.items() if getattr(observation, k) != v}


class SplitForm(DecisionForm):
    """Split a reference that holds two or more works: one part per line."""

    parts = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 80}))

    def clean_parts(self) -> list[str]:
        parts = [p.strip() for p in self.cleaned_data["parts"].splitlines() if p.strip()]
        if len(parts) < 2:
            raise forms.ValidationError("give at least two parts, one per line")
        return parts


class SameTextForm(DecisionForm):
    """Copy the decision to the same-text references shown, at the revisions shown."""

    targets = forms.CharField(widget=forms.HiddenInput, required=False)

    def clean_targets(self) -> dict[str, int]:
        return parse_seen(self.cleaned_data["targets"].split())


def parse_seen(pairs: list[str]) -> dict[str, int]:
    """Return {observation id: revision} from "id:revision" pairs (malformed pairs dropped)."""
    seen = {}
    for pair in pairs:
        pk, _, rev = pair.partition(":")
        if rev.isdigit():
            seen[pk] = int(rev)
    return seen


def seen_pairs(observations: Any) -> list[str]:
    """Return the "id:revision" pairs a page shows, for the write to check against."""
    return [f"{o.pk}:{o.revision}" for o in observations]


class RevertForm(DecisionForm):
    """Restore the observation as it was at one of its revisions (or at one history event)."""

    to_revision = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=1)
    event_id = forms.IntegerField(widget=forms.HiddenInput, required=False)

    def clean(self) -> dict[str, Any] | None:
        data = super().clean() or {}
        if data.get("to_revision") is None and data.get("event_id") is None:
            raise forms.ValidationError("say which revision to go back to")
        return data


class UndoForm(DecisionForm):
    """Undo a decision: back to the revision it was made on (`revision` is the one it left)."""

    to_revision = forms.IntegerField(widget=forms.HiddenInput, min_value=1)


class BulkForm(forms.Form):
    """A bulk action's confirmation: a reason, and the threshold where it applies."""

    reason = forms.CharField(
        max_length=500,
        widget=forms.TextInput(attrs={"size": 60, "placeholder": "Why? (kept in the history)"}),
    )
    threshold = forms.FloatField(required=False, min_value=0, max_value=100, initial=90.0)
