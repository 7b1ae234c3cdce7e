"""JupyterLab in headless Chromium: the machinery behind ``tests/test_browser.py``.

Three pieces, each usable on its own (the browser test combines them):

* :func:`find_chromium` locates a system Chromium (Debian's ``/usr/bin/chromium``);
  the browser is never downloaded.
* :class:`LabServer` starts JupyterLab on a free loopback port with its own
  config, data, runtime and IPython folders inside a temporary directory, serving
  *copies* of the notebooks without their stored outputs, so nothing in the
  repository changes; it stops the server (and with it the kernels) on exit.
* :func:`exercise_notebook` opens one notebook in a Playwright page, runs all
  cells, checks that every widget rendered and no cell shows an error, moves the
  first slider of every widget output and checks that something it drives (a plot,
  a printed readout, another label) changed, and saves a screenshot.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

CHROMIUM_PATHS = ("/usr/bin/chromium",)
INSTALL_HINT = ("install Debian's Chromium with `apt-get install -y chromium` "
                "(or run `bash .ci/run`, which installs it)")

# Flags that work for headless Chromium as root on these machines.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

VIEWPORT = {"width": 1280, "height": 1000}

# JupyterLab user settings: every cell attached to the DOM (so all outputs can be
# inspected without scrolling), no news or update pop-ups in the screenshots.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False},
}


def find_chromium() -> str | None:
    """Path of an installed Chromium, or None when there is none.

    ``KERNELCOURSE_CHROMIUM`` names another Chromium-based browser (e.g.
    ``/usr/bin/google-chrome``); when it is set, nothing else is tried.
    """
    override = os.environ.get("KERNELCOURSE_CHROMIUM")
    if override:
        return override if os.access(override, os.X_OK) else None
    for path in CHROMIUM_PATHS:
        if os.access(path, os.X_OK):
            return path
    return shutil.which("chromium") or shutil.which("chromium-browser")


def running_under_ci() -> bool:
    """True when the environment variable CI is set (to anything but 0/false)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LabServer:
    """JupyterLab serving copies of ``notebooks`` from a temporary folder.

    Use as a context manager; ``url`` is the base address (``http://127.0.0.1:PORT``)
    and ``root`` the folder the server serves.
    """

    def __init__(self, notebooks: list[Path], workdir: Path, startup_timeout: float = 60.0,
                 env: dict[str, str] | None = None):
        self.notebooks = [Path(nb) for nb in notebooks]
        self.env = dict(env or {})   # variables for the server, and so for its kernels
        self.workdir = Path(workdir)
        self.root = self.workdir / "root"
        self.startup_timeout = startup_timeout
        self.proc: subprocess.Popen | None = None
        self.url = ""
        self.log_path = self.workdir / "jupyterlab.log"

    # -- setting up the temporary tree -------------------------------------------
    def _prepare(self) -> dict[str, str]:
        dirs = {name: self.workdir / name for name in ("config", "data", "runtime", "ipython")}
        for d in dirs.values():
            d.mkdir(parents=True, exist_ok=True)
        self.root.mkdir(parents=True, exist_ok=True)
        for nb in self.notebooks:
            data = json.loads(nb.read_text(encoding="utf-8"))
            # Run every notebook in this environment's kernel, whatever it was saved with.
            data.setdefault("metadata", {})["kernelspec"] = {
                "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
            # Without its stored outputs: Run All replaces them all anyway, and the page would
            # first render (and decode) every stored plot; an output seen after the run can
            # then only come from this run (a cell that never ran shows nothing stale).
            for cell in data.get("cells", []):
                if cell.get("cell_type") == "code":
                    cell["outputs"], cell["execution_count"] = [], None
            (self.root / nb.name).write_text(json.dumps(data), encoding="utf-8")
        # A kernelspec in our own data folder wins over any stray system-wide one.
        spec_dir = dirs["data"] / "kernels" / "python3"
        spec_dir.mkdir(parents=True, exist_ok=True)
        (spec_dir / "kernel.json").write_text(json.dumps({
            "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Python 3 (ipykernel)", "language": "python"}))
        for rel, value in LAB_SETTINGS.items():
            target = dirs["config"] / "lab" / "user-settings" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(value))
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("JUPYTER", "MPLBACKEND", "IPYTHONDIR"))}
        env.update(JUPYTER_CONFIG_DIR=str(dirs["config"]), JUPYTER_DATA_DIR=str(dirs["data"]),
                   JUPYTER_RUNTIME_DIR=str(dirs["runtime"]), IPYTHONDIR=str(dirs["ipython"]),
                   JUPYTER_PLATFORM_DIRS="0", PYTHONUNBUFFERED="1")
        env.update(self.env)
        return env

    # -- start / stop --------------------------------------------------------------
    def start(self) -> "LabServer":
        """Start the server and wait until it answers."""
        self.launch()
        return self.wait_ready()

    def launch(self) -> "LabServer":
        """Start the server without waiting for it (:meth:`wait_ready` waits), so that
        something else, e.g. the browser, can start meanwhile."""
        env = self._prepare()
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser",
               "--ip=127.0.0.1", f"--port={free_port()}", "--ServerApp.port_retries=50",
               "--ServerApp.token=", "--ServerApp.password=",
               f"--ServerApp.root_dir={self.root}", "--LabApp.news_url=", "--LabApp.expose_app_in_browser=True",
               # loopback only and no token: let the test's own REST calls through
               "--ServerApp.disable_check_xsrf=True",
               "--ServerApp.open_browser=False"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-root")
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(cmd, cwd=self.root, env=env, stdin=subprocess.DEVNULL,
                                     stdout=self._log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self._runtime = Path(env["JUPYTER_RUNTIME_DIR"])
        return self

    def wait_ready(self) -> "LabServer":
        """Wait until the launched server answers on its port (at once if it did before)."""
        if self.url and self._status_ok():
            return self
        runtime = self._runtime
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with code {self.proc.returncode} "
                                   f"while starting:\n{self.log_tail()}")
            info = sorted(runtime.glob("jpserver-*.json"))
            if info and not self.url:
                try:
                    self.url = f"http://127.0.0.1:{json.loads(info[0].read_text())['port']}"
                except (ValueError, KeyError):
                    pass  # file still being written
            if self.url and self._status_ok():
                return self
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"JupyterLab did not answer within {self.startup_timeout:.0f} s:\n"
                           f"{self.log_tail()}")

    def _status_ok(self) -> bool:
        try:
            with urllib.request.urlopen(self.url + "/api/status", timeout=2) as r:
                return r.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def api(self, method: str, path: str):
        req = urllib.request.Request(self.url + path, method=method)
        with urllib.request.urlopen(req, timeout=10) as r:
            body = r.read()
        return json.loads(body) if body else None

    def shutdown_kernels(self) -> None:
        """Shut down every running kernel (frees memory between notebooks)."""
        for kernel in self.api("GET", "/api/kernels"):
            self.api("DELETE", f"/api/kernels/{kernel['id']}")

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # the server shuts its kernels down
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)  # the group this server leads
                self.proc.wait(timeout=5)
        self._log.close()
        self.proc = None

    def log_tail(self, n: int = 40) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return "\n".join(lines[-n:])

    def __enter__(self) -> "LabServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


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


def _processes_below(pid: int) -> dict:
    """``{(pid, start time): command}`` of every process descending from ``pid`` (Linux's /proc;
    empty elsewhere)."""
    table = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
            fields = text[text.rindex(")") + 2:].split()
            cmd = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError):
            continue
        table[int(stat.parent.name)] = (int(fields[1]), fields[19], cmd.strip())
    found, todo = {}, [pid]
    while todo:
        parent = todo.pop()
        for child, (ppid, start, cmd) in table.items():
            if ppid == parent:
                found[(child, start)] = cmd
                todo.append(child)
    return found


def _still_running(processes: dict) -> list[str]:
    alive = []
    for (pid, start), cmd in processes.items():
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()
        if fields[19] == start and fields[0] != "Z":
            alive.append(cmd)
    return alive


def _short(cmd: str) -> str:
    """A process's name: the module of ``python -m MODULE``, else its program's."""
    words = cmd.split()
    if "-m" in words[:-1]:
        return words[words.index("-m") + 1]
    return Path(words[0]).name if words else cmd


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


class LabBrowser:
    """Headless Chromium with one JupyterLab page, in which notebooks are opened in turn.

    Loading JupyterLab's page costs several seconds, so it is loaded once; each
    notebook is then opened with JupyterLab's own ``docmanager:open`` command (the
    app is exposed as ``window.jupyterapp`` by ``--LabApp.expose_app_in_browser``),
    run from the Run menu, checked, photographed and closed, and its kernel shut down.
    """

    def __init__(self, playwright, server: LabServer, executable: str, profile_dir: Path,
                 timeout: float = 300.0, move_timeout: float = 60.0):
        # ``timeout`` bounds waits that only a broken notebook runs into: lecture 6 runs in
        # ~20 s in the lab on a quiet machine, but took over 90 s under a load of 5 on 2 cores
        self.server = server
        self.timeout = timeout
        self.move_timeout = move_timeout
        self.context = playwright.chromium.launch_persistent_context(
            str(profile_dir), executable_path=executable, headless=True,
            args=CHROMIUM_ARGS, viewport=VIEWPORT)
        self.page_errors: list[str] = []
        self.page = None
        server.wait_ready()   # it may have been launched just before the browser
        self._load_lab()

    def _load_lab(self) -> None:
        if self.page is not None:
            self.page.close()
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda exc: self.page_errors.append(f"page error: {exc}"))
        self.page.goto(f"{self.server.url}/lab?reset", wait_until="domcontentloaded",
                       timeout=self.timeout * 1000)
        self.page.wait_for_function("window.jupyterapp && window.jupyterapp.shell",
                                    timeout=self.timeout * 1000)
        self.page.evaluate("async () => { await window.jupyterapp.restored; }")
        self.page.locator("#jp-main-statusbar").wait_for(timeout=self.timeout * 1000)
        # Hide the file browser so the notebook fills the screenshot.
        self.page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
        self._close_documents()

    def _close_documents(self) -> None:
        """Close every open tab (without saving) and shut their kernels down."""
        self.page.evaluate("""async () => {
            for (const w of Array.from(window.jupyterapp.shell.widgets('main'))) w.dispose();
            await window.jupyterapp.serviceManager.sessions.shutdownAll(); }""")

    def close(self) -> None:
        self.context.close()

    def exercise(self, name: str, screenshot: Path,
                 move_timeout: float | None = None, widget_shots: Path | None = None
                 ) -> NotebookReport:
        """Open ``name`` (relative to the server's root), run it, check and drive its
        widgets, save a screenshot; the report lists every problem found."""
        start = time.monotonic()
        report = NotebookReport(name=name)
        phases = Phases(report.phases)
        n_errors = len(self.page_errors)
        page = self.page
        try:
            with phases("open"):
                page.evaluate("""async name => {
                    const app = window.jupyterapp;
                    const nb = await app.commands.execute('docmanager:open',
                                                          {path: name, factory: 'Notebook'});
                    // the Launcher JupyterLab puts in an empty main area is not wanted
                    for (const w of Array.from(app.shell.widgets('main'))) if (w !== nb) w.dispose();
                }""", name)
                page.wait_for_selector(
                    ".jp-NotebookPanel:not(.lm-mod-hidden) "
                    ".jp-Notebook-ExecutionIndicator[data-status='idle']",
                    timeout=self.timeout * 1000)
            with phases("kernel start"):
                page.locator("#jp-main-statusbar", has_text="Idle").wait_for(
                    timeout=self.timeout * 1000)
            with phases("run all"):
                state = _run_all(page, self.timeout)
            report.code_cells = state["cells"]
            if state["pending"]:
                report.problems.append(f"{state['pending']} code cell(s) never ran "
                                       "(Run All stops at the first failing cell)")
            with phases("widgets render"):
                try:
                    _wait(page, JS_LOADING, lambda loading: not loading, self.timeout,
                          "widgets to render")
                except TimeoutError:
                    pass  # reported below as "Loading widget..." left
            counts = page.evaluate(JS_WIDGET_COUNTS)
            report.widget_views, report.sliders = counts["views"], counts["sliders"]
            report.moves = _move_sliders(page, move_timeout or self.move_timeout, self.timeout,
                                         shots=widget_shots, phases=phases)
            # after the moves, so that callbacks which raised are caught too
            with phases("problems"):
                report.problems += page.evaluate(JS_PROBLEMS)
            report.problems += _judge_moves(report.moves)
            with phases("screenshot"):
                _screenshot(page, screenshot)
            report.screenshot = screenshot
        finally:
            report.problems += self.page_errors[n_errors:]
            below = _processes_below(self.server.proc.pid) if self.server.proc else {}
            others = {k: c for k, c in below.items() if "ipykernel_launcher" not in c}
            report.background = sorted(_short(c) for c in others.values())
            with phases("close"):
                try:
                    self._close_documents()
                except Exception:  # the page is broken: start the next notebook afresh
                    self._load_lab()
                self.server.shutdown_kernels()
            report.left_running = sorted(_short(c) for c in _still_running(others))
            report.seconds = time.monotonic() - start
        return report


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


def lab_workdir(prefix: str = "kc-browser-") -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix))
