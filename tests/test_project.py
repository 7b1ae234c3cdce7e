"""Checks on the project as a whole: its dependency lists, its boundaries, its notebooks."""
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent

# The syllabus (shared/SYLLABUS.md): the numbered items of each lecture.
SYLLABUS = {1: 7, 2: 11, 3: 11, 4: 8, 5: 13, 6: 6, 7: 10, 8: 8, 9: 7, 10: 10}
LECTURE_NOTEBOOKS = {
    1: "01_feature_expansions_and_the_kernel_trick.ipynb",
    2: "02_kernels_for_sgd_and_random_features.ipynb",
    3: "03_ridge_regression_and_feature_space.ipynb",
    4: "04_dual_representations_and_constructing_kernels.ipynb",
    5: "05_rkhs_and_functional_gradient_descent.ipynb",
    6: "06_kernel_methods_at_scale.ipynb",
    7: "07_support_vector_machines.ipynb",
    8: "08_gaussian_processes.ipynb",
    9: "09_kernel_mean_embeddings.ipynb",
    10: "10_kernels_for_structured_data.ipynb",
}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_environment_yml_lists_the_same_packages_as_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_name(r) for r in project["dependencies"]}
    for extra in project["optional-dependencies"].values():
        wanted |= {_name(r) for r in extra}

    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    listed = set()
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            listed |= {_name(r) for r in dep["pip"] if not r.startswith("-e")}
        else:
            listed.add(_name(dep))
    listed -= {"python", "pip"}
    assert listed == wanted, (
        f"only in pyproject.toml: {sorted(wanted - listed)}; "
        f"only in environment.yml: {sorted(listed - wanted)}")
    assert any(isinstance(d, dict) and "-e ." in d["pip"] for d in env["dependencies"]), \
        "environment.yml must install the course itself (pip: -e .)"


# The package may import scikit-learn's base classes, estimator tags and the two classes
# the contract raises and warns with (the estimator contract), never a computation: see
# ARCHITECTURE.md.
_ALLOWED_SKLEARN = re.compile(
    r"^\s*from\s+sklearn\.base\s+import\s|"
    r"^\s*from\s+sklearn\.utils\s+import\s+\(?\s*(\w*Tags\b\s*,?\s*)+\)?\s*$|"
    r"^\s*from\s+sklearn\.exceptions\s+import\s+\(?\s*"
    r"((NotFittedError|DataConversionWarning)\b\s*,?\s*)+\)?\s*$")


def test_the_package_imports_only_scikit_learns_base_classes_and_tags():
    offenders = []
    for p in (ROOT / "kernelcourse").rglob("*.py"):
        for line in p.read_text().splitlines():
            if re.match(r"^\s*(import|from)\s+sklearn\b", line) and not _ALLOWED_SKLEARN.match(line):
                offenders.append(f"{p.relative_to(ROOT)}: {line.strip()}")
    assert offenders == []
    code = ("import pkgutil, importlib, sys, kernelcourse\n"
            "for m in pkgutil.walk_packages(kernelcourse.__path__, 'kernelcourse.'):\n"
            "    if m.name != 'kernelcourse.__main__':\n"
            "        importlib.import_module(m.name)\n"
            "print(sorted(m for m in sys.modules if m.startswith('sklearn.') and m.count('.') == 1"
            " and m.split('.')[1] in {'linear_model', 'kernel_ridge', 'svm', 'kernel_approximation',"
            " 'decomposition', 'metrics'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"the package loaded scikit-learn's estimators: {out.stdout}"


def _headings(path: Path) -> list[str]:
    nb = json.loads(path.read_text())
    return [line for cell in nb["cells"] if cell["cell_type"] == "markdown"
            for line in "".join(cell["source"]).splitlines() if line.startswith("## ")]


@pytest.mark.parametrize("lecture", sorted(LECTURE_NOTEBOOKS))
def test_each_lecture_notebook_heads_a_section_for_every_syllabus_item(lecture):
    path = ROOT / "notebooks" / LECTURE_NOTEBOOKS[lecture]
    assert path.exists(), f"lecture {lecture}'s notebook is missing: {path.name}"
    numbers = {m.group(1) for h in _headings(path)
               if (m := re.match(rf"## ({lecture}\.\d+)\b", h))}
    expected = {f"{lecture}.{k}" for k in range(1, SYLLABUS[lecture] + 1)}
    assert numbers >= expected, f"sections missing in {path.name}: {sorted(expected - numbers)}"


@pytest.mark.parametrize("lecture", sorted(LECTURE_NOTEBOOKS))
def test_each_lecture_notebook_has_two_graded_checkpoints_and_a_widget(lecture):
    path = ROOT / "notebooks" / LECTURE_NOTEBOOKS[lecture]
    assert path.exists(), f"lecture {lecture}'s notebook is missing: {path.name}"
    sources = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]
               if c["cell_type"] == "code"]
    answers = {m.group(1) for s in sources if (m := re.match(r"# ANSWER (\S+)", s))}
    checked = {m for s in sources for m in re.findall(r"check\(\s*['\"]([^'\"]+)['\"]", s)}
    assert len(answers) >= 2, f"{path.name} has {len(answers)} checkpoint answer cells"
    assert answers <= checked, f"checkpoints never checked in {path.name}: {answers - checked}"
    assert any("kernelcourse.widgets" in s for s in sources), f"{path.name} shows no widget"


# Issue 35: no module over about 600 lines; each is split along the concepts of its lecture.
MODULE_LINES = 600


def test_no_module_is_over_600_lines():
    sizes = {str(p.relative_to(ROOT)): p.read_bytes().count(b"\n")   # lines as wc -l counts them
             for folder in ("kernelcourse", "tools", "benchmarks")
             for p in (ROOT / folder).rglob("*.py")}
    # and the tests' support modules (the machinery tests import, not the test files)
    sizes.update({str(p.relative_to(ROOT)): p.read_bytes().count(b"\n")
                  for p in (ROOT / "tests").glob("*.py") if not p.name.startswith(("test_", "conftest"))})
    assert len(sizes) > 50 and "kernelcourse/mean_embeddings/mmd.py" in sizes
    assert "tests/browser_support.py" in sizes
    over = {path: n for path, n in sizes.items() if n > MODULE_LINES}
    assert over == {}, f"modules over {MODULE_LINES} lines (split them along the lecture's concepts): {over}"


def _root_conftest():
    """The repository's root ``conftest.py``, loaded as a module of its own (``tests/`` has a
    ``conftest`` too)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_longest_first_schedule_names_files_that_exist_once_each():
    """A renamed file would silently fall back to the end of the schedule."""
    LONGEST_FIRST = _root_conftest().LONGEST_FIRST
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)
    missing = [path for path in LONGEST_FIRST if not (ROOT / path).is_file()]
    assert missing == [], f"conftest.py LONGEST_FIRST names files that do not exist: {missing}"


def test_nbval_starts_each_kernel_in_the_environment_the_outputs_were_stored_in(monkeypatch):
    """The root conftest sets ``_execute.KERNEL_ENV`` only while nbval starts a kernel, then
    restores this process's environment; other tests' set-ups are left alone."""
    from nbval.plugin import IPyNbCell

    from kernelcourse._execute import KERNEL_ENV

    root_conftest = _root_conftest()
    assert KERNEL_ENV["KERNELCOURSE_COST_PROCESSES"] == "0"
    monkeypatch.setenv("KERNELCOURSE_COST_PROCESSES", "2")
    monkeypatch.delenv("IPYKERNEL_CELL_NAME", raising=False)
    before = dict(os.environ)

    def environment_during_setup(item):
        setup = root_conftest.pytest_runtest_setup(item)
        next(setup)                        # pytest runs the set-up (nbval's kernel start) here
        during = dict(os.environ)
        with pytest.raises(StopIteration):
            setup.send(None)
        assert dict(os.environ) == before
        return during

    during = environment_during_setup(object.__new__(IPyNbCell))
    assert {name: during[name] for name in KERNEL_ENV} == KERNEL_ENV
    assert environment_during_setup(object()) == before   # not an nbval cell: nothing set
