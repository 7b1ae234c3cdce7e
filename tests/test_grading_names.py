"""Who is who, proved against the platforms' own naming: download names generated exactly as
Canvas and Moodle make them (tests/lms_downloads.py) for rosters of random names from every
Unicode script, with digits, apostrophes, hyphens, underscores, anonymous grading, late and
resubmitted files; every file maps to its own student and to no other.

Hypothesis runs derandomized (the same examples in every run, here and in CI), with a bounded
number of examples and no example database.

Sources of the naming rules: Instructure, canvas-lms, ``lib/content_zipper.rb`` (the
submissions zip: sortable name sanitised, ``LATE``, ``anon_``, the user and attachment ids) and
``Anonymity.generate_id`` (five base-58 characters); Moodle HQ, ``mod/assign/classes/
downloader.php`` (the participant prefix, folders and flat names) and ``clean_param``'s
``PARAM_FILE``.
"""
import sys
from pathlib import Path

import pytest
import re

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from lms_downloads import (canvas_download_name, moodle_download_path,  # noqa: E402
                           resubmitted)

from kernelcourse.grading.handback.names import (BASE58, canvas_readings,  # noqa: E402
                                                 canvas_truncated)
from kernelcourse.grading.handback.roster import Roster, Student, match  # noqa: E402

PROPERTY = settings(derandomize=True, max_examples=50, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# a name: letters and marks of every script, decimal digits of every script, and the
# punctuation real names and hostile ones hold
_CHAR = st.one_of(st.characters(categories=("L", "M", "Nd"), exclude_characters="\x00"),
                  st.sampled_from(list(" '-_.,0123456789’")))
NAME = st.text(_CHAR, min_size=0, max_size=16)
FILE_NAME = st.builds(lambda stem, ext: stem + ext,
                      st.text(st.one_of(_CHAR, st.sampled_from(list("/\\:*?\"<>|()[]#& "))),
                              min_size=1, max_size=24),
                      st.sampled_from([".ipynb", ".IPYNB", "", ".ipynb.txt"]))


@st.composite
def canvas_class(draw, anonymous=False):
    n = draw(st.integers(1, 6))
    ids = draw(st.lists(st.integers(1, 10 ** 14), min_size=n, max_size=n, unique=True))
    pool = draw(st.lists(st.tuples(NAME, NAME), min_size=1, max_size=n))  # names may repeat
    anon = draw(st.lists(st.text(st.sampled_from(BASE58), min_size=5, max_size=5),
                         min_size=n, max_size=n, unique=True))
    students, files, in_zip, attachment = [], [], set(), draw(st.integers(1, 10 ** 9))
    for i, uid in enumerate(ids):
        surname, given = draw(st.sampled_from(pool))
        sortable = draw(st.sampled_from([f"{surname}, {given}", surname, f"{given} {surname}"]))
        students.append(Student(str(uid), sortable, extra=(("anonymous_id", anon[i]),)
                                if anonymous else ()))
        for _ in range(draw(st.integers(0, 2))):
            attachment += draw(st.integers(1, 1000))
            late = draw(st.booleans())
            name = resubmitted(draw(FILE_NAME), draw(st.integers(0, 2)))
            files.append((canvas_download_name(sortable, uid, attachment, name, late=late,
                                               anonymous_id=anon[i] if anonymous else None,
                                               in_zip=in_zip), str(uid), late))
    return Roster(students, kind="canvas"), files


@PROPERTY
@given(canvas_class())
def test_every_canvas_file_maps_to_its_own_student_and_no_other(data):
    roster, files = data
    # a student whose sanitised sortable name is "anon" writes files that look like Canvas's
    # anonymous ones ("anon_2_2_0.ipynb"): a known limit of matching by name parts, left out here
    assume(not any(re.sub(r"\W", "", s.name.lower()) == "anon" for s in roster))
    m = match([f"/d/{name}" for name, _, _ in files], roster, "canvas")
    why = dict(m.unmatched)
    for name, owner, late in files:
        got = m.students.get(f"/d/{name}")
        if got is None:  # only a name Canvas cut or one with several readings may be refused
            assert len(canvas_readings(name)) > 1 or canvas_truncated(name), (name, why)
            assert why[f"/d/{name}"].startswith(("ambiguous", "Canvas cut")), why
            continue
        assert got.id == owner, (name, got, owner)
        assert (f"/d/{name}" in m.late) == late, name


@PROPERTY
@given(canvas_class(anonymous=True))
def test_anonymous_canvas_files_map_by_the_anonymous_id(data):
    roster, files = data
    m = match([f"/d/{name}" for name, _, _ in files], roster, "canvas")
    for name, owner, late in files:
        assert name.startswith(("anon_", "LATE_anon_"))
        assert m.students[f"/d/{name}"].id == owner, name
        assert (f"/d/{name}" in m.late) == late
    plain = Roster([Student(s.id, s.name) for s in roster], kind="canvas")
    m = match([f"/d/{name}" for name, _, _ in files], plain, "canvas")
    assert not m.students  # no anonymous_id column: graded, matched to no one
    assert all("anonymous submission" in why for _, why in m.unmatched)


@PROPERTY
@given(st.data())
def test_a_name_a_student_chose_never_reaches_another_students_row(data):
    """Mallory (5001) chooses her sortable name to carry Alice's id 4001 (and Alice's own
    letters) in every way Canvas lets digits through, or a name so long that Canvas cuts the
    real id away; her file never reaches Alice. (The roster lists the class, as Canvas's
    gradebook export does: a reading whose id is no student's is set aside.)"""
    alice_name = data.draw(st.sampled_from(["Smith, Alice", "Müller, Jürgen", "O'Neil, Zoë",
                                            "李, 小龙", "ᠪᠠᠲᠤ", "Ng, 2"]))
    from kernelcourse.grading.handback.names import canvas_name_part
    part = canvas_name_part(alice_name)
    tail = data.draw(NAME)
    attempts = [f"{alice_name}_4001", f"{part}__4001___2__{tail}", f"x__4001___9__",
                f"{part}_4001_{tail}", part + "__4001___7__" + "m" * 200,
                f"{alice_name}_4001_77_{tail}", "Alice Smith_4001_"]
    for chosen in attempts:
        students = [Student("4001", alice_name), Student("5001", chosen)]
        name = canvas_download_name(chosen, 5001, 900, data.draw(FILE_NAME))
        m = match([f"/d/{name}"], Roster(students, kind="canvas"), "canvas")
        got = m.students.get(f"/d/{name}")
        assert got is None or got.id == "5001", (chosen, name)
        assert got is not None or len(canvas_readings(name)) > 1 or canvas_truncated(name)


@st.composite
def moodle_class(draw):
    n = draw(st.integers(1, 6))
    ids = draw(st.lists(st.integers(1, 10 ** 7), min_size=n, max_size=n, unique=True))
    pool = draw(st.lists(NAME, min_size=1, max_size=n))
    blind = draw(st.booleans())
    students, files = [], []
    for pid in ids:
        full = draw(st.sampled_from(pool))
        if draw(st.booleans()):  # a display name that claims someone else, as typed
            other = draw(st.sampled_from(ids))
            full = draw(st.sampled_from([f"{full}_{other}_assignsubmission_file_ x",
                                         f"Participant_{other}", f"{full}_{other}"]))
        students.append(Student(str(pid), full, extra=(("identifier", f"Participant {pid}"),)))
        for _ in range(draw(st.integers(0, 2))):
            upload = draw(FILE_NAME).replace("/", "-") or "x"
            if draw(st.booleans()):  # an upload named like another participant's file
                upload = f"{draw(NAME)}_{draw(st.sampled_from(ids))}_assignsubmission_file_" \
                         + upload
            folders = draw(st.booleans())
            sub = draw(st.sampled_from(["", "work", f"Alice_{ids[0]}_assignsubmission_file"]))
            path = moodle_download_path(full, pid, upload, folders=folders, subfolder=sub,
                                        blind=blind, final_underscore=draw(st.booleans()))
            files.append((path, str(pid), folders))
    return Roster(students, kind="moodle", columns=["Identifier", "Full name"]), files


@PROPERTY
@given(moodle_class())
def test_every_moodle_file_maps_to_its_own_participant_and_no_other(data):
    roster, files = data
    paths = [f"/d/{p}" for p, _, _ in files]
    assume(len(set(paths)) == len(paths))
    m = match(paths, roster, "moodle")
    why = dict(m.unmatched)
    for path, owner, folders in files:
        got = m.students.get(f"/d/{path}")
        if got is None:  # only a flat name whose upload carries another participant's mark
            assert not folders and why[f"/d/{path}"].startswith("ambiguous"), (path, why)
            continue
        assert got.id == owner, (path, got.id, owner)


def test_the_attacks_of_the_issue_by_name():
    """Jürgen's non-ASCII name, a name with a digit, an anonymous file; Mallory's display
    name 'Alice Smith_501_assignsubmission_file_ Mallory' in a flat Moodle download."""
    canvas = Roster([Student("1006", "Müller, Jürgen"), Student("1007", "Ng, 2"),
                     Student("1008", "O'Neil-Smith, Zoë", extra=(("anonymous_id", "kJ3x9"),))],
                    kind="canvas")
    files = ["/d/müllerjürgen_1006_70006_ex8.ipynb", "/d/ng2_LATE_1007_70007_ex8-1.ipynb",
             "/d/anon_kJ3x9_70008_ex8.ipynb"]
    assert canvas_download_name("Müller, Jürgen", 1006, 70006, "ex8.ipynb") == \
        "müllerjürgen_1006_70006_ex8.ipynb"
    m = match(files, canvas, "canvas")
    assert {Path(f).name: s.id for f, s in m.students.items()} == {
        "müllerjürgen_1006_70006_ex8.ipynb": "1006", "ng2_LATE_1007_70007_ex8-1.ipynb": "1007",
        "anon_kJ3x9_70008_ex8.ipynb": "1008"}
    assert m.late == {files[1]}
    sheet = Roster([Student("501", "Alice Smith"),
                    Student("777", "Alice Smith_501_assignsubmission_file_ Mallory")],
                   kind="moodle")
    flat = [moodle_download_path("Alice Smith", 501, "ex.ipynb", folders=False),
            moodle_download_path(sheet[1].name, 777, "ex.ipynb", folders=False)]
    assert flat[1] == "Alice Smith 501 assignsubmission file  Mallory_777_assignsubmission_" \
                      "file_ex.ipynb"
    m = match([f"/d/{p}" for p in flat], sheet, "moodle")
    assert {s.id for s in m.students.values()} == {"501", "777"} and not m.claimed
    # the same name as typed, were it ever written raw: never Alice's
    raw = "/d/Alice Smith_501_assignsubmission_file_ Mallory_777_assignsubmission_file_ex.ipynb"
    m = match([raw], sheet, "moodle")
    assert m.students == {} and m.unmatched[0][1].startswith("ambiguous")


@pytest.mark.parametrize("pattern", ["canvas", "moodle"])
def test_a_moodle_or_canvas_name_without_the_platforms_identifier_is_refused(pattern):
    roster = Roster([Student("4001", "Ada Lovelace", extra=(("participant", "12"),))])
    m = match(["/d/lovelaceada_ex1.ipynb", "/d/Ada Lovelace_assignsubmission_file_ex.ipynb",
               "/d/notes.ipynb"], roster, pattern)
    assert m.students == {} and len(m.unmatched) == 3
