"""The package's import graph has no circle, and every module imports on its own.

The graph is read from the source (every ``import`` and ``from ... import`` of a
``kernelcourse`` module, at module level or inside a function, since an import
deferred into a function is still a dependency), so a circle cannot hide behind a
lazy import. Each module is then imported alone, so that no module works only because
another was imported first: in a fresh interpreter that has loaded the third-party libraries
and none of the package, forked once per module.
"""
from __future__ import annotations

import ast
import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "kernelcourse"


def _modules() -> dict[str, tuple[Path, bool]]:
    """``{dotted name: (path, is_package)}`` for every module of the package."""
    found = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        found[".".join(parts)] = (path, is_package)
    return found


MODULES = _modules()


def _targets(module: str, is_package: bool, node: ast.AST) -> list[str]:
    """The package modules one import statement of ``module`` loads."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name.split(".")[0] == "kernelcourse"]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    if source.split(".")[0] != "kernelcourse":
        return []
    # ``from pkg import sub`` loads the submodule; ``from mod import name`` loads mod
    return [f"{source}.{alias.name}" if f"{source}.{alias.name}" in MODULES else source
            for alias in node.names]


@functools.cache
def _import_graph() -> dict[str, frozenset[str]]:
    """The graph, read once per test session (a function of the source only)."""
    graph = {}
    for module, (path, is_package) in MODULES.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            for target in _targets(module, is_package, node):
                while target not in MODULES and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target != module:
                    edges.add(target)
        graph[module] = frozenset(edges)
    return graph


def import_graph() -> dict[str, set[str]]:
    """``{module: the package modules it imports}`` (parents implied by a dotted name omitted)."""
    return {module: set(edges) for module, edges in _import_graph().items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), and self-loops."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_cycle_finder_finds_a_planted_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_graph_reads_relative_and_deferred_imports():
    graph = import_graph()
    assert "kernelcourse.features" in graph["kernelcourse.kernels.zoo"]      # from .. import features
    assert "kernelcourse.kernels" in graph["kernelcourse._estimator"]        # from .kernels import ...
    assert "kernelcourse.kernels.base" in graph["kernelcourse.kernels.zoo"]  # from .base import ...


def test_no_import_cycle():
    found = cycles(import_graph())
    assert found == [], f"import cycles among the package's modules: {found}"


def test_the_maps_need_no_kernel():
    """Lecture 1's explicit maps stand alone; the kernels call them, never the reverse."""
    graph = import_graph()
    assert not any(m.startswith("kernelcourse.kernels") for m in graph["kernelcourse.features"])
    assert "kernelcourse.features" in graph["kernelcourse.kernels.zoo"]


# A fresh interpreter loads the third-party libraries once (no module of the package), then
# forks once per module: the child imports that one module and nothing else of the package,
# which is what a fresh interpreter would do, at a fraction of the cost of starting one per module.
_FORK_EACH = r"""
import importlib, json, os, sys, traceback
for lib in ("numpy", "scipy.linalg", "scipy.spatial.distance", "scipy.special", "sklearn.base",
            "matplotlib", "ipywidgets"):
    try:
        importlib.import_module(lib)
    except Exception:
        pass
loaded = [m for m in sys.modules if m == "kernelcourse" or m.startswith("kernelcourse.")]
assert not loaded, f"the package was loaded before the forks: {loaded}"
failures = {}
for name in json.loads(sys.argv[1]):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            importlib.import_module(name)
            code, message = 0, b""
        except BaseException:
            code, message = 1, traceback.format_exc().encode()
        os.write(w, message[-4000:])
        os._exit(code)
    os.close(w)
    message = b""
    while chunk := os.read(r, 65536):
        message += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        failures[name] = message.decode(errors="replace") or f"wait status {status}"
print(json.dumps(failures))
"""


def import_each_alone(names) -> dict[str, str]:
    """``{module: traceback}`` for each of ``names`` that fails to import on its own."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MPLBACKEND="Agg")
    proc = subprocess.run([sys.executable, "-c", _FORK_EACH, json.dumps(list(names))],
                          capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_each_alone_reports_a_module_that_fails():
    failures = import_each_alone(["kernelcourse.features", "kernelcourse.no_such_module"])
    assert list(failures) == ["kernelcourse.no_such_module"]
    assert "ModuleNotFoundError" in failures["kernelcourse.no_such_module"]


@pytest.mark.slow
def test_every_module_imports_alone_in_a_fresh_interpreter():
    failures = import_each_alone(m for m in MODULES if m != "kernelcourse.__main__")
    assert not failures, "\n\n".join(f"{m}:\n{err}" for m, err in failures.items())


# A package that hands out names when first asked for (``kernelcourse._lazy``) imports them in a
# ``TYPE_CHECKING`` block too, which never runs: that block is where the graph above reads the
# package's edges to its lazy submodules, so it must name exactly what the ``_LAZY`` table does.
def _lazy_packages() -> dict[str, dict[str, str]]:
    """``{module: {name: submodule}}`` read from each module's ``TYPE_CHECKING`` block, for
    every module of the package that has one."""
    found = {}
    for module, (path, _) in MODULES.items():
        for node in ast.parse(path.read_text(), str(path)).body:
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
                found[module] = {alias.asname or alias.name: stmt.module
                                 for stmt in node.body if isinstance(stmt, ast.ImportFrom)
                                 and stmt.level == 1 for alias in stmt.names}
    return found


def test_every_lazy_name_is_an_edge_of_the_import_graph():
    import importlib

    packages = _lazy_packages()
    # the estimators' packages, whose classes import scikit-learn (issue 40), among them
    assert {"kernelcourse.dual", "kernelcourse.svm", "kernelcourse.random_features",
            "kernelcourse.feature_space", "kernelcourse.nystroem", "kernelcourse.gaussian_process",
            "kernelcourse.mean_embeddings"} <= set(packages)
    graph = import_graph()
    for module, names in packages.items():
        table = importlib.import_module(module)._LAZY
        assert names == table, f"{module}: TYPE_CHECKING imports {names}, _LAZY says {table}"
        for name, part in table.items():
            assert f"{module}.{part}" in graph[module], (module, part)
            home = importlib.import_module(f"{module}.{part}")
            assert getattr(importlib.import_module(module), name) is getattr(home, name)


def test_a_lazy_package_lists_its_names_and_refuses_unknown_ones():
    import kernelcourse.nystroem as nystroem

    assert "Nystroem" in dir(nystroem) and "nystroem_features" in dir(nystroem)
    with pytest.raises(AttributeError, match="module 'kernelcourse.nystroem' has no attribute 'Nystrom'"):
        nystroem.Nystrom  # noqa: B018 - the misspelt name
