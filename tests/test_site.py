"""The course website (``python3 tasks.py site``): built with warnings as errors from the
stored outputs, and read in headless Chromium with the network cut.

The build test checks the pages against the folders (every lecture and student exercise set,
never a solution), the alt text of every picture, MathJax served with the site, the Binder
launch link of each page (at that page's notebook) and the links between lectures and
exercise sets. The browser test (marked ``browser``) opens every page with no network: in a
network namespace of its own (``unshare -n``, when run as root) and with every request that
is not for the loopback aborted and recorded by Playwright's routing; it asserts that no
request left the machine, every image loaded, no formula shows a MathJax error, and axe-core
finds no serious or critical violation (its colour-contrast rule looks at the first code token
of each kind on a page, whose colours the others share; a self-test shows a pale token among
repeated ones is still found). Its screenshots go to ``test-artifacts/site/``.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import build_site  # noqa: E402

from test_binder import PROJECT  # noqa: E402

ARTIFACTS = ROOT / "test-artifacts" / "site"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    return build_site.build(out, strict=True, log=lambda *a: None)


def _html(site, rel: str) -> str:
    return (site["html"] / rel).read_text(encoding="utf-8")


def test_the_pages_are_the_notebooks_and_exercise_sets_never_a_solution(site):
    lectures = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    sets = sorted(p.stem for p in (ROOT / "exercises").glob("*.ipynb"))
    assert site["pages"] == {"notebooks": [f"notebooks/{n}" for n in lectures],
                             "exercises": [f"exercises/{n}" for n in sets]}
    html = site["html"]
    built = sorted(str(p.relative_to(html).with_suffix("")) for p in html.rglob("*.html")
                   if p.relative_to(html).parts[0] in ("notebooks", "exercises"))
    assert built == sorted([f"notebooks/{n}" for n in lectures] + [f"exercises/{n}" for n in sets])
    assert not (html / "exercises" / "source").exists()
    # no solution leaks: every solution block of a source is missing from its page
    for source in sorted((ROOT / "exercises" / "source").glob("*.ipynb")):
        nb = json.loads(source.read_text())
        page = _html(site, f"exercises/{source.stem}_exercises.html")
        for cell in nb["cells"]:
            text = "".join(cell["source"])
            for block in re.findall(r"# BEGIN SOLUTION\n(.*?)# END SOLUTION", text, re.S):
                lines = [ln.strip() for ln in block.splitlines() if len(ln.strip()) > 25]
                leaked = [ln for ln in lines if ln.replace("&", "&amp;").replace("<", "&lt;")
                          .replace(">", "&gt;").replace('"', "&quot;") in page]
                assert not leaked, f"{source.name}: a solution line shows: {leaked[:2]}"
    # the home page forwards to the start page
    assert "notebooks/00_start_here.html" in _html(site, "index.html")


def test_every_picture_has_an_alt_text_saying_what_it_shows(site):
    pictures = widgets = 0
    for rel in [f"{p}.html" for pages in site["pages"].values() for p in pages]:
        for tag in re.findall(r"<img [^>]*>", _html(site, rel)):
            alt = re.search(r'alt="([^"]*)"', tag)
            src = re.search(r'src="([^"]*)"', tag).group(1)
            if "_static/" in src:                   # the theme's logos
                continue
            pictures += 1
            assert alt and alt.group(1).strip(), f"{rel}: a picture without alt text: {tag}"
            assert not re.search(r"\.(png|svg|jpe?g)\b", alt.group(1)), f"{rel}: a file name as alt: {tag}"
            widgets += "drawn at" in alt.group(1)
    count = sum(1 for p in (ROOT / "notebooks").glob("*.ipynb")
                for c in json.loads(p.read_text())["cells"] for o in c.get("outputs", [])
                if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
                and "image/png" in o.get("data", {}))
    # every widget's stored picture is shown (not its stateless view), with the alt text its
    # widget stored: what it shows and at which values
    assert widgets == count > 0, (widgets, count)
    assert pictures > widgets
    # each says it is a still, whose sliders move in the notebook
    captions = sum(_html(site, f"{p}.html").count("Its sliders move in the notebook")
                   for pages in site["pages"].values() for p in pages)
    assert captions == widgets, (captions, widgets)
    page = _html(site, "notebooks/07_support_vector_machines.html")
    assert re.search(r'<img alt="Log10 C and log10 gamma against|<img alt="log10 C and log10 gamma against', page)


def test_math_is_drawn_by_a_mathjax_served_with_the_site(site):
    html = site["html"]
    page = _html(site, "notebooks/07_support_vector_machines.html")
    scripts = re.findall(r'<script[^>]*src="([^"]+)"', page)
    assert any(s.endswith("_static/mathjax/tex-chtml.js") for s in scripts), scripts
    assert (html / "_static" / "mathjax" / "tex-chtml.js").exists()
    # nothing a page loads comes from another machine
    for rel in [f"{p}.html" for pages in site["pages"].values() for p in pages]:
        text = _html(site, rel)
        remote = re.findall(r'<(?:script|link|img)[^>]*(?:src|href)="(https?:)?//[^"]*"', text)
        assert not remote, f"{rel} loads from another machine: {remote[:3]}"


def test_each_page_launches_its_own_notebook_on_binder(site):
    url = PROJECT["project"]["urls"]["Repository"]
    org, repo = url.rstrip("/").split("/")[-2:]
    branch = PROJECT["tool"]["kernelcourse"]["branch"]
    for pages in site["pages"].values():
        for page in pages:
            text = _html(site, f"{page}.html")
            launch = re.findall(r'href="(https://mybinder\.org/[^"]+)"', text)
            want = f"https://mybinder.org/v2/gh/{org}/{repo}/{branch}?urlpath=lab/tree/{page}.ipynb"
            assert want in [u.replace("&amp;", "&") for u in launch], (page, launch)
            assert (ROOT / f"{page}.ipynb").exists()


def test_lectures_and_exercise_sets_link_to_each_other(site):
    start = _html(site, "notebooks/00_start_here.html")
    for rel in site["pages"]["exercises"]:
        assert f'href="../{rel}.html"' in start, rel
        lecture = re.search(r'href="\.\./notebooks/([^"#]+)\.html"', _html(site, f"{rel}.html"))
        assert lecture and (site["html"] / "notebooks" / f"{lecture.group(1)}.html").exists(), rel
    for rel in site["pages"]["notebooks"][1:]:
        assert f'href="{rel.split("/")[1]}.html"' in start, rel


# ----------------------------------------------------------------------------- browser
def _network_cut_command() -> list[str]:
    """Run a command in a network namespace with only a loopback (root and unshare needed)."""
    if hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("unshare") and shutil.which("ip"):
        probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
        if probe.returncode == 0:
            return ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$0" "$@"']
    return []


@pytest.mark.slow
@pytest.mark.browser
def test_every_page_offline_in_chromium(site, tmp_path):
    from chromium_support import INSTALL_HINT, find_chromium, running_under_ci

    if find_chromium() is None:
        if running_under_ci():
            pytest.fail(f"no Chromium under CI: {INSTALL_HINT}")
        pytest.skip(f"no Chromium: {INSTALL_HINT}")
    report_path = tmp_path / "report.json"
    cut = _network_cut_command()
    cmd = [*cut, sys.executable, str(ROOT / "tests" / "site_check.py"), str(site["html"]),
           str(report_path), "--screenshots", str(ARTIFACTS)]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    report = json.loads(report_path.read_text())
    pages = report["pages"]
    expected = {f"{p}.html" for ps in site["pages"].values() for p in ps}
    assert expected <= set(pages), sorted(expected - set(pages))
    summary = [f"network cut by {'unshare -n and ' if cut else ''}Playwright's routing; "
               f"axe-core {report['axe_version']}",
               f"{len(pages)} pages, {sum(len(f['images']) for f in pages.values())} images, "
               f"{sum(f['math'] for f in pages.values())} formulas, "
               f"{len(report['left'])} requests left the machine, "
               f"{len(report['failed'])} failed on the loopback "
               f"(and {len(report['axe_fetch_failed'])} of axe-core's own style-sheet fetches)",
               f"colour contrast of {sum(f['code_tokens']['checked'] for f in pages.values())} "
               f"code tokens, the first of each kind on its page, of "
               f"{sum(f['code_tokens']['tokens'] for f in pages.values())}",
               f"{report['seconds']:.0f} s in the browser ("
               + ", ".join(f"{k} {v:.1f} s" for k, v in report.get("timing", {}).items()) + ")"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "summary.txt").write_text("\n".join(summary) + "\n")
    assert report["left"] == [], f"requests left the machine: {report['left'][:5]}"
    assert report["failed"] == [], report["failed"][:5]
    for rel, facts in pages.items():
        broken = [i["src"] for i in facts["images"] if not i["width"]]
        assert not broken, f"{rel}: images that did not load: {broken}"
        assert facts["math_errors"] == [], f"{rel}: MathJax errors {facts['math_errors']}"
        assert facts["raw_math"] == 0, f"{rel}: math left as raw TeX"
        assert facts["mathjax"], f"{rel}: MathJax did not load"
        assert facts["launch"], f"{rel}: no Binder launch link"
        tokens = facts["code_tokens"]
        assert 0 < tokens["checked"] <= tokens["tokens"] or tokens["tokens"] == 0, (rel, tokens)
        from axe_support import describe
        assert facts["axe"] == [], f"{rel}: axe-core:\n{describe(facts['axe'])}"
    assert pages["notebooks/07_support_vector_machines.html"]["math"] > 20


@pytest.mark.slow
@pytest.mark.browser
def test_the_contrast_check_still_sees_a_pale_token_among_repeated_ones(tmp_path):
    """The site check looks at the first code token of each kind only (the others share its
    colours): a token of a repeated class given a pale colour of its own, and pale text
    outside the code, are still found."""
    from chromium_support import INSTALL_HINT, find_chromium, running_under_ci
    from site_check import check_site

    if find_chromium() is None:
        if running_under_ci():
            pytest.fail(f"no Chromium under CI: {INSTALL_HINT}")
        pytest.skip(f"no Chromium: {INSTALL_HINT}")
    page = tmp_path / "notebooks" / "pale.html"
    page.parent.mkdir()
    page.write_text(
        '<!DOCTYPE html><html lang="en"><head><title>Pale</title></head><body><main><h1>Pale</h1>'
        '<div class="cell_input"><div class="highlight"><pre><span class="k">for</span> '
        '<span class="n">x</span> <span class="k">in</span> <span class="n">xs</span>: '
        '<span class="k" style="color: #e8e8e8">pass</span></pre></div></div>'
        '<p>Readable text, and <span style="color: #eeeeee">pale text</span>.</p>'
        '</main></body></html>', encoding="utf-8")
    report = check_site(tmp_path)
    facts = report["pages"]["notebooks/pale.html"]
    # five tokens: 'for', 'x', the pale 'pass' are looked at; the second 'k' and 'n' are not
    assert facts["code_tokens"] == {"tokens": 5, "checked": 3}, facts["code_tokens"]
    contrast = [v for v in facts["axe"] if v["id"] == "color-contrast"]
    assert contrast, facts["axe"]
    found = sorted(n["html"] for n in contrast[0]["nodes"])
    assert len(found) == 2 and "pass" in found[0] + found[1] and "pale text" in found[0] + found[1], found
