"""What the browser test checks in a notebook open in JupyterLab, and how: the in-page
JavaScript that reads the notebook's state, problems and widgets, Run All, the slider moves with
their round trips, the screenshots, and the report of it all (:class:`NotebookReport`).

Every function takes the Playwright page showing the notebook; :class:`browser_support.LabBrowser`
calls them in turn for each notebook.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

# ---------------------------------------------------------------------------------
# In-page JavaScript. All selectors are JupyterLab 4 / ipywidgets 8 class names.
# ---------------------------------------------------------------------------------
JS_EXECUTION_STATE = """() => {
  const cells = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell')];
  let pending = 0, done = 0, errors = 0, queued = 0;
  for (const c of cells) {
    const src = (c.querySelector('.cm-content') || {}).textContent || '';
    if (!src.trim()) continue;
    const prompt = (c.querySelector('.jp-InputArea-prompt') || {}).textContent || '';
    if (/\\[\\d+\\]/.test(prompt)) done++; else pending++;
    if (prompt.includes('*')) queued++;
    if (c.querySelector('[data-mime-type="application/vnd.jupyter.stderr"]')) errors++;
  }
  // The toolbar's indicator follows cell executions; the kernel's own status also
  // covers widget callbacks (comm messages), which run outside any cell.
  const indicator = !!document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-ExecutionIndicator[data-status="busy"]');
  let kernel = '';
  try {
    const w = window.jupyterapp.shell.currentWidget;
    kernel = w.sessionContext.session.kernel.status;
  } catch (e) {}
  const busy = indicator || (kernel !== '' && kernel !== 'idle');
  return {cells: cells.length, pending, done, queued, errors, busy, kernel};
}"""

JS_PROBLEMS = """async () => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const out = [];
  const tail = (t, n) => t.length > n ? '...' + t.slice(-n) : t;
  // An image of one colour only is a plot that drew nothing.
  const blank = async img => {
    try { await img.decode(); } catch (e) { return false; }
    const w = Math.min(img.naturalWidth, 400), h = Math.min(img.naturalHeight, 400);
    if (!w || !h) return true;
    const cv = document.createElement('canvas'); cv.width = w; cv.height = h;
    const ctx = cv.getContext('2d'); ctx.drawImage(img, 0, 0, w, h);
    const px = ctx.getImageData(0, 0, w, h).data;
    for (let i = 4; i < px.length; i += 4)
      if (px[i] !== px[0] || px[i + 1] !== px[1] || px[i + 2] !== px[2] || px[i + 3] !== px[3]) return false;
    return true;
  };
  const cells = [...panel.querySelectorAll('.jp-CodeCell')];
  for (const [i, c] of cells.entries()) {
    const prompt = ((c.querySelector('.jp-InputArea-prompt') || {}).textContent || '').trim().replace(/:$/, '');
    const where = 'code cell ' + (i + 1) + (prompt ? ' ' + prompt : '');
    for (const e of c.querySelectorAll('[data-mime-type="application/vnd.jupyter.stderr"]'))
      out.push(where + ': error or stderr output: ' + tail(e.textContent, 500));
    for (const e of c.querySelectorAll('.jupyter-widgets-error-widget'))
      out.push(where + ': widget failed to render: ' + e.textContent.slice(0, 300));
    // a widget wider than its output area gets a horizontal scrollbar under it
    for (const e of [...c.querySelectorAll('.jp-OutputArea-output')].filter(o => o.querySelector('.jupyter-widgets'))
                     .flatMap(o => [o, ...o.querySelectorAll('.widget-container')]))
      if (e.scrollWidth > e.clientWidth + 0.5 && getComputedStyle(e).overflowX !== 'hidden')
        out.push(where + ': a widget overflows its area (' + e.scrollWidth + ' px in ' + e.clientWidth
                 + ' px: a horizontal scrollbar)');
    for (const e of c.querySelectorAll('.jp-OutputArea-output')) {
      const t = e.textContent;
      if (t.includes('Error displaying widget')) out.push(where + ': ' + t.slice(0, 300));
      if (t.includes('Loading widget')) out.push(where + ': widget never rendered ("Loading widget..." left)');
    }
    for (const img of c.querySelectorAll('.jp-OutputArea-output img'))
      if (await blank(img)) out.push(where + ': a plot is blank (an image of a single colour, '
                                     + img.naturalWidth + 'x' + img.naturalHeight + ')');
  }
  return out;
}"""

JS_LOADING = """() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output')]
  .some(e => e.textContent.includes('Loading widget'))"""

JS_WIDGET_COUNTS = """() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  return {views: panel.querySelectorAll('.jp-OutputArea-output > .jupyter-widgets').length,
  sliders: panel.querySelectorAll('.widget-slider .noUi-handle').length};
}"""

# A fingerprint of everything the notebook shows except the slider being moved:
# images (matplotlib's PNGs), SVG and canvas plots, and all text.
JS_FINGERPRINT_FN = """
window.__kcFingerprint = () => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const parts = [];
  for (const area of panel.querySelectorAll('.jp-Cell-outputArea')) {
    for (const img of area.querySelectorAll('img')) parts.push(img.currentSrc || img.src);
    for (const svg of area.querySelectorAll('svg')) if (!svg.closest('[data-kc-moving]')) parts.push(svg.outerHTML);
    for (const cv of area.querySelectorAll('canvas')) { try { parts.push(cv.toDataURL()); } catch (e) {} }
    const clone = area.cloneNode(true);
    for (const n of clone.querySelectorAll('[data-kc-moving]')) n.remove();
    parts.push(clone.textContent);
    for (const inp of area.querySelectorAll('input, textarea, select'))
      if (!inp.closest('[data-kc-moving]')) parts.push(inp.value);
  }
  return parts.join('\\u0001');
};
"""


@dataclass
class SliderMove:
    cell: int            # 1-based index among the notebook's code cells
    label: str           # the slider's description
    before: str          # its readout before and after the key press
    after: str
    changed: bool        # did anything else in the notebook's outputs change?
    images_before: int = 0   # plots (img elements) in the cell's outputs before the move
    images_after: int = 0    # ... and after it (and after a burst of quick moves)
    round_trips: list = field(default_factory=list)  # seconds from key press to a new plot/readout

    def round_trip_text(self) -> str:
        if not self.round_trips:
            return "no round trip"
        ms = sorted(1e3 * t for t in self.round_trips)
        return (f"round trip {'/'.join(f'{t:.0f}' for t in self.round_trips_ms())} ms "
                f"(median {ms[len(ms) // 2]:.0f})")

    def round_trips_ms(self) -> list:
        return [1e3 * t for t in self.round_trips]


@dataclass
class NotebookReport:
    name: str
    seconds: float = 0.0
    code_cells: int = 0
    widget_views: int = 0
    sliders: int = 0
    moves: list[SliderMove] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    screenshot: Path | None = None
    phases: dict = field(default_factory=dict)  # seconds spent in each phase (see Phases)
    # processes the kernels had started (besides themselves) when the notebook was closed,
    # and those of them still running once its kernel was shut down (recorded, not asserted)
    background: list[str] = field(default_factory=list)
    left_running: list[str] = field(default_factory=list)

    def summary(self) -> str:
        moved = ", ".join(f"cell {m.cell} '{m.label}' {m.before}->{m.after}"
                          f"{'' if m.changed else ' (NOTHING CHANGED)'} [{m.round_trip_text()}]"
                          for m in self.moves)
        trips = sorted(t for m in self.moves for t in m.round_trips_ms())
        trip = (f"round trips over {len(trips)} moves: median {trips[len(trips) // 2]:.0f} ms, "
                f"worst {trips[-1]:.0f} ms; " if trips else "")
        return (f"{self.name}: {self.code_cells} code cells, {self.widget_views} widget views, "
                f"{self.sliders} slider handles; moved: {moved or 'none'}; {trip}"
                f"{self.seconds:.1f} s ({self.phase_text()}); "
                f"processes beside the kernel at the end: {self.background or 'none'}, "
                f"still running after its shutdown: {self.left_running or 'none'}; "
                f"screenshot {self.screenshot}")

    def phase_text(self) -> str:
        return ", ".join(f"{name} {seconds:.1f} s" for name, seconds in self.phases.items())


class Phases:
    """Wall-clock seconds per named phase, summed into a dict (recorded, never asserted)::

        with phases("run all"): ...
    """

    def __init__(self, into: dict):
        self.into = into

    def __call__(self, name: str):
        import contextlib

        @contextlib.contextmanager
        def timed():
            start = time.monotonic()
            try:
                yield
            finally:
                self.into[name] = self.into.get(name, 0.0) + time.monotonic() - start
        return timed()


def _wait(page, js: str, predicate, timeout: float, what: str, poll: float = 0.15):
    deadline = time.monotonic() + timeout
    value = None
    while time.monotonic() < deadline:
        value = page.evaluate(js)
        if predicate(value):
            return value
        time.sleep(poll)
    raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}; last state {value}")


def _run_all(page, timeout: float) -> dict:
    """Run > Run All Cells, retried while no cell has started (a busy machine can
    swallow the first click), then wait until no cell is queued."""
    started = lambda s: s["done"] > 0 or s["queued"] > 0 or s["busy"] or s["errors"] > 0
    for _ in range(4):
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-item[data-command='runmenu:run-all']").click()
        try:
            _wait(page, JS_EXECUTION_STATE, started, 5, "a cell to start")
            break
        except TimeoutError:
            page.keyboard.press("Escape")
    # Finished when nothing is queued and the kernel is idle: either every cell ran
    # or a failing cell cancelled the rest (they are left without a number).
    return _wait(page, JS_EXECUTION_STATE, lambda s: s["queued"] == 0 and not s["busy"],
                 timeout, "all cells to finish running")


def _move_sliders(page, timeout: float, settle_timeout: float = 60.0, repeats: int = 3,
                  burst: int = 4, shots: Path | None = None,
                  phases: Phases | None = None) -> list[SliderMove]:
    """Move the first slider of each cell that has sliders; note what changed.

    ``timeout`` bounds the wait for a change after a key press; ``settle_timeout``
    the wait for the kernel to finish the callback afterwards. Once a key moves the
    slider, it is pressed ``repeats - 1`` more times, each move timed from key press
    to new picture (``SliderMove.round_trips``, recorded, not asserted), then ``burst``
    times in quick succession, after which every plot must still be there. With ``shots``
    (a path whose name is a prefix), each widget's output is photographed after its moves
    as ``PREFIX_cellN.png``; ``phases`` sums the seconds of each step."""
    phases = phases or Phases({})
    page.evaluate(JS_FINGERPRINT_FN)
    cells = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell")
    moves = []
    for i in range(cells.count()):
        cell = cells.nth(i)
        sliders = cell.locator(".jp-OutputArea-output .widget-slider")
        visible = [sliders.nth(j) for j in range(sliders.count()) if sliders.nth(j).is_visible()]
        if not visible:
            continue  # none, or all inside a closed accordion / hidden tab
        slider = visible[0]
        handle = slider.locator(".noUi-handle").first
        readout = slider.locator(".widget-readout").first
        label = slider.locator(".widget-label").first.text_content() or ""
        slider.evaluate("e => e.setAttribute('data-kc-moving', '1')")
        before_readout = readout.text_content() if readout.count() else ""
        images = cell.locator(".jp-OutputArea-output img")
        images_before = images.count()
        page.evaluate("() => { window.__kcBefore = window.__kcFingerprint(); }")
        changed = False
        after_readout = before_readout
        round_trips = []
        for key in ("ArrowRight", "ArrowLeft", "ArrowUp"):
            handle.scroll_into_view_if_needed()
            handle.focus()
            with phases("first move"):
                changed, seconds = _press_and_wait(page, cell, handle, readout, key, timeout)
            after_readout = readout.text_content() if readout.count() else ""
            if seconds is not None:   # None: something changed, but no new picture in time
                round_trips.append(seconds)
            if changed or after_readout != before_readout:
                break  # the slider moved (at its end it may not: try the other way)
        if changed:
            with phases("settle"):
                _settle(page, settle_timeout)
            # more single moves the same way, each timed from key press to new picture
            for _ in range(repeats - 1):
                page.evaluate("() => { window.__kcBefore = window.__kcFingerprint(); }")
                with phases("repeat moves"):
                    moved, seconds = _press_and_wait(page, cell, handle, readout, key, timeout)
                if not moved:
                    break
                if seconds is not None:
                    round_trips.append(seconds)
                with phases("settle"):
                    _settle(page, settle_timeout)
            # then a burst of quick moves, as a hand dragging the slider: no plot may vanish
            with phases("burst"):
                for _ in range(burst):
                    handle.press(key)
        # Let the kernel finish the callbacks and the plot settle before going on.
        with phases("settle"):
            _settle(page, settle_timeout)
        slider.evaluate("e => e.removeAttribute('data-kc-moving')")
        if shots is not None:
            output = cell.locator(".jp-Cell-outputWrapper").first
            output.scroll_into_view_if_needed()
            page.evaluate("""async () => {
                const imgs = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) img');
                await Promise.all([...imgs].map(i => i.decode().catch(() => null))); }""")
            shots.parent.mkdir(parents=True, exist_ok=True)
            with phases("widget shots"):
                output.screenshot(path=str(shots.parent / f"{shots.name}_cell{i + 1}.png"))
        moves.append(SliderMove(cell=i + 1, label=label.strip(), before=(before_readout or "").strip(),
                                after=(after_readout or "").strip(), changed=changed,
                                images_before=images_before, images_after=images.count(),
                                round_trips=round_trips))
    return moves


def _settle(page, timeout: float) -> None:
    _wait(page, JS_EXECUTION_STATE, lambda s: not s["busy"], timeout, "the kernel to go idle")
    _wait(page, JS_LOADING, lambda loading: not loading, timeout, "widgets to render")


# Resolves when the cell's plots changed (a new image), or, in a cell without images, when
# anything the notebook shows changed (the fingerprint): the round trip of one slider move.
# It is polled every few milliseconds, so the image case compares the sources one by one
# (the same strings are the same objects: no copy of the PNGs' data URLs per poll).
# In a cell with images, a move may also end with the same picture and other changes (a
# printed line): once something changed and the kernel is idle again, no picture is coming
# (checked at most every 100 ms, the fingerprint being dear), so that wait ends too ("other").
JS_PICTURE_CHANGED = """cell => {
  if (window.__kcImages === null) return window.__kcFingerprint() !== window.__kcBefore && 'picture';
  const imgs = [...cell.querySelectorAll('.jp-OutputArea-output img')];
  const old = window.__kcImages;
  const differ = imgs.length !== old.length || imgs.some((img, k) => (img.currentSrc || img.src) !== old[k]);
  const complete = imgs.every(i => i.complete);
  if (differ) return complete && 'picture';
  let kernel = '';
  try { kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status; } catch (e) {}
  const now = Date.now();
  if (kernel !== 'idle' || !complete || now - (window.__kcChecked || 0) < 100) return false;
  window.__kcChecked = now;
  return window.__kcFingerprint() !== window.__kcBefore && 'other';
}"""


def _press_and_wait(page, cell, handle, readout, key, timeout: float):
    """Press ``key`` on the slider handle; return (changed, seconds until the picture changed).

    A slider at the end of its range does not move: when its readout shows the same value
    a moment after the key (the page updates it at once), no callback runs, and nothing is
    waited for."""
    value = readout.text_content() if readout.count() else None
    images = cell.evaluate("""c => { const imgs = [...c.querySelectorAll('.jp-OutputArea-output img')];
        window.__kcImages = imgs.length ? imgs.map(i => i.currentSrc || i.src) : null;
        return imgs.length; }""")
    page.evaluate("() => { window.__kcChecked = Date.now(); }")
    start = time.monotonic()
    handle.press(key)
    if value is not None and not _readout_moved(page, readout, value):
        return False, None
    try:
        # the fingerprint (no images) reads every output of the notebook: polled less often
        what = page.wait_for_function(JS_PICTURE_CHANGED, arg=cell.element_handle(),
                                      timeout=timeout * 1000, polling=5 if images else 25)
        seconds = time.monotonic() - start if what.json_value() == "picture" else None
    except Exception:  # Playwright's TimeoutError: no new picture; did anything else change?
        seconds = None
    changed = page.evaluate("window.__kcFingerprint() !== window.__kcBefore")
    return changed, seconds if changed and seconds is not None else None


def _readout_moved(page, readout, value: str, wait: float = 0.5) -> bool:
    deadline = time.monotonic() + wait
    while True:
        if readout.text_content() != value:
            return True
        if time.monotonic() > deadline:
            return False
        page.wait_for_timeout(20)


def _screenshot(page, path: Path) -> None:
    """Scroll the first cell with a slider to the top and photograph the window."""
    first = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell"
                         ":has(.jp-OutputArea-output .widget-slider)").first
    if first.count():
        first.evaluate("e => e.scrollIntoView({block: 'start'})")
    # Images are decoded asynchronously: wait for them, or the plots come out blank.
    page.evaluate("""async () => {
        const imgs = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) img');
        await Promise.all([...imgs].map(i => i.decode().catch(() => null))); }""")
    page.wait_for_timeout(300)
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path))


def _judge_moves(moves: list[SliderMove]) -> list[str]:
    problems = []
    for m in moves:
        if m.before == m.after and not m.changed:
            problems.append(f"code cell {m.cell}: slider '{m.label}' did not move "
                            "with the arrow keys")
        elif not m.changed:
            problems.append(f"code cell {m.cell}: moving slider '{m.label}' from {m.before} "
                            f"to {m.after} changed no plot or readout in the notebook")
        if m.images_after < m.images_before:
            problems.append(f"code cell {m.cell}: moving slider '{m.label}' from {m.before} to "
                            f"{m.after} left {m.images_after} plot(s) of {m.images_before}")
    return problems
