"""The class report: one page per run (HTML, with the same numbers in JSON).

It shows the distribution of the totals (a histogram drawn as inline SVG: the page needs no
network and no script), and per question the mean points, the share of submissions that passed
it and that attempted it, how often each named diagnosis fired, the most common errors (the
first failures, grouped with their numbers taken out so that equal mistakes count together,
each shown by its first example) and the
questions to revisit in the next lecture (passed by fewer than ``REVISIT_BELOW`` of the class).

Item analysis (:func:`item_analysis`), as in classical test theory: each question's
*difficulty* (the mean share of its points the class earned, 1 = everyone got it all), its
*discrimination* (the Pearson correlation of its points with the total of the *other*
questions; a question under :data:`LOW_DISCRIMINATION` is flagged, PrairieLearn's threshold),
and the set's *reliability*, Cronbach's alpha = k/(k-1) (1 - sum of the questions' variances
/ the variance of the totals), which equals KR-20 when every question is right or wrong.
Late submissions are listed with the raw and the penalised score under the stated policy.
"""
from __future__ import annotations

import html
import json
import re
import statistics
from collections import Counter
from pathlib import Path

from .outcomes import outcome, record_of, timeout_text

__all__ = ["class_report", "write_report", "report_html", "item_analysis", "cronbach_alpha",
           "REVISIT_BELOW", "LOW_DISCRIMINATION"]

#: A question passed by a smaller share of the graded submissions is one to revisit.
REVISIT_BELOW = 0.6
#: A question whose discrimination is lower is flagged (PrairieLearn flags under 0.2).
LOW_DISCRIMINATION = 0.2


def _pearson(x, y):
    n = len(x)
    if n < 2:
        return None
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx <= 0 or syy <= 0:
        return None  # no spread: no correlation to speak of
    return sxy / (sxx * syy) ** 0.5


def _variance(x) -> float:
    n = len(x)
    m = sum(x) / n
    return sum((a - m) ** 2 for a in x) / (n - 1)


def cronbach_alpha(scores) -> float | None:
    """Cronbach's alpha of ``scores`` (one list per student, one entry per question);
    None with fewer than 2 questions or students, or totals without spread."""
    if len(scores) < 2 or len(scores[0]) < 2:
        return None
    k = len(scores[0])
    totals = [sum(r) for r in scores]
    var_total = _variance(totals)
    if var_total <= 0:
        return None
    items = sum(_variance([r[j] for r in scores]) for j in range(k))
    return k / (k - 1) * (1 - items / var_total)


def item_analysis(scores, possible) -> dict:
    """Difficulty and discrimination per question, and Cronbach's alpha, from ``scores``
    (one list of points per student) and each question's ``possible`` points."""
    k = len(possible)
    per = []
    for j in range(k):
        item = [r[j] for r in scores]
        rest = [sum(r) - r[j] for r in scores]
        difficulty = (sum(item) / len(item) / possible[j]) if item and possible[j] else None
        disc = _pearson(item, rest)
        per.append({"difficulty": None if difficulty is None else round(difficulty, 4),
                    "discrimination": None if disc is None else round(disc, 4),
                    "flag": disc is not None and disc < LOW_DISCRIMINATION})
    alpha = cronbach_alpha(scores)
    return {"questions": per, "alpha": None if alpha is None else round(alpha, 4)}


def _error_kind(record: dict) -> str:
    """See :func:`_error_text`; numbers written as '#'."""
    return re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "#", _error_text(record, 400))[:120]


def _cut(text: str, limit: int) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters, with an ellipsis."""
    if len(text) <= limit:
        return text
    head = text[:limit - 1]
    space = head.rfind(" ")
    return (head[:space] if space > limit // 2 else head).rstrip(" ,;:") + "\u2026"


def _error_text(record: dict, limit: int = 160) -> str:
    """A first failure with its inputs and numbers taken out, so equal mistakes count
    together: the case's label (when it has one) and what went wrong; cut at a word."""
    detail = record.get("detail") or ""
    if outcome(record) == "timeout":
        return timeout_text(record)
    if record.get("status") == "failed":
        m = re.match(r"^(?:first failure on|On) (.*?): (raised |expected|got |stopped|not run)",
                     detail, re.S)
        if m:
            inputs, why = m.group(1), detail[m.start(2):]
            opens = [o.start() for o in re.finditer(r" \((?=\w+=)", inputs)]
            label = "" if re.match(r"^\w+=", inputs) or not opens else inputs[:opens[0]]
            if why.startswith("expected") and len(why) > 60:
                why = "wrong values"
            elif why.startswith("raised "):
                why = why.split(":", 1)[0]
            detail = f"case {label}: {why}" if label else why
    elif record.get("status") == "error":
        detail = "crashed: " + detail
    return _cut(re.sub(r"\b(\d+) points\b", r"\1 data points", detail), limit)


def class_report(rows, registry=None, *, assignment=(), seed=None, name="", late=None,
                 policy="", students=None) -> dict:
    """The class report's numbers from the gradebook rows."""
    from ..gradebook.assignment import _selected
    from ..questions import all_questions

    registry = all_questions() if registry is None else registry
    graded = [r for r in rows if r.possible > 0]
    questions = _selected(list(assignment), registry) if assignment else \
        [registry[q] for q in dict.fromkeys(q for r in graded for q in r.points) if q in registry]
    possible = max((r.possible for r in graded), default=0)
    totals = [r.total for r in graded]
    n = len(graded)
    per_question = []
    for q in questions:
        records = [record_of(r, q.id) for r in graded]
        points = [r.points.get(q.id, 0.0) for r in graded]
        kinds = Counter(outcome(rec) for rec in records)
        passed, attempted = kinds["passed"], n - kinds["not attempted"]
        finished = n - kinds["timeout"] - kinds["crash"]
        diagnoses = Counter(rec["diagnosis_message"] for rec in records
                            if rec.get("diagnosis_message") and outcome(rec) == "wrong")
        per_question.append({
            "id": q.id, "title": q.title, "points": q.points,
            "mean_points": round(statistics.fmean(points), 3) if points else 0.0,
            "students": n, "passed": passed, "wrong": kinds["wrong"],
            "timed_out": kinds["timeout"], "crashed": kinds["crash"],
            "not_attempted": kinds["not attempted"], "finished": finished,
            "passed_share": round(passed / n, 3) if n else 0.0,
            "attempted_share": round(attempted / n, 3) if n else 0.0,
            "passed_share_of_finished": round(passed / finished, 3) if finished else None,
            "diagnoses": [{"message": m, "count": c} for m, c in diagnoses.most_common()],
            # mistakes to learn from (answers that ran and were wrong), apart from answers
            # that did not finish (timeouts, crashes)
            "common_errors": _grouped([r for r in records if outcome(r) == "wrong"]),
            "unfinished": _grouped([r for r in records
                                    if outcome(r) in ("timeout", "crash")])})
    items = item_analysis([[r.points.get(q.id, 0.0) for q in questions] for r in graded],
                          [q.points for q in questions])
    for p, item in zip(per_question, items["questions"]):
        p.update(item)
    students = students or {}
    late_rows = []
    for file, info in (late or {}).items():
        s = students.get(file)
        late_rows.append({"student": f"{s.name} ({s.id})" if s is not None else Path(file).name,
                          "file": Path(file).name, "raw": info["raw"], "score": info["score"]})
    revisit = sorted((p for p in per_question if _to_revisit(p)),
                     key=lambda p: p["passed_share_of_finished"])
    return {"assignment": name or ", ".join(assignment), "seed": seed, "submissions": n,
            "not_graded": len(rows) - n, "possible": possible,
            "mean": round(statistics.fmean(totals), 3) if totals else 0.0,
            "median": round(statistics.median(totals), 3) if totals else 0.0,
            "histogram": _histogram(totals, possible),
            "questions": per_question,
            "reliability": {"cronbach_alpha": items["alpha"], "questions": len(questions)},
            "late": {"policy": policy, "submissions": sorted(late_rows,
                                                            key=lambda r: r["student"])},
            "revisit": [{"id": p["id"], "title": p["title"], "passed_share": p["passed_share"],
                         "passed": p["passed"], "finished": p["finished"],
                         "wrong": p["wrong"], "not_attempted": p["not_attempted"],
                         "unfinished": p["timed_out"] + p["crashed"],
                         "why": (p["diagnoses"][0]["message"] if p["diagnoses"] else
                                 p["common_errors"][0]["example"] if p["common_errors"] else
                                 "mostly not attempted")} for p in revisit],
            "did_not_finish": [{"id": p["id"], "title": p["title"],
                                "timed_out": p["timed_out"], "crashed": p["crashed"],
                                "students": n, "examples": p["unfinished"]}
                               for p in per_question if p["timed_out"] + p["crashed"]]}


def _grouped(records) -> list[dict]:
    """The three commonest errors among ``records``: each with its count (students) and its
    first example."""
    errors = Counter(_error_kind(rec) for rec in records)
    examples: dict = {}
    for rec in records:
        examples.setdefault(_error_kind(rec), _error_text(rec))
    return [{"error": e, "count": c, "example": examples[e]} for e, c in errors.most_common(3)]


def _to_revisit(p) -> bool:
    """A question to revisit: passed by fewer than ``REVISIT_BELOW`` of the students whose
    answers finished (a timeout or a crash is no conceptual mistake), and missed by at least
    two of them (one student's answer is no lecture's business)."""
    share = p["passed_share_of_finished"]
    return share is not None and share < REVISIT_BELOW and p["finished"] - p["passed"] >= 2


def _histogram(totals, possible) -> list[dict]:
    """Bins of the totals over [0, possible]: width 1 point up to 20 points, else 10 bins."""
    if not possible:
        return []
    bins = int(possible) if possible <= 20 else 10
    width = possible / bins
    counts = [0] * bins
    for t in totals:
        counts[min(int(t / width + 1e-9), bins - 1)] += 1
    return [{"low": round(i * width, 3), "high": round((i + 1) * width, 3), "count": c}
            for i, c in enumerate(counts)]


def _fmt(x) -> str:
    x = round(float(x), 2)
    return str(int(x)) if x == int(x) else f"{x:g}"


def _svg(histogram, possible) -> str:
    """The histogram as an inline SVG."""
    if not histogram:
        return "<p>No submission was graded.</p>"
    w, h, left, bottom, top = 640, 250, 44, 40, 14
    peak = max(b["count"] for b in histogram) or 1
    bw = (w - left - 10) / len(histogram)
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}' "
             f"viewBox='0 0 {w} {h}' role='img' aria-label='histogram of the totals'>",
             "<style>text{font:12px sans-serif;fill:#3a4350}</style>"]
    plot_h = h - bottom - top
    for k in range(0, peak + 1, max(1, (peak + 4) // 5)):
        y = top + plot_h * (1 - k / peak)
        parts.append(f"<line x1='{left}' x2='{w - 10}' y1='{y:.1f}' y2='{y:.1f}' "
                     f"stroke='#e3e8ef'/><text x='{left - 8}' y='{y + 4:.1f}' "
                     f"text-anchor='end'>{k}</text>")
    for i, b in enumerate(histogram):
        bh = plot_h * b["count"] / peak
        x = left + i * bw
        parts.append(f"<rect x='{x + 2:.1f}' y='{top + plot_h - bh:.1f}' width='{bw - 4:.1f}' "
                     f"height='{bh:.1f}' fill='#3b6ea8'><title>{_fmt(b['low'])}-"
                     f"{_fmt(b['high'])}: {b['count']}</title></rect>")
        if b["count"]:
            parts.append(f"<text x='{x + bw / 2:.1f}' y='{top + plot_h - bh - 4:.1f}' "
                         f"text-anchor='middle'>{b['count']}</text>")
    step = max(1, len(histogram) // 10)
    for i in range(0, len(histogram) + 1, step):
        x = left + i * bw
        value = histogram[i]["low"] if i < len(histogram) else histogram[-1]["high"]
        parts.append(f"<text x='{x:.1f}' y='{h - bottom + 16}' text-anchor='middle'>"
                     f"{_fmt(value)}</text>")
    parts.append(f"<text x='{left + (w - left) / 2:.1f}' y='{h - 6}' text-anchor='middle'>"
                 f"total points (out of {_fmt(possible)})</text>")
    parts.append(f"<line x1='{left}' x2='{w - 10}' y1='{top + plot_h}' y2='{top + plot_h}' "
                 f"stroke='#9aa4b2'/></svg>")
    return "".join(parts)


_CSS = """
body{font-family:-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;max-width:74rem;
margin:2rem auto;padding:0 1.2rem;color:#1d2430;line-height:1.45}
h1{font-size:1.5rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin:1.8rem 0 .5rem}
.sub{color:#4a5462;margin-top:0}
.cards{display:flex;flex-wrap:wrap;gap:1rem;margin:1rem 0}.card{background:#f2f5f9;
border-radius:6px;padding:.6rem 1rem;min-width:8rem}.card b{display:block;font-size:1.3rem}
table{border-collapse:collapse;width:100%;table-layout:fixed}
th,td{text-align:left;padding:.4rem .45rem;border-bottom:1px solid #e3e8ef;vertical-align:top;
overflow-wrap:anywhere}th{overflow-wrap:normal;hyphens:manual}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.meter{display:block;width:100%;max-width:5rem;height:.5rem;background:#e3e8ef;
border-radius:3px;margin-top:.2rem}.meter span{display:block;height:100%;background:#2f7d4f;
border-radius:3px}
ul{margin:.2rem 0;padding-left:1.1rem}li{margin:.1rem 0}.muted{color:#4a5462}
.flag{color:#9b1c1c;font-weight:600}
.revisit{background:#fdf6e7;border-left:4px solid #e0a030;padding:.6rem 1rem;border-radius:4px}
.svg{max-width:100%;height:auto}
"""


def _list(items) -> str:
    """A list, or a muted 'none' (never an empty or malformed list)."""
    items = list(items)
    return f"<ul>{''.join(f'<li>{i}</li>' for i in items)}</ul>" if items else \
        "<span class='muted'>none</span>"


def _students(k: int) -> str:
    return f"{k} student" + ("" if k == 1 else "s")


def _num_or_dash(x, digits=2) -> str:
    return "&ndash;" if x is None else f"{x:.{digits}f}"


def report_html(report: dict) -> str:
    """The class report as one self-contained HTML page (no script, no network)."""
    e = html.escape
    out = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
           "<meta name='viewport' content='width=device-width, initial-scale=1'>",
           f"<title>Class report: {e(report['assignment'])}</title><style>{_CSS}</style>"
           "</head><body><main>",
           f"<h1>Class report: {e(report['assignment'])}</h1>",
           f"<p class='sub'>Each question's fixed cases are the same in every run; the drawn "
           + (f"cases came from seed {e(str(report['seed']))}.</p>" if report.get("seed")
              else "cases were drawn from the course's secret, anew for each submission and "
                   "attempt (the gradebook keeps each row's draw token to replay it).</p>"),
           "<div class='cards'>"
           f"<div class='card'><b>{report['submissions']}</b>submissions graded</div>"
           f"<div class='card'><b>{_fmt(report['mean'])}</b>mean of {_fmt(report['possible'])} "
           "points</div>"
           f"<div class='card'><b>{_fmt(report['median'])}</b>median</div>"
           + (f"<div class='card'><b>{report['not_graded']}</b>files that could not be read"
              "</div>" if report["not_graded"] else "")
           + (f"<div class='card'><b>{_num_or_dash(report['reliability']['cronbach_alpha'])}"
              "</b>reliability (Cronbach's alpha)</div>" if report.get("reliability") else "")
           + "</div>",
           "<h2>Distribution of the totals</h2>",
           _svg(report["histogram"], report["possible"]).replace("<svg ", "<svg class='svg' ",
                                                                 1)]
    out.append("<h2>Revisit in the next lecture</h2>"
               "<p class='muted'>Mistakes to learn from: answers that ran and were wrong. "
               "Answers that ran out of time or crashed are counted apart, below.</p>")
    if report["revisit"]:
        out.append("<div class='revisit'>" + _list(
            f"<b>{e(r['id'])} {e(r['title'])}</b>: passed by {r['passed']} of "
            f"{_students(r['finished'])} whose answers finished ({r['wrong']} wrong, "
            f"{r['not_attempted']} not attempted) &middot; {e(r['why'])}"
            + (f" <span class='muted'>(besides, {_students(r['unfinished'])} ran out of time "
               "or crashed: not counted here)</span>" if r["unfinished"] else "")
            for r in report["revisit"]) + "</div>")
    else:
        out.append(f"<p>Every question was passed by at least {100 * REVISIT_BELOW:.0f}% of the "
                   "students whose answers finished (or missed by one student at most).</p>")
    unfinished = report.get("did_not_finish") or []
    out.append("<h2>Answers that did not finish</h2>")
    if unfinished:
        out.append("<p class='muted'>An endless loop (in the function or at the cell's top "
                   "level) or a slow approach runs out of time; a crash is an answer that "
                   "could not run. Worth a word to those students, not a lecture.</p>"
                   + _list(f"<b>{e(u['id'])} {e(u['title'])}</b>: {_students(u['timed_out'])} "
                           f"ran out of time, {_students(u['crashed'])} crashed (of "
                           f"{u['students']}) &middot; "
                           + "; ".join(f"{c['count']} &times; {e(c['example'])}"
                                       for c in u["examples"]) for u in unfinished))
    else:
        out.append("<p>Every answer finished within its time limit.</p>")
    out.append("<h2>Per question</h2>"
               "<p class='muted'>Counts are students. Difficulty: the mean share of the "
               "question's points earned (1 = everyone earned them all). Discrimination: the "
               "correlation of the question's points with the total of the other questions; "
               f"under {LOW_DISCRIMINATION} it is flagged: the question tells strong and weak "
               "answers apart poorly.</p>"
               "<table><colgroup><col style='width:13%'><col style='width:7%'>"
               "<col style='width:8%'><col style='width:9%'><col style='width:9%'>"
               "<col style='width:9%'><col style='width:13%'><col style='width:15%'>"
               "<col style='width:17%'></colgroup>"
               "<tr><th scope='col'>question</th><th scope='col' class='num'>mean points</th>"
               "<th scope='col' class='num'>passed</th><th scope='col' class='num'>attempted"
               "</th><th scope='col' class='num'>out of time / crashed</th>"
               "<th scope='col' class='num'>difficulty</th><th scope='col' class='num'>"
               "discrimination</th><th scope='col'>diagnoses that fired</th>"
               "<th scope='col'>most common mistakes (first example)</th></tr>")
    for q in report["questions"]:
        diag = _list(f"{d['count']} &times; {e(d['message'])}" for d in q["diagnoses"])
        errs = _list(f"{c['count']} &times; {e(c['example'])}" for c in q["common_errors"])
        disc = _num_or_dash(q.get("discrimination"))
        if q.get("flag"):
            disc = f"<span class='flag'>{disc} (low)</span>"
        n = q.get("students", 0)
        out.append(f"<tr><th scope='row'>{e(q['id'])} <span class='muted'>{e(q['title'])}"
                   f"</span></th>"
                   f"<td class='num'>{_fmt(q['mean_points'])} / {_fmt(q['points'])}</td>"
                   f"<td class='num'>{q.get('passed', 0)} of {n}<span class='meter' "
                   f"aria-hidden='true'><span style='width:{100 * q['passed_share']:.0f}%'>"
                   "</span></span></td>"
                   f"<td class='num'>{n - q.get('not_attempted', 0)} of {n}</td>"
                   f"<td class='num'>{q.get('timed_out', 0)} / {q.get('crashed', 0)}</td>"
                   f"<td class='num'>{_num_or_dash(q.get('difficulty'))}</td>"
                   f"<td class='num'>{disc}</td><td>{diag}</td><td>{errs}</td></tr>")
    out.append("</table>")
    late = report.get("late")
    if late is not None:
        out.append(f"<h2>Late submissions</h2><p class='muted'>Policy: {e(late['policy'])}.</p>")
        if late["submissions"]:
            out.append("<table><tr><th scope='col'>student</th><th scope='col'>file</th>"
                       "<th scope='col' class='num'>points as graded</th><th scope='col' "
                       "class='num'>points after the policy</th></tr>")
            for r in late["submissions"]:
                out.append(f"<tr><td>{e(r['student'])}</td><td>{e(r['file'])}</td>"
                           f"<td class='num'>{_fmt(r['raw'])}</td>"
                           f"<td class='num'>{_fmt(r['score'])}</td></tr>")
            out.append("</table>")
        else:
            out.append("<p>No submission is marked late.</p>")
    if report.get("similarity") is not None:
        out.append(_similarity_html(report["similarity"]))
    out.append("</main></body></html>")
    return "\n".join(out) + "\n"


def _similarity_html(sim) -> str:
    e = html.escape
    data = sim["pairs"]
    out = [f"<h2>Similar answers (AST similarity &ge; {sim['threshold']})</h2>",
           "<p class='muted'>By pair of students, the pairs with the most questions alike "
           "first. Only what the student wrote is compared (the exercise's scaffold taken "
           "out). Left out as alike by nature: choice questions, answers of a single line, "
           "the common way of writing an answer, and answers close to the course's "
           "reference code or published solution (listed below).</p>"]
    if data["pairs"]:
        out.append("<table><colgroup><col style='width:26%'><col style='width:26%'>"
                   "<col style='width:36%'><col style='width:12%'></colgroup>"
                   "<tr><th scope='col'>student</th><th scope='col'>student</th>"
                   "<th scope='col'>questions alike (similarity)</th><th scope='col' "
                   "class='num'>mean</th></tr>")
        for p in data["pairs"]:
            qs = ", ".join(f"{e(q['question'])} ({q['similarity']:.2f})" for q in p["questions"])
            out.append(f"<tr><td>{e(p['a'])}</td><td>{e(p['b'])}</td><td>{qs}</td>"
                       f"<td class='num'>{p['mean']:.2f}</td></tr>")
        out.append("</table>")
    else:
        out.append("<p>No pair of students above the threshold.</p>")
    if data["like_reference"]:
        out.append("<h3>Close to the course's own code</h3><table><tr><th scope='col'>student"
                   "</th><th scope='col'>question</th><th scope='col'>close to</th>"
                   "<th scope='col' class='num'>similarity</th></tr>")
        for r in data["like_reference"]:
            out.append(f"<tr><td>{e(r['student'])}</td><td>{e(r['question'])}</td>"
                       f"<td>{e(r['source'])}</td><td class='num'>{r['similarity']:.2f}"
                       "</td></tr>")
        out.append("</table>")
    if data.get("not_compared"):
        out.append(f"<p class='muted'>{data['not_compared']} answer(s) not compared: still "
                   "the stub, too short to tell, or not readable as Python (or nested too "
                   "deep).</p>")
    return "\n".join(out)


def write_report(report: dict, output, name: str | None = None) -> tuple[Path, Path]:
    """Write ``report-NAME.html`` and ``report-NAME.json`` (``report.*`` without a name)."""
    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    suffix = f"-{name}" if name else ""
    html_path, json_path = output / f"report{suffix}.html", output / f"report{suffix}.json"
    html_path.write_text(report_html(report), encoding="utf-8")
    json_path.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return html_path, json_path
