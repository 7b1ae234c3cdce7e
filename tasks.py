#!/usr/bin/env python3
"""The course's build file: every command a student, an instructor or CI needs.

Only Python 3.11 and pip are assumed. Each command creates the virtual
environment ``.venv`` when it is missing (or when ``pyproject.toml`` changed
since it was built) and then runs inside it::

    python3 tasks.py lab         # set up, then open your workspace/ in JupyterLab
    python3 tasks.py test        # set up (with the test tools), then run every test
    python3 tasks.py notebooks   # re-execute the notebooks and store their outputs
    python3 tasks.py exercises   # regenerate the student exercise notebooks from the sources
    python3 tasks.py bench       # run the benchmarks (on demand; prints ratios)
    python3 tasks.py site        # build the course website into build/site/html (offline)

Extra arguments after ``test`` go to pytest, e.g. ``python3 tasks.py test -k ridge``;
after ``lab`` they go to JupyterLab, e.g. ``python3 tasks.py lab --port 8899 --no-browser``.

``lab`` installs what the course needs to run; ``test`` (and ``setup``) also install
the test tools (the ``test`` extra: pytest, nbval, playwright's driver, axe-core, and the
website's tools); ``site`` installs the website's tools (the ``site`` extra: Jupyter Book 1
and a MathJax served with the site) and builds the site from the notebooks' stored outputs,
executing nothing (``tools/build_site.py``; ``--strict`` makes warnings errors).

``lab`` opens JupyterLab on the start page, ``notebooks/00_start_here.ipynb``
(``--LabApp.default_url``: JupyterLab's own setting, which wins over the server's).

The student workspace
---------------------
``lab`` opens ``workspace/`` (git-ignored), which holds the student's own copies:
``workspace/notebooks/`` (the lectures) and ``workspace/exercises/`` (the exercise sets),
made on first launch, so links between them (``../exercises/NN_....ipynb``) work as
they do in the repository, and the course's own files are never edited. On each
launch the workspace is brought up to date with the course (:func:`sync_workspace`):

* a course file the workspace lacks is copied in (delete your copy to get a fresh one);
* a copy whose cells the student has not edited (running it and saving outputs is
  not an edit) is replaced by the course's new version;
* a copy the student edited is never touched: when the course's version changed,
  it is written beside it as ``NAME.updated.ipynb`` and listed.

``workspace/.course-manifest.json`` records, per file, the fingerprint of its cells'
sources as copied, which is what "edited" is measured against.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".kernelcourse-installed"
WORKSPACE = ROOT / "workspace"
#: the course folders copied into the workspace, and the files of each that are copied
COURSE_FOLDERS = ("notebooks", "exercises")
MANIFEST = ".course-manifest.json"

#: JupyterLab settings for the course's lab (the venv's overrides.json): no news or
#: update pop-up over the plots on first launch
LAB_OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false",
                                                    "checkForUpdates": False},
}


def _requirements_hash() -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()


def _installed() -> dict:
    try:
        return json.loads(STAMP.read_text())
    except (OSError, ValueError):
        return {}


def setup(test_tools: bool = True, site_tools: bool = False) -> None:
    """Create ``.venv`` and install the course into it (with the test tools when
    ``test_tools``, the website's tools when ``site_tools``), when not done yet for this
    ``pyproject.toml``. The test tools include the website's (the tests build it)."""
    if not PYTHON.exists():
        print(f"[tasks] creating the virtual environment {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    done = _installed()
    has_site = done.get("site") or done.get("test")
    if done.get("pyproject") == _requirements_hash() and (done.get("test") or not test_tools) \
            and (has_site or not site_tools):
        return
    extras = [e for e, wanted in (("test", test_tools or done.get("test")),
                                  ("site", site_tools or done.get("site"))) if wanted]
    target = f"{ROOT}[{','.join(extras)}]" if extras else str(ROOT)
    what = "and its test tools" if test_tools else \
        "and the website's tools" if site_tools else "and what it needs"
    print(f"[tasks] installing kernelcourse {what} (under a minute and a half the first time)",
          flush=True)
    # not --quiet: pip's "Collecting ..." lines show the install's progress. --no-compile:
    # Python compiles a module's bytecode when it is first imported, so the install does not
    # compile the thousands of modules the course never imports (a third of its time)
    run([PYTHON, "-m", "pip", "install", "--progress-bar", "off", "--disable-pip-version-check",
         "--no-compile", "-e", target])
    STAMP.write_text(json.dumps({"pyproject": _requirements_hash(), "test": "test" in extras,
                                 "site": "site" in extras or "test" in extras}))
    _write_lab_settings()


def _write_lab_settings() -> None:
    """The lab's settings overrides in the venv (``share/jupyter/lab/settings``)."""
    folder = VENV / "share" / "jupyter" / "lab" / "settings"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "overrides.json").write_text(json.dumps(LAB_OVERRIDES, indent=2) + "\n")


# ----------------------------------------------------------------------------------
# the student workspace
# ----------------------------------------------------------------------------------

def course_files(root: Path = ROOT) -> dict[str, Path]:
    """The course files a workspace holds: ``{"notebooks/NAME.ipynb": path, ...}``
    (the lecture notebooks and the student exercise sets, not their solution sources)."""
    found = {}
    for folder in COURSE_FOLDERS:
        for path in sorted((root / folder).glob("*.ipynb")):
            found[f"{folder}/{path.name}"] = path
    return found


def fingerprint(path: Path) -> str:
    """A hash of a notebook's cells (type and source): what a student edits. Outputs,
    execution counts and metadata are left out, so running and saving is not an edit.
    A file that is not a readable notebook hashes by its bytes."""
    data = path.read_bytes()
    try:
        cells = json.loads(data)["cells"]
        text = json.dumps([[c.get("cell_type"), "".join(c.get("source", ""))] for c in cells])
    except (ValueError, KeyError, TypeError, AttributeError):
        return "bytes:" + hashlib.sha256(data).hexdigest()
    return hashlib.sha256(text.encode()).hexdigest()


def _updated_name(rel: str) -> str:
    stem, dot, ext = rel.rpartition(".")
    return f"{stem}.updated.{ext}" if dot else rel + ".updated"


def sync_workspace(workspace: Path = WORKSPACE, root: Path = ROOT) -> dict[str, list[str]]:
    """Bring ``workspace`` up to date with the course at ``root``; never overwrite an edit.

    Returns lists of workspace paths: ``copied`` (new in the workspace), ``refreshed``
    (an unedited copy replaced by the course's newer version), ``updated_beside``
    (an edited copy whose course version changed: the new version is written beside it
    as ``NAME.updated.ipynb``), ``kept`` (edited copies, course unchanged).
    """
    workspace = Path(workspace)
    manifest_path = workspace / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        manifest = {}
    report = {"copied": [], "refreshed": [], "updated_beside": [], "kept": []}
    for rel, source in course_files(Path(root)).items():
        target = workspace / rel
        course = fingerprint(source)
        entry = manifest.get(rel, {})
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            manifest[rel] = {"copied": course}
            report["copied"].append(rel)
            continue
        mine = fingerprint(target)
        base = entry.get("copied")
        if mine == course:                      # the same cells as the course's (maybe run)
            manifest[rel] = {"copied": course}
        elif base is not None and mine == base:  # unedited, and the course moved on
            shutil.copyfile(source, target)
            manifest[rel] = {"copied": course}
            report["refreshed"].append(rel)
        elif base == course:                     # edited; the course did not change
            report["kept"].append(rel)
        else:                                    # edited (or of unknown origin), course changed
            beside = workspace / _updated_name(rel)
            if entry.get("offered") != course or not beside.exists():
                shutil.copyfile(source, beside)
                report["updated_beside"].append(_updated_name(rel))
            manifest[rel] = {**entry, "copied": base, "offered": course}
    manifest_path.parent.mkdir(parents=True, exist_ok=True)
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return report


def _print_sync(report: dict[str, list[str]], workspace: Path) -> None:
    if report["copied"]:
        print(f"[tasks] {len(report['copied'])} course notebooks copied into {workspace}/",
              flush=True)
    for rel in report["refreshed"]:
        print(f"[tasks] updated (you had not edited it): {rel}", flush=True)
    for rel in report["updated_beside"]:
        print(f"[tasks] the course changed a notebook you edited; your copy is untouched and "
              f"the new version is beside it: {rel}", flush=True)


def run(cmd, **kwargs) -> None:
    result = subprocess.run([str(c) for c in cmd], cwd=kwargs.pop("cwd", ROOT), **kwargs)
    if result.returncode != 0:
        sys.exit(result.returncode)


def cmd_lab(args: list[str]) -> None:
    setup(test_tools=False)
    _write_lab_settings()
    _print_sync(sync_workspace(), WORKSPACE)
    extra = ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    run([BIN / "jupyter", "lab", f"--ServerApp.root_dir={WORKSPACE}", *lab_landing(), *extra,
         *args])


#: the page the lab opens on: the start page (its path in the workspace and in the repository)
START_PAGE = "notebooks/00_start_here.ipynb"


def lab_landing(page: str = START_PAGE) -> list[str]:
    """JupyterLab's options that open it on ``page``: ``LabApp.default_url`` (JupyterLab's
    own ``/lab`` would override ``ServerApp.default_url``), the address ``/`` redirects to."""
    return [f"--LabApp.default_url=/lab/tree/{page}"]


def cmd_test(args: list[str]) -> None:
    """pytest with one worker per core (pytest-xdist), each test file whole on one worker
    (``--dist loadfile``: a notebook's cells run in order in one kernel, and a file's shared
    fixtures are built once), handed out in the order of the root ``conftest.py``'s
    ``LONGEST_FIRST`` (``--no-loadscope-reorder``); ``-n 0`` among the arguments runs
    everything in this process."""
    setup()
    side_by_side = [] if any(a == "-n" or a.startswith(("-n", "--numprocesses")) for a in args) \
        else ["-n", "auto", "--dist", "loadfile", "--no-loadscope-reorder"]
    # with PYTHONDONTWRITEBYTECODE set (some machines set it), every worker would rewrite and
    # compile every test module again (about 7 s of CPU each); the caches go to __pycache__/,
    # which git ignores
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if side_by_side:
        # one worker per core already: each worker's BLAS on one thread, else every worker's
        # BLAS threads (one per core) fight the other workers for the same cores
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(name, "1")
    run([PYTHON, "-m", "pytest", *side_by_side, *args], env=env)


def cmd_notebooks(args: list[str]) -> None:
    setup()
    run([PYTHON, ROOT / "tools" / "execute_notebooks.py", *args])


def cmd_exercises(args: list[str]) -> None:
    setup()
    run([PYTHON, "-m", "kernelcourse", "exercises", "build", *args])


def cmd_site(args: list[str]) -> None:
    setup(test_tools=False, site_tools=True)
    run([PYTHON, ROOT / "tools" / "build_site.py", *args])


def cmd_bench(args: list[str]) -> None:
    setup(test_tools=False)
    scripts = sorted((ROOT / "benchmarks").glob("bench_*.py"))
    chosen = [s for s in scripts if not args or any(a in s.name for a in args)]
    for script in chosen:
        print(f"\n=== {script.name}", flush=True)
        run([PYTHON, "-u", script])  # unbuffered: each row shows as soon as it is measured


COMMANDS = {
    "lab": cmd_lab,
    "test": cmd_test,
    "notebooks": cmd_notebooks,
    "exercises": cmd_exercises,
    "bench": cmd_bench,
    "site": cmd_site,
    "setup": lambda args: setup(),
}


def main(argv: list[str]) -> None:
    if not argv or argv[0] not in COMMANDS:
        print(__doc__)
        sys.exit(0 if argv[:1] in ([], ["-h"], ["--help"]) else 2)
    COMMANDS[argv[0]](argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
