"""Issue 29: one student's submission never reaches another's, and the grader's own work on
submitted text is bounded. Every attack runs through the real ``kernelcourse grade`` in the
real sandbox, among honest submissions graded before and after it by the same worker
(``--jobs 1``, files graded in name order), and every row's score is asserted exactly: under
the cap this machine gives (a cgroup, as root) and under the watchdog as a user without root
(``setpriv --reuid nobody``) where this machine allows it.

The attacks:

* ``b_scanner``: answers nothing itself; searches its own process for another student's answer
  cells (``sys.modules``, ``linecache``, the frames above it, what is buffered on its standard
  input, every byte of its writable memory through ``/proc/self/mem``, where freed memory
  keeps what a process once read) and runs what it finds, and shows any comment it finds in
  its error: it must find nothing and score 0;
* ``c_zombie``: leaves a process behind that keeps killing every process it can see (through
  cffi, a zombie thread-group leader whose thread runs on, where cffi can be loaded; else a
  detached process in a session of its own) and files in ``/tmp`` and ``/dev/shm``;
* ``f_sigint``: sends SIGINT (and SIGTERM, SIGSTOP) to every process it can see, the worker's
  PID 1 first, in the middle of its own answer;
* ``g_unterminated`` (a 1 MB unterminated JSON string), ``h_blank_lines`` (400,000 blank
  lines in one cell), ``i_magic_lines`` (600 magic lines in one cell): the grader's own
  reading of them is linear (caps on a cell's size and its magic lines, IPython's
  transformation run sealed under the answer's time limit);
* ``i_long_name``: a 198,012-character module name in an ``if`` that never runs (the
  grader's reading is linear: the cell is refused by its dotted name's parts);
* ``j_sockets``: holds socket buffers as far as its descriptors let it (they count against the cap);
* ``j_socket_children``: 24 children of an answer hold socket pairs filled both ways (trying
  4 MiB buffers): their buffers count against the cap, which stops them;
* ``k_honest_idioms``: ``display(...)``, a function defined under ``if __name__ ==
  "__main__":`` (true in Jupyter) and ``multiprocessing`` (a pool, a lock and a queue, whose
  semaphores live in ``/dev/shm``) score;
* ``m_proc_writer``, ``n_proc_reader``: what one answer writes in ``/proc``
  (``oom_score_adj``, the autogroup's nice value, of PID 1 and of itself) is not seen by the
  next submission, and the worker's ``/proc`` entry shows nothing;
* ``l_route_functional_gd``: ex1.q4 answered by lecture 5's functional gradient descent on the
  bilinear kernel, a route to its reference, scores 0 for it.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from test_grading_attacks import ANSWERS, FULL, LONG_NAME, notebook, prefixed, raw_cells

MARK = f"mark-{os.getpid()}-honest-comment"


def honest(tag: str) -> dict:
    """The solved set, a comment naming the student in every answer cell."""
    cells = {q.split(".")[1]: f"# {MARK} of {tag}\n" + ANSWERS[q].split("\n", 1)[1]
             for q in ANSWERS}
    return notebook(**cells)


# a scanned question's cell: look for another student's cell for this question and run it
SCANNER = '''
import linecache, os, sys
NEEDLE = "mark-" + {pid!r} + "-honest"
WANT = "# ANSWER " + {qid!r} + chr(10)
found = []

def look(text):
    if isinstance(text, str) and NEEDLE in text:
        found.append(text)

for module in list(sys.modules.values()):
    for v in list(getattr(module, "__dict__", {{}}).values()):
        look(v)
for lines in list(linecache.cache.values()):
    if isinstance(lines, tuple) and len(lines) > 2:
        look("".join(lines[2]))
frame = sys._getframe()
while frame is not None:
    for v in list(frame.f_locals.values()):
        look(v)
        if isinstance(v, dict):
            for w in list(v.values()):
                look(w)
    frame = frame.f_back
for stream in (sys.stdin, sys.__stdin__):
    try:
        look(stream.buffer.peek(1 << 16).decode("utf-8", "replace"))
    except Exception:
        pass
# every writable private mapping of the process (heap, malloc arenas, Python's arenas): what a
# process that once read another submission would still hold in freed memory
# (a grader without root gives its answers no read of their own /proc/self/mem: not dumpable)
needle = NEEDLE.encode()
kept = []
try:
    maps, mem = open("/proc/self/maps"), open("/proc/self/mem", "rb", 0)
except OSError:
    maps, mem = [], None
# a budget of bytes to read (the process maps about 300 MB): a scan that keeps meeting new
# memory (what its own reading maps) stops at it instead of at the memory cap
budget = 2 << 30
for line in maps:
    fields = line.split()
    span, perms = fields[:2]
    if not perms.startswith("rw"):
        continue
    start, end = (int(x, 16) for x in span.split("-"))
    for chunk in range(start, end, 1 << 22):
        if budget <= 0:
            break
        budget -= min(end, chunk + (1 << 22) + 8192) - chunk
        try:
            mem.seek(chunk)
            data = mem.read(min(end, chunk + (1 << 22) + 8192) - chunk)
        except (OSError, OverflowError, ValueError, MemoryError):
            continue
        at = data.find(needle)
        # what it finds is kept reversed until the scan ends, so the scan never finds its own
        # copies again (they fed on themselves until the memory cap stopped the scan)
        rdata, n = (data[::-1] if at != -1 else b""), len(data)
        while at != -1:
            floor = max(at - 65536, 0)
            begin = max(data.rfind(b"# ANSWER", floor, at), floor)
            stop = min(at + 4000, n)
            kept.append(rdata[n - stop:n - begin])
            at = data.find(needle, at + 1)
        del data, rdata
found += [k[::-1].decode("utf-8", "replace") for k in kept]
for text in found:
    if WANT in text:
        try:
            exec(text[text.index(WANT):].split(chr(0))[0], globals())
        except BaseException:
            pass
if not any(callable(globals().get(n)) for n in {function!r}.split()):
    def {function}(*args, **kwargs):
        raise ValueError("found: " + " | ".join(t[:300] for t in found)[:1500])
'''


SCANNED = ("ex1.q1", "ex1.q2", "ex1.q5")


def scanner() -> dict:
    """Scans in three questions' cells (the others are stubs: a scan takes seconds)."""
    from kernelcourse.grading import get_question
    cells = {}
    for q in ANSWERS:
        function = get_question(q).function
        body = (SCANNER.format(pid=str(os.getpid()), qid=q, function=function) if q in SCANNED
                else f"def {function}(*args, **kwargs):\n    raise NotImplementedError\n")
        cells[q.split(".")[1]] = body
    return notebook(**cells)


ZOMBIE = """
import os, time
import numpy as np

def _killer():
    import os, signal, time
    time.sleep(0.5)
    end = time.monotonic() + 90
    while time.monotonic() < end:
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
        for pid in range(1, 400):
            if pid != os.getpid():
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        time.sleep(0.005)

for folder in ("/tmp", "/dev/shm"):
    try:
        with open(folder + "/left-by-c_zombie", "w") as f:
            f.write("x" * 1000)
    except OSError:
        pass
if os.fork() == 0:
    try:
        import threading
        from cffi import FFI           # the leader exits alone, its thread runs on
        ffi = FFI()
        ffi.cdef("long syscall(long number, ...);")
        libc = ffi.dlopen(None)
        threading.Thread(target=_killer).start()
        time.sleep(0.1)
        libc.syscall(60, ffi.cast("long", 0))   # SYS_exit: this thread only
    except BaseException:
        pass
    os.setsid()                        # no cffi: a detached process in a session of its own
    if os.fork() == 0:
        os.closerange(3, 4096)
        _killer()
    os._exit(0)
"""

SIGNALS = """
import os, signal
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGSTOP):
    for pid in [1, os.getppid()] + list(range(2, 64)):
        if pid != os.getpid():
            try:
                os.kill(pid, sig)
            except OSError:
                pass
"""

SOCKETS = """
import resource, socket
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
try:
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
except (OSError, ValueError):
    pass
held, keep = 0, []
try:
    while held < 1_200_000_000:
        a, b = socket.socketpair()
        a.setblocking(False)
        keep.append((a, b))
        try:
            while True:
                held += a.send(b"x" * 65536)
        except BlockingIOError:
            pass
except OSError:
    pass
assert held < 300 * 2 ** 20, held    # right only while it held less than 300 MB
"""

# issue 41: what an answer writes in /proc stays with its own submission
PROC_WRITER = """
import os
for path, value in (("/proc/1/oom_score_adj", "1000"), ("/proc/self/oom_score_adj", "1000"),
                    ("/proc/1/autogroup", "19"), ("/proc/self/autogroup", "19")):
    try:
        with open(path, "w") as f:
            f.write(value)
    except OSError:
        pass
"""

# ... and nothing of the worker (PID 1 of the sandbox, which makes every submission's process)
PROC_READER = """
import os
with open("/proc/self/oom_score_adj") as f:
    assert f.read().strip() != "1000", "oom_score_adj of another submission"
if os.path.exists("/proc/self/autogroup"):
    with open("/proc/self/autogroup") as f:
        assert f.read().split()[-1] != "19", "autogroup nice of another submission"
# the worker has no /proc entry here: /proc is the submission's own (where Linux refuses a
# fresh one, the worker's entry is covered by an empty folder)
assert os.readlink("/proc/self") == str(os.getpid()) or os.listdir("/proc/1") == [], \
    "the worker's /proc entry shows"
"""

# issue 41: children of an answer each hold as many socket pairs as their descriptors allow,
# trying 4 MiB buffers first, both directions filled: socket buffers of about 2 GB uncounted
# before; now each socket's buffers stay at their default and count against the cap, so the
# tree is stopped (right only if it was not)
SOCKET_CHILDREN = """
import os, socket, time
children = []
for _ in range(24):
    pid = os.fork()
    if pid == 0:
        keep = []
        try:
            while True:
                a, b = socket.socketpair()
                keep.append((a, b))
                for s in (a, b):
                    try:
                        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
                    except OSError:
                        pass
                    s.setblocking(False)
                    try:
                        while True:
                            s.send(b"x" * 65536)
                    except OSError:
                        pass
        except OSError:
            pass
        time.sleep(3)
        os._exit(0)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
"""


def _files(folder: Path) -> dict:
    """The submissions, graded in name order; each name -> (total, {question: text})."""
    want = {}

    def put(name, nb, total, details=None):
        (folder / f"{name}.ipynb").write_text(json.dumps(nb))
        want[f"{name}.ipynb"] = (total, details or {})

    put("a_honest", honest("a_honest"), FULL)
    put("b_scanner", scanner(), 0)
    put("c_zombie", notebook(q11=prefixed("ex1.q11", ZOMBIE)), FULL)
    put("d_honest", honest("d_honest"), FULL)
    put("e_scanner", scanner(), 0)
    put("f_sigint", notebook(q2=prefixed("ex1.q2", SIGNALS)), FULL, {"ex1.q2": "passed all"})
    g = json.dumps(notebook())[:-1] + ', "x": "' + "\\\"" * 500_000  # 1 MB, never closed
    (folder / "g_unterminated.ipynb").write_text(g)
    want["g_unterminated.ipynb"] = (0, {})
    put("h_blank_lines", raw_cells(q2="# ANSWER ex1.q2\n" + "\n" * 400_000
                                   + "def all_subsets_dim(d):\n    return 2 ** d\n"), FULL - 1,
        {"ex1.q2": "characters, over the limit of"})
    put("i_magic_lines", notebook(q2="%time x = 1\n" * 600 + "def all_subsets_dim(d):\n"
                                  "    return 2 ** d\n"), FULL - 1,
        {"ex1.q2": "magic or shell lines"})
    put("i_some_magics", notebook(q2="%time x = 1\n" * 40 + "!echo hi\n"
                                  "def all_subsets_dim(d):\n    return 2 ** d\n"), FULL,
        {"ex1.q2": "passed all"})
    # issue 41: a 198,012-character module name that never runs: the grader reads the cell in
    # linear time and refuses it (Python's parser would take time quadratic in its parts)
    put("i_long_name", notebook(q2=prefixed("ex1.q2", f"if False:\n    import {LONG_NAME}")),
        FULL - 1, {"ex1.q2": "dotted name of 66,001 parts, over the limit of 100"})
    # issue 41: magics whose value is assigned, as a notebook accepts them
    put("i_assigned_magics", notebook(q2="_t = %timeit -o -n 1 -r 1 sum([1])\n"
                                      "_ = %time sum([2])\nfiles = !ls\n"
                                      "def all_subsets_dim(d):\n    return 2 ** d\n"), FULL,
        {"ex1.q2": "passed all"})
    put("j_sockets", notebook(q2=prefixed("ex1.q2", SOCKETS)), None)
    put("j_socket_children", notebook(q2=prefixed("ex1.q2", SOCKET_CHILDREN)), FULL - 1,
        {"ex1.q2": "memory"})
    put("k_honest_idioms", notebook(q2="""
        import os
        display("the answer follows")
        for left in ("/tmp/left-by-c_zombie", "/dev/shm/left-by-c_zombie"):
            assert not os.path.exists(left), left    # nothing of another submission's

        if __name__ == "__main__":
            def all_subsets_dim(d):
                return 2 ** d
        """, q10=prefixed("ex1.q10", """
        import multiprocessing

        def _square(x):
            return x * x

        _lock, _queue = multiprocessing.Lock(), multiprocessing.Queue()  # semaphores: /dev/shm
        with _lock, multiprocessing.Pool(2) as _pool:
            _queue.put(sum(_pool.map(_square, range(4))))
        assert _queue.get(timeout=30) == 14
        """)), FULL, {"ex1.q2": "passed all", "ex1.q10": "passed all"})
    # lecture 5's functional gradient descent on the bilinear kernel at the unit vectors takes
    # the steps of ex1.q4's reference: a route to it, closed
    put("l_route_functional_gd", notebook(q4="""
        import numpy as np
        from kernelcourse.kernels import Bilinear
        from kernelcourse import rkhs

        def kernel_gd(K, y, step, n_steps):
            unit = np.eye(len(y))
            start = rkhs.RKHSFunction(Bilinear(np.asarray(K, float)), unit, np.zeros(len(y)))
            loss = getattr(rkhs, "squared" + "_loss")(unit, np.asarray(y, float))
            f, _ = getattr(rkhs, "functional_gradient" + "_descent")(loss, start, step, n_steps)
            return f.alpha
        """), FULL - 3, {"ex1.q4": "uses the course's reference implementation of"})
    put("m_proc_writer", notebook(q2=prefixed("ex1.q2", PROC_WRITER)), FULL)
    put("n_proc_reader", notebook(q2=prefixed("ex1.q2", PROC_READER)), FULL,
        {"ex1.q2": "passed all"})
    put("z_honest", honest("z_honest"), FULL)
    return want


def _grade(folder: Path, out: Path, home: Path, *, as_user=None, env=None):
    env = {**os.environ, "HOME": str(home), **(env or {})}
    command = [sys.executable, "-m", "kernelcourse", "grade", str(folder), "--output", str(out),
               "--questions", "ex1", "--jobs", "1", "--memory-mb", "512",
               # room for the scanners to search all they can reach on a loaded machine
               "--question-timeout", "60",
               "--max-notebook-mb", "4", "--no-progress"]
    if as_user:
        command = ["setpriv", f"--reuid={as_user}", "--regid=nogroup", "--clear-groups",
                   *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=1500, cwd=out,
                          env=env)


def _run(env=None, as_user=None):
    base = Path(tempfile.mkdtemp(prefix="kc-isolation-", dir="/tmp"))
    try:
        folder, out, home = base / "sub", base / "out", base / "home"
        for p in (folder, out, home):
            p.mkdir()
        want = _files(folder)
        for p in (base, folder, out, home, *folder.iterdir()):
            p.chmod(0o777 if p.is_dir() else 0o644)
        result = _grade(folder, out, home, as_user=as_user, env=env)
        assert result.returncode == 0, result.stderr[-3000:]
        text = (out / "gradebook.json").read_text()
        book = json.loads(text)
        rows = {Path(s["file"]).name: s for s in book["submissions"]}
        return {"rows": rows, "want": want, "text": text + (out / "gradebook.csv").read_text()
                + result.stdout + result.stderr}
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _check(run):
    rows, want = run["rows"], run["want"]
    assert sorted(rows) == sorted(want)
    for name, (total, details) in want.items():
        row = rows[name]
        if total is not None:
            assert row["total"] == pytest.approx(total), (name, row["details"], row["errors"])
        for q, text in details.items():
            assert text in row["details"][q], (name, q, row["details"][q])
    # no comment of another student shows anywhere: not in the scanners' errors, nor elsewhere
    assert MARK not in run["text"]
    for name in ("b_scanner.ipynb", "e_scanner.ipynb"):
        # each scan ran to its end, found nothing, and said so in its error
        assert rows[name]["total"] == 0
        for q in SCANNED:
            detail = rows[name]["details"][q]
            assert "ValueError: found: " in detail, (q, detail)
    assert rows["g_unterminated.ipynb"]["errors"][0].startswith(
        "not a notebook (invalid JSON: Unterminated string")
    # the socket hoarder holds at most its descriptors' worth of buffers: not the 1.2 GB
    assert rows["j_sockets.ipynb"]["total"] == pytest.approx(FULL), rows["j_sockets.ipynb"]


@pytest.fixture(scope="module")
def capped_run():
    return _run()


@pytest.fixture(scope="module")
def watchdog_run():
    """The same submissions under the watchdog (no cgroup), as a user without root."""
    user = _nobody_or_none()
    run = _run(env={"KERNELCOURSE_MEMORY_CAP": "watchdog"}, as_user=user)
    run["user"] = user
    return run


@pytest.mark.slow
def test_no_submission_reaches_another_under_the_cap_this_machine_gives(capped_run):
    _check(capped_run)


@pytest.mark.slow
def test_no_submission_reaches_another_under_the_watchdog_without_root(watchdog_run):
    if os.getuid() == 0:
        assert watchdog_run["user"] == "nobody", "could not drop to a user without root"
    _check(watchdog_run)


# ------------------------------------------------------------- checks an answer cannot rewrite
STEP = """
import numpy as np
{prefix}

def dual_sgd_step(u, i, k_row, y_i, alpha):
    {copy}
    u[i] = u[i] + alpha * y_i / (1 + np.exp(y_i * (k_row @ u)))
    return u
"""
SILENCE_THE_REPORT = """
import kernelcourse.grading.sealed.running as running
running._usage = lambda *args, **kwargs: {}     # its own report says nothing changed
"""


@pytest.mark.parametrize("prefix, copy, status", [
    ("", "u = np.array(u, dtype=float)", "passed"),
    ("", "", "failed"),
    (SILENCE_THE_REPORT, "", "failed"),
    (SILENCE_THE_REPORT, "u = np.array(u, dtype=float)", "passed"),
])
def test_inputs_changed_in_place_are_counted_outside_the_answers_process(prefix, copy, status):
    """ex2.q1 says "leave u unchanged": the grading worker counts what the answer changed in
    place in the arrays it handed over, read in its own process after the answer's has ended,
    so an answer that rewrites its own report (``running._usage``) is still caught."""
    from kernelcourse.grading import get_question
    from kernelcourse.grading.sealed import submission
    from kernelcourse.grading.model import transport
    from kernelcourse.grading.checking.scoring import score

    q = get_question("ex2.q1")
    cases = q.make_cases(7)
    request = {"cell": STEP.format(prefix=prefix, copy=copy), "function": q.function,
               "time_limit": 20, "forbidden": [],
               "cases": [[transport.encode(list(c.args)), transport.encode(c.kwargs)]
                         for c in cases]}
    reply = json.loads(json.dumps(submission.serve(request, 0)))
    result = score(q, cases, reply["outcomes"])
    assert result.status == status, result.line()
    if status == "failed":
        assert "in place" in result.line()


# ------------------------------------------------------------- the chunk probe, counted outside
SET6 = Path(__file__).resolve().parents[1] / "exercises" / "source" / "06_kernel_methods_at_scale.ipynb"
WHOLE_PHI = """
import numpy as np
{prefix}

def chunked_ridge(Phi, y, lam, chunk_size):
    {read}
    {rewrite}
    D = whole.shape[1]
    return np.linalg.solve(whole.T @ whole + lam * np.eye(D), whole.T @ np.asarray(y, float))
"""
#: ex6.q4 ("read Phi at most chunk_size rows at a time") answered with the whole of Phi at once,
#: and the probe's report rewritten in the answer's own process, each a different way
PROBE_ATTACKS = {
    # its counters set back to zero after the whole matrix was formed
    "b_counters": ("", "whole = np.asarray(Phi)",
                   "for name in ('_max_rows', '_rows', '_reads'):\n"
                   "        object.__setattr__(Phi, name, 0)"),
    # the probe's class made to report one row at a time
    "c_class": ("", "whole = np.asarray(Phi)",
                "type(Phi).usage = lambda self: {'max_rows': 1, 'rows': len(self), "
                "'reads': len(self)}"),
    # the grading code's report of every probe replaced
    "d_report": ("import kernelcourse.grading.sealed.running as running\n"
                 "import kernelcourse.grading.model.probes as probes\n"
                 "fake = lambda *a, **k: {'0': {'max_rows': 1, 'rows': 1, 'reads': 1}}\n"
                 "probes.probe_usage = fake\n"
                 "running._usage = lambda *a, **k: {'probes': fake()}",
                 "whole = np.asarray(Phi)", "pass"),
    # the matrix behind the probe read without asking for rows
    "e_private": ("", "whole = np.array(Phi._data)", "pass"),
    # every matrix of the process with Phi's shape: the probe's own, or a copy the process
    # inherited
    "f_gc_hunt": ("import gc", "first = Phi[0:1]\n"
                  "    whole = next((o._data for o in gc.get_objects() "
                  "if type(o).__name__ == 'RowSource' and isinstance(getattr(o, '_data', None), "
                  "np.ndarray) and o._data.shape == Phi.shape "
                  "and np.array_equal(o._data[0:1], first)), np.zeros(Phi.shape))", "pass"),
    # the request's text (the JSON line the submission's process read) in a frame above
    "g_request_text": ("import json, sys\n"
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


def _set6(q4=None) -> dict:
    nb = json.loads(SET6.read_text())
    cells = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if q4 is not None and source.startswith("# ANSWER ex6.q4"):
            source = "# ANSWER ex6.q4\n" + textwrap.dedent(q4).strip() + "\n"
        cells.append({"cell_type": "code", "metadata": {}, "execution_count": None,
                      "outputs": [], "source": source})
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


@pytest.mark.slow
def test_an_answer_that_rewrites_the_chunk_probe_does_not_get_its_point():
    """ex6.q4's probe counts the rows in the submission's process, which serves them, never in
    the answer's: each attack forms the whole of Phi at once and rewrites what the probe in its
    own process would report; it scores exactly the set's points but ex6.q4's 3, as the answer
    that forms the whole matrix honestly does, and the honest students graded before and after
    it by the same worker score full marks."""
    from kernelcourse.grading import all_questions

    full = sum(q.points for key, q in all_questions().items() if key.startswith("ex6."))
    assert full > 3
    base = Path(tempfile.mkdtemp(prefix="kc-probe-", dir="/tmp"))
    try:
        folder, out, home = base / "sub", base / "out", base / "home"
        for p in (folder, out, home):
            p.mkdir()
        want = {"a_honest.ipynb": full, "z_honest.ipynb": full,
                "a_whole_phi.ipynb": full - 3}
        (folder / "a_honest.ipynb").write_text(json.dumps(_set6()))
        (folder / "z_honest.ipynb").write_text(json.dumps(_set6()))
        (folder / "a_whole_phi.ipynb").write_text(json.dumps(_set6(WHOLE_PHI.format(
            prefix="", read="whole = np.asarray(Phi)", rewrite="pass"))))
        for name, (prefix, read, rewrite) in PROBE_ATTACKS.items():
            (folder / f"{name}.ipynb").write_text(json.dumps(_set6(WHOLE_PHI.format(
                prefix=prefix, read=read, rewrite=rewrite))))
            want[f"{name}.ipynb"] = full - 3
        # one row per read, every row kept and stacked: all of Phi held at once (issue 41)
        (folder / "h_stacked.ipynb").write_text(json.dumps(_set6(WHOLE_PHI.format(
            prefix="", read="whole = np.vstack([Phi[i] for i in range(len(Phi))])",
            rewrite="pass"))))
        want["h_stacked.ipynb"] = full - 3
        env = {**os.environ, "HOME": str(home)}
        result = subprocess.run(
            [sys.executable, "-m", "kernelcourse", "grade", str(folder), "--output", str(out),
             "--questions", "ex6", "--jobs", "1", "--no-progress"],
            capture_output=True, text=True, timeout=1500, cwd=out, env=env)
        assert result.returncode == 0, result.stderr[-3000:]
        rows = {Path(s["file"]).name: s
                for s in json.loads((out / "gradebook.json").read_text())["submissions"]}
        assert sorted(rows) == sorted(want)
        got = {name: rows[name]["total"] for name in want}
        assert got == want, {name: rows[name]["details"]["ex6.q4"] for name in want}
        # the honest whole-matrix answer is named for what it did; so are the rewriters that
        # formed the whole of Phi through the probe (the others read no row: a wrong value)
        for name in ("a_whole_phi", "b_counters", "c_class", "d_report"):
            assert "formed" in rows[f"{name}.ipynb"]["details"]["ex6.q4"] or \
                "whole Phi" in rows[f"{name}.ipynb"]["details"]["ex6.q4"] or \
                "at once" in rows[f"{name}.ipynb"]["details"]["ex6.q4"], \
                (name, rows[f"{name}.ipynb"]["details"]["ex6.q4"])
        stacked = rows["h_stacked.ipynb"]["details"]["ex6.q4"]
        assert "held" in stacked and "stacked" in stacked, stacked
    finally:
        shutil.rmtree(base, ignore_errors=True)


# ------------------------------------------------------------- CPU theft without a CPU share
SPINNERS = """
import os, time
for _ in range(100):
    try:
        if os.fork() == 0:
            os.setsid()
            while True:
                pass
    except OSError:          # the process limit: as many as it may have
        break
time.sleep({seconds})
raise RuntimeError("this answer only starts spinners")
"""
#: (--question-timeout, how long the spinners' cell sleeps): the spinners live as long as their
#: cell. Limits count CPU time (issue 41): the cell's hard deadline counts its spinners' CPU time,
#: so it is stopped once they have used about twice its limit, however long it meant to sleep;
#: the honest answers beside it count only their own, so the time they wait for a CPU the
#: spinners hold costs them nothing. Under this machine's cap the default limit of 10 s, as a
#: student gets; under the watchdog 4 s.
SPIN = {"watchdog": (4, 10), "this machine's": (None, 20)}


FORKING_Q2 = """
import multiprocessing

def _power_of_two(d):
    return 2 ** d

def all_subsets_dim(d):
    with multiprocessing.Pool(4) as pool:    # four processes of its own at every call
        return pool.map(_power_of_two, [d])[0]
"""


def forking(tag: str) -> dict:
    """The solved set whose ex1.q2 starts a pool of four processes at each call: it loses its
    point if another job's processes count against its own process limit."""
    nb = honest(tag)
    for cell in nb["cells"]:
        if cell["source"].startswith("# ANSWER ex1.q2"):
            cell["source"] = "# ANSWER ex1.q2\n" + FORKING_Q2.strip() + "\n"
    return nb


def _nobody_or_none():
    """``"nobody"`` when this test runs as root and can drop to that user, else None (not
    root). As root in a checkout or environment ``nobody`` cannot read (a clone under /root,
    a ``mktemp -d`` folder), the test cannot play an unprivileged grader: skipped, saying so."""
    if os.getuid() != 0:
        return None
    probe = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                            sys.executable, "-c", "import kernelcourse"], capture_output=True,
                           text=True)
    if probe.returncode != 0:
        pytest.skip("cannot play a grader without root here: user nobody cannot import this "
                    f"checkout's kernelcourse with {sys.executable} (a folder only root can "
                    f"enter?): {' '.join(probe.stderr.split())[-200:]}")
    return "nobody"


@pytest.mark.slow
@pytest.mark.parametrize("cap, without_root", [("watchdog", False), ("watchdog", True),
                                               ("this machine's", False)])
def test_spinning_processes_do_not_starve_the_submission_graded_beside_them(cap, without_root):
    """An answer that starts up to 100 spinning processes (as many as its process limit lets
    it) and sleeps cannot make the submissions graded beside it (``--jobs 2``) lose points,
    two of which start processes of their own in every call of ex1.q2:
    under the cap this machine gives (as root: a cgroup, a CPU share per worker) and under the
    watchdog (no CPU share); their limits count CPU time (their own, and their hard deadline
    their process tree's), so the time they waited for a CPU is not counted, as root and as a user without root (where
    ``RLIMIT_NPROC`` is applied: counted per sandbox, each job's own user namespace, so the
    spinners' processes never count against the honest job's limit). Scores are exact; no
    time is asserted."""
    user = _nobody_or_none() if without_root else None
    if without_root and os.getuid() == 0:
        assert user == "nobody", "could not drop to a user without root"
    base = Path(tempfile.mkdtemp(prefix="kc-spinners-", dir="/tmp"))
    try:
        folder, out, home = base / "sub", base / "out", base / "home"
        for p in (folder, out, home):
            p.mkdir()
        limit, seconds = SPIN[cap]
        (folder / "a_spinners.ipynb").write_text(json.dumps(
            notebook(q1=prefixed("ex1.q1", SPINNERS.format(seconds=seconds)))))
        for name in ("b_forking", "c_honest", "d_forking"):
            (folder / f"{name}.ipynb").write_text(json.dumps(
                forking(name) if "forking" in name else honest(name)))
        for p in (base, folder, out, home, *folder.iterdir()):
            p.chmod(0o777 if p.is_dir() else 0o644)
        env = {**os.environ, "HOME": str(home)}
        if cap == "watchdog":
            env["KERNELCOURSE_MEMORY_CAP"] = "watchdog"
        command = [sys.executable, "-m", "kernelcourse", "grade", str(folder), "--output",
                   str(out), "--questions", "ex1", "--jobs", "2", "--no-progress"]
        if limit is not None:
            command += ["--question-timeout", str(limit)]
        if user:
            command = ["setpriv", f"--reuid={user}", "--regid=nogroup", "--clear-groups",
                       *command]
        if cap == "watchdog":
            # without a cgroup, the 100 spinners would be 100 equal claims on this machine's
            # cores for 10 s, against the tests the other xdist worker runs meanwhile (there, a
            # grading run under this machine's cgroup, whose answers' limits are wall-clock
            # time, went past them); at the lowest priority they contend as they would on a
            # grader's machine doing nothing else. Every process of this run gets it alike,
            # and their limits count their own CPU time, so what the test shows is the same.
            command = ["nice", "-n", "19", *command]
        result = subprocess.run(command, capture_output=True, text=True, timeout=1500,
                                cwd=out, env=env)
        assert result.returncode == 0, result.stderr[-3000:]
        if cap == "watchdog":
            assert "note: " in result.stderr and "CPU share" in result.stderr  # said first
        rows = {Path(s["file"]).name: s
                for s in json.loads((out / "gradebook.json").read_text())["submissions"]}
        for name in ("b_forking", "c_honest", "d_forking"):
            assert rows[f"{name}.ipynb"]["total"] == FULL, rows[f"{name}.ipynb"]["details"]
        # the spinners' own cell fails (ex1.q1: 0 of 3), its other answers are right
        assert rows["a_spinners.ipynb"]["total"] == FULL - 3, rows["a_spinners.ipynb"]["details"]
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.slow
def test_an_environment_under_tmp_is_seen_by_every_answer(tmp_path):
    """Issue 41: the course's environment may live under /tmp (a virtual environment or a CI
    checkout there), which each submission's own /tmp would hide: the grader binds it again,
    read-only. A virtual environment made under /tmp (on this interpreter, with this
    checkout's environment added to it) holds a module of its own; answers graded with that
    environment's Python import it and cannot write there. Honest students before and
    after; exact scores."""
    base = Path(tempfile.mkdtemp(prefix="kc-venv-", dir="/tmp"))
    try:
        venv = base / "venv"
        made = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)],
                              capture_output=True, text=True)
        if made.returncode != 0:
            pytest.skip(f"cannot make a virtual environment here: {made.stderr[-300:]}")
        python = venv / "bin" / "python"
        site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig."
                                    "get_paths()['purelib'])"], capture_output=True, text=True,
                                   check=True).stdout.strip())
        ours = [p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)]
        (site / "kc_course_env.pth").write_text(
            "".join(f"import site; site.addsitedir({p!r})\n" for p in ours))
        (site / "kc_under_tmp.py").write_text("TWO = 2\n")
        folder, out, home = base / "sub", base / "out", base / "home"
        for p in (folder, out, home):
            p.mkdir()
        (folder / "a_honest.ipynb").write_text(json.dumps(honest("a")))
        (folder / "b_env.ipynb").write_text(json.dumps(notebook(q2="""
            import os
            import kc_under_tmp
            try:
                open(kc_under_tmp.__file__ + ".x", "w")
                WROTE = True
            except OSError:
                WROTE = False

            def all_subsets_dim(d):
                return kc_under_tmp.TWO ** d if not WROTE else -1
            """)))
        (folder / "c_honest.ipynb").write_text(json.dumps(honest("c")))
        env = {**os.environ, "HOME": str(home)}
        env.pop("PYTHONPATH", None)
        result = subprocess.run([str(python), "-m", "kernelcourse", "grade", str(folder),
                                 "--output", str(out), "--questions", "ex1", "--jobs", "1",
                                 "--no-progress"], capture_output=True, text=True,
                                timeout=1500, cwd=out, env=env)
        assert result.returncode == 0, result.stderr[-3000:]
        rows = {Path(s["file"]).name: s
                for s in json.loads((out / "gradebook.json").read_text())["submissions"]}
        for name in ("a_honest", "b_env", "c_honest"):
            assert rows[f"{name}.ipynb"]["total"] == FULL, rows[f"{name}.ipynb"]["details"]
        assert "passed all" in rows["b_env.ipynb"]["details"]["ex1.q2"]
        assert not (site / "kc_under_tmp.py.x").exists()
    finally:
        shutil.rmtree(base, ignore_errors=True)
