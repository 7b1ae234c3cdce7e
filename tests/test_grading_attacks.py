"""Attacks on the sealed grader (`kernelcourse grade`): each a submission built here from the
solved exercise set 1 (22/22) with one answer cell replaced by the attack, graded through the
real command in the real sandbox. Each attack scores exactly what its honest answers earn, and
nothing outside the sandbox changes: not the other submissions, not the grading user's home, not
/tmp, not the package, not the gradebook once the command has returned."""
import csv
import glob
import hashlib
import json
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "exercises" / "source" / "01_feature_expansions_and_the_kernel_trick.ipynb"
PACKAGE = ROOT / "kernelcourse"
TOKEN = f"kcattack{os.getpid()}"
SECRET = f"SECRET-{os.getpid()}-do-not-leak"
POINTS = {"ex1.q1": 3, "ex1.q2": 1, "ex1.q3": 2, "ex1.q4": 3, "ex1.q5": 2, "ex1.q6": 2,
          "ex1.q7": 2, "ex1.q8": 2, "ex1.q9": 2, "ex1.q10": 1, "ex1.q11": 2}
FULL = sum(POINTS.values())  # 22


def _answers() -> dict[str, str]:
    nb = json.loads(SOURCE.read_text())
    found = {}
    for cell in nb["cells"]:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and source.startswith("# ANSWER "):
            found[source.split("\n", 1)[0].split()[-1]] = source
    return found


ANSWERS = _answers()
LOOKALIKES = ("z_victim.ipynb", "z_\u200bvictim.ipynb", "z_victim\u200f.ipynb")


def notebook(**cells) -> dict:
    """The solved set with answer cells replaced: ``q2="..."`` is the body of ex1.q2's cell
    (its ``# ANSWER`` line is added); ``extra=[...]`` appends whole cells."""
    sources = dict(ANSWERS)
    for key, body in cells.items():
        if key != "extra":
            sources[f"ex1.{key}"] = f"# ANSWER ex1.{key}\n" + textwrap.dedent(body).strip() + "\n"
    code = list(sources.values()) + list(cells.get("extra", []))
    return {"cells": [{"cell_type": "code", "metadata": {}, "execution_count": None,
                       "outputs": [], "source": s} for s in code],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def q2_only_if_it_fails(attempt: str) -> str:
    """ex1.q2 that answers right only when ``attempt`` raises (the attack was stopped)."""
    return ("import os, sys, socket, glob\n\ndef all_subsets_dim(d):\n    try:\n"
            + textwrap.indent(textwrap.dedent(attempt).strip(), " " * 8)
            + "\n    except BaseException:\n        return 2 ** d\n    return -1\n")


def prefixed(question: str, prefix: str) -> str:
    """The right answer to ``question`` with ``prefix`` run before it in the cell."""
    return textwrap.dedent(prefix).strip() + "\n" + ANSWERS[question].split("\n", 1)[1]


def q1_shortcut(body: str) -> str:
    """ex1.q1 answered by the course's own all-subsets map, reached by ``body`` (which binds
    ``shortcut``)."""
    return ("import numpy as np\n" + textwrap.dedent(body).strip()
            + "\n\ndef all_subsets_features(X):\n"
              "    return shortcut(np.asarray(X, dtype=float))\n")


def raw_cells(**cells) -> dict:
    """The solved set with answer cells replaced by the exact text given (no marker added)."""
    nb = notebook()
    for key, text in cells.items():
        for cell in nb["cells"]:
            if cell["source"].startswith(f"# ANSWER ex1.{key}\n"):
                cell["source"] = text
    return nb


def version_3(nb: dict) -> dict:
    """The same notebook in nbformat 3 (cells in a worksheet, code in ``input``)."""
    cells = [{"cell_type": "code", "input": c["source"], "language": "python", "outputs": [],
              "collapsed": False, "metadata": {}} for c in nb["cells"]]
    return {"nbformat": 3, "nbformat_minor": 0, "metadata": {"name": ""},
            "worksheets": [{"cells": cells, "metadata": {}}]}


def seed_table_answer(seed: int) -> str:
    """ex1.q5 answered by a table of the reference's outputs for the cases of ``seed``."""
    from kernelcourse.grading import get_question
    from kernelcourse.grading.command.grader import _question_seed

    q = get_question("ex1.q5")
    table = {}
    for case in q.make_cases(_question_seed(seed, q.id)):
        X, Z, gamma = case.args
        key = repr((np.round(X, 8).tolist(), np.round(Z, 8).tolist(), float(gamma)))
        table[key] = np.asarray(q.reference(*case.args)).tolist()
    return ("import numpy as np\n"
            f"TABLE = {table!r}\n\n"
            "def rbf_gram(X, Z, gamma):\n"
            "    key = repr((np.round(np.asarray(X, float), 8).tolist(),\n"
            "                np.round(np.asarray(Z, float), 8).tolist(), float(gamma)))\n"
            "    return np.array(TABLE[key])\n")


# -------------------------------------------------------------------------- the attacks
def attacks(paths: dict) -> dict:
    """name -> (notebook, total it must score, {question: text its detail must contain})."""
    home, out, tmp_mark, port = paths["home"], paths["out"], paths["tmp_mark"], paths["port"]
    other, init = paths["other"], str(PACKAGE / "features.py")
    late = "/tmp/late-" + TOKEN
    full = "passed all"
    a = {}

    # --- writing outside the sandbox (the answers stay right: files are checked afterwards)
    for name, target in (("write_home", f"{home}/{TOKEN}"),
                         ("write_real_home", os.path.expanduser(f"~/{TOKEN}")),
                         ("write_package", str(PACKAGE / f"{TOKEN}.py")),
                         ("write_gradebook", f"{out}/gradebook.csv"),
                         ("write_gradebook_dir", f"{out}/{TOKEN}"),
                         ("write_submissions", f"{paths['sub']}/{TOKEN}.ipynb")):
        a[name] = (notebook(q2=q2_only_if_it_fails(f"open({target!r}, 'w').write('pwned')")),
                   FULL, {"ex1.q2": full})
    a["write_tmp"] = (notebook(q2=prefixed("ex1.q2", f"""
        try:
            open({tmp_mark!r}, "w").write("only in the sandbox's own /tmp")
        except OSError:
            pass
        """)), FULL, {"ex1.q2": full})
    a["append_package_source"] = (notebook(q2=q2_only_if_it_fails(
        f"open({init!r}, 'a').write('\\nPWNED = 1\\n')")), FULL, {"ex1.q2": full})
    a["pth_file"] = (notebook(q2=q2_only_if_it_fails(
        "import sysconfig\n"
        f"open(sysconfig.get_paths()['purelib'] + '/{TOKEN}.pth', 'w')"
        ".write('import os; os.system(\"touch /tmp/pth\")\\n')")), FULL, {"ex1.q2": full})
    a["chmod_package"] = (notebook(q2=q2_only_if_it_fails(f"os.chmod({init!r}, 0o777)")),
                          FULL, {"ex1.q2": full})

    # --- reading another submission and the host
    a["read_other"] = (notebook(q2=q2_only_if_it_fails(f"open({other!r}).read()")), FULL,
                       {"ex1.q2": full})
    a["list_submissions"] = (notebook(q2=q2_only_if_it_fails(
        f"assert os.listdir({paths['sub']!r})")), FULL, {"ex1.q2": full})
    real = sorted(p for p in Path.home().iterdir() if p.is_file())[:1] or [Path.home() / ".x"]
    a["read_real_home"] = (notebook(q2=q2_only_if_it_fails(
        f"open({str(real[0])!r}).read()")), FULL, {"ex1.q2": full})
    a["glob_for_secret"] = (notebook(q2=q2_only_if_it_fails(
        "hits = [p for p in glob.glob('/*/*/*.ipynb') + glob.glob('/tmp/*/*.ipynb')]\n"
        "assert hits")), FULL, {"ex1.q2": full})

    # --- the network
    a["socket_localhost"] = (notebook(q2=q2_only_if_it_fails(
        f"socket.create_connection(('127.0.0.1', {port}), timeout=1).sendall(b'{TOKEN}')")),
        FULL, {"ex1.q2": full})

    # --- the grader's modules and the reply channel
    a["replace_sys_modules"] = (notebook(q1="""
        import sys, types
        import numpy as np
        fake = types.ModuleType("kernelcourse.grading.model")
        fake.run_answer = lambda func, cases, seconds: [{"kind": "value", "value": 0}] * 99
        for name in list(sys.modules):
            if name.startswith("kernelcourse.grading"):
                sys.modules[name] = fake
        import kernelcourse.grading.model as core
        core.score = lambda *a, **k: None

        def all_subsets_features(X):
            return np.zeros((1, 1))
        """), FULL - 3, {"ex1.q1": "0/3 points"})
    forged = json.dumps({"id": 0, "outcomes": [{"kind": "value", "value": 1}] * 4,
                         "uses": []})
    a["forge_fd1"] = (notebook(q2=f"""
        import os
        line = {(forged + chr(10)).encode()!r}
        for fd in range(0, 64):
            for i in range(40):
                try:
                    os.write(fd, line.replace(b'"id": 0', b'"id": %d' % i))
                except OSError:
                    pass

        def all_subsets_dim(d):
            return -1
        """), FULL - 1, {"ex1.q2": "0/1 points"})
    a["forge_proc_fds"] = (notebook(q2=f"""
        import os
        for pid in [os.getppid(), 1, 2, 3]:
            for fd in range(0, 32):
                try:
                    with open(f"/proc/{{pid}}/fd/{{fd}}", "w") as f:
                        f.write({(forged + chr(10))!r})
                except OSError:
                    pass

        def all_subsets_dim(d):
            return -1
        """), FULL - 1, {"ex1.q2": "0/1 points"})
    a["proc_fd_listing"] = (notebook(q2=q2_only_if_it_fails(
        "open(f'/proc/{os.getppid()}/fd/0', 'rb').read(1)")), FULL, {"ex1.q2": full})
    a["proc_mem"] = (notebook(q2=q2_only_if_it_fails(
        "f = open(f'/proc/{os.getppid()}/mem', 'rb')\nf.seek(0x400000)\nf.read(16)")), FULL,
        {"ex1.q2": full})
    a["proc_environ"] = (notebook(q2=q2_only_if_it_fails(
        "open(f'/proc/{os.getppid()}/environ', 'rb').read()")), FULL, {"ex1.q2": full})
    a["ptrace_ctypes"] = (notebook(q2=q2_only_if_it_fails(
        "import ctypes\nlibc = ctypes.CDLL(None)\n"
        "assert libc.ptrace(16, os.getppid(), 0, 0) == 0")), FULL, {"ex1.q2": full})
    a["exec_shell"] = (notebook(q2=q2_only_if_it_fails(
        "import subprocess\nsubprocess.run(['/bin/true'], check=True)")), FULL, {"ex1.q2": full})
    a["os_execv_raw"] = (notebook(q2=q2_only_if_it_fails(
        "import posix\nif os.fork() == 0:\n    try:\n        posix.execv('/bin/true', ['true'])\n"
        "    finally:\n        os._exit(3)\n"
        "pid, status = os.wait()\nassert status == 0")), FULL, {"ex1.q2": full})

    # --- processes that outlive their answer
    a["late_writer"] = (notebook(q1=prefixed("ex1.q1", """
        import os, time
        import numpy as np
        if os.fork() == 0:
            os.setsid()
            os.closerange(0, 4096)
            time.sleep(0.8)
            open(%r, "w").write("late")
            os._exit(0)
        """ % late), q2=f"""
        import os, time
        time.sleep(1.2)  # once, in the cell: past the late writer's 0.8 s

        def all_subsets_dim(d):
            return -1 if os.path.exists({late!r}) else 2 ** d
        """), FULL, {"ex1.q2": full})
    a["fork_keeps_running"] = (notebook(q3=prefixed("ex1.q3", """
        import os
        import numpy as np
        if os.fork() == 0:
            os.setsid()
            os.closerange(0, 4096)
            while True:
                pass
        """)), FULL, {"ex1.q3": "passed all"})
    # a stray process that keeps every inherited descriptor (the reply pipe too) open: the
    # answer's own process has replied and exited, so the answer counts, without waiting
    a["fork_holds_the_reply_pipe"] = (notebook(q3=prefixed("ex1.q3", """
        import os, time
        import numpy as np
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        """)), FULL, {"ex1.q3": "passed all"})
    a["signals_the_next"] = (notebook(q3=prefixed("ex1.q3", """
        import os, signal, time
        import numpy as np
        if os.fork() == 0:
            os.setsid()
            os.closerange(0, 4096)
            time.sleep(0.3)
            for _ in range(400):
                for pid in range(2, 200):
                    if pid != os.getpid():
                        try:
                            os.kill(pid, signal.SIGSTOP)
                        except OSError:
                            pass
                time.sleep(0.01)
            os._exit(0)
        """)), FULL, {"ex1.q4": "passed all", "ex1.q5": "passed all"})
    a["detached_gradebook_rewriter"] = (notebook(q4=prefixed("ex1.q4", f"""
        import os, time
        import numpy as np
        if os.fork() == 0:
            os.setsid()
            os.closerange(0, 4096)
            if os.fork() == 0:
                time.sleep(3)
                for path in ({out + '/gradebook.csv'!r}, {out + '/gradebook.json'!r}):
                    try:
                        open(path, "w").write("rewritten")
                    except OSError:
                        pass
            os._exit(0)
        """)), FULL, {"ex1.q4": "passed all"})
    a["fork_bomb_memory"] = (notebook(q6=prefixed("ex1.q6", """
        import os
        import numpy as np
        children = []
        for _ in range(3):
            pid = os.fork()
            if pid == 0:
                try:
                    blocks = [np.ones(20 * 1024 * 1024 // 8) for _ in range(15)]
                    import time
                    time.sleep(3)
                finally:
                    os._exit(0)
            children.append(pid)
        for pid in children:
            os.waitpid(pid, 0)
        """)), FULL - 2, {"ex1.q6": "0/2 points"})

    # --- replies that try the parent
    a["deep_reply"] = (notebook(q2="""
        def all_subsets_dim(d):
            x = 2 ** d
            for _ in range(990):
                x = [x]
            return x
        """), FULL - 1, {"ex1.q2": "0/1 points"})
    a["ansi_and_rows"] = (notebook(q2="""
        def all_subsets_dim(d):
            raise ValueError("\\x1b[2J\\x1b[31mRED\\r\\nfake.ipynb,15,15,15\\n\\u202eevil\\x00")
        """), FULL - 1, {"ex1.q2": "\\x1b[2J"})
    a["ansi_in_cell"] = (notebook(q7="""
        raise RuntimeError("\\x1b]0;title\\x07\\nforged.ipynb,2,2\\r")
        """), FULL - 2, {"ex1.q7": "\\x1b]0;title\\x07"})
    a["lying_eq_object"] = (notebook(q2="""
        class Liar:
            def __eq__(self, other):
                return True
            __hash__ = object.__hash__
            def __float__(self):
                return 0.0
            def __int__(self):
                return 0
            def __index__(self):
                return 0

        def all_subsets_dim(d):
            return Liar()
        """), FULL - 1, {"ex1.q2": "0/1 points"})
    a["lying_float_subclass"] = (notebook(q2="""
        class F(float):
            def __eq__(self, other):
                return True
            def __float__(self):
                return 1e9
            __hash__ = float.__hash__

        def all_subsets_dim(d):
            return F(-1.0)
        """), FULL - 1, {"ex1.q2": "0/1 points"})
    a["lying_ndarray_subclass"] = (notebook(q1="""
        import numpy as np

        class A(np.ndarray):
            def __eq__(self, other):
                return np.ones(np.shape(other), dtype=bool)
            def __array__(self, dtype=None, copy=None):
                raise RuntimeError("no")
            def tolist(self):
                return [[1.0]]

        def all_subsets_features(X):
            return np.zeros((len(X), 3)).view(A)
        """), FULL - 3, {"ex1.q1": "0/3 points"})
    a["lying_array_protocol"] = (notebook(q7="""
        import numpy as np

        class Witness:
            calls = 0
            def __array__(self, dtype=None, copy=None):
                Witness.calls += 1
                return np.zeros(3) if Witness.calls > 1 else np.ones(3)
            def __len__(self):
                return 3
            def __iter__(self):
                return iter([0.0, 0.0, 0.0])

        def negative_direction(K):
            return Witness()
        """), FULL - 2, {"ex1.q7": "0/2 points"})
    a["bool_subclass"] = (notebook(q6="""
        import numpy as np

        class Yes(int):
            def __eq__(self, other):
                return True
            def __bool__(self):
                return True
            __hash__ = int.__hash__

        def is_kernel_matrix(K):
            return Yes(7)
        """), FULL - 2, {"ex1.q6": "0/2 points"})

    # --- issue 20, item 1: the sandbox's PID 1 (once bubblewrap's init) and the grader's env
    for name, attempt in (
            ("pid1_reads_the_requests", "open('/proc/1/fd/0', 'rb').read(1)"),
            ("pid1_writes_the_replies", "open('/proc/1/fd/1', 'wb').write(b'{}\\n')"),
            ("pid1_memory", "open('/proc/1/mem', 'r+b').read(1)"),
            ("pid1_environment", "open('/proc/1/environ', 'rb').read()"),
            ("pid1_signalled", "import signal\nos.kill(1, signal.SIGSTOP)\n"
                               "assert open('/proc/1/stat').read().split()[2] == 'T'"),
            ("grader_environment", "assert any(b'KC_GRADER_MARK' in open(f'/proc/{p}/environ',"
                                   " 'rb').read() for p in ('self', '1'))\n"
                                   "assert 'KC_GRADER_MARK' in os.environ")):
        a[name] = (notebook(q2=q2_only_if_it_fails(attempt)), FULL, {"ex1.q2": full})

    # --- item 2: the package's source, bytecode and the grader's code are not in the sandbox
    a["rebind_realpath_read_source"] = (notebook(q2=q2_only_if_it_fails(
        f"os.path.realpath = lambda p, **k: '/nowhere'\nassert 'def ' in open({init!r}).read()")),
        FULL, {"ex1.q2": full})
    a["read_bytecode"] = (notebook(q2=q2_only_if_it_fails(
        f"assert os.listdir({str(PACKAGE / '__pycache__')!r})")), FULL, {"ex1.q2": full})
    a["source_through_the_module"] = (notebook(q2=q2_only_if_it_fails(
        "import inspect, kernelcourse.features as kf\nassert 'def ' in inspect.getsource(kf)")),
        FULL, {"ex1.q2": full})
    a["reload_the_reference"] = (notebook(q1=q1_shortcut("""
        import importlib
        import kernelcourse.features as kf
        fresh = importlib.reload(kf)
        shortcut = getattr(fresh, "all_" + "subsets_map")
        """)), FULL - 3, {"ex1.q1": "0/3 points"})
    a["ctypes_exec_after_rebinding_the_seal"] = (notebook(q2=q2_only_if_it_fails(
        "import kernelcourse.grading.model.shortcuts as seal\nseal._BLOCKED_EVENTS = ()\n"
        "import ctypes\nlibc = ctypes.CDLL(None)\n"
        "argv = (ctypes.c_char_p * 2)(b'/bin/true', None)\n"
        "assert libc.execv(b'/bin/true', argv) == 0")), FULL, {"ex1.q2": full})
    a["ctypes_ipc_that_outlives_the_answer"] = (notebook(q2=q2_only_if_it_fails(
        "import kernelcourse.grading.model.shortcuts as seal\nseal._BLOCKED_EVENTS = ()\n"
        "import ctypes\nlibc = ctypes.CDLL(None)\n"
        "assert libc.shmget(0, 1 << 20, 0o1600) != -1")), FULL, {"ex1.q2": full})
    a["grader_questions_module"] = (notebook(q5="""
        import importlib
        import numpy as np
        space = importlib.import_module("kernelcourse.grading.questions." + "lecture1")

        def rbf_gram(X, Z, gamma):
            return getattr(space, "_rbf" + "_gram")(X, Z, gamma)
        """), FULL - 2, {"ex1.q5": "0/2 points"})

    # --- item 3: other routes to the same computation
    a["route_private_rbf_helper"] = (notebook(q5="""
        import numpy as np
        from kernelcourse.kernels import _fast_rbf

        def rbf_gram(X, Z, gamma):
            X, Z = np.asarray(X, float), np.asarray(Z, float)
            return getattr(_fast_rbf, "_rbf_from" + "_product")(X, Z, gamma)
        """), FULL - 2, {"ex1.q5": "uses the course's reference implementation of"})
    a["route_psd_by_check_psd"] = (notebook(q6="""
        import numpy as np
        from kernelcourse import _validation

        def is_kernel_matrix(K):
            try:
                _validation.check_psd(np.asarray(K, float))
                return True
            except ValueError:
                return False
        """), FULL - 2, {"ex1.q6": "uses the course's reference implementation of"})
    a["route_psd_by_bilinear"] = (notebook(q6="""
        import numpy as np
        from kernelcourse.kernels import rules

        def is_kernel_matrix(K):
            try:
                getattr(rules, "Bil" + "inear")(np.asarray(K, float))
                return True
            except ValueError:
                return False
        """), FULL - 2, {"ex1.q6": "uses the course's reference implementation of"})

    # --- item 4: a table of the reference's outputs for the once public, fixed seed
    a["table_for_the_public_seed"] = (notebook(q5=seed_table_answer(2026)), FULL - 2,
                                      {"ex1.q5": "0/2 points"})

    # --- item 5: honest answers, written as IPython reads them
    a["honest_check_call"] = (notebook(q2="""
        from kernelcourse.grading import check

        def all_subsets_dim(d):
            return 2 ** d

        check("ex1.q2", all_subsets_dim)
        """), FULL, {"ex1.q2": full})
    a["honest_black_continuation"] = (notebook(q2="""
        def all_subsets_dim(d):
            odd = (d
                   % 2)
            same = (odd
                    != odd)
            return 2 ** d if not same else -1
        """), FULL, {"ex1.q2": full})
    a["honest_magics"] = (notebook(q2="""
        %load_ext autoreload
        !echo hello

        def all_subsets_dim(d):
            return 2 ** d
        """), FULL, {"ex1.q2": full})
    a["honest_blank_first_line"] = (raw_cells(q2="\n   \n# ANSWER ex1.q2\n"
                                              "def all_subsets_dim(d):\n    return 2 ** d\n"),
                                    FULL, {"ex1.q2": full})
    a["honest_crlf"] = (raw_cells(**{q.split(".")[1]: ANSWERS[q].replace("\n", "\r\n")
                                     for q in ANSWERS}), FULL, {"ex1.q1": full, "ex1.q5": full})
    a["honest_bom"] = (raw_cells(q2="\ufeff# ANSWER ex1.q2\n"
                                    "def all_subsets_dim(d):\n    return 2 ** d\n"),
                       FULL, {"ex1.q2": full})
    a["honest_answer_spacing"] = (raw_cells(
        q2="#ANSWER ex1.q2\ndef all_subsets_dim(d):\n    return 2 ** d\n",
        q3="#   ANSWER   ex1.q3   \n" + ANSWERS["ex1.q3"].split("\n", 1)[1]), FULL,
        {"ex1.q2": full, "ex1.q3": full})
    a["honest_nbformat3"] = (version_3(notebook()), FULL, {"ex1.q1": full, "ex1.q7": full})

    # --- item 6: limits
    # /dev/shm is the submission's own (issue 29: multiprocessing needs it), counted in the
    # memory cap like /tmp and gone with the submission: 64 MB fit under the cap
    a["dev_shm_fill"] = (notebook(q2=prefixed("ex1.q2", """
        with open('/dev/shm/fill', 'wb') as f:
            f.write(b'x' * (64 << 20))
        """)), FULL, {"ex1.q2": full})
    a["dev_write"] = (notebook(q2=q2_only_if_it_fails("open('/dev/kc-fill', 'wb').write(b'x')")),
                      FULL, {"ex1.q2": full})
    a["memfd_hoard"] = (notebook(q2=q2_only_if_it_fails(
        "fd = os.memfd_create('hoard')\nos.write(fd, b'x' * (64 << 20))")), FULL, {"ex1.q2": full})
    a["tmpfs_and_heap"] = (notebook(q6=prefixed("ex1.q6", """
        import numpy as np
        with open("/tmp/fill", "wb") as f:
            for _ in range(240):
                f.write(b"x" * (1 << 20))
        heap = np.ones(320 * 1024 * 1024 // 8)
        """)), FULL - 2, {"ex1.q6": "memory"})
    a["colliding_hashes_reply"] = (notebook(q2="""
        def all_subsets_dim(d):
            return {k * (2 ** 61 - 1) for k in range(40000)}
        """), FULL - 1, {"ex1.q2": "0/1 points"})
    # three spinners in sessions of their own for 4 s: at most 12 s of CPU time on any machine,
    # within ex1.q7's hard deadline (its process tree's CPU time, twice its 10 s and 1 s more),
    # so the thief keeps its points; what its spinners take from the job beside it costs that
    # job nothing (limits count CPU time, not the time waited for a CPU)
    a["cpu_spinners"] = (notebook(q7=prefixed("ex1.q7", """
        import os, time
        for _ in range(3):
            if os.fork() == 0:
                os.setsid()
                while True:
                    pass
        time.sleep(4)
        """)), FULL, {"ex1.q7": full})

    # --- the reference shortcut, every way
    shortcut = "uses the course's reference implementation of"
    ways = {
        "ref_from_import": "from kernelcourse.features import all_subsets_map as shortcut",
        "ref_import_as": "import kernelcourse.features as kf\nshortcut = kf.all_subsets_map",
        "ref_attribute": "import kernelcourse\nimport kernelcourse.features\n"
                         "shortcut = kernelcourse.features.all_subsets_map",
        "ref_import_module": "import importlib\n"
                             "shortcut = importlib.import_module('kernelcourse.features')"
                             ".all_subsets_map",
        "ref_dunder_import": "shortcut = __import__('kernelcourse.features', fromlist=['x'])"
                             ".all_subsets_map",
        "ref_computed_getattr": "import importlib\n"
                                "m = importlib.import_module('kernel' + 'course.feat' + 'ures')\n"
                                "shortcut = getattr(m, 'all_subsets' + '_map')",
        "ref_sys_modules": "import sys, numpy\nimport kernelcourse\n"
                           "shortcut = vars(sys.modules['kernelcourse.' + 'features'])"
                           "['all_subsets_' + 'map']",
        "ref_get_question": "from kernelcourse.grading import questions as g\n"
                            "shortcut = getattr(g, 'get_' + 'question')('ex1.q1').reference",
        "ref_registry_values": "import sys\nreg = sys.modules['kernelcourse.grading.questions']\n"
                               "shortcut = [q for q in getattr(reg, 'all_' + 'questions')()"
                               ".values() if q.id == 'ex1.q1'][0].reference",
        "ref_reload": "import importlib, kernelcourse.features as kf\n"
                      "shortcut = importlib.reload(kf).all_subsets_map",
        "ref_exec_source": "import kernelcourse.features as kf\nspace = {}\n"
                           "exec(open(kf.__file__).read(), space)\n"
                           "shortcut = space['all_subsets_map']",
        "ref_loader_source": "import kernelcourse.features as kf\nspace = {}\n"
                             "exec(kf.__loader__.get_source(kf.__name__), space)\n"
                             "shortcut = space['all_subsets_map']",
        "ref_copied_code": "import types, kernelcourse.features as kf\n"
                           "f = kf.all_subsets_map\n"
                           "shortcut = types.FunctionType(f.__code__, f.__globals__)",
        "ref_subprocess": """
            import json, subprocess, sys

            CODE = ("import json, sys, numpy as np\\n"
                    "from kernelcourse.features import all_subsets_map as m\\n"
                    "X = np.array(json.loads(sys.stdin.read()))\\n"
                    "print(json.dumps(m(X).tolist()))")

            def shortcut(X):
                out = subprocess.run([sys.executable, "-c", CODE], capture_output=True,
                                     input=json.dumps(X.tolist()), text=True).stdout
                return np.array(json.loads(out))
            """,
    }
    for name, body in ways.items():
        a[name] = (notebook(q1=q1_shortcut(body)), FULL - 3, {"ex1.q1": "0/3 points"})
    a["ref_from_import"][2]["ex1.q1"] = shortcut + " kernelcourse.features.all_subsets_map"
    a["ref_rbf_kernel"] = (notebook(q5="""
        import numpy as np
        from kernelcourse.kernels import RBF

        def rbf_gram(X, Z, gamma):
            return RBF(gamma=gamma)(np.asarray(X, float), np.asarray(Z, float))
        """), FULL - 2, {"ex1.q5": shortcut})

    # --- false alarms: allowed helpers, a name of one's own
    a["allowed_datasets_helper"] = (notebook(q5="""
        import numpy as np
        from kernelcourse.datasets import as_2d
        from kernelcourse import datasets

        def rbf_gram(X, Z, gamma):
            X, Z = as_2d(np.asarray(X, float)), datasets.as_2d(np.asarray(Z, float))
            return np.exp(-gamma * ((X[:, None, :] - Z[None, :, :]) ** 2).sum(axis=-1))
        """), FULL, {"ex1.q5": "passed all"})
    a["own_function_same_name"] = (notebook(q1="""
        import itertools
        import numpy as np

        def all_subsets_map(X):
            n, d = X.shape
            return np.column_stack([np.prod(X[:, list(s)], axis=1) for k in range(d + 1)
                                    for s in itertools.combinations(range(d), k)])

        def all_subsets_features(X):
            return all_subsets_map(np.asarray(X, dtype=float))
        """), FULL, {"ex1.q1": "passed all"})
    return a


# -------------------------------------------------------------------------- state of the machine
def _tree_hashes(folder: Path, skip=()) -> dict:
    found = {}
    for path in sorted(folder.rglob("*")) if folder.exists() else ():
        if "__pycache__" in path.parts or any(str(path).startswith(s) for s in skip):
            continue
        if path.is_symlink():
            found[str(path)] = "link:" + os.readlink(path)
        elif path.is_file():
            found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif path.is_dir():
            found[str(path)] = "dir"
        else:
            found[str(path)] = "special"
    return found


def _state(paths) -> dict:
    import sysconfig
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout.decode().split("\0")
    files = {}
    for name in filter(None, tracked):
        p = ROOT / name
        if p.is_file() and not p.is_symlink():
            files[name] = hashlib.sha256(p.read_bytes()).hexdigest()
    site = Path(sysconfig.get_paths()["purelib"])
    return {"submissions": _tree_hashes(paths["sub"]), "home": _tree_hashes(paths["home"]),
            "tracked": files, "package": _tree_hashes(PACKAGE),
            "site-packages": sorted(os.listdir(site)),
            "real home": sorted(os.listdir(os.path.expanduser("~"))),
            "tmp": set(os.listdir("/tmp"))}


class Listener:
    """A TCP listener on the host's 127.0.0.1 that records every connection."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop.is_set():
            try:
                conn, addr = self.sock.accept()
            except OSError:
                continue
            self.connections.append(addr)
            conn.close()

    def close(self):
        self.stop.set()
        self.thread.join()
        self.sock.close()


def grade(folder: Path, out: Path, home: Path, *extra, timeout=600, env=None):
    env = {**os.environ, "HOME": str(home), "KC_GRADER_MARK": SECRET, **(env or {})}
    return subprocess.run([sys.executable, "-m", "kernelcourse", "grade", str(folder),
                           "--output", str(out), *extra],
                          capture_output=True, text=True, timeout=timeout, cwd=out, env=env)


#: attacks whose forked process writes outside its answer this many seconds after the fork
DELAYED_WRITERS = {"detached_gradebook_rewriter": 3.0, "late_writer": 0.8}


# the tests on the real command's four runs here (`run`, the two of `small_runs`,
# `watchdog_run`: each tens of seconds) are marked slow: the full run has them, the quick
# loop (`-m "not slow"`) keeps this file's unit tests
@pytest.fixture(scope="module")
def run(tmp_path_factory):
    base = tmp_path_factory.mktemp("attacks")
    paths = {name: base / name for name in ("sub", "out", "home", "private")}
    for p in paths.values():
        p.mkdir()
    listener = Listener()
    paths["port"] = listener.port
    paths["tmp_mark"] = f"/tmp/{TOKEN}"
    paths["other"] = str(paths["sub"] / "secret_holder.ipynb")
    table = attacks({**paths, "home": str(paths["home"]), "out": str(paths["out"])})
    for name, (nb, _, _) in table.items():
        (paths["sub"] / f"{name}.ipynb").write_text(json.dumps(nb))
    for name in LOOKALIKES:  # three honest files whose names print alike
        (paths["sub"] / name).write_text(json.dumps(notebook()))
    secret_nb = notebook()
    secret_nb["cells"].append({"cell_type": "markdown", "metadata": {}, "source": SECRET})
    Path(paths["other"]).write_text(json.dumps(secret_nb))
    # files that must not be read as notebooks
    sub = paths["sub"]
    (sub / "symlink_to_solution.ipynb").symlink_to(SOURCE)
    os.mkfifo(sub / "fifo.ipynb")
    (sub / "dev_zero.ipynb").symlink_to("/dev/zero")
    big = notebook()
    big["cells"].append({"cell_type": "markdown", "metadata": {}, "source": "x" * 3_000_000})
    (sub / "oversized.ipynb").write_text(json.dumps(big))
    (sub / "nested_5000.ipynb").write_text(
        '{"cells": [], "metadata": ' + "[" * 5000 + "]" * 5000 + "}")
    deep_ok = notebook()
    (sub / "huge_integer.ipynb").write_text(
        json.dumps(deep_ok)[:-1] + ', "x": ' + "9" * 5000 + "}")
    before = _state(paths)
    start = time.monotonic()
    result = grade(sub, paths["out"], paths["home"], "--questions", "ex1", "--jobs", "2",
                   "--memory-mb", "512", "--max-notebook-mb", "2", "--no-progress")
    seconds = time.monotonic() - start
    written = {n: (paths["out"] / n).read_bytes() for n in ("gradebook.csv", "gradebook.json")}
    book = json.loads(written["gradebook.json"])
    rows = {Path(s["file"]).name: s for s in book["submissions"]}
    # past the moment the delayed writers would write, had they outlived their submission:
    # each forked before its row was stamped (to the second), and writes `delay` s later
    for name, delay in DELAYED_WRITERS.items():
        stamped = datetime.fromisoformat(rows[f"{name}.ipynb"]["graded_at"].replace("Z", "+00:00"))
        left = (stamped + timedelta(seconds=delay + 2) - datetime.now(timezone.utc)).total_seconds()
        time.sleep(max(0.0, left))
    after = _state(paths)
    listener.close()
    return {"result": result, "book": book, "rows": rows, "table": table, "paths": paths,
            "before": before, "after": after, "written": written, "listener": listener,
            "seconds": seconds}


@pytest.mark.slow
def test_the_run_finishes(run):
    assert run["result"].returncode == 0, run["result"].stderr[-3000:]
    assert len(run["table"]) >= 40


@pytest.mark.parametrize("name", sorted(attacks({k: "/x" for k in
                                                  ("home", "out", "tmp_mark", "port", "other",
                                                   "sub")})))
@pytest.mark.slow
def test_each_attack_scores_exactly_its_honest_answers(run, name):
    _, total, details = run["table"][name]
    row = run["rows"][f"{name}.ipynb"]
    assert row["possible"] == FULL
    if total is not None:
        assert row["total"] == pytest.approx(total), row["details"]
    for q, text in details.items():
        assert text in row["details"][q], (q, row["details"][q])


@pytest.mark.slow
def test_nothing_outside_the_sandbox_changed(run):
    before, after = run["before"], run["after"]
    for key in ("submissions", "home", "tracked", "package", "site-packages", "real home"):
        assert after[key] == before[key], key
    new_in_tmp = after["tmp"] - before["tmp"]
    assert not [n for n in new_in_tmp if TOKEN in n or n == "pth"], new_in_tmp
    assert not os.path.exists(run["paths"]["tmp_mark"])


@pytest.mark.slow
def test_the_gradebook_is_not_rewritten_after_the_command_returned(run):
    out = run["paths"]["out"]
    for name, data in run["written"].items():
        assert (out / name).read_bytes() == data
    assert sorted(p.name for p in out.iterdir()) == ["gradebook.csv", "gradebook.json",
                                                     "grading-secret.key"]


@pytest.mark.slow
def test_no_connection_reached_the_host(run):
    assert run["listener"].connections == []


@pytest.mark.slow
def test_no_secret_of_another_submission_shows(run):
    text = run["written"]["gradebook.json"].decode() + run["written"]["gradebook.csv"].decode()
    text += run["result"].stdout + run["result"].stderr
    assert SECRET not in text
    assert run["rows"]["secret_holder.ipynb"]["total"] == FULL


@pytest.mark.slow
def test_files_that_are_not_notebooks_are_refused(run):
    rows = run["rows"]
    assert rows["symlink_to_solution.ipynb"]["errors"] == [
        "not a regular file (a symbolic link): only notebook files are graded"]
    assert rows["dev_zero.ipynb"]["errors"] == rows["symlink_to_solution.ipynb"]["errors"]
    assert rows["fifo.ipynb"]["errors"] == [
        "not a regular file (a FIFO): only notebook files are graded"]
    assert "over the limit of 2 MB" in rows["oversized.ipynb"]["errors"][0]
    assert "nests 500" in rows["nested_5000.ipynb"]["errors"][0]
    assert rows["huge_integer.ipynb"]["errors"][0].startswith("not a notebook (invalid JSON")
    for name in ("symlink_to_solution", "dev_zero", "fifo", "oversized", "nested_5000",
                 "huge_integer"):
        assert rows[f"{name}.ipynb"]["total"] == 0 and rows[f"{name}.ipynb"]["possible"] == 0


@pytest.mark.slow
def test_the_reference_shortcut_is_named(run):
    for name in run["table"]:
        if name.startswith("ref_"):
            detail = run["rows"][f"{name}.ipynb"]["details"]
            q = "ex1.q5" if name == "ref_rbf_kernel" else "ex1.q1"
            assert "0/" in detail[q], (name, detail[q])


@pytest.mark.slow
def test_escapes_keep_console_and_csv_one_row_per_file(run):
    csv_text = run["written"]["gradebook.csv"].decode()
    table = list(csv.reader(csv_text.splitlines()))
    assert len(table) == 1 + len(run["rows"])
    assert all(len(r) == len(table[0]) for r in table)
    assert "fake.ipynb" not in [r[0] for r in table] and "forged.ipynb" not in [r[0] for r in table]
    for text in (csv_text.replace("\r\n", "\n"), run["result"].stdout, run["result"].stderr):
        assert "\x1b" not in text and "\r" not in text and "\u202e" not in text
    ansi = next(r for r in table if r[0].endswith("ansi_in_cell.ipynb"))
    assert "\\x1b]0;title\\x07" in ansi[table[0].index("errors")]
    lines = run["result"].stdout.splitlines()
    assert not any(line.startswith(("fake.ipynb", "forged.ipynb")) for line in lines)


@pytest.mark.slow
def test_lookalike_file_names_show_apart(run):
    """Zero-width and right-to-left marks in file names are escaped in the console, the CSV
    and the JSON: three rows, three different names, each scoring its own full marks."""
    csv_text = run["written"]["gradebook.csv"].decode()
    json_text = run["written"]["gradebook.json"].decode()
    files = [r[0] for r in csv.reader(csv_text.splitlines())]
    shown = sorted(Path(f).name for f in files if "victim" in f)
    assert shown == sorted(["z_victim.ipynb", "z_\\u200bvictim.ipynb",
                            "z_victim\\u200f.ipynb"]), shown
    for text in (csv_text, json.loads(json_text) and json_text, run["result"].stdout,
                 run["result"].stderr):
        assert "\u200b" not in text and "\u200f" not in text
    console = [line.split()[0] for line in run["result"].stdout.splitlines() if "victim" in line]
    assert len(set(console)) == 3, console
    victims = [r for r in json.loads(json_text)["submissions"] if "victim" in r["file"]]
    assert [r["total"] for r in victims] == [FULL, FULL, FULL]


@pytest.mark.slow
def test_memory_bomb_is_reported(run):
    row = run["rows"]["fork_bomb_memory.ipynb"]
    assert "memory" in row["details"]["ex1.q6"], row["details"]["ex1.q6"]


# -------------------------------------------------------------------------- the assignment
LEAK = f"/tmp/leak-{TOKEN}"


@pytest.fixture(scope="module")
def small_runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("assignment")
    sub, home = base / "sub", base / "home"
    sub.mkdir(), home.mkdir()
    extra = [f"# ANSWER {q}\nimport numpy as np\n" for q in
             ("ex2.q1", "ex2.q2", "ex2.q3", "ex2.q4", "l1.cp1", "l1.cp2", "l2.cp1", "l2.cp2")]
    (sub / "five_sets.ipynb").write_text(json.dumps(notebook(extra=extra)))
    (sub / "correct.ipynb").write_text(json.dumps(notebook()))
    (sub / "half.ipynb").write_text(json.dumps(notebook(q2="def all_subsets_dim(d):\n  return d")))
    # graded one after the other by the same worker at --jobs 1: what the first leaves in the
    # sandbox (a file in the scratch, a process that writes later) must not reach the second
    (sub / "a_leaver.ipynb").write_text(json.dumps(notebook(q7=prefixed("ex1.q7", f"""
        import os, time
        open({LEAK!r}, "w").write("answers of a_leaver")
        if os.fork() == 0:
            os.setsid()
            time.sleep(1.5)
            open({LEAK + "-late"!r}, "w").write("late")
            os._exit(0)
        """))))
    # it waits once, in its cell, past the leaver's 1.5 s (not in each of its 8 calls), then
    # every call looks for what the leaver left
    (sub / "b_reader.ipynb").write_text(json.dumps(notebook(q2=f"""
        import glob, time
        time.sleep(2)

        def all_subsets_dim(d):
            return -1 if glob.glob({LEAK + '*'!r}) else 2 ** d
        """)))
    (sub / "seed_table.ipynb").write_text(json.dumps(notebook(q5=seed_table_answer(2026))))
    outs = {}
    # (the same table under the public seed 2026 is graded in `watchdog_run`, which runs with
    # it); the second run replays the first (each file on the cases its row records)
    for jobs in ("1", "2"):
        out = base / f"out{jobs}"
        out.mkdir()
        extra = ["--jobs", jobs, "--no-progress"]
        if jobs == "2":
            extra += ["--replay", str(outs["1"] / "gradebook.json"),
                      "--secret", str(outs["1"] / "grading-secret.key")]
        result = grade(sub, out, home, *extra)
        assert result.returncode == 0, result.stderr[-2000:]
        outs[jobs] = out
    return outs


def _rows(out: Path) -> dict:
    book = json.loads((out / "gradebook.json").read_text())
    return {Path(s["file"]).name: s for s in book["submissions"]}


@pytest.mark.slow
def test_nothing_of_one_submission_reaches_the_next(small_runs):
    for jobs in ("1", "2"):
        rows = _rows(small_runs[jobs])
        assert rows["a_leaver.ipynb"]["total"] == FULL
        assert rows["b_reader.ipynb"]["total"] == FULL, rows["b_reader.ipynb"]["details"]
    assert not glob.glob(LEAK + "*")


@pytest.mark.slow
def test_each_run_draws_from_the_secret_and_replay_reproduces_it(small_runs, watchdog_run):
    fresh = json.loads((small_runs["1"] / "gradebook.json").read_text())
    public = json.loads((watchdog_run["out"] / "gradebook.json").read_text())
    assert fresh["seed"] is None and public["seed"] == 2026
    draws = [set(s["draws"].values()) for s in fresh["submissions"] if s["draws"]]
    assert all(len(d) == 1 for d in draws) and len(set.union(*draws)) == len(draws)
    replayed = json.loads((small_runs["2"] / "gradebook.json").read_text())
    assert [s["draws"] for s in replayed["submissions"]] == \
        [s["draws"] for s in fresh["submissions"]]
    # a table of the reference's outputs for a known seed scores only under that seed
    assert watchdog_run["rows"]["seed_table.ipynb"]["total"] == FULL
    assert _rows(small_runs["1"])["seed_table.ipynb"]["total"] == FULL - 2


@pytest.mark.slow
def test_answering_five_sets_earns_one_set(small_runs):
    book = json.loads((small_runs["2"] / "gradebook.json").read_text())
    assert book["assignment"] == ["ex1"]
    assert all(s["possible"] == FULL for s in book["submissions"])
    five = next(s for s in book["submissions"] if s["file"].endswith("five_sets.ipynb"))
    assert five["total"] == FULL
    assert any(e.startswith("answer cells outside the assignment") for e in five["errors"])


@pytest.mark.slow
def test_parallel_and_serial_gradebooks_agree(small_runs):
    def without_seconds(out):
        book = json.loads((out / "gradebook.json").read_text())
        for s in book["submissions"]:
            s.pop("seconds")
            s.pop("graded_at")  # the time each row was graded (kernelcourse.grading.gradebook.history)
        with open(out / "gradebook.csv", newline="") as f:
            rows = list(csv.reader(f))
        at = rows[0].index("seconds")
        return book, [r[:at] + r[at + 1:] for r in rows]
    assert without_seconds(small_runs["1"]) == without_seconds(small_runs["2"])


# -------------------------------------------------------------------------- fast unit tests
@pytest.mark.parametrize("source", [
    "from kernelcourse.features import all_subsets_map",
    "from kernelcourse.features import all_subsets_map as f\nf(X)",
    "import kernelcourse.features as kf\nkf.all_subsets_map(X)",
    "import kernelcourse\nkernelcourse.features.all_subsets_map(X)",
    "import importlib\nimportlib.import_module('kernelcourse.features').all_subsets_map(X)",
    "m = __import__('kernelcourse.features', fromlist=['all_subsets_map'])",
    "import kernelcourse.features as kf\ngetattr(kf, 'all_subsets_map')(X)",
    "from kernelcourse.features import *\nall_subsets_map(X)",
    "import kernelcourse.features\nf = kernelcourse.features\nf.all_subsets_map(X)",
])
def test_static_uses_finds_every_spelling(source):
    from kernelcourse.grading.model.shortcuts import forbidden_objects, static_uses
    forbidden = forbidden_objects(["kernelcourse.features.all_subsets_map"])
    assert static_uses(source, forbidden) == ["kernelcourse.features.all_subsets_map"]


@pytest.mark.parametrize("source", [
    "import numpy as np\nnp.prod(X, axis=1)",
    "def all_subsets_map(X):\n    return X\nall_subsets_map(1)",
    "from kernelcourse.datasets import as_2d\nas_2d(X)",
    "import kernelcourse.features as kf\nkf.feature_dim_polynomial",
    "s = 'kernelcourse.features.all_subsets_map'",
    "(((((",
])
def test_static_uses_raises_no_false_alarm(source):
    from kernelcourse.grading.model.shortcuts import forbidden_objects, static_uses
    forbidden = forbidden_objects(["kernelcourse.features.all_subsets_map"])
    assert static_uses(source, forbidden) == []


LONG_NAME = "kernelcourse." + ".".join(f"m{i % 10}" for i in range(66_000))  # 198,012 chars


@pytest.mark.parametrize("source", [
    f"if False:\n    import {LONG_NAME}\n",
    f"if False:\n    from {LONG_NAME} import x\n",
    f"import importlib\nimportlib.import_module({LONG_NAME!r})\n",
    "__import__('kernelcourse." + "a" * 100_000 + "', fromlist=[" + "'b'," * 20_000 + "])\n",
    "import kernelcourse as k\na = k.kernels\n" + "\n".join(f"a.x{i}" for i in range(20_000)),
    "import kernelcourse as k\nx = k.kernels" + ".f().g" * 30_000 + "\n",
])
def test_the_static_check_reads_any_name_in_bounded_steps(source, monkeypatch):
    """Issue 41: every name the static check follows is cut to at most MAX_NAME_PARTS parts
    and MAX_NAME_CHARS characters, and each is walked once, part by part (a 1,391-character
    module name once cost seconds, 200,000 characters minutes): the work is counted, not
    timed. A cell with a dotted name longer than Python's parser reads in linear time is not
    graded at all (``cell_problem``)."""
    import kernelcourse.grading.intake.notebooks as intake
    from kernelcourse.grading.model import shortcuts
    walked = []
    real_walk = shortcuts._walk
    monkeypatch.setattr(shortcuts, "_walk", lambda name, cache=None: (
        walked.append(name), real_walk(name, cache))[1])
    forbidden = shortcuts.forbidden_objects(["kernelcourse.features.all_subsets_map"])
    if LONG_NAME in source:
        assert "dotted name of 66,001 parts, over the limit of 100" in intake.cell_problem(source)
        if "import " + LONG_NAME in source or "from " + LONG_NAME in source:
            return  # never parsed by the grader (Python's parser: time quadratic in its parts)
    else:
        assert intake.cell_problem(source) == ""
    assert shortcuts.static_uses(source, forbidden) == []
    assert walked and len(walked) <= source.count("\n") + 2 * source.count("(") + 10
    assert max(len(n) for n in walked) <= shortcuts.MAX_NAME_CHARS
    assert max(n.count(".") + 1 for n in walked) <= shortcuts.MAX_NAME_PARTS


def test_names_cut_to_their_bound_still_find_the_shortcut():
    from kernelcourse.grading.model.shortcuts import (MAX_NAME_CHARS, _bounded, forbidden_objects,
                                                static_uses)
    forbidden = forbidden_objects(["kernelcourse.features.all_subsets_map"])
    tail = ".x" * 500  # past the bound (a chain much deeper: Python's ast refuses it)
    source = f"import kernelcourse.features\nkernelcourse.features.all_subsets_map{tail}\n"
    assert static_uses(source, forbidden) == ["kernelcourse.features.all_subsets_map"]
    assert _bounded("a." + "b" * 1000) == "a" and len(_bounded("a.bb" * 500)) <= MAX_NAME_CHARS
    assert _bounded("kernelcourse.kernels.RBF") == "kernelcourse.kernels.RBF"


def test_read_submission_refuses_a_fifo_without_blocking(tmp_path):
    from kernelcourse.grading.command.grader import NotebookError, read_submission
    os.mkfifo(tmp_path / "x.ipynb")
    with pytest.raises(NotebookError, match="a FIFO"):
        read_submission(tmp_path / "x.ipynb", 1 << 20)


def test_clean_text_escapes_control_characters():
    from kernelcourse.grading.command.grader import clean_text
    assert clean_text("a\x1b[31mb\r\nc\u202ed") == "a\\x1b[31mb\\x0d\\x0ac\\u202ed"
    assert clean_text("x" * 50, limit=10) == "xxxxxxx..."
    assert "\n" not in clean_text("\n" * 5000)

    # invisible and bidirectional characters too: no two names print alike
    assert clean_text("z_\u200bvictim\u200f\ufeff\u2066") == "z_\\u200bvictim\\u200f\\ufeff\\u2066"
    assert clean_text("tag\U000e0041") == "tag\\U000e0041"
    assert clean_text("Grüße, 東京") == "Grüße, 東京"  # visible letters stay as they are


def test_answer_cells_are_found_as_ipython_sees_them():
    from kernelcourse.grading.intake.notebooks import answer_cells, python_source, read_notebook
    cells = ["\ufeff# ANSWER a\r\nx = 1\r\n", "\n  \n#ANSWER   b  \nx = 2\n",
             "# ANSWERc\nx = 3\n", "x = 4\n# ANSWER d\n"]
    nb = {"cells": [{"cell_type": "code", "source": c} for c in cells]}
    assert answer_cells(nb) == {"a": "# ANSWER a\nx = 1\n", "b": "\n  \n#ANSWER   b  \nx = 2\n"}
    black = "y = (1\n     != 2)\nz = (7\n     % 3)\n"
    assert python_source(black) == black
    assert "get_ipython().system('ls')" in python_source("!ls\nx = 1\n")
    # issue 41: a magic's or shell line's value assigned, as a notebook accepts it
    assert python_source("_t = %timeit -o f()\n_ = %time f()\nfiles = !ls\n") == (
        "_t = get_ipython().run_line_magic('timeit', '-o f()')\n"
        "_ = get_ipython().run_line_magic('time', 'f()')\nfiles = get_ipython().getoutput('ls')\n")
    from kernelcourse.grading.intake.notebooks import static_source
    assert static_source("_t = %timeit -o f()\nprint('a=%d' % 1)\n") == \
        "_t = None\nprint('a=%d' % 1)\n"
    v3 = {"nbformat": 3, "worksheets": [{"cells": [
        {"cell_type": "code", "input": "# ANSWER a\nx = 1\n"},
        {"cell_type": "markdown", "source": "text"}]}]}
    assert answer_cells(read_notebook(json.dumps(v3).encode())) == {"a": "# ANSWER a\nx = 1\n"}


def test_a_reply_of_colliding_hashes_is_refused_in_linear_time():
    from kernelcourse.grading.model import transport
    # the reply as the worker would send it, written here in linear time: building the set
    # in this process first would itself cost time quadratic in its 40,000 colliding values
    colliding = [k * (2 ** 61 - 1) for k in range(40000)]
    assert len({hash(v) for v in colliding}) == 1
    text = '{"$set":' + transport.dumps(colliding) + "}"
    assert transport.dumps({2 ** 61 - 1}) == '{"$set":[2305843009213693951]}'  # the format
    with pytest.raises(transport.UnsupportedValue, match="collide") as refused:
        transport.loads(text)
    # refused while counting the hash values (a set of ints: linear), before any set of the
    # colliding values themselves is built (which would cost time quadratic in their number)
    assert refused.traceback[-1].name == "_unique_hashes"
    assert transport.roundtrip({-1, -2, (1, 2)}) == {-1, -2, (1, 2)}  # a few collisions: fine
    assert transport.roundtrip({"a": 1, (1, 2): [3]}) == {"a": 1, (1, 2): [3]}


def test_forbidden_routes_cover_helpers_and_psd_checks_but_not_shared_checks():
    from kernelcourse import _validation
    from kernelcourse.grading.model.shortcuts import forbidden_objects
    from kernelcourse.kernels import _fast_rbf, rules
    rbf = forbidden_objects(["kernelcourse.kernels._fast_rbf._rbf_gram"])
    assert id(_fast_rbf._rbf_from_product) in rbf and id(_fast_rbf._rbf_fused) in rbf
    psd = forbidden_objects(["kernelcourse.kernels.is_psd"])
    assert id(_validation.check_psd) in psd and id(rules.Bilinear) in psd
    # the input checks every public function uses are not routes: using an allowed function
    # must not trip
    for found in (rbf, psd):
        assert id(_validation.as_2d) not in found and id(_validation.check_square) not in found


def test_a_cpu_time_limit_stops_work_but_not_waiting():
    """Where no cgroup gives each worker a CPU share (the watchdog), answers' limits count
    their own CPU time: an answer starved by another's processes is not stopped early."""
    from kernelcourse.grading.sealed.running import QuestionTimeout, time_limit
    start = time.monotonic()
    with time_limit(0.3, cpu=True):
        time.sleep(0.6)  # no CPU used: not stopped
    assert time.monotonic() - start >= 0.6
    with pytest.raises(QuestionTimeout):
        with time_limit(0.3, cpu=True):
            while True:
                pass


# -------------------------------------------------------------------------- the watchdog
@pytest.fixture(scope="module")
def watchdog_run(tmp_path_factory):
    """The memory attacks again, with the cap a grader without root or a delegated cgroup
    gets: the watchdog (forced here; ``limit.kind`` says which cap the main run used). Run
    with the once public seed 2026 (the attacks here score the same under any seed), beside
    a table of the reference's outputs for that seed, which scores only under it."""
    base = tmp_path_factory.mktemp("watchdog")
    sub, out, home = base / "sub", base / "out", base / "home"
    for p in (sub, out, home):
        p.mkdir()
    table = attacks({"home": str(home), "out": str(out), "tmp_mark": "/tmp/x", "port": 1,
                     "other": "/x", "sub": str(sub)})
    names = ("fork_bomb_memory", "tmpfs_and_heap", "dev_shm_fill", "memfd_hoard", "cpu_spinners")
    for name in names:
        (sub / f"{name}.ipynb").write_text(json.dumps(table[name][0]))
    (sub / "correct.ipynb").write_text(json.dumps(notebook()))
    (sub / "seed_table.ipynb").write_text(json.dumps(notebook(q5=seed_table_answer(2026))))
    result = grade(sub, out, home, "--questions", "ex1", "--jobs", "1", "--memory-mb", "512",
                   "--seed", "2026", "--no-progress",
                   env={"KERNELCOURSE_MEMORY_CAP": "watchdog"})
    assert result.returncode == 0, result.stderr[-2000:]
    return {"rows": _rows(out), "table": table, "names": names, "out": out}


@pytest.mark.slow
def test_the_memory_cap_means_the_same_under_the_watchdog(watchdog_run):
    rows, table = watchdog_run["rows"], watchdog_run["table"]
    assert rows["correct.ipynb"]["total"] == FULL
    # every attack, the fork bomb included: its three children hold 300 MB each, and each
    # process may map the cap's worth of new memory (the per-process limit is a backstop,
    # not the cap), so the tree holds ~900 MB and the watchdog sees it, as a cgroup would
    for name in watchdog_run["names"]:
        _, total, details = table[name]
        row = rows[f"{name}.ipynb"]
        assert row["total"] == pytest.approx(total), (name, row["details"])
        for q, text in details.items():
            assert text in row["details"][q], (name, q, row["details"][q])


def test_which_memory_cap_this_machine_gives():
    """Not a check: says in the test log which cap the main run had (cgroup v2, v1 or the
    watchdog), so a reader knows which paths ran here."""
    from kernelcourse.grading.sealed.sandbox import TreeMemoryLimit
    limit = TreeMemoryLimit(64)
    try:
        print(f"memory cap on this machine: {limit.kind}")
        assert limit.kind in ("cgroup v2", "cgroup v1", "watchdog")
    finally:
        limit.close()
