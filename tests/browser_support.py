"""JupyterLab in headless Chromium: the machinery behind ``tests/test_browser.py``.

Its pieces, each usable on its own (the browser test combines them):

* :mod:`chromium_support` locates a system Chromium (Debian's ``/usr/bin/chromium``) and
  holds its flags; the browser is never downloaded.
* :mod:`lab_server`'s :class:`LabServer` starts JupyterLab on a free loopback port with its
  own config, data, runtime and IPython folders inside a temporary directory, serving *copies*
  of the notebooks without their stored outputs, so nothing in the repository changes.
* :mod:`notebook_checks` holds what is checked in an open notebook and how: run all cells,
  check that every widget rendered and no cell shows an error, move the first slider of every
  widget output and check that something it drives (a plot, a printed readout, another label)
  changed, and save a screenshot.
* :class:`LabBrowser` (here) opens each notebook in one JupyterLab page and runs those checks.
"""
from __future__ import annotations

import time
from pathlib import Path

# INSTALL_HINT, find_chromium and running_under_ci are imported from here by other browser tests
from chromium_support import (CHROMIUM_ARGS, INSTALL_HINT, VIEWPORT,  # noqa: F401
                              find_chromium, running_under_ci)
from lab_server import LabServer
from notebook_checks import (JS_LOADING, JS_PROBLEMS, JS_WIDGET_COUNTS, NotebookReport, Phases,
                             _judge_moves, _move_sliders, _run_all, _screenshot, _wait)


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
