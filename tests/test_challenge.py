"""The data challenge (kernelcourse.grading.challenge): the commitment, strict reading of
predictions, scores and points by thresholds, the daily limit, the private split, the
leaderboard page and Gradescope's leaderboard key, and notebooks run sealed (slow)."""
from __future__ import annotations

import csv
import hashlib
import json
import os
from datetime import datetime, timezone
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from kernelcourse.__main__ import main
from kernelcourse.grading.challenge import (SubmissionError, commitment_of, grade_challenge,
                                            make_challenge, points_for, pseudonym,
                                            read_key, read_predictions, verify_commitment,
                                            write_outputs)
from kernelcourse.grading.challenge.make import BASELINES
from kernelcourse.grading.challenge.notebook import forbidden_imports
from kernelcourse.structured.datasets import dna_motif_sequences

DAY = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc).timestamp()


@pytest.fixture(scope="module")
def challenge(tmp_path_factory):
    out = tmp_path_factory.mktemp("challenge")
    make_challenge(out, seed=3, n_train=160, n_test=80)
    return out


def _hidden(challenge):
    lines = (challenge / "key" / "hidden-labels.csv").read_text().splitlines()
    return list(csv.DictReader(line for line in lines if not line.startswith("#")))


def _write(path, rows, header="id,label", when=DAY):
    path.write_text(header + "\n" + "".join(f"{i},{v}\n" for i, v in rows))
    os.utime(path, (when, when))
    return path


def _with_public_errors(challenge, wrong):
    """The true labels with the first ``wrong`` public ids flipped."""
    rows, flipped = [], 0
    for r in _hidden(challenge):
        label = int(r["label"])
        if r["split"] == "public" and flipped < wrong:
            label, flipped = -label, flipped + 1
        rows.append((r["id"], label))
    return rows


# ------------------------------------------------------------------ make and commitment
def test_make_writes_public_files_and_keeps_labels_out_of_them(challenge):
    public = challenge / "public"
    assert sorted(p.name for p in public.iterdir()) == [
        "commitment.txt", "sample_submission.csv", "test.csv", "train.csv"]
    with open(public / "test.csv") as handle:
        assert next(csv.reader(handle)) == ["id", "sequence"]
    with open(public / "train.csv") as handle:
        train = list(csv.DictReader(handle))
    assert len(train) == 160 and {r["label"] for r in train} == {"-1", "1"}
    hidden = _hidden(challenge)
    assert len(hidden) == 80
    assert sum(r["split"] == "public" for r in hidden) == 40
    # the data are the package's generator's, with the same seed
    seqs, y = dna_motif_sequences(n=240, length=101, random_state=3)
    assert [r["sequence"] for r in train] == seqs[:160]
    assert [int(r["label"]) for r in hidden] == y[160:].tolist()


def test_commitment_is_the_sha256_of_the_hidden_labels_and_detects_a_change(challenge, tmp_path):
    hidden = challenge / "key" / "hidden-labels.csv"
    published = (challenge / "public" / "commitment.txt").read_text().split()[0]
    assert published == hashlib.sha256(hidden.read_bytes()).hexdigest() == commitment_of(hidden)
    assert verify_commitment(hidden, challenge / "public" / "commitment.txt")
    assert main(["challenge", "verify", str(hidden), published]) == 0
    moved = tmp_path / "hidden-labels.csv"
    text = hidden.read_text()
    first = _hidden(challenge)[0]
    changed = text.replace(f"{first['id']},{first['label']},",
                           f"{first['id']},{-int(first['label'])},", 1)
    assert changed != text
    moved.write_text(changed)
    assert not verify_commitment(moved, published)
    assert main(["challenge", "verify", str(moved), published]) == 1


def test_make_refuses_to_overwrite_a_challenge(challenge):
    with pytest.raises(FileExistsError, match="made once"):
        make_challenge(challenge, seed=4, n_train=20, n_test=10)


@pytest.mark.slow
def test_baselines_are_kernel_ridge_on_the_course_kernels(challenge):
    """Against scikit-learn's KernelRidge on the same Gram matrices (the oracle)."""
    from sklearn.kernel_ridge import KernelRidge

    from kernelcourse.structured import mismatch_kernel, spectrum_kernel

    key = read_key(challenge)
    with open(challenge / "public" / "train.csv") as handle:
        train = list(csv.DictReader(handle))
    with open(challenge / "public" / "test.csv") as handle:
        test = [r["sequence"] for r in csv.DictReader(handle)]
    seqs = [r["sequence"] for r in train]
    y = np.array([int(r["label"]) for r in train])
    hidden = _hidden(challenge)
    truth = np.array([int(r["label"]) for r in hidden])
    split = np.array([r["split"] for r in hidden])
    for name, kernel in (("spectrum", spectrum_kernel), ("mismatch", mismatch_kernel)):
        p = dict(BASELINES[name])
        extra = {"m": p["m"]} if "m" in p else {}
        K = kernel(seqs + test, k=p["k"], normalize=True, **extra)
        model = KernelRidge(alpha=p["lam"] * len(y), kernel="precomputed").fit(K[:160, :160], y)
        pred = np.where(model.predict(K[160:, :160]) >= 0, 1, -1)
        for part in ("public", "private"):
            acc = np.mean(pred[split == part] == truth[split == part])
            assert key["baselines"][name][part] == pytest.approx(acc, abs=1e-12)


# ------------------------------------------------------------------ strict reading
@pytest.mark.parametrize("mutate, message", [
    (lambda h, rows: ("id,prediction", rows), "the header is 'id,prediction'; it must be exactly"),
    (lambda h, rows: (h, rows[:-1]), r"1 missing id\(s\): 'te079'.*79 prediction line\(s\) for 80"),
    (lambda h, rows: (h, rows + [("te000", 1)]), r"1 duplicated id\(s\): 'te000'"),
    (lambda h, rows: (h, [("zz99", 1)] + rows[1:]), r"1 unknown id\(s\): 'zz99'.*missing id\(s\): 'te000'"),
    (lambda h, rows: (h, [(rows[0][0], 0)] + rows[1:]), r"label\(s\) outside \{-1, 1\}: '0' \(line 2\)"),
    (lambda h, rows: (h, [(rows[0][0], "yes")] + rows[1:]), r"outside \{-1, 1\}: 'yes'"),
    (lambda h, rows: (h, [(rows[0][0], "1.0")] + rows[1:]), r"outside \{-1, 1\}: '1.0'"),
])
def test_malformed_predictions_are_refused_with_the_reason(challenge, tmp_path, mutate, message):
    key = read_key(challenge)
    rows = [(i, 1) for i in key["ids"]]
    header, rows = mutate("id,label", rows)
    path = _write(tmp_path / "x.csv", rows, header)
    with pytest.raises(SubmissionError, match="nothing scored|header") as info:
        read_predictions(path, key["ids"])
    assert info.match(message)


def test_a_line_with_three_fields_and_an_empty_file_are_refused(challenge, tmp_path):
    key = read_key(challenge)
    path = tmp_path / "x.csv"
    path.write_text("id,label\n" + "".join(f"{i},1,extra\n" for i in key["ids"]))
    with pytest.raises(SubmissionError, match=r"line 2 has 3 field\(s\)"):
        read_predictions(path, key["ids"])
    path.write_text("")
    with pytest.raises(SubmissionError, match="the file is empty"):
        read_predictions(path, key["ids"])


def test_plus_one_and_any_order_are_read(challenge, tmp_path):
    key = read_key(challenge)
    rows = [(i, "+1" if n % 2 else "-1") for n, i in enumerate(reversed(key["ids"]))]
    got = read_predictions(_write(tmp_path / "x.csv", rows), key["ids"])
    assert got == {i: (1 if n % 2 else -1) for n, i in enumerate(reversed(key["ids"]))}


# ------------------------------------------------------------------ points and grading
def test_points_by_thresholds():
    assert points_for(0.60, 0.65, 0.71) == 0.0
    assert points_for(0.65, 0.65, 0.71) == 5.0
    assert points_for(0.68, 0.65, 0.71) == pytest.approx(7.5)
    assert points_for(0.71, 0.65, 0.71) == 10.0
    assert points_for(0.90, 0.65, 0.71) == 10.0


def test_honest_submissions_get_their_exact_scores(challenge, tmp_path):
    key = read_key(challenge)
    n_pub = sum(s == "public" for s in key["split_by_id"].values())
    base = key["baselines"]
    spec, mism = base["spectrum"]["public"], base["mismatch"]["public"]
    subs = tmp_path / "subs"
    subs.mkdir()
    wrong_at_spec = round((1 - spec) * n_pub)
    _write(subs / "ann_a.csv", _with_public_errors(challenge, 0))
    _write(subs / "ben_a.csv", _with_public_errors(challenge, wrong_at_spec))
    _write(subs / "cat_a.csv", _with_public_errors(challenge, wrong_at_spec + 1))
    _write(subs / "dan_a.csv", _with_public_errors(challenge, n_pub))
    entries, _ = grade_challenge(subs, challenge)
    got = {e.student: (e.status, e.public, e.points) for e in entries}
    assert got["ann"] == ("scored", 1.0, 10.0)
    assert got["ben"] == ("scored", pytest.approx(spec), 5.0)
    acc = (n_pub - wrong_at_spec - 1) / n_pub
    expected = 0.0 if acc < spec else (10.0 if acc >= mism else
                                       10 * (0.5 + 0.5 * (acc - spec) / (mism - spec)))
    assert got["cat"] == ("scored", pytest.approx(acc), pytest.approx(expected))
    assert got["dan"] == ("scored", 0.0, 0.0)


def test_daily_limit_counts_scored_submissions_per_utc_day(challenge, tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    good = _with_public_errors(challenge, 0)
    for n in range(3):
        _write(subs / f"eve_{n}.csv", good, when=DAY + 60 * n)
    _write(subs / "eve_bad.csv", good[:-1], when=DAY + 90)    # not scored, does not count
    _write(subs / "eve_3.csv", good, when=DAY + 300)          # the fourth scored: refused
    _write(subs / "eve_4.csv", good, when=DAY + 86400)        # the next day: scored
    entries, _ = grade_challenge(subs, challenge, per_day=3)
    status = {e.file: e.status for e in entries}
    assert status == {"eve_0.csv": "scored", "eve_1.csv": "scored", "eve_2.csv": "scored",
                      "eve_bad.csv": "not scored", "eve_3.csv": "over the daily limit",
                      "eve_4.csv": "scored"}
    assert "already has 3 scored submission(s) on 2026-11-20" in \
        next(e.message for e in entries if e.file == "eve_3.csv")


def test_a_log_sets_the_submission_times(challenge, tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    good = _with_public_errors(challenge, 0)
    _write(subs / "fay_1.csv", good)
    _write(subs / "fay_2.csv", good)
    log = tmp_path / "log.csv"
    log.write_text("file,submitted\nfay_1.csv,2026-11-21T10:00:00+00:00\n"
                   "fay_2.csv,2026-11-20T10:00:00\n")
    entries, _ = grade_challenge(subs, challenge, per_day=1, log=log)
    assert [(e.file, e.status) for e in entries] == [("fay_2.csv", "scored"),
                                                     ("fay_1.csv", "scored")]


def test_final_scores_the_last_scored_submission_on_the_private_split(challenge, tmp_path):
    key = read_key(challenge)
    subs = tmp_path / "subs"
    subs.mkdir()
    hidden = _hidden(challenge)
    perfect = [(r["id"], int(r["label"])) for r in hidden]
    private_wrong = [(r["id"], int(r["label"]) * (-1 if r["split"] == "private" else 1))
                     for r in hidden]
    _write(subs / "gus_1.csv", perfect, when=DAY)
    _write(subs / "gus_2.csv", private_wrong, when=DAY + 60)
    entries, _ = grade_challenge(subs, challenge, final=True)
    first, last = entries
    assert (first.final, first.points, first.private) == (False, None, None)
    assert (last.final, last.public, last.private, last.points) == (True, 1.0, 0.0, 0.0)
    entries, _ = grade_challenge(subs, challenge, final=False)
    assert [e.points for e in entries] == [10.0, 10.0]
    assert key["baselines"]["spectrum"]["private"] > 0


# ------------------------------------------------------------------ leaderboard and exports
class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.th_scopes, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "th":
            self.th_scopes.append(dict(attrs).get("scope"))

    def handle_data(self, data):
        self.text.append(data)


def test_leaderboard_page_and_gradescope_key(challenge, tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    _write(subs / "hal_1.csv", _with_public_errors(challenge, 0))
    _write(subs / "ivy_1.csv", _with_public_errors(challenge, 4))
    _write(subs / "jo_1.csv", [("te000", 1)])
    out = tmp_path / "out"
    assert main(["challenge", "grade", str(subs), "--key", str(challenge), "-o", str(out),
                 "--title", "<script>alert(1)</script> & co"]) == 0
    page = (out / "leaderboard.html").read_text()
    parsed = _Page()
    parsed.feed(page)
    assert "script" not in parsed.tags
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in page
    assert "table" in parsed.tags and "caption" in parsed.tags and "thead" in parsed.tags
    assert set(parsed.th_scopes) == {"col", "row"}
    key = read_key(challenge)
    text = "".join(parsed.text)
    for student in ("hal", "ivy", "jo"):
        assert f">{student}<" not in page
    assert pseudonym("hal", key["commitment"]) in text and pseudonym("ivy", key["commitment"]) in text
    assert pseudonym("jo", key["commitment"]) not in text        # nothing scored
    assert text.index(pseudonym("hal", key["commitment"])) < text.index(pseudonym("ivy", key["commitment"]))
    results = json.loads((out / "gradescope" / "ivy_1.json").read_text())
    assert results["leaderboard"] == [{"name": "Accuracy (public)", "value": 36 / 40,
                                       "order": "desc"}]
    base = key["baselines"]
    assert results["score"] == pytest.approx(points_for(36 / 40, base["spectrum"]["public"],
                                                        base["mismatch"]["public"]), abs=1e-4)
    refused = json.loads((out / "gradescope" / "jo_1.json").read_text())
    assert "leaderboard" not in refused and refused["score"] == 0.0
    book = json.loads((out / "challenge-gradebook.json").read_text())
    assert [r["status"] for r in book["rows"]] == ["scored", "scored", "not scored"]


def test_pseudonyms_are_stable_and_differ_across_challenges():
    assert pseudonym("ann", "a" * 64) == pseudonym("ann", "a" * 64)
    names = {pseudonym(f"s{i}", "a" * 64) for i in range(30)}
    assert len(names) == 30
    assert pseudonym("ann", "a" * 64) != pseudonym("ann", "b" * 64)


# ------------------------------------------------------------------ notebooks (sealed)
def test_forbidden_imports_are_read_from_the_source():
    assert forbidden_imports("import sklearn.svm as s") == ["sklearn"]
    assert forbidden_imports("from sklearn import svm") == ["sklearn"]
    assert forbidden_imports("from libsvm.svmutil import svm_train") == ["libsvm"]
    assert forbidden_imports("m = __import__('sklearn')") == ["sklearn"]
    assert forbidden_imports("import numpy as np\nfrom kernelcourse.structured import "
                             "spectrum_kernel") == []


def _notebook(path, source, when=DAY):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("My entry"), nbformat.v4.new_code_cell(source)]
    nbformat.write(nb, path)
    os.utime(path, (when, when))


SPECTRUM_ENTRY = """# ANSWER challenge
import numpy as np
from kernelcourse.structured import spectrum_kernel

def predict(train_sequences, train_labels, test_sequences):
    n = len(train_sequences)
    K = spectrum_kernel(list(train_sequences) + list(test_sequences), k=5, normalize=True)
    alpha = np.linalg.solve(K[:n, :n] + 1e-2 * n * np.eye(n), np.asarray(train_labels, float))
    return np.where(K[n:, :n] @ alpha >= 0, 1, -1)
"""

RANDOM_ENTRY = """# ANSWER challenge
import numpy as np

def predict(train_sequences, train_labels, test_sequences):
    rng = np.random.default_rng(7)
    return rng.choice([-1, 1], size=len(test_sequences))
"""


@pytest.mark.slow
def test_a_class_of_notebooks_run_sealed(challenge, tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    _notebook(subs / "kim_1.ipynb", SPECTRUM_ENTRY)
    _notebook(subs / "lou_1.ipynb", RANDOM_ENTRY)
    _notebook(subs / "max_1.ipynb", "# ANSWER challenge\nfrom sklearn.svm import SVC\n"
                                    "def predict(a, b, c):\n    return SVC().fit(a, b).predict(c)\n")
    _notebook(subs / "ned_1.ipynb", "# ANSWER challenge\nimport importlib\n"
                                    "svm = importlib.import_module('skl' + 'earn.svm')\n"
                                    "def predict(a, b, c):\n    return [1] * len(c)\n")
    _notebook(subs / "oli_1.ipynb", "# ANSWER challenge\ndef predict(a, b, c):\n"
                                    "    while True:\n        pass\n")
    key_file = challenge / "key" / "hidden-labels.csv"
    _notebook(subs / "pat_1.ipynb", "# ANSWER challenge\ndef predict(a, b, c):\n"
                                    f"    text = open({str(key_file)!r}).read()\n"
                                    "    return [1] * len(c)\n")
    _notebook(subs / "pia_1.ipynb", "# ANSWER challenge\nimport numpy as np\n"
                                    "def predict(a, b, c):\n"
                                    "    big = np.ones(10 ** 9)\n    return [1] * len(c)\n")
    _write(subs / "quin_1.csv", [("te000", 1)])
    _write(subs / "ray_1.csv", _with_public_errors(challenge, 0))
    out = tmp_path / "out"
    assert main(["challenge", "grade", str(subs), "--key", str(challenge), "-o", str(out),
                 "--timeout", "5", "--memory-mb", "1024"]) == 0
    rows = {r["student"]: r for r in json.loads((out / "challenge-gradebook.json").read_text())["rows"]}
    key = read_key(challenge)
    assert rows["kim"]["status"] == "scored"
    assert rows["kim"]["public"] == pytest.approx(key["baselines"]["spectrum"]["public"])
    assert rows["kim"]["points"] == 5.0
    assert rows["max"]["status"] == "not scored"
    assert "refused, uses sklearn: scikit-learn and libsvm are forbidden" in rows["max"]["message"]
    assert "No module named 'sklearn.svm'" in rows["ned"]["message"]
    assert "ran past the time limit of 5 s" in rows["oli"]["message"]
    assert "No such file or directory" in rows["pat"]["message"]
    assert "MemoryError" in rows["pia"]["message"] or "out of memory" in rows["pia"]["message"]
    assert "nothing scored" in rows["quin"]["message"]
    assert (rows["ray"]["status"], rows["ray"]["points"]) == ("scored", 10.0)
    # the random entry: its exact score from its seeded predictions, computed here
    rng = np.random.default_rng(7)
    guess = rng.choice([-1, 1], size=len(key["ids"]))
    public = [n for n, i in enumerate(key["ids"]) if key["split_by_id"][i] == "public"]
    expected = np.mean([guess[n] == key["labels_by_id"][key["ids"][n]] for n in public])
    assert rows["lou"]["public"] == pytest.approx(expected)
    # re-running a submission reproduces its predictions
    first = (out / "predictions" / "kim_1.csv").read_bytes()
    again = tmp_path / "again"
    assert main(["challenge", "grade", str(subs / "kim_1.ipynb"), "--key", str(challenge),
                 "-o", str(again)]) == 0
    assert (again / "predictions" / "kim_1.csv").read_bytes() == first


def test_a_roster_maps_canvas_files_to_students(challenge, tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    good = _with_public_errors(challenge, 0)
    _write(subs / "lovelaceada_1001_5001_preds.csv", good)
    _write(subs / "turingalan_1002_5002_preds.csv", good, when=DAY + 60)
    _write(subs / "hopper_1003_5003_preds.csv", good, when=DAY + 120)
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name\n1001,Ada Lovelace\n1002,Alan Turing\n")
    entries, _ = grade_challenge(subs, challenge, roster=roster)
    got = [(e.student, e.name, e.status) for e in entries]
    assert got[:2] == [("1001", "Ada Lovelace", "scored"), ("1002", "Alan Turing", "scored")]
    assert got[2] == ("", "", "not scored")
    assert entries[2].message.startswith("no student in the roster: ")


def test_canvas_and_moodle_exports_carry_each_students_counting_points(challenge, tmp_path):
    """The export holds, per roster student, the points of the submission that counts (the
    last scored one), in the hand-back's own formats; no grade for a student whose file was
    not scored, nor for one who sent nothing."""
    key = read_key(challenge)
    base = key["baselines"]
    n_pub = sum(s == "public" for s in key["split_by_id"].values())
    subs = tmp_path / "subs"
    subs.mkdir()
    _write(subs / "lovelaceada_1001_5001_preds.csv", _with_public_errors(challenge, n_pub))
    _write(subs / "lovelaceada_1001_5002_preds.csv", _with_public_errors(challenge, 0),
           when=DAY + 60)                                   # her last: full marks
    wrong = round((1 - base["spectrum"]["public"]) * n_pub)
    _write(subs / "turingalan_1002_5003_preds.csv", _with_public_errors(challenge, wrong))
    _write(subs / "hopperg_1003_5004_preds.csv", [("te000", 1)])       # refused: no grade
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\n1001,Ada Lovelace,ada@example.org\n"
                      "1002,Alan Turing,alan@example.org\n1003,Grace Hopper,grace@example.org\n"
                      "1004,Edsger Dijkstra,ed@example.org\n")
    out = tmp_path / "out"
    args = ["challenge", "grade", str(subs), "--key", str(challenge), "-o", str(out),
            "--roster", str(roster), "--assignment", "DNA challenge"]
    assert main(args + ["--export", "canvas"]) == 2          # no Canvas id: refused up front
    assert not out.exists()
    assert main(args + ["--export", "canvas", "--canvas-assignment-id", "77",
                        "--export", "moodle"]) == 0
    spec_points = points_for((n_pub - wrong) / n_pub, base["spectrum"]["public"],
                             base["mismatch"]["public"])
    with open(out / "canvas-DNA challenge.csv", newline="") as handle:
        canvas = list(csv.DictReader(handle))
    assert [(r["ID"], r["DNA challenge (77)"]) for r in canvas] == [
        ("1001", "10"), ("1002", f"{round(spec_points, 2):g}"), ("1003", ""), ("1004", "")]
    with open(out / "moodle-DNA challenge.csv", newline="") as handle:
        moodle = list(csv.DictReader(handle))
    assert [(r["Email address"], r["DNA challenge"]) for r in moodle] == [
        ("ada@example.org", "10"), ("alan@example.org", f"{round(spec_points, 2):g}")]
    assert moodle[0]["Feedback"].startswith("10/10 points")
