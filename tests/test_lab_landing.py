"""`python3 tasks.py lab` opens JupyterLab on the start page.

JupyterLab's own ``LabApp.default_url`` (``/lab``) wins over ``ServerApp.default_url``, so
``tasks.lab_landing()`` sets the former. The test starts JupyterLab with exactly the options
``cmd_lab`` passes, over a copy of the course's folders laid out as the workspace is, and
follows the lab's own redirect of ``/`` (what a browser opening the printed address does),
never the printed URL."""
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import tasks  # noqa: E402


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_the_lab_redirects_its_root_to_the_start_page(tmp_path):
    workspace = tmp_path / "workspace"
    tasks.sync_workspace(workspace, ROOT)
    assert (workspace / tasks.START_PAGE).exists()
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    for name in ("config", "data", "runtime"):
        (tmp_path / name).mkdir()
        env[f"JUPYTER_{name.upper()}_DIR"] = str(tmp_path / name)
    port = _port()
    cmd = [str(Path(sys.executable).parent / "jupyter"), "lab", f"--ServerApp.root_dir={workspace}",
           *tasks.lab_landing(), "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           "--ServerApp.token=", "--ServerApp.password=", "--ServerApp.port_retries=0"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    log = open(tmp_path / "lab.log", "wb")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
                    final, status = response.geturl(), response.status
                break
            except (urllib.error.URLError, OSError):
                assert proc.poll() is None, (tmp_path / "lab.log").read_text()[-2000:]
                assert time.monotonic() < deadline, "JupyterLab did not answer in 120 s"
                time.sleep(0.5)
        assert status == 200
        assert final == f"http://127.0.0.1:{port}/lab/tree/{tasks.START_PAGE}", final
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
        log.close()
    shutil.rmtree(tmp_path / "runtime", ignore_errors=True)

