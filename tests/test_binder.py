"""mybinder.org's files (``.binder/``) stay in step with ``pyproject.toml``: the same run-time
packages (and no test tool), the same Python, the lab landing on the start page; the Binder
links of the README and the start page open the repository ``pyproject.toml`` names."""
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / ".binder"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
START = "notebooks/00_start_here.ipynb"


def _requirements() -> list[str]:
    lines = (BINDER / "requirements.txt").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def binder_url() -> str:
    """The launch address of the repository on mybinder.org, opening the start page."""
    url = PROJECT["project"]["urls"]["Repository"]
    match = re.fullmatch(r"https://github\.com/([^/]+)/([^/]+?)(?:\.git)?/?", url)
    assert match, f"[project.urls] Repository is not a GitHub repository: {url}"
    branch = PROJECT["tool"]["kernelcourse"]["branch"]
    return (f"https://mybinder.org/v2/gh/{match.group(1)}/{match.group(2)}/{branch}"
            f"?urlpath=lab/tree/{START}")


def test_binder_installs_the_run_time_packages_of_pyproject_and_no_test_tool():
    wanted = PROJECT["project"]["dependencies"]
    assert _requirements() == wanted, "keep .binder/requirements.txt equal to [project] dependencies"
    tools = {re.split(r"[<>=\[; ]", r)[0] for extra in PROJECT["project"]["optional-dependencies"].values()
             for r in extra}
    assert not tools & {re.split(r"[<>=\[; ]", r)[0] for r in _requirements()}


def test_binder_runs_the_python_of_pyproject_and_environment_yml():
    runtime = (BINDER / "runtime.txt").read_text().strip()
    assert re.fullmatch(r"python-3\.\d+", runtime), runtime
    version = runtime.split("-", 1)[1]
    assert PROJECT["project"]["requires-python"] == f">={version}"
    assert f"python={version}" in (ROOT / "environment.yml").read_text()


def test_binder_installs_the_course_and_lands_on_the_start_page():
    post = (BINDER / "postBuild").read_text()
    assert post.startswith("#!/bin/bash") and (BINDER / "postBuild").stat().st_mode & 0o111
    assert re.search(r"^python -m pip install --no-deps -e \.$", post, re.M)
    [url] = re.findall(r'c\.LabApp\.default_url = "([^"]+)"', post)
    assert url == f"/lab/tree/{START}" and (ROOT / START).exists()
    # the same page as `python3 tasks.py lab` opens
    sys.path.insert(0, str(ROOT))
    try:
        import tasks
    finally:
        sys.path.remove(str(ROOT))
    assert tasks.lab_landing() == [f"--LabApp.default_url={url}"]
    subprocess.run(["bash", "-n", str(BINDER / "postBuild")], check=True)   # it parses
    settings = re.search(r"<<'SETTINGS'\n(.*?)\nSETTINGS", post, re.S).group(1)
    assert json.loads(settings) == tasks.LAB_OVERRIDES


def test_the_readme_and_the_start_page_link_to_binder_on_the_start_page():
    url = binder_url()
    readme = (ROOT / "README.md").read_text()
    assert f"[![Launch the course on Binder](https://mybinder.org/badge_logo.svg)]({url})" in readme
    start = json.loads((ROOT / START).read_text())
    text = "".join("".join(c["source"]) for c in start["cells"] if c["cell_type"] == "markdown")
    assert f"]({url})" in text
