"""Secrecy of the grader's drawn cases (issue 40, item 1).

The package is public, so a seed a student can read lets anyone draw the same cases and hand in
a table of the reference's outputs keyed by the inputs. The attacks below are built from
everything a student sees (the package, check()'s cases, the failing cases of their own and a
classmate's feedback, results.json) and, to be sure, from more: every case of the attacker's
previous attempt and of a classmate, which only the instructor's secret reproduces. Graded
through the real commands (``kernelcourse grade``, ``--update``, the Gradescope autograder's
``run_autograder``), the table scores 0 on every question whose drawn cases hold arrays, while
the set's published solutions keep full marks; replayed with the secret and the row's draw
token, the same table scores full marks, which shows the attack is real.
"""
import base64
import json
import os
import pickle
import shutil
import stat
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from kernelcourse.grading import questions as registry_module
from kernelcourse.grading.command.draws import load_secret, new_token, question_seed, secret_file

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "exercises" / "source" / "01_feature_expansions_and_the_kernel_trick.ipynb"
MISTAKES = ROOT / "tests" / "fixtures" / "grading" / "mistakes.ipynb"


# --------------------------------------------------------------------- the secret
def test_a_question_seed_needs_the_secret_and_changes_with_token_question_and_secret():
    secret, other = bytes(range(32)), bytes(range(1, 33))
    seed = question_seed(secret, "abc", "ex1.q5")
    assert seed == question_seed(secret, "abc", "ex1.q5")  # a replay draws the same cases
    assert isinstance(seed, int) and 0 <= seed < 2 ** 64
    others = {question_seed(secret, "abd", "ex1.q5"), question_seed(secret, "abc", "ex1.q6"),
              question_seed(other, "abc", "ex1.q5")}
    assert seed not in others and len(others) == 3
    # HMAC-SHA256 of the domain, the token and the question id, as the module says
    import hashlib
    import hmac

    mac = hmac.new(secret, b"kernelcourse-draw-v1|abc|ex1.q5", hashlib.sha256).digest()
    assert seed == int.from_bytes(mac[:8], "big")
    with pytest.raises(ValueError, match="at least 16 bytes"):
        question_seed(b"short", "abc", "ex1.q5")
    assert len({new_token() for _ in range(50)}) == 50


def test_the_key_file_is_made_once_for_its_owner_only_and_refused_when_others_read_it(tmp_path):
    path = secret_file(tmp_path)
    with pytest.raises(ValueError, match="no grading secret at .*--secret FILE"):
        load_secret(path)  # a replay never makes a new secret
    secret = load_secret(path, create=True)
    assert len(secret) == 32 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_secret(path, create=True) == secret  # made once
    path.chmod(0o644)
    with pytest.raises(ValueError, match=r"may be read by others \(mode 644\): run chmod 600"):
        load_secret(path)
    path.chmod(0o600)
    path.write_text("not hex\n")
    with pytest.raises(ValueError, match="holds no grading secret"):
        load_secret(path)


def test_an_update_replaces_only_the_regraded_questions_draws(tmp_path):
    from kernelcourse.grading.gradebook.book import Submission
    from kernelcourse.grading.gradebook.history import merge

    def row(token, seed=None):
        r = Submission(file=str(tmp_path / "a.ipynb"), possible=4.0, seed=seed)
        for q in ("ex1.q5", "ex1.q6"):
            r.points[q] = 1.0
            r.cases[q] = {"seed": seed} if seed is not None else {"draw": token}
            if seed is None:
                r.draws[q] = token
            else:
                r.question_seeds[q] = seed
        return r

    # an old --seed row, updated on ex1.q5 from the secret: ex1.q5 has a token and no seed
    rows, n, _ = merge([row("", seed=7)], [row("t2")], {"ex1.q5"}, tmp_path / "h.jsonl", "x")
    assert n == 1 and rows[0].draws == {"ex1.q5": "t2"}
    assert rows[0].question_seeds == {"ex1.q6": 7} and rows[0].seed is None
    assert list(rows[0].points) == ["ex1.q5", "ex1.q6"]  # the order of the questions kept


# --------------------------------------------------------------------- what a student reads
def test_check_and_its_verdict_name_no_seed_and_a_drawn_case_is_printed_without_one(capsys):
    from kernelcourse.grading import case_inputs, check, get_question, reset_session

    reset_session()
    q = get_question("l1.cp1")
    check("l1.cp1", lambda X, Z: np.zeros((len(X), len(Z))) + 1e3 * (len(X) > 30))
    out = capsys.readouterr().out
    assert "seed" not in out.lower()
    # a drawn case of the latest check, printed in full by its number alone
    from kernelcourse.grading.checking.scoring import _LAST_CASES

    cases = _LAST_CASES["l1.cp1"]
    number = next(i for i, c in enumerate(cases, 1) if not c.fixed)
    args, _ = case_inputs("l1.cp1", number, show=True)
    printed = capsys.readouterr().out
    assert "drawn by the latest check" in printed and "seed" not in printed
    assert np.array_equal(args[0], cases[number - 1].args[0])
    reset_session()
    del q


# --------------------------------------------------------------------- the attack, by command
KEY_SOURCE = '''
def _key(v):
    import numpy as np
    if isinstance(v, np.ndarray) and v.dtype.kind in "biuf":
        return ("a", tuple(v.shape), tuple(np.round(v.astype(float), 6).ravel().tolist()))
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return ("l", tuple(_key(x) for x in v))
    if isinstance(v, dict):
        return ("d", tuple(sorted((str(k), _key(x)) for k, x in v.items())))
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return ("r", repr(v))
    try:
        return ("f", round(float(v), 6))
    except (TypeError, ValueError):
        return ("r", repr(v))
'''
_space: dict = {}
exec(KEY_SOURCE, _space)
_key = _space["_key"]


def _set():
    from kernelcourse.grading.questions import set_questions

    return set_questions("ex1")


def _has_array(value) -> bool:
    if isinstance(value, np.ndarray):
        return True
    if isinstance(value, (list, tuple)):
        return any(_has_array(v) for v in value)
    if isinstance(value, dict):
        return any(_has_array(v) for v in value.values())
    return False


def array_questions() -> list[str]:
    """The questions of set 1 whose drawn cases hold arrays (a table of scalars could cover
    a small domain; a table of arrays cannot)."""
    return [qid for qid, q in _set().items()
            if any(_has_array((c.args, c.kwargs)) for c in q.make_cases(1) if not c.fixed)]


def public_cases(q) -> list:
    """Every case a student can draw with the package: the fixed cases and the cases of their
    first 30 check() calls (check's seeds are no secret)."""
    cases = q.make_fixed_cases()
    for count in range(30):
        cases += q.make_cases((zlib.crc32(q.id.encode()) * 1009 + count) % 2 ** 32)
    return cases


def row_cases(q, secret: bytes, token: str) -> list:
    """Every case of a graded attempt: what only the secret reproduces (more than any page or
    results.json shows, which is one failing case per question)."""
    return q.make_cases(question_seed(secret, token, q.id))


def table_notebook(path: Path, known: dict) -> None:
    """A notebook answering every question of set 1 by a table of the reference's outputs on
    the cases ``known[qid]`` (no implementation at all)."""
    import nbformat

    cells = []
    for qid, q in _set().items():
        table = {}
        for case in known.get(qid, []):
            try:
                table[_key([list(case.args), case.kwargs])] = q.expected(case)
            except Exception:  # noqa: BLE001 - a case the key cannot hold is left out
                continue
        blob = base64.b64encode(pickle.dumps(table)).decode()
        # within the grader's cap on an answer cell (200,000 characters), so that a zero is
        # the table's failure, never the cap's
        assert len(blob) < 150_000, (qid, len(blob))
        cells.append(nbformat.v4.new_code_cell(
            f"# ANSWER {qid}\nimport base64, pickle\n{KEY_SOURCE}\n"
            f"TABLE = pickle.loads(base64.b64decode({blob!r}))\n\n\n"
            f"def {q.function}(*args, **kwargs):\n"
            f"    return TABLE.get(_key([list(args), kwargs]))\n"))
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)


def _kc(*args, env=None):
    return subprocess.run([sys.executable, "-m", "kernelcourse", *map(str, args)],
                          capture_output=True, text=True, timeout=1800,
                          env={**{k: v for k, v in os.environ.items()
                                  if k != registry_module.ENVIRONMENT_VARIABLE}, **(env or {})})


def _rows(out: Path, name: str = "gradebook-ex1.json") -> dict:
    return {Path(r["file"]).name: r
            for r in json.loads((out / name).read_text())["submissions"]}


def _on_arrays(row: dict) -> dict:
    return {q: row["points"][q] for q in array_questions()}


@pytest.mark.slow
def test_a_lookup_table_scores_nothing_on_arrays_after_an_update(tmp_path):
    """A class graded with ``kernelcourse grade``: the table of everything public scores 0 on
    every question with array inputs; so does, after ``--update``, a table that adds every
    case of the attacker's first attempt and of a classmate; the published solutions score
    full marks before and after; the instructor's replay (``--draw`` with ``--secret``)
    reproduces each row, and replaying the first attempt's draws gives the second table full
    marks on those questions (the attack would have worked had the cases been reused)."""
    reg = _set()
    arrays = array_questions()
    assert len(arrays) >= 5, arrays
    sub, out = tmp_path / "sub", tmp_path / "out"
    sub.mkdir()
    shutil.copy(SOLUTIONS, sub / "honest.ipynb")
    shutil.copy(MISTAKES, sub / "classmate.ipynb")
    table_notebook(sub / "attacker.ipynb", {qid: public_cases(q) for qid, q in reg.items()})
    res = _kc("grade", sub, "--questions", "ex1", "--assignment", "ex1", "--output", out,
              "--no-progress", "--jobs", "2")
    assert res.returncode == 0, res.stderr[-3000:]
    rows = _rows(out)
    possible = sum(q.points for q in reg.values())
    assert rows["honest.ipynb"]["total"] == possible
    assert set(_on_arrays(rows["attacker.ipynb"]).values()) == {0.0}, rows["attacker.ipynb"]
    book = json.loads((out / "gradebook-ex1.json").read_text())
    secret = load_secret(out / "grading-secret.key")
    assert book["seed"] is None and book["secret"] == "grading-secret.key"
    assert secret.hex() not in (out / "gradebook-ex1.json").read_text()
    tokens = {name: set(r["draws"].values()) for name, r in rows.items()}
    assert all(len(t) == 1 for t in tokens.values())  # one token per submission
    assert len(set.union(*tokens.values())) == 3  # per student

    # the attacker adds every case of its first attempt and of the classmate, resubmits
    first = rows["attacker.ipynb"]["draws"]
    mate = rows["classmate.ipynb"]["draws"]
    known = {qid: public_cases(q) + row_cases(q, secret, first[qid])
             + (row_cases(q, secret, mate[qid]) if qid in mate else [])  # the ones it answered
             for qid, q in reg.items()}
    table_notebook(sub / "attacker.ipynb", known)
    res = _kc("grade", sub / "attacker.ipynb", sub / "honest.ipynb", "--questions", "ex1",
              "--assignment", "ex1", "--update", "--output", out, "--no-progress", "--jobs", "2")
    assert res.returncode == 0, res.stderr[-3000:]
    assert "new cases drawn from the secret" in res.stderr
    updated = _rows(out)
    assert updated["honest.ipynb"]["total"] == possible
    assert set(_on_arrays(updated["attacker.ipynb"]).values()) == {0.0}, updated["attacker.ipynb"]
    assert updated["attacker.ipynb"]["draws"] != rows["attacker.ipynb"]["draws"]  # new cases
    assert updated["classmate.ipynb"] == rows["classmate.ipynb"]  # not regraded

    # the instructor replays a row exactly: the same token, the same secret
    again = tmp_path / "again"
    (token,) = set(updated["attacker.ipynb"]["draws"].values())
    res = _kc("grade", sub / "attacker.ipynb", "--questions", "ex1", "--output", again,
              "--draw", token, "--secret", out / "grading-secret.key", "--no-progress")
    assert res.returncode == 0, res.stderr[-3000:]
    replayed = _rows(again, "gradebook.json")["attacker.ipynb"]
    assert replayed["details"] == updated["attacker.ipynb"]["details"]
    assert replayed["points"] == updated["attacker.ipynb"]["points"]
    # and on the first attempt's draws the second table wins: the attack is real
    (token,) = set(first.values())
    res = _kc("grade", sub / "attacker.ipynb", "--questions", "ex1", "--output", again,
              "--draw", token, "--secret", out / "grading-secret.key", "--no-progress")
    assert res.returncode == 0, res.stderr[-3000:]
    control = _rows(again, "gradebook.json")["attacker.ipynb"]
    assert _on_arrays(control) == {q: reg[q].points for q in arrays}, control["details"]


@pytest.mark.slow
def test_a_lookup_table_scores_nothing_on_arrays_after_a_gradescope_resubmission(tmp_path):
    """The Gradescope autograder as students meet it: results.json and the console of
    run_autograder hold no seed and no secret; a resubmission (a new submission id) draws new
    cases, so a table holding every case of the first attempt scores 0 on every question with
    array inputs; the published solutions score full marks on both attempts."""
    from kernelcourse.grading.handback.exports import unpack_for_test

    reg = _set()
    arrays = array_questions()
    build = tmp_path / "course"
    res = _kc("gradescope", "build", "--questions", "ex1", "--output", build / "autograder.zip")
    assert res.returncode == 0, res.stderr
    secret = load_secret(build / "grading-secret.key")
    root = unpack_for_test(build / "autograder.zip", tmp_path / "autograder")

    def submit(notebook: Path, ident: int) -> tuple[dict, str]:
        for old in (root / "submission").iterdir():
            old.unlink()
        shutil.copy(notebook, root / "submission" / "ex1.ipynb")
        (root / "submission_metadata.json").write_text(json.dumps({"id": ident}))
        run = subprocess.run([str(root / "run_autograder")], capture_output=True, text=True,
                             timeout=1800,
                             env={**os.environ, "KERNELCOURSE_AUTOGRADER_ROOT": str(root),
                                  "KERNELCOURSE_PYTHON": sys.executable})
        assert run.returncode == 0, run.stderr[-3000:]
        text = (root / "results" / "results.json").read_text()
        console = run.stdout + run.stderr
        for seen in (text, console):
            assert "seed" not in seen.lower() and secret.hex() not in seen
        assert f"gradescope-{ident}" not in console
        return json.loads(text), console

    def scores(results: dict) -> dict:
        return {t["name"].split()[0]: t["score"] for t in results["tests"]}

    attacker = tmp_path / "attacker.ipynb"
    table_notebook(attacker, {qid: public_cases(q) for qid, q in reg.items()})
    first, _ = submit(attacker, 1001)
    assert first["extra_data"] == {"draw": "gradescope-1001"}
    assert {q: scores(first)[q] for q in arrays} == {q: 0.0 for q in arrays}
    # every case of the first attempt (far more than its results.json shows), resubmitted
    known = {qid: public_cases(q) + row_cases(q, secret, "gradescope-1001")
             for qid, q in reg.items()}
    table_notebook(attacker, known)
    second, _ = submit(attacker, 1002)
    assert {q: scores(second)[q] for q in arrays} == {q: 0.0 for q in arrays}, second
    # Gradescope's "regrade" of the first submission keeps its id, so its cases: there the
    # same table wins, which shows the attack is real and only the new draws stop it
    control, _ = submit(attacker, 1001)
    assert {q: scores(control)[q] for q in arrays} == {q: reg[q].points for q in arrays}
    honest, _ = submit(SOLUTIONS, 1003)
    assert honest["score"] == sum(q.points for q in reg.values())
    again, _ = submit(SOLUTIONS, 1004)
    assert again["score"] == honest["score"]
