"""JupyterLab for the browser tests, on a free loopback port with its own config, data, runtime
and IPython folders inside a temporary directory, serving *copies* of the notebooks without
their stored outputs, so nothing in the repository changes; it stops the server (and with it
the kernels) on exit.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

# JupyterLab user settings: every cell attached to the DOM (so all outputs can be
# inspected without scrolling), no news or update pop-ups in the screenshots.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False},
}



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


def lab_workdir(prefix: str = "kc-browser-") -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix))
