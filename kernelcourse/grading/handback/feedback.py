"""Feedback to hand back: one page per submission, in HTML (to open in a browser or attach)
and in Markdown (to paste into an LMS comment box).

A page gives the points per question and in total and, for each question not passed, the
first failing case (its inputs, the expected and the actual values, abridged), the named
misconception when a diagnosis matched, and the question's hint; it says which cases each
question was graded on (its fixed cases, the same in every run, and how many drawn for this
submission alone) and never how they were drawn: no seed, no draw token (they stay in the
instructor's gradebook, :mod:`kernelcourse.grading.command.draws`). No reference code appears: only
what the gradebook row holds (:func:`~kernelcourse.grading.gradebook.book.feedback_record`
keeps, per question, the verdict's plain fields). Every text that came from outside (file names, roster names, error messages,
returned values) is escaped: for HTML in the HTML pages; for Markdown *and* HTML in the
Markdown pages (:func:`md_text`; values go in fenced blocks whose fence is longer than any
run of backticks they hold, :func:`md_code`), so that a page pasted into an LMS comment box
shows the text and runs nothing.

Page names (:func:`page_name`) are injective and bounded: a student id made only of
``a-z 0-9 _ -`` names its page as it is; any other name (and every unmatched file's) is
shortened and given ``~`` and a hash of the whole name, so two names never share a page and
none overflows the file-name limit. ``index.html`` lists the pages.
"""
from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path
from types import SimpleNamespace

from ..intake.notebooks import clean_text
from ..checking.scoring import mistake_heading
from .outcomes import outcome, timeout_text

__all__ = ["write_feedback", "page_html", "page_markdown", "page_name",
           "md_text", "md_code", "cases_text"]

_STATUS = {"passed": "passed", "failed": "partly right", "not attempted": "not attempted",
           "error": "crashed"}

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
_MD_LINE_START = re.compile(r"^(\s*)(\d*)([#+\-=.)])")



def mistake_words(entry) -> str:
    """The label of a feedback entry's diagnosis, as check() words it: a named mistake's, or a
    relation's found from the answer's values (the record's ``diagnosis_found_by``)."""
    return mistake_heading(SimpleNamespace(found_by=entry.get("diagnosis_found_by", "name")))

def md_text(text, limit: int = 2000) -> str:
    """``text`` safe inside a Markdown paragraph, heading or table cell: control characters
    escaped, HTML escaped (``<``, ``>``, ``&``), and the marks that make emphasis,
    code, links, images, tables or strike-through (``\\ ` * _ [ ] | ~``) backslash-escaped,
    as is a first character that would open a heading or a list; so it shows as written and
    makes no link, image, code span or tag. Other punctuation is left alone, so the text
    still reads well where an LMS shows it unrendered."""
    # quotes stay: with < and & escaped no tag (nor attribute) can open
    text = _MD_SPECIAL.sub(r"\\\1", html.escape(clean_text(text, limit), quote=False))
    # "# x", "- x", "+ x", "= x" (a heading, a list) and "1. x", "1) x" (a numbered list)
    return _MD_LINE_START.sub(lambda m: (m.group(0) if m.group(3) in ".)" and not m.group(2)
                                         else m.group(1) + m.group(2) + "\\" + m.group(3)),
                              text, count=1)


def md_code(text, limit: int = 2000) -> str:
    """``text`` as a fenced code block whose fence is longer than any run of backticks in
    it, so nothing in the text can close the block (Markdown shows a code block as typed)."""
    text = clean_text(text, limit)
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"


def _data_points(text: str) -> str:
    """A case's "6 points" (of data) written "6 data points", never read as a score."""
    return re.sub(r"\b(\d+) points\b", r"\1 data points", text)


def cases_text(row, qid: str) -> str:
    """Which cases a question of a row was graded on, for the student: how many fixed and how
    many drawn (the gradebook's ``cases``), e.g. '4 fixed cases (the same in every run) and 3
    cases drawn for this submission'; never the seed or the draw token."""
    info = (getattr(row, "cases", None) or {}).get(qid)
    if not info:
        return ""
    fixed, drawn = info.get("fixed", 0), info.get("drawn", 0)
    parts = []
    if fixed:
        parts.append(f"{fixed} fixed case{'s' if fixed != 1 else ''} (the same in every run)")
    if drawn:
        parts.append(f"{drawn} case{'s' if drawn != 1 else ''} drawn for this submission")
    return " and ".join(parts)


def _fmt(x) -> str:
    x = round(float(x), 2)
    return str(int(x)) if x == int(x) else f"{x:g}"


def _entries(row, registry) -> list[dict]:
    """One entry per graded question, with the question's title and hint."""
    entries = []
    for qid, points in row.points.items():
        q = registry.get(qid)
        record = dict(row.feedback.get(qid) or {})
        if not record:  # graded without a verdict: no answer cell, time over, worker died
            detail = row.details.get(qid, "")
            record = {"status": "not attempted" if detail == "no answer cell" else "error",
                      "points": points, "possible": q.points if q else 0, "n_passed": 0,
                      "n_cases": 0, "detail": detail, "diagnosis": "", "diagnosis_message": ""}
        record.update(id=qid, title=q.title if q else qid, hint=q.hint if q else "",
                      section=getattr(q, "section", "") if q else "")
        entries.append(record)
    return entries


_CLEAN_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
_RESERVED = {"index"}


def page_name(row, student=None) -> str:
    """The file stem of a submission's page: the student id when it is a plain name
    (``a-z0-9_-``, at most 64 characters, not ``index``), else a shortened plain form of the
    id (or, for a file no student was found for, of the file name) with ``~`` and 12 hex
    digits of the sha256 of the whole id or path. Plain names hold no ``~``, so two rows
    never share a page, and no name is longer than 64 + 13 characters."""
    if student is not None:
        raw, identity = str(student.id), "student:" + str(student.id)
        if _CLEAN_NAME.fullmatch(raw) and raw not in _RESERVED:
            return raw
    else:
        raw, identity = Path(row.file).stem, "file:" + str(row.file)
    base = re.sub(r"[^a-z0-9_-]+", "_", raw.lower()).strip("_-")[:48] or "submission"
    digest = hashlib.sha256(identity.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{base}~{digest}"


def _what(entry) -> str:
    if outcome(entry) == "timeout":  # an endless loop: the same words wherever it sits
        passed = (f"{entry['n_passed']} of {entry['n_cases']} test cases passed; "
                  if entry.get("n_passed") else "")
        return passed + timeout_text(entry)
    if entry["status"] == "passed":
        return f"passed all {entry['n_cases']} test cases"
    if entry["status"] == "not attempted":
        return "not attempted (the answer cell still raises NotImplementedError, or is missing)"
    statements = entry.get("statements") or []
    if entry["status"] == "failed" and statements:
        return (f"{sum(s['right'] for s in statements)} of {len(statements)} statements "
                f"right")
    if entry["status"] == "failed":
        return f"{entry['n_passed']} of {entry['n_cases']} test cases passed"
    detail = _data_points(entry["detail"] or "")
    if detail.startswith("stopped"):
        return detail
    return "crashed: " + detail if detail else "crashed (no result came back)"


def _split_failure(text: str) -> tuple[str, str]:
    """The inputs and what happened, from '<inputs>: <expected ...|got ...|raised ...>'."""
    m = re.search(r": (expected|got |raised |stopped)", text)
    return (text[:m.start()], text[m.start() + 2:]) if m else ("", text)


def _split_label(inputs: str) -> tuple[str, str]:
    """A case's label and its inputs, from 'label (a=..., b=...)' (no label: 'a=..., ...')."""
    if re.match(r"^\w+=", inputs):
        return "", inputs
    opens = [m.start() for m in re.finditer(r" \((?=\w+=)", inputs)]
    if not opens or not inputs.endswith(")"):
        return "", inputs
    return inputs[:opens[0]], inputs[opens[0] + 2:-1]


def _first_failure(entry) -> str:
    detail = entry.get("detail", "")
    for opening in ("first failure on ", "On "):
        if detail.startswith(opening):
            detail = detail[len(opening):]
            break
    return _data_points(detail)


def page_markdown(row, registry, *, assignment="", student=None, late=None) -> str:
    """The Markdown page of one gradebook row; every outside text escaped (:func:`md_text`,
    :func:`md_code`)."""
    who = student.name if student is not None else Path(row.file).name
    lines = [f"# Feedback on {md_text(assignment or 'the assignment')}: {md_text(who)}", "",
             f"**Total: {_fmt(row.total)} / {_fmt(row.possible)} points**", ""]
    if late:
        lines += [md_text(late), ""]
    lines += ["| question | points | result |", "|---|---:|---|"]
    entries = _entries(row, registry)
    for e in entries:
        lines.append(f"| {md_text(e['id'])} {md_text(e['title'])} | {_fmt(e['points'])} / "
                     f"{_fmt(e['possible'])} | {md_text(_label(e))} |")
    for e in entries:
        if e["status"] == "passed":
            continue
        lines += ["", f"## {md_text(e['id'])} {md_text(e['title'])}", "",
                  f"- Result: {md_text(_what(e))}"]
        graded_on = cases_text(row, e["id"]) if e["status"] != "not attempted" else ""
        if graded_on:
            lines.append(f"- Graded on: {md_text(graded_on)}")
        wrong = [st for st in e.get("statements") or [] if not st["right"]]
        for st in wrong:
            lines.append(f"- Wrong: {md_text(st['statement'])}: {md_text(st['message'])}")
        if e["status"] == "failed" and e.get("detail") and not wrong:
            lines += ["- First failing case:", "", md_code(_first_failure(e)), ""]
            if e.get("inputs"):
                lines += ["- Its inputs:", "", md_code(e["inputs"]), ""]
        if e.get("diagnosis_message"):
            lines.append(f"- {mistake_words(e)}: {md_text(e['diagnosis_message'])}")
        if e.get("hint"):
            lines.append(f"- Hint: {md_text(e['hint'])}")
    lines += ["", md_text(_footer(row)) + "."]
    return "\n".join(lines) + "\n"


def _footer(row) -> str:
    return ("Each question's fixed cases are the same in every run; its other cases were "
            f"drawn for this submission alone; file {Path(row.file).name}"
            + (f", graded {row.graded_at}" if row.graded_at else ""))


_CSS = """
body{font-family:-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;max-width:52rem;
margin:2rem auto;padding:0 1.2rem;color:#1d2430;line-height:1.5;overflow-wrap:anywhere}
h1{font-size:1.5rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin:1.6rem 0 .4rem}
.sub{color:#5a6472;margin-top:0}
.total{font-size:1.25rem;margin:1rem 0;padding:.7rem 1rem;background:#f2f5f9;border-radius:6px}
.bar{height:.6rem;background:#e3e8ef;border-radius:3px;overflow:hidden;margin-top:.4rem}
.bar span{display:block;height:100%;background:#2f7d4f}
table{border-collapse:collapse;width:100%;margin:.6rem 0;table-layout:fixed}
code{overflow-wrap:anywhere;word-break:break-all}
th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid #e3e8ef;vertical-align:top;
overflow-wrap:anywhere}
td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.tag{display:inline-block;padding:.05rem .5rem;border-radius:1rem;font-size:.85rem}
.t-passed{background:#dff3e6;color:#1e6a3c}.t-failed{background:#fdf0d8;color:#8a5300}
.t-wrong{background:#fde4d8;color:#9a3a10}
.t-notattempted{background:#eceff3;color:#4a5462}.t-error{background:#fbe0e0;color:#9b1c1c}
.q{border-left:4px solid #d8dee7;padding:.3rem 0 .3rem 1rem;margin:1.1rem 0}
.q.failed{border-color:#e0a030}.q.error{border-color:#d04545}.q.notattempted{border-color:#9aa4b2}
.q .what{color:#4a5462;margin:.2rem 0}.q h3{font-size:1rem;margin:0}
.late{color:#8a5300}
code,pre{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:.86rem}
pre{background:#f6f8fa;padding:.6rem .8rem;border-radius:5px;white-space:pre-wrap;
word-break:break-word;margin:.3rem 0}
.label{font-weight:600;margin:.5rem 0 .1rem}
.cap{font-size:.78rem;color:#5a6472;margin:.3rem 0 0;text-transform:uppercase;letter-spacing:.03em}
.foot{color:#5a6472;font-size:.85rem;margin-top:2rem;border-top:1px solid #e3e8ef;padding-top:.6rem}
"""


def _timed_out(entry) -> bool:
    return outcome(entry) == "timeout"


def _label(entry) -> str:
    if outcome(entry) == "timeout" and not entry.get("n_passed"):
        return "stopped (time limit)"
    if entry["status"] == "failed" and not entry.get("n_passed"):
        return "not right yet"
    return _STATUS.get(entry["status"], entry["status"])


def _tag(entry) -> str:
    css = "t-" + entry["status"].replace(" ", "")
    if outcome(entry) == "timeout" and not entry.get("n_passed"):
        css = "t-error"
    elif entry["status"] == "failed" and not entry.get("n_passed"):
        css = "t-wrong"
    return f'<span class="tag {css}">{html.escape(_label(entry))}</span>'


def page_html(row, registry, *, assignment="", student=None, late=None) -> str:
    """The HTML page of one gradebook row (self-contained: no script, no network)."""
    e_ = html.escape
    who = student.name if student is not None else Path(row.file).name
    share = 100 * row.total / row.possible if row.possible else 0
    entries = _entries(row, registry)
    out = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
           f"<title>Feedback: {e_(who)}</title><style>{_CSS}</style></head><body><main>",
           f"<h1>Feedback on {e_(assignment or 'the assignment')}</h1>",
           f"<p class='sub'>{e_(who)}"
           + (f" &middot; {e_(student.email)}" if student is not None and student.email else "")
           + "</p>",
           f"<div class='total'><b>{_fmt(row.total)}</b> / {_fmt(row.possible)} points"
           f"<div class='bar' aria-hidden='true'><span style='width:{share:.1f}%'></span></div>"
           "</div>" + (f"<p class='late'>{e_(late)}</p>" if late else ""),
           "<table><tr><th scope='col'>question</th><th scope='col'>result</th>"
           "<th scope='col' style='text-align:right'>points</th></tr>"]
    for e in entries:
        out.append(f"<tr><td>{e_(e['id'])} {e_(e['title'])}</td><td>{_tag(e)}</td>"
                   f"<td class='num'>{_fmt(e['points'])} / {_fmt(e['possible'])}</td></tr>")
    out.append("</table>")
    todo = [e for e in entries if e["status"] != "passed"]
    if todo:
        out.append("<h2>What to look at</h2>")
    else:
        out.append("<p>Every question passed all its cases. Well done.</p>")
    for e in todo:
        css = "error" if _timed_out(e) else e["status"].replace(" ", "")
        out.append(f"<div class='q {css}'><h3>{e_(e['id'])} {e_(e['title'])}</h3>"
                   f"<p class='what'>{e_(_what(e))}</p>")
        graded_on = cases_text(row, e["id"]) if e["status"] != "not attempted" else ""
        if graded_on:
            out.append(f"<p class='what'>Graded on {e_(graded_on)}.</p>")
        wrong = [st for st in e.get("statements") or [] if not st["right"]]
        if wrong:
            out.append("<div class='label'>Wrong statements</div><ul>" + "".join(
                f"<li>{e_(st['statement'])}: {e_(st['message'])}</li>" for st in wrong)
                + "</ul>")
        if e["status"] == "failed" and e.get("detail") and not wrong:
            inputs, outcome = _split_failure(_first_failure(e))
            label, inputs = _split_label(inputs)
            out.append("<div class='label'>First failing case</div>"
                       + (f"<div>{e_(label)}</div>" if label else "")
                       + (f"<div class='cap'>inputs</div><pre>{e_(inputs)}</pre>"
                          if inputs else "")
                       + f"<div class='cap'>what happened</div><pre>{e_(outcome)}</pre>"
                       + (f"<div class='cap'>its inputs in full</div><pre>{e_(e['inputs'])}</pre>"
                          if e.get("inputs") else ""))
        if e.get("diagnosis_message"):
            out.append(f"<div class='label'>{e_(mistake_words(e))}</div><div>"
                       f"{e_(e['diagnosis_message'])}</div>")
        if e.get("hint"):
            out.append(f"<div class='label'>Hint</div><div>{e_(e['hint'])}</div>")
        out.append("</div>")
    out.append(f"<p class='foot'>{e_(_footer(row))}"
               + (f"; kernelcourse {e_(row.version)}" if row.version else "") + ".</p>")
    out.append("</main></body></html>")
    return "\n".join(out) + "\n"


def write_feedback(rows, folder, *, assignment="", students=None, registry=None, late=None):
    """Write ``NAME.html`` and ``NAME.md`` per graded row into ``folder`` and an
    ``index.html`` listing them; returns the paths written and the failures ``[(what, why)]``
    (each page is written on its own: one that fails stops no other).

    ``students`` maps a row's file to its :class:`~kernelcourse.grading.handback.roster.Student`
    (the page is then named by the student id); rows that were not graded get no page.
    ``late`` maps a file to the sentence its page shows about late work."""
    from ..questions import all_questions

    registry = all_questions() if registry is None else registry
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    students, late = students or {}, late or {}
    written, failures, listed = [], [], []
    claims: dict = {}
    for row in rows:
        if row.points and students.get(row.file) is not None:
            claims[students[row.file].id] = claims.get(students[row.file].id, 0) + 1
    for row in rows:
        if not row.points:
            continue
        student = students.get(row.file)
        # a student several files claim gets a page per file (named by the file)
        name = page_name(row, student if student is None or claims[student.id] == 1 else None)
        try:
            for suffix, make in ((".html", page_html), (".md", page_markdown)):
                path = folder / f"{name}{suffix}"
                path.write_text(make(row, registry, assignment=assignment,
                                     student=student, late=late.get(row.file)),
                                encoding="utf-8")
                written.append(path)
            listed.append((row, student, name))
        except Exception as exc:  # noqa: BLE001 - one page must not stop the others
            failures.append((f"feedback page of {clean_text(Path(row.file).name, 120)}",
                             f"{type(exc).__name__}: {clean_text(exc, 200)}"))
    try:
        path = folder / "index.html"
        path.write_text(index_html(listed, assignment), encoding="utf-8")
        written.append(path)
    except Exception as exc:  # noqa: BLE001
        failures.append(("feedback index", f"{type(exc).__name__}: {clean_text(exc, 200)}"))
    return written, failures


def index_html(listed, assignment="") -> str:
    """The index of the feedback pages: one line per page, with its total."""
    e_ = html.escape
    out = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
           f"<title>Feedback pages: {e_(assignment or 'the assignment')}</title>"
           f"<style>{_CSS}</style></head><body><main>",
           f"<h1>Feedback pages: {e_(assignment or 'the assignment')}</h1>",
           f"<p class='sub'>{len(listed)} page(s); each also as Markdown (.md) for an LMS "
           "comment box.</p>",
           "<table><colgroup><col style='width:38%'><col style='width:47%'>"
           "<col style='width:15%'></colgroup>"
           "<tr><th scope='col'>student or file</th><th scope='col'>file</th>"
           "<th scope='col' style='text-align:right'>points</th></tr>"]
    for row, student, name in sorted(listed, key=lambda t: (t[1] is None, t[2])):
        who = f"{student.name} ({student.id})" if student is not None else "no student matched"
        out.append(f"<tr><td><a href='{e_(name)}.html'>{e_(clean_text(who, 200))}</a></td>"
                   f"<td><code>{e_(clean_text(Path(row.file).name, 120))}</code></td>"
                   f"<td class='num'>{_fmt(row.total)} / {_fmt(row.possible)}</td></tr>")
    out.append("</table></main></body></html>")
    return "\n".join(out) + "\n"
