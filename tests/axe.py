"""axe-core in the browser tests: every admin and reader page a Playwright test opens can be
checked for accessibility violations (axe-core's WCAG 2.x A and AA rules).

axe-core comes from the `axe-playwright-python` wheel (dev dependency), which ships its
axe.min.js. The script is evaluated through the DevTools protocol (page.evaluate), which the
pages' Content-Security-Policy (script-src 'self') does not govern, unlike an injected <script>
tag; then `axe.run` is called directly, so the test sees axe's own result objects."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


@cache
def _axe_source() -> str:
    package = pytest.importorskip("axe_playwright_python")
    return (Path(package.__file__).parent / "axe.min.js").read_text(encoding="utf-8")


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """Return axe-core's violations on the page as it stands (empty when it passes)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(_axe_source() + "\n;undefined")  # an expression, not a function
    result = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", TAGS
    )
    return list(result["violations"])


def describe(violations: list[dict[str, Any]]) -> str:
    """Return the violations in a line each: rule, impact, and the first elements hit."""
    return "\n".join(
        f"{v['id']} ({v.get('impact')}): {v['help']} at "
        + ", ".join(" ".join(n["target"]) for n in v["nodes"][:3])
        for v in violations
    )


def assert_no_violations(page: Any) -> None:
    """Fail with axe-core's violations on the page, if any."""
    found = axe_violations(page)
    assert not found, describe(found)
