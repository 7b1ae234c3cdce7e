"""Feedback to hand back: one page per submission, in HTML (to open in a browser or attach)
and in Markdown (to paste into an LMS comment box).

A page gives the points per question and in total and, for each question not passed, the
first failing case (its inputs, the expected and the actual values, abridged), the named
misconception when a diagnosis matched, and the question's hint; it ends with the seed that
drew the cases, so a regrade with ``--seed`` reproduces them. No reference code appears: only
what the gradebook row holds (:func:`feedback_record` keeps, per question, the verdict's plain
fields). Text that came from a submission is escaped for HTML.
"""
from __future__ import annotations

import html
import re
from pathlib import Path

from .intake import clean_text

__all__ = ["feedback_record", "write_feedback", "page_html", "page_markdown", "page_name"]

_STATUS = {"passed": "passed", "failed": "partly right", "not attempted": "not attempted",
           "error": "not graded"}


def feedback_record(result) -> dict:
    """The plain fields of a :class:`~kernelcourse.grading.scoring.Result` a page needs."""
    q = result.question
    diagnosis = result.diagnosis
    return {"status": result.status, "points": round(float(result.points), 4),
            "possible": q.points, "n_passed": result.n_passed, "n_cases": result.n_cases,
            "detail": clean_text(result.detail, 600),
            "diagnosis": diagnosis.name if diagnosis is not None else "",
            "diagnosis_message": diagnosis.message if diagnosis is not None else ""}


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


def page_name(row, student=None) -> str:
    """The file stem of a submission's page: the student id, else the notebook's name."""
    stem = str(student.id) if student is not None else Path(row.file).stem
    return re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("._") or "submission"


def _what(entry) -> str:
    if entry["status"] == "passed":
        return f"passed all {entry['n_cases']} cases"
    if entry["status"] == "not attempted":
        return "not attempted (the answer cell still raises NotImplementedError, or is missing)"
    if entry["status"] == "failed":
        return f"{entry['n_passed']} of {entry['n_cases']} cases passed"
    return entry["detail"] or "not graded"


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
    return detail[len("first failure on "):] if detail.startswith("first failure on ") else detail


def page_markdown(row, registry, *, seed, assignment="", student=None) -> str:
    """The Markdown page of one gradebook row."""
    who = student.name if student is not None else Path(row.file).name
    lines = [f"# Feedback on {assignment or 'the assignment'}: {who}", "",
             f"**Total: {_fmt(row.total)} / {_fmt(row.possible)} points**", "",
             "| question | points | result |", "|---|---:|---|"]
    entries = _entries(row, registry)
    for e in entries:
        lines.append(f"| {e['id']} {e['title']} | {_fmt(e['points'])} / {_fmt(e['possible'])} "
                     f"| {_label(e)} |")
    for e in entries:
        if e["status"] == "passed":
            continue
        lines += ["", f"## {e['id']} {e['title']}", "", f"- Result: {_what(e)}"]
        if e["status"] == "failed" and e.get("detail"):
            lines.append(f"- First failing case: `{_first_failure(e)}`")
        if e.get("diagnosis_message"):
            lines.append(f"- Likely mistake: {e['diagnosis_message']}")
        if e.get("hint"):
            lines.append(f"- Hint: {e['hint']}")
    lines += ["", f"Cases drawn with seed {seed}; file `{Path(row.file).name}`"
                  + (f", graded {row.graded_at}" if row.graded_at else "") + "."]
    return "\n".join(lines) + "\n"


_CSS = """
body{font-family:-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;max-width:52rem;
margin:2rem auto;padding:0 1.2rem;color:#1d2430;line-height:1.5}
h1{font-size:1.5rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin:1.6rem 0 .4rem}
.sub{color:#5a6472;margin-top:0}
.total{font-size:1.25rem;margin:1rem 0;padding:.7rem 1rem;background:#f2f5f9;border-radius:6px}
.bar{height:.6rem;background:#e3e8ef;border-radius:3px;overflow:hidden;margin-top:.4rem}
.bar span{display:block;height:100%;background:#2f7d4f}
table{border-collapse:collapse;width:100%;margin:.6rem 0}
th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid #e3e8ef;vertical-align:top}
td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.tag{display:inline-block;padding:.05rem .5rem;border-radius:1rem;font-size:.85rem}
.t-passed{background:#dff3e6;color:#1e6a3c}.t-failed{background:#fdf0d8;color:#8a5300}
.t-wrong{background:#fde4d8;color:#9a3a10}
.t-notattempted{background:#eceff3;color:#4a5462}.t-error{background:#fbe0e0;color:#9b1c1c}
.q{border-left:4px solid #d8dee7;padding:.3rem 0 .3rem 1rem;margin:1.1rem 0}
.q.failed{border-color:#e0a030}.q.error{border-color:#d04545}.q.notattempted{border-color:#9aa4b2}
.q .what{color:#5a6472}
code,pre{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:.86rem}
pre{background:#f6f8fa;padding:.6rem .8rem;border-radius:5px;white-space:pre-wrap;
word-break:break-word;margin:.3rem 0}
.label{font-weight:600;margin:.5rem 0 .1rem}
.cap{font-size:.78rem;color:#5a6472;margin:.3rem 0 0;text-transform:uppercase;letter-spacing:.03em}
.foot{color:#5a6472;font-size:.85rem;margin-top:2rem;border-top:1px solid #e3e8ef;padding-top:.6rem}
"""


def _label(entry) -> str:
    if entry["status"] == "failed" and not entry.get("n_passed"):
        return "not right yet"
    return _STATUS.get(entry["status"], entry["status"])


def _tag(entry) -> str:
    css = "t-" + entry["status"].replace(" ", "")
    if entry["status"] == "failed" and not entry.get("n_passed"):
        css = "t-wrong"
    return f'<span class="tag {css}">{html.escape(_label(entry))}</span>'


def page_html(row, registry, *, seed, assignment="", student=None) -> str:
    """The HTML page of one gradebook row (self-contained: no script, no network)."""
    e_ = html.escape
    who = student.name if student is not None else Path(row.file).name
    share = 100 * row.total / row.possible if row.possible else 0
    entries = _entries(row, registry)
    out = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
           f"<title>Feedback: {e_(who)}</title><style>{_CSS}</style></head><body>",
           f"<h1>Feedback on {e_(assignment or 'the assignment')}</h1>",
           f"<p class='sub'>{e_(who)}"
           + (f" &middot; {e_(student.email)}" if student is not None and student.email else "")
           + "</p>",
           f"<div class='total'><b>{_fmt(row.total)}</b> / {_fmt(row.possible)} points"
           f"<div class='bar'><span style='width:{share:.1f}%'></span></div></div>",
           "<table><tr><th>question</th><th>result</th><th style='text-align:right'>points"
           "</th></tr>"]
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
        css = e["status"].replace(" ", "")
        out.append(f"<div class='q {css}'><b>{e_(e['id'])} {e_(e['title'])}</b> "
                   f"<span class='what'>&middot; {e_(_what(e))}</span>")
        if e["status"] == "failed" and e.get("detail"):
            inputs, outcome = _split_failure(_first_failure(e))
            label, inputs = _split_label(inputs)
            out.append("<div class='label'>First failing case</div>"
                       + (f"<div>{e_(label)}</div>" if label else "")
                       + (f"<div class='cap'>inputs</div><pre>{e_(inputs)}</pre>"
                          if inputs else "")
                       + f"<div class='cap'>what happened</div><pre>{e_(outcome)}</pre>")
        if e.get("diagnosis_message"):
            out.append(f"<div class='label'>Likely mistake</div><div>"
                       f"{e_(e['diagnosis_message'])}</div>")
        if e.get("hint"):
            out.append(f"<div class='label'>Hint</div><div>{e_(e['hint'])}</div>")
        out.append("</div>")
    out.append(f"<p class='foot'>Cases drawn with seed {e_(str(seed))}; file "
               f"<code>{e_(Path(row.file).name)}</code>"
               + (f"; graded {e_(row.graded_at)}" if row.graded_at else "")
               + (f"; kernelcourse {e_(row.version)}" if row.version else "") + ".</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write_feedback(rows, folder, *, seed, assignment="", students=None, registry=None) -> list:
    """Write ``NAME.html`` and ``NAME.md`` per graded row into ``folder``; the paths written.

    ``students`` maps a row's file to its :class:`~kernelcourse.grading.roster.Student`
    (the page is then named by the student id); rows that were not graded get no page.
    """
    from .questions import all_questions

    registry = all_questions() if registry is None else registry
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    students = students or {}
    written, used = [], set()
    for row in rows:
        if not row.points:
            continue
        student = students.get(row.file)
        name = page_name(row, student)
        base, k = name, 2
        while name in used:
            name, k = f"{base}-{k}", k + 1
        used.add(name)
        seed_ = row.seed if row.seed is not None else seed
        for suffix, make in ((".html", page_html), (".md", page_markdown)):
            path = folder / f"{name}{suffix}"
            path.write_text(make(row, registry, seed=seed_, assignment=assignment,
                                 student=student), encoding="utf-8")
            written.append(path)
    return written
