"""Download names made exactly as Canvas and Moodle make them (written from the platforms'
rules, for the tests: the grader's reading of them lives in
kernelcourse.grading.handback.names).

Canvas (Instructure, canvas-lms, ``ContentZipper``: ``get_filename``, ``sanitize_user_name``,
``sanitize_file_name``, ``sanitize_attachment_filename``; ``Attachment.shorten_filename`` and
``Attachment.make_unique_filename``) and Moodle (Moodle HQ, ``mod_assign\\downloader``:
``get_student_prefix``, ``load_submissionplugin_filelist``; ``clean_param(PARAM_FILE)``).
"""
from __future__ import annotations

import re
import unicodedata


def _ruby_word(ch: str) -> bool:  # Onigmo's [[:word:]]: Letter | Mark | Decimal_Number | Pc
    category = unicodedata.category(ch)
    return category[0] in "LM" or category in ("Nd", "Pc")


def _ruby_downcase(text: str) -> str:
    """Ruby's String#downcase: full Unicode mapping, character by character (no final sigma)."""
    return "".join(c.lower() for c in text)


def _ruby_gsub_digits(text: str) -> str:
    """``gsub(/_(\\d+)_/, '\\1')`` (Ruby's ``\\d`` is ASCII): left to right, no overlap."""
    return re.sub(r"_([0-9]+)_", r"\1", text)


def _extname(name: str) -> str:
    """Ruby's File.extname for the names made here."""
    base = name.rsplit("/", 1)[-1]
    dot = base.rfind(".")
    return base[dot:] if dot > 0 and dot < len(base) - 1 else ""


def canvas_download_name(sortable_name, user_id, attachment_id, display_name, *, late=False,
                         anonymous_id=None, in_zip=None) -> str:
    """The name of one submitted file in Canvas's "Download Submissions" zip. ``in_zip``: the
    set of names already in the zip (the name is added to it)."""
    users_name = None
    if anonymous_id is None:
        users_name = _ruby_downcase(_ruby_gsub_digits(sortable_name))
    ident = f"anon_{anonymous_id}" if anonymous_id is not None else str(user_id)
    parts = [p for p in (users_name, "LATE" if late else None, ident) if p is not None]
    filename = "".join(c for c in "_".join(parts) if _ruby_word(c))
    attachment = re.sub(r'[\x00/\\:*?"<>|]+', "_", display_name)
    full = f"{filename}_{attachment_id}_{attachment}"
    if len(full) > 180:  # Attachment.shorten_filename: String#truncate(175, omission: ...)
        omission = "..." + _extname(full)
        full = full[:175 - len(omission)] + omission
    if in_zip is not None:  # Attachment.make_unique_filename
        if full in in_zip:
            ext = _extname(full)
            base = full[:len(full) - len(ext)] if ext else full
            n = 1
            while f"{base}-{n}{ext}" in in_zip:
                n += 1
            full = f"{base}-{n}{ext}"
        in_zip.add(full)
    return full


def resubmitted(display_name: str, times: int) -> str:
    """Canvas's name for an upload of the same name again: ``name-1.ext``, ``name-2.ext``."""
    if times == 0:
        return display_name
    ext = _extname(display_name)
    base = display_name[:len(display_name) - len(ext)] if ext else display_name
    return f"{base}-{times}{ext}"


def moodle_clean_filename(text: str) -> str:
    """``clean_param($text, PARAM_FILE)``: control characters and & < > " ` | ' : \\ / out."""
    text = "".join(c for c in text
                   if unicodedata.category(c) != "Cc" and c not in "&<>\"`|':\\/")
    return "" if text in (".", "..") else text


def moodle_prefix(full_name: str, participant, *, blind=False) -> str:
    name = "Participant" if blind else full_name
    return moodle_clean_filename(name.replace("_", " ") + "_" + str(participant))


def moodle_download_path(full_name, participant, file_name, *, folders=True, subfolder="",
                         blind=False, final_underscore=False) -> str:
    """The path of one submitted file in Moodle's "Download all submissions" zip: in the
    student's folder (the default since Moodle 3.1; ``final_underscore`` as older versions
    wrote it), below the student's own ``subfolder``, or flat."""
    prefix = moodle_prefix(full_name, participant, blind=blind)
    if folders:
        folder = moodle_clean_filename(prefix + "_assignsubmission_file"
                                       + ("_" if final_underscore else ""))
        inner = f"/{subfolder.strip('/')}/" if subfolder.strip("/") else "/"
        return folder + inner + file_name
    return moodle_clean_filename(prefix + "_assignsubmission_file_" + file_name)
