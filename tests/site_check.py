"""Open every page of the built website in headless Chromium, offline, and report.

    python tests/site_check.py HTML_DIR REPORT.json [--screenshots DIR]

serves ``HTML_DIR`` on the loopback (a free port) and opens each of its pages. Every request
goes through Playwright's routing: one to anywhere but the loopback is aborted and recorded
(``tests/test_site.py`` also runs this script in a network namespace of its own, ``unshare
-n``, when it can, so nothing could leave even past the routing). Per page it records the
requests that left or failed, the images that did not load (``naturalWidth`` 0), MathJax's
errors (``mjx-merror``) and formulas, and axe-core's serious or critical violations
(:mod:`axe_support`), and writes it all to ``REPORT.json``.
"""
from __future__ import annotations

import argparse
import functools
import http.server
import json
import socket
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

sys.path.insert(0, str(Path(__file__).resolve().parent))
from axe_support import axe_version, axe_violations  # noqa: E402
from chromium_support import CHROMIUM_ARGS, find_chromium  # noqa: E402

LOOPBACK = {"127.0.0.1", "localhost", "[::1]", "::1"}
#: pages shown in a screenshot (page path -> file name) when ``--screenshots`` is given
SCREENSHOTS = {"notebooks/00_start_here.html": "site-start-page.png",
               "notebooks/07_support_vector_machines.html": "site-lecture-7-widget.png",
               "exercises/07_support_vector_machines_exercises.html": "site-exercises-7.png"}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve ``folder`` on the loopback in a thread; returns the server and its base URL."""
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def site_pages(html: Path) -> list[str]:
    """The pages of the site: every HTML file but Sphinx's own (search, index, genindex)."""
    skip = {"search.html", "genindex.html", "index.html"}
    return sorted(str(p.relative_to(html)) for p in html.rglob("*.html")
                  if not p.relative_to(html).parts[0].startswith("_") and p.name not in skip)


_PAGE_FACTS = """async () => {
  for (const img of document.images) img.loading = 'eager';
  const deadline = Date.now() + 15000;
  while ([...document.images].some(i => !i.complete) && Date.now() < deadline)
    await new Promise(r => setTimeout(r, 50));
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  const text = document.querySelector('main') ? document.querySelector('main').innerText : '';
  return {
    images: [...document.images].map(i => ({src: i.getAttribute('src'), alt: i.getAttribute('alt'),
                                            width: i.naturalWidth})),
    math: document.querySelectorAll('mjx-container').length,
    math_errors: [...document.querySelectorAll('mjx-merror')].map(e => e.textContent.slice(0, 120)),
    raw_math: (text.match(/\\\\\\(|\\\\\\[|\\$\\$/g) || []).length,
    mathjax: window.MathJax && MathJax.version ? MathJax.version : null,
    launch: [...document.querySelectorAll('a[href*="mybinder.org"]')].map(a => a.href),
    title: document.title,
  };
}"""


#: The code cells' syntax colours: every token of a highlighted code block is a ``span`` whose
#: colours are set by its class (Pygments' style sheet, one for the whole site) on the block's
#: background. axe-core's colour-contrast rule, the dear one (most of a page's check), would
#: look at each of the thousands of tokens a lecture page holds; it looks at the first token
#: of each kind on the page instead: the same class, inline style and parent, in a cell's
#: input or its output. The others are marked ``data-kc-same-colours`` and left out of that
#: rule only (every other rule still sees them). ``code_tokens`` in the report counts both.
_MARK_REPEATED_TOKENS = """() => {
  const seen = new Set();
  let tokens = 0, checked = 0;
  for (const s of document.querySelectorAll('.highlight pre span')) {
    tokens++;
    const key = [s.className, s.getAttribute('style') || '', s.parentElement.className,
                 s.closest('.cell_output') ? 'output' : 'input'].join('|');
    if (seen.has(key)) s.setAttribute('data-kc-same-colours', '');
    else { seen.add(key); checked++; }
  }
  return {tokens, checked};
}"""
_CONTRAST_ONCE_PER_TOKEN_KIND = {"color-contrast": "*:not([data-kc-same-colours])"}


def check_site(html: Path, screenshots: Path | None = None, chromium: str | None = None) -> dict:
    """Open every page of ``html`` and report (see the module's docstring)."""
    from playwright.sync_api import sync_playwright

    chromium = chromium or find_chromium()
    if chromium is None:
        raise RuntimeError("no Chromium installed")
    server, base = serve(html)
    report = {"base": base, "pages": {}, "left": [], "failed": []}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1280, "height": 900},
                                          service_workers="block")

            def route(r):
                url = urlparse(r.request.url)
                if url.scheme in ("data", "blob", "about") or url.hostname in LOOPBACK:
                    r.continue_()
                else:
                    report["left"].append(r.request.url)
                    r.abort("blockedbyclient")

            context.route("**/*", route)
            page = context.new_page()
            # a page loads in seconds; Playwright's default 30 s bound was met under a load of 26
            # on two cores: the bound is for a page that never loads
            page.set_default_navigation_timeout(180_000)
            # a request the page makes that fails is a broken site; axe-core's own fetches of
            # the style sheets (its CSSOM preload resolves a sheet's @import against the page,
            # not the sheet) are kept apart: they are not what a reader's browser asks for
            phase = {"name": "page"}

            def failed(text):
                report["failed" if phase["name"] == "page" else "axe_fetch_failed"].append(text)

            report["axe_fetch_failed"] = []
            page.on("requestfailed", lambda req: failed(f"{req.url}: {req.failure}")
                    if urlparse(req.url).hostname in LOOPBACK else None)
            page.on("response", lambda resp: failed(f"{resp.url}: HTTP {resp.status}")
                    if resp.status >= 400 else None)
            # the requests still in flight: a page's step is over when they have all answered
            in_flight = set()
            page.on("request", lambda req: in_flight.add(req))
            page.on("requestfinished", lambda req: in_flight.discard(req))
            page.on("requestfailed", lambda req: in_flight.discard(req))

            def answered(seconds=10.0):
                deadline = time.monotonic() + seconds
                while in_flight and time.monotonic() < deadline:
                    page.wait_for_timeout(20)   # lets Playwright deliver the events meanwhile
            started = time.perf_counter()
            timing = report["timing"] = {}     # seconds per step, summed over the pages

            def clock(name, t0):
                now = time.perf_counter()
                timing[name] = timing.get(name, 0.0) + now - t0
                return now

            for rel in site_pages(html):
                phase["name"] = "page"
                t0 = time.perf_counter()
                page.goto(f"{base}/{rel}", wait_until="load")
                t0 = clock("load", t0)
                facts = page.evaluate(_PAGE_FACTS)
                t0 = clock("facts", t0)
                phase["name"] = "axe"
                facts["code_tokens"] = page.evaluate(_MARK_REPEATED_TOKENS)
                facts["axe"] = axe_violations(page, selectors=_CONTRAST_ONCE_PER_TOKEN_KIND)
                t0 = clock("axe", t0)
                answered()                      # axe's last fetches answer in this phase
                t0 = clock("wait", t0)
                report["pages"][rel] = facts
                if screenshots is not None and rel in SCREENSHOTS:
                    screenshots.mkdir(parents=True, exist_ok=True)
                    if "widget" in SCREENSHOTS[rel]:   # the first widget picture, with the text above
                        page.locator("img[alt*='drawn at']").first.scroll_into_view_if_needed()
                        page.evaluate("window.scrollBy(0, -260)")
                    page.screenshot(path=str(screenshots / SCREENSHOTS[rel]))
                    clock("screenshots", t0)
            report["axe_version"] = axe_version(page)
            report["seconds"] = time.perf_counter() - started
            browser.close()
    finally:
        server.shutdown()
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("html", type=Path)
    parser.add_argument("report", type=Path)
    parser.add_argument("--screenshots", type=Path)
    args = parser.parse_args(argv)
    report = check_site(args.html, args.screenshots)
    args.report.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
