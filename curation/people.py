"""Who made a change, as pages name them: people by name, jobs by what they do.

History keeps the actor as recorded ("user:alice", "task:curation.resolution.tasks.resolve_chunk",
"command:import_records") and the user's id; screens show "Alice Martin" (or "alice" when the
account has no full name), "resolver (task)", "import records (import)".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.contrib.auth import get_user_model

# What each package's tasks do, as a curator would say it.
_TASK_LABELS = {
    "resolution": "resolver",
    "notices": "notice refresh",
    "ingestion": "arXiv ingestion",
    "crossref": "Crossref citation counts",
    "curation": "record import",
}


def _job_label(actor: str, source: str) -> str:
    kind, _, name = actor.partition(":")
    if kind == "task":
        parts = name.split(".")
        package = parts[-3] if len(parts) >= 3 else ""
        return f"{_TASK_LABELS.get(package, parts[-1].replace('_', ' '))} (task)"
    if kind == "command":
        return f"{name.replace('_', ' ')} ({source or 'command'})"
    return actor


def user_name(user: Any) -> str:
    """Return a user as screens name people: the full name, else the username."""
    return str(user.get_full_name().strip() or user.get_username())


def user_names(user_ids: Iterable[Any]) -> dict[int, str]:
    """Return each user's name by id (full name, else username), in one query."""
    ids = {int(i) for i in user_ids if isinstance(i, int) or (isinstance(i, str) and i.isdigit())}
    if not ids:
        return {}
    users = get_user_model().objects.filter(pk__in=ids)
    return {u.pk: user_name(u) for u in users}


def person(metadata: Mapping[str, Any], names: Mapping[int, str] | None = None) -> str:
    """Return who made a change: the user's name, or the task or command by what it does.

    `names` are user names already read (user_names); without them the user is read here.
    """
    actor = str(metadata.get("actor") or "")
    user_id = metadata.get("user")
    if not (actor.startswith("user:") or user_id):
        return _job_label(actor, str(metadata.get("source") or "")) if actor else "unknown"
    known = names if names is not None else user_names([user_id])
    if isinstance(user_id, int) and user_id in known:
        return known[user_id]
    return actor.removeprefix("user:") or "someone"  # an account deleted since: as recorded


def public_person(metadata: Mapping[str, Any]) -> str:
    """Return who made a change as a reader-facing page says it: never a staff member's name.

    Readers need to know that a person decided, not which account: staff names and logins stay
    in the admin, where history shows them to staff (a login is half of what an attacker needs).
    """
    actor = str(metadata.get("actor") or "")
    if actor.startswith("user:") or metadata.get("user"):
        return "a curator" if metadata.get("source") != "api" else "a curator (API)"
    return _job_label(actor, str(metadata.get("source") or "")) if actor else "unknown"


def without_staff_names(evidence: Any) -> Any:
    """Return stored evidence as a reader-facing page shows it: a curator's login replaced."""
    if isinstance(evidence, dict) and str(evidence.get("actor") or "").startswith("user:"):
        return {**evidence, "actor": "a curator"}
    return evidence


def actor_names(actors: Iterable[str]) -> dict[str, str]:
    """Return each recorded actor by name, in one query (for histories that kept no user id)."""
    actors = list(actors)
    logins = {a.removeprefix("user:") for a in actors if a.startswith("user:")}
    user_model = get_user_model()
    users = user_model.objects.filter(**{f"{user_model.USERNAME_FIELD}__in": logins})
    found = {f"user:{u.get_username()}": user_name(u) for u in users} if logins else {}
    return {actor: found.get(actor) or person({"actor": actor}, {}) for actor in set(actors)}
