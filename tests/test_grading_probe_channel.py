"""The chunk probe (``RowSource``) is counted in the submission's process, which serves the rows,
never in the answer's (issue 29, "checks an answer cannot rewrite"): each answer below runs
through the grading worker's own code for one request (:func:`submission.serve`: a forked
answer's process, sealed, whose reads come back over a socket), and is scored against ex6.q4's
reference and its constraint "at most chunk_size rows at once". The slow test through the real
``kernelcourse grade`` is in ``test_grading_isolation.py``."""
import json

import numpy as np
import pytest

import kernelcourse.grading.intake.notebooks  # noqa: F401 - imported before an answer's process seals

from kernelcourse.grading import get_question
from kernelcourse.grading.model.probes import RowSource
from kernelcourse.grading.checking.scoring import score
from kernelcourse.grading.sealed import submission
from kernelcourse.grading.model import transport
from kernelcourse.grading.sealed.rowserver import RemoteRows, serve_probes
from kernelcourse.grading.model.question import Case

RIDGE = """
import numpy as np
{prefix}

def chunked_ridge(Phi, y, lam, chunk_size):
    {read}
    {rewrite}
    D = whole.shape[1]
    return np.linalg.solve(whole.T @ whole + lam * np.eye(D), whole.T @ np.asarray(y, float))
"""
#: honest reads: each a generator of (row numbers, block of those rows), one block let go before
#: the next is read, summed into Phi^T Phi and Phi^T y as ex6.q4 asks
CHUNKED = """
import numpy as np

def chunked_ridge(Phi, y, lam, chunk_size):
    n, D = Phi.shape
    y = np.asarray(y, float)
    A, c = np.zeros((D, D)), np.zeros(D)
    for rows, block in {blocks}:
        block = np.atleast_2d(block)
        A += block.T @ block
        c += block.T @ y[rows]
    return np.linalg.solve(A + lam * np.eye(D), c)
"""
HONEST = {
    "slices": "((np.arange(s, min(s + chunk_size, n)), Phi[s:s + chunk_size]) "
              "for s in range(0, n, chunk_size))",
    "rows one by one": "(([i], row) for i, row in enumerate(Phi))",
    "index arrays": "((r, Phi[r]) for r in (np.arange(s, min(s + chunk_size, n)) "
                    "for s in range(0, n, chunk_size)))",
    "negative rows": "(([i], Phi[i - n]) for i in range(n))",
    "masks": "((np.arange(n)[m], Phi[m]) for m in (np.arange(n) // chunk_size == k "
             "for k in range(-(-n // chunk_size))))",
}
#: honest reads whose chunk is worked through in Python (a list of rows), or whose chunks'
#: sums are kept in lists and added at the end: more memory than a NumPy loop, never the matrix
PYTHON_LOOPS = {
    "a chunk as lists": """
import numpy as np

def chunked_ridge(Phi, y, lam, chunk_size):
    n, D = Phi.shape
    A, c = [[0.0] * D for _ in range(D)], [0.0] * D
    for s in range(0, n, chunk_size):
        for i, row in enumerate(Phi[s:s + chunk_size].tolist()):
            for a in range(D):
                c[a] += row[a] * y[s + i]
                for b in range(D):
                    A[a][b] += row[a] * row[b]
    return np.linalg.solve(np.array(A) + lam * np.eye(D), np.array(c))
""",
    "sums kept per chunk": """
import numpy as np

def chunked_ridge(Phi, y, lam, chunk_size):
    n, D = Phi.shape
    grams, moments = [], []
    for s in range(0, n, chunk_size):
        P = Phi[s:s + chunk_size]
        grams.append(P.T @ P)
        moments.append(P.T @ np.asarray(y[s:s + chunk_size], float))
    return np.linalg.solve(sum(grams) + lam * np.eye(D), sum(moments))
""",
}
#: chunks read as asked, but copies of every row kept: the matrix held all the same (issue 41)
COPIED = {
    "into lists": "rows = []\n"
                  "    for s in range(0, len(Phi), chunk_size):\n"
                  "        rows.extend(Phi[s:s + chunk_size].tolist())\n"
                  "    whole = np.array(rows)",
    "into arrays": "rows = []\n"
                   "    for s in range(0, len(Phi), chunk_size):\n"
                   "        rows.append(Phi[s:s + chunk_size].copy())\n"
                   "    whole = np.vstack(rows)",
    "row by row, as floats": "rows = [[float(v) for v in Phi[i]] for i in range(len(Phi))]\n"
                             "    whole = np.array(rows)",
}
#: the same reads, every block kept and stacked: all of Phi held at once
STACKED = {name: f"whole = np.vstack([np.atleast_2d(b) for _, b in {blocks}])"
           for name, blocks in HONEST.items()}
WHOLE = "whole = np.asarray(Phi)"
ATTACKS = {
    "whole, honestly": ("", WHOLE, "pass"),
    "counters zeroed": ("", WHOLE, "for name in ('_max_rows', '_rows', '_reads'):\n"
                                   "        object.__setattr__(Phi, name, 0)"),
    "class rewritten": ("", WHOLE, "type(Phi).usage = lambda self: {'max_rows': 1, "
                                   "'rows': len(self), 'reads': len(self)}"),
    "report faked": ("import kernelcourse.grading.sealed.running as running\n"
                     "import kernelcourse.grading.model.probes as probes\n"
                     "fake = lambda *a, **k: {'0': {'max_rows': 1, 'rows': 1, 'reads': 1}}\n"
                     "probes.probe_usage = fake\n"
                     "running._usage = lambda *a, **k: {'probes': fake()}", WHOLE, "pass"),
    "private data": ("", "whole = np.array(Phi._data)", "pass"),
    "inherited copies": ("import gc", "first = Phi[0:1]\n"
                         "    whole = next((o._data for o in gc.get_objects() "
                         "if type(o).__name__ == 'RowSource' and isinstance(getattr(o, '_data', "
                         "None), np.ndarray) and o._data.shape == Phi.shape "
                         "and np.array_equal(o._data[0:1], first)), np.zeros(Phi.shape))",
                         "pass"),
    "frames above": ("import sys", "whole = None\n"
                     "    frame = sys._getframe()\n"
                     "    while frame is not None and whole is None:\n"
                     "        for v in list(frame.f_locals.values()):\n"
                     "            for w in (v if isinstance(v, (list, tuple)) else [v]):\n"
                     "                for a in getattr(w, 'args', ()):\n"
                     "                    if isinstance(getattr(a, '_data', None), np.ndarray) "
                     "and a._data.shape == Phi.shape:\n"
                     "                        whole = a._data\n"
                     "        frame = frame.f_back\n"
                     "    whole = np.zeros(Phi.shape) if whole is None else whole", "pass"),
    # the request's own text (its JSON line, or the decoded request) in a frame above
    "request text": ("import json, sys\n"
                     "from kernelcourse.grading.model import transport\n"
                     "def _matrices(o):\n"
                     "    if isinstance(o, dict):\n"
                     "        if o.get('$probe') == 'rows':\n"
                     "            yield transport.decode(o['data'])\n"
                     "        for v in o.values():\n"
                     "            yield from _matrices(v)\n"
                     "    elif isinstance(o, list):\n"
                     "        for v in o:\n"
                     "            yield from _matrices(v)",
                     "first, whole = Phi[0:1], np.zeros(Phi.shape)\n"
                     "    frame = sys._getframe()\n"
                     "    while frame is not None:\n"
                     "        for v in list(frame.f_locals.values()):\n"
                     "            if isinstance(v, str) and '$probe' in v:\n"
                     "                try:\n"
                     "                    v = json.loads(v)\n"
                     "                except ValueError:\n"
                     "                    continue\n"
                     "            for m in _matrices(v):\n"
                     "                if m.shape == Phi.shape and np.array_equal(m[0:1], first):\n"
                     "                    whole = m\n"
                     "        frame = frame.f_back", "pass"),
}


def _request(cell: str, q, seed: int) -> dict:
    return {"cell": cell, "function": q.function, "time_limit": 20, "forbidden": [],
            "cases": [[transport.encode(list(c.args)), transport.encode(c.kwargs)]
                      for c in q.make_cases(seed)]}


def _graded(cell: str, seed: int = 3):
    """The answer served as the worker serves it; this process (the grader's side, which the
    sandbox never holds) keeps no case of its own while the answer's process is forked."""
    import gc

    q = get_question("ex6.q4")
    request = _request(cell, q, seed)
    gc.collect()
    reply = json.loads(json.dumps(submission.serve(request, 0)))
    return score(q, q.make_cases(seed), reply["outcomes"]), reply


@pytest.mark.parametrize("name", sorted(HONEST))
def test_honest_reads_by_rows_pass(name):
    result, reply = _graded(CHUNKED.format(blocks=HONEST[name]))
    assert result.status == "passed", result.line()
    counted = [o["usage"]["probes"]["0"] for o in reply["outcomes"]]
    assert all(c["max_rows"] >= 1 and c["rows"] >= c["max_rows"] for c in counted), counted
    # a block is let go once the next is taken: at a read, at most one earlier block is held
    cases = get_question("ex6.q4").make_cases(3)
    assert all(c["max_held"] <= case.args[3] for c, case in zip(counted, cases)), counted


@pytest.mark.parametrize("name", sorted(STACKED))
def test_the_same_reads_stacked_fail_as_rows_held(name):
    """Small reads whose blocks are all kept (``np.vstack`` of them) hold all of Phi: the
    proxy in the answer's process counts the rows it handed out that still live, and the
    server takes that count with each read."""
    read = "n = len(Phi)\n    " + STACKED[name]
    result, reply = _graded(RIDGE.format(prefix="", read=read, rewrite="pass"))
    assert result.status == "failed" and result.points == 0, result.line()
    assert "held" in result.line() and "rows stacked" in repr(result.diagnosis), result.line()
    for outcome, case in zip(reply["outcomes"], get_question("ex6.q4").make_cases(3)):
        counted = outcome["usage"]["probes"]["0"]
        assert counted["max_held"] >= len(case.args[0]) - case.args[3], counted


@pytest.mark.parametrize("name", sorted(PYTHON_LOOPS))
def test_honest_loops_in_python_pass(name):
    """Honest reads that hold more memory than a NumPy loop (a chunk as Python lists, or the
    chunks' sums kept until the end) hold far less than the matrix: full marks."""
    result, reply = _graded(PYTHON_LOOPS[name])
    assert result.status == "passed", result.line()


@pytest.mark.parametrize("name", sorted(COPIED))
def test_copies_of_the_rows_kept_fail_as_rows_held(name):
    """Each read is a chunk (or a row) and each block is let go, but a copy of every row is
    kept: the answer's process holds the matrix all the same, which the reader sees by the
    memory made since its first read. The long case (2400 rows) tells it from an honest loop;
    the short ones cannot, and pass."""
    result, reply = _graded(RIDGE.format(prefix="", read=COPIED[name], rewrite="pass"))
    assert result.status == "failed", result.line()
    assert "held" in result.line() and "copies" in result.line(), result.line()
    cases = get_question("ex6.q4").make_cases(3)
    counted = [o["usage"]["probes"]["0"] for o in reply["outcomes"]]
    long_case = max(range(len(cases)), key=lambda i: len(cases[i].args[0]))
    assert len(cases[long_case].args[0]) >= 2400
    assert counted[long_case]["max_held"] >= len(cases[long_case].args[0]) // 2, counted
    assert counted[long_case]["max_rows"] <= cases[long_case].args[3], counted


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_an_answer_that_rewrites_the_probe_fails(name):
    prefix, read, rewrite = ATTACKS[name]
    result, reply = _graded(RIDGE.format(prefix=prefix, read=read, rewrite=rewrite))
    assert result.status != "passed", (name, result.line())
    if read == WHOLE:  # the whole of Phi was asked for: counted by the submission's process
        assert "rows of the matrix at once" in result.line() or "whole" in result.line(), \
            result.line()
        for outcome, case in zip(reply["outcomes"], get_question("ex6.q4").make_cases(3)):
            assert outcome["usage"]["probes"]["0"]["max_rows"] == len(case.args[0])


def test_the_server_counts_what_it_served_and_replaces_the_answers_report():
    """Without the worker: a proxy in a forked process reads by slices, rows, masks and
    ``np.asarray``; the server (this process) counts each read; the answer's report is
    replaced by that count."""
    import os
    import selectors

    Phi = np.arange(40.0).reshape(10, 4)
    cases = [Case((RowSource(Phi), 3)), Case((RowSource(2 * Phi), 5))]
    server, fd = serve_probes(cases)
    assert all(isinstance(c.args[0], RemoteRows) for c in cases)
    pid = os.fork()
    if pid == 0:  # the answer's side
        code = 1
        try:
            server.forget()
            a, b = cases[0].args[0], cases[1].args[0]
            ok = (np.array_equal(a[0:3], Phi[0:3]) and np.array_equal(a[-1], Phi[-1])
                  and np.array_equal(a[[1, 2]], Phi[[1, 2]])
                  and np.array_equal(a[np.arange(10) > 7], Phi[8:])
                  and a[5:2].shape == (0, 4) and np.array_equal(np.asarray(b), 2 * Phi)
                  and a.shape == (10, 4) and len(a) == 10)
            code = 0 if ok else 2
        finally:
            os._exit(code)
    os.close(fd)
    with selectors.DefaultSelector() as selector:
        selector.register(server.fd, selectors.EVENT_READ)
        while not server.closed:
            for _ in selector.select(5):
                server.writable() if server.wants_write() else server.readable()
            if not server.closed:
                selector.modify(server.fd, selectors.EVENT_WRITE if server.wants_write()
                                else selectors.EVENT_READ)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert [s.usage() for _, _, s in server.sources] == [
        {"max_rows": 3, "rows": 3 + 1 + 2 + 2 + 0, "reads": 5, "max_held": 0},
        {"max_rows": 10, "rows": 10, "reads": 1, "max_held": 0}]
    claimed = {"outcomes": [{"kind": "value", "value": 1,
                             "usage": {"probes": {"0": {"max_rows": 0}, "9": {}}}},
                            {"kind": "value", "value": 1}]}
    counted = server.counted(claimed)["outcomes"]
    assert counted[0]["usage"] == {"probes": {"0": {"max_rows": 3, "rows": 8, "reads": 5,
                                                    "max_held": 0}}}
    assert counted[1]["usage"] == {"probes": {"0": {"max_rows": 10, "rows": 10, "reads": 1,
                                                    "max_held": 0}}}
    server.close()


def test_the_proxy_refuses_what_a_row_source_refuses():
    import socket
    import threading

    mine, theirs = socket.socketpair()
    proxy = RemoteRows(theirs.fileno(), 0, (5, 2), threading.Lock())
    with pytest.raises(TypeError, match="by rows only"):
        proxy[0, 1]
    with pytest.raises(AttributeError, match="read by rows"):
        proxy.T
    with pytest.raises(IndexError):
        proxy[7]
    with pytest.raises(ValueError, match="rows repeated"):
        proxy[[0] * 6]
    mine.close()
    with pytest.raises(RuntimeError, match="closed"):
        proxy[0:2]
    theirs.close()
