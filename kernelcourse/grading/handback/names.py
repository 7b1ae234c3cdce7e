"""What Canvas and Moodle write into the name of a downloaded submission, read back.

The platforms' own naming is the specification; a student is found by the identifier the
platform wrote, never by the name part, which is for people (and which a student may choose).

**Canvas** (its content zipper, ``lib/content_zipper.rb`` of canvas-lms, Instructure): a
submitted file is named ``<name part>[_LATE]_<user id>_<attachment id>_<file name>``. The name
part is the student's *sortable name* ("Surname, Given") with every ``_<digits>_`` written
``<digits>``, lower-cased, and with every character that is not a Unicode word character
(letter, mark, decimal digit, connector punctuation) removed: ``Müller, Jürgen`` becomes
``müllerjürgen``, ``O'Neil, Zoë`` ``oneilzoë``, a name of no word character the empty name.
``LATE`` marks late work. Under anonymous grading there is no name part and the id is
``anon_<anonymous id>`` (five base-58 characters). The file name is the student's upload name
(``-1``, ``-2`` ... before the extension for a resubmitted file of the same name), with
``/ \\ : * ? " < > |`` written ``_``; a name over 180 characters is cut to 175 ending in
``...<extension>``, and two equal names in one download get ``-1`` before the extension.

Reading one back (:func:`canvas_readings`): every place where ``<digits>_<digits>_`` follows an
``_`` is a possible reading (user id, attachment id). The name part may itself hold digits
(``x_4001`` or, from ``x__4001___2__``, ``x_4001_2``), so a name a student chose can look like
another student's id; and the upload name, which follows, can hold such digits too.
:func:`canvas_student` therefore takes the readings whose id is a roster student's; when they
name more than one student (or the name was cut, so the real reading may be gone), only the
readings whose name part is that student's own name (the same letters, any order) count, and
unless exactly one student is left the file is refused with the reason. (A reading whose id
is no roster student's is set aside: the roster lists the class, as Canvas's gradebook export
does.) A file can reach a
student only through that student's Canvas id. A name Canvas cut (over 180 characters) is refused: the cut may have
taken the real ids and left digits of the name part.

**Moodle** (``mod/assign/classes/downloader.php``, Moodle HQ): the prefix is
``clean_filename(<full name, "_" written " "> _ <participant id>)`` (``Participant`` for the
full name under blind marking); ``clean_filename`` removes control characters and
``& < > " ` | ' : \\ /``. A flat download names a file
``<prefix>_assignsubmission_file_<file name>``; a download in folders (the default since Moodle
3.1) puts the files in the folder ``<prefix>_assignsubmission_file`` (older versions: with a
final ``_``), below which the student's own sub-folders may follow. The participant id is
Moodle's per-assignment number, also in the grading worksheet's ``Identifier`` ("Participant
123"). Reading back (:func:`moodle_reading`): the outermost folder of that form names the
student (the student names the sub-folders and the file); in a flat name the first ``_`` ends
the name part (Moodle writes none inside it), and a second marker naming another participant
later in the name makes it ambiguous, so refused.
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import PurePath

__all__ = ["Reading", "canvas_readings", "canvas_truncated", "canvas_name_part",
           "canvas_student", "moodle_reading", "moodle_name_part", "same_letters",
           "ruby_word_character"]

#: Canvas's anonymous ids: ``SecureRandom.base58(5)``.
BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_CANVAS_TAIL = re.compile(r"(?P<id>\d+)_(?P<attachment>\d+)_(?P<original>.+)\Z", re.S)
_CANVAS_ANON = re.compile(r"(?P<late>LATE_)?anon_(?P<anon>[" + BASE58 + r"]+)_"
                          r"(?P<attachment>\d+)_(?P<original>.+)\Z", re.S)
_MOODLE_FOLDER = re.compile(r"(?P<name>.*)_(?P<participant>\d+)_assignsubmission_"
                            r"(?:file|onlinetext)_?\Z", re.S)
_MOODLE_FLAT = re.compile(r"(?P<name>[^_]*)_(?P<participant>\d+)_assignsubmission_"
                          r"(?:file|onlinetext)_(?P<original>.*)\Z", re.S)
_MOODLE_MARK = re.compile(r"_(\d+)_assignsubmission_(?:file|onlinetext)_")


@dataclass(frozen=True)
class Reading:
    """One way to read a download name: which identifier (``id``, ``anonymous_id`` or
    ``participant``) has which value, the name part beside it (None when there is none), and
    whether the platform marked it late."""

    key: str
    value: str
    name: str | None = None
    late: bool = False


def ruby_word_character(ch: str) -> bool:
    """Ruby's ``[[:word:]]`` on a Unicode string: a letter, a mark, a decimal digit or a
    connector punctuation (``_``)."""
    category = unicodedata.category(ch)
    return category[0] in "LM" or category in ("Nd", "Pc")


def canvas_name_part(sortable_name: str) -> str:
    """The name part Canvas writes for a student of this sortable name (its
    ``sanitize_user_name``, then the removal of every character that is not a word
    character)."""
    text = re.sub(r"_([0-9]+)_", r"\1", str(sortable_name))
    text = "".join(c.lower() for c in text)  # Ruby's downcase: per character, no context
    return "".join(c for c in text if ruby_word_character(c))


def same_letters(a: str, b: str) -> bool:
    """Whether two name parts hold the same word characters, in any order, ``_`` aside (so
    "Given Surname" in a course roster agrees with Canvas's "surnamegiven")."""
    def key(text):
        text = unicodedata.normalize("NFC", str(text)).casefold()
        return Counter(c for c in text if ruby_word_character(c) and c != "_")
    ka, kb = key(a), key(b)
    return bool(ka) and ka == kb


def canvas_truncated(filename: str) -> bool:
    """Whether Canvas cut this name (longer than 180 characters: 175 ending in ``...`` and
    the extension)."""
    return len(filename) == 175 and bool(re.search(r"\.\.\.(\.[^./]*)?\Z", filename))


def canvas_readings(filename: str) -> list[Reading]:
    """Every way to read a Canvas download name, leftmost first (see the module's text)."""
    readings = []
    anon = _CANVAS_ANON.match(filename)
    if anon:
        readings.append(Reading("anonymous_id", anon["anon"], None, bool(anon["late"])))
    for i in [m.end() for m in re.finditer("_", filename)]:
        tail = _CANVAS_TAIL.match(filename, i)
        if tail is None:
            continue
        name, late = filename[:i - 1], False
        if name == "LATE" or name.endswith("_LATE"):  # Canvas's mark; a name part is lower case
            name, late = name[:-len("LATE")].removesuffix("_"), True
        readings.append(Reading("id", tail["id"], name, late))
    return readings


def canvas_student(filename: str, roster) -> tuple[object, Reading | None, str]:
    """The roster student a Canvas download name belongs to, the reading used, and why
    none when none: ``(student or None, reading or None, why)``. ``roster`` gives
    ``by_id``, ``by_anonymous_id`` and ``canvas_name(student)``."""
    readings = canvas_readings(filename)
    if not readings:
        return None, None, ("its name does not fit Canvas's "
                            "name_[LATE_]userid_attachmentid_file")
    anonymous = [r for r in readings if r.key == "anonymous_id"]
    if anonymous:
        student = roster.by_anonymous_id.get(anonymous[0].value)
        if student is None:
            why = (f"an anonymous submission (anon_{anonymous[0].value}): no roster student "
                   f"has that anonymous_id" if roster.by_anonymous_id else
                   f"an anonymous submission (anon_{anonymous[0].value}): the roster has no "
                   f"anonymous_id column, so its page is named by the file")
            return None, anonymous[0], why
        return student, anonymous[0], ""
    known = [(r, roster.by_id[r.value]) for r in readings if r.value in roster.by_id]
    if not known:
        return None, readings[0], f"the id {readings[0].value} is not in the roster"
    ids = ", ".join(dict.fromkeys(r.value for r, _ in known))
    if canvas_truncated(filename):  # the real ids may be cut away, leaving a name's digits
        return None, None, (f"Canvas cut this name (over 180 characters), so the id in it "
                            f"({ids}) may come from the name part: not matched; look at the "
                            f"file and grade it under a name of Canvas's form")
    students = {s.id for _, s in known}
    if len(students) == 1:
        return known[0][1], known[0][0], ""
    agree = [(r, s) for r, s in known if r.name is not None
             and same_letters(r.name, roster.canvas_name(s))]
    if len({s.id for _, s in agree}) == 1:
        return agree[0][1], agree[0][0], ""
    return None, None, (f"ambiguous: the name can be read with the user id {ids} (its name "
                        f"part holds digits) and "
                        + ("no" if not agree else "more than one") + " reading's name part "
                        "is that student's name in the roster: not matched, rename the file "
                        "to Canvas's form for its student")


def moodle_name_part(full_name: str) -> str:
    """The name part Moodle writes for a student of this full name: ``_`` written as a
    space, then ``clean_filename`` (control characters and ``& < > " ` | ' : \\ /`` removed)."""
    text = str(full_name).replace("_", " ")
    return "".join(c for c in text
                   if unicodedata.category(c) != "Cc" and c not in "&<>\"`|':\\/")


def moodle_reading(path, participants=()) -> tuple[Reading | None, str]:
    """The reading of a Moodle download path (the outermost folder Moodle names, else the
    flat file name) and why none when none. ``participants``: the roster's participant ids,
    to tell a second marker naming another participant."""
    path = PurePath(path)
    for folder in reversed(path.parents):
        m = _MOODLE_FOLDER.fullmatch(folder.name) if folder.name else None
        if m:
            return Reading("participant", m["participant"], m["name"]), ""
    m = _MOODLE_FLAT.match(path.name)
    if m is None:
        return None, ("its name does not fit Moodle's Full Name_participantid_"
                      "assignsubmission_file_ (a folder of that name, or a flat download)")
    others = {p for p in _MOODLE_MARK.findall(path.name[m.end("participant"):])
              if p != m["participant"] and p in set(participants)}
    if others:
        return None, (f"ambiguous: the name holds Moodle's mark for the participant "
                      f"{m['participant']} and for {', '.join(sorted(others))} (Moodle writes "
                      f"one): not matched")
    return Reading("participant", m["participant"], m["name"]), ""
