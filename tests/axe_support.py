"""axe-core's accessibility check inside a Playwright page, offline.

axe-core's script ships in the wheel of the PyPI package ``axe-playwright-python``: nothing
is fetched (no npm, no CDN). :func:`axe_violations` injects it into the page, runs it and
returns the violations at the impacts asked for; :func:`describe` puts them in words for an
assertion message. Any browser test can use it (the website's test, the grading pages')::

    from axe_support import axe_violations, describe
    bad = axe_violations(page)                  # serious and critical, by default
    assert not bad, describe(bad)
"""
from __future__ import annotations

#: the impacts a test refuses by default (axe-core's scale: minor, moderate, serious, critical)
BLOCKING = ("serious", "critical")


def axe_script() -> str:
    """axe-core's ``axe.min.js`` from the installed ``axe-playwright-python`` wheel."""
    from importlib.resources import files

    return files("axe_playwright_python").joinpath("axe.min.js").read_text(encoding="utf-8")


def axe_version(page) -> str:
    """The version of axe-core injected into ``page`` (injects it when needed)."""
    _inject(page)
    return page.evaluate("axe.version")


def _inject(page) -> None:
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(axe_script())


def axe_violations(page, impacts=BLOCKING, rules: dict | None = None,
                   selectors: dict | None = None) -> list[dict]:
    """axe-core's violations on ``page`` at the given impacts: a list of dicts with ``id``,
    ``impact``, ``help`` and ``nodes`` (each with its ``target`` selector and ``html``).
    ``rules`` may switch rules off, e.g. ``{"region": {"enabled": False}}``; ``selectors``
    narrows the elements a rule looks at, e.g. ``{"color-contrast": "*:not(.seen)"}`` (for
    this page: axe-core is injected anew into the next)."""
    _inject(page)
    if selectors:
        page.evaluate("rules => axe.configure({rules})",
                      [{"id": rule, "selector": selector} for rule, selector in selectors.items()])
    options = {"resultTypes": ["violations"]}
    if rules:
        options["rules"] = rules
    result = page.evaluate("options => axe.run(document, options)", options)
    return [v for v in result["violations"] if v.get("impact") in impacts]


def describe(violations: list[dict], nodes: int = 3) -> str:
    """The violations in words: rule, impact, help, and the first few elements at fault."""
    lines = []
    for v in violations:
        lines.append(f"{v['impact']}: {v['id']} ({v['help']}), {len(v['nodes'])} element(s)")
        for node in v["nodes"][:nodes]:
            lines.append(f"    {node.get('target')}: {node.get('html', '')[:160]}")
    return "\n".join(lines)
