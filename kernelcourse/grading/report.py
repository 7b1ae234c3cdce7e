"""The class report: one page per run (HTML, with the same numbers in JSON).

It shows the distribution of the totals (a histogram drawn as inline SVG: the page needs no
network and no script), and per question the mean points, the share of submissions that passed
it and that attempted it, how often each named diagnosis fired, the most common errors (the
first failures, grouped with their numbers taken out so that equal mistakes count together,
each shown by its first example) and the
questions to revisit in the next lecture (passed by fewer than ``REVISIT_BELOW`` of the class).
"""
from __future__ import annotations

import html
import json
import re
import statistics
from collections import Counter
from pathlib import Path

__all__ = ["class_report", "write_report", "report_html", "REVISIT_BELOW"]

#: A question passed by a smaller share of the graded submissions is one to revisit.
REVISIT_BELOW = 0.6


def _error_kind(record: dict) -> str:
    """See :func:`_error_text`; numbers written as '#'."""
    return re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "#", _error_text(record))[:120]


def _error_text(record: dict) -> str:
    """A first failure with its inputs and numbers taken out, so equal mistakes count
    together: the case's label (when it has one) and what went wrong."""
    detail = record.get("detail") or ""
    if record.get("status") == "failed" and detail.startswith("first failure on "):
        # "first failure on <inputs>: <why>"; <inputs> is "label (a=..., b=...)" or "a=..., ..."
        body = detail[len("first failure on "):]
        m = re.search(r": (raised |expected|got |stopped)", body)
        inputs, why = (body[:m.start()], body[m.start() + 2:]) if m else ("", body)
        opens = [o.start() for o in re.finditer(r" \((?=\w+=)", inputs)]
        label = "" if re.match(r"^\w+=", inputs) or not opens else inputs[:opens[0]]
        if why.startswith("expected") and len(why) > 60:
            why = "wrong values"
        elif why.startswith("raised "):
            why = why.split(":", 1)[0]
        detail = f"{label}: {why}" if label else why
    return detail[:160]


def class_report(rows, registry=None, *, assignment=(), seed=None, name="") -> dict:
    """The class report's numbers from the gradebook rows."""
    from .assignment import _selected
    from .questions import all_questions

    registry = all_questions() if registry is None else registry
    graded = [r for r in rows if r.possible > 0]
    questions = _selected(list(assignment), registry) if assignment else \
        [registry[q] for q in dict.fromkeys(q for r in graded for q in r.points) if q in registry]
    possible = max((r.possible for r in graded), default=0)
    totals = [r.total for r in graded]
    n = len(graded)
    per_question = []
    for q in questions:
        records = [r.feedback.get(q.id) or {} for r in graded]
        points = [r.points.get(q.id, 0.0) for r in graded]
        passed = sum(rec.get("status") == "passed" for rec in records)
        attempted = sum(rec.get("status") not in (None, "not attempted") for rec in records)
        diagnoses = Counter(rec["diagnosis_message"] for rec in records
                            if rec.get("diagnosis_message"))
        wrong = [rec for rec in records if rec.get("status") in ("failed", "error")]
        errors = Counter(_error_kind(rec) for rec in wrong)
        examples = {}
        for rec in wrong:
            examples.setdefault(_error_kind(rec), _error_text(rec))
        per_question.append({
            "id": q.id, "title": q.title, "points": q.points,
            "mean_points": round(statistics.fmean(points), 3) if points else 0.0,
            "passed_share": round(passed / n, 3) if n else 0.0,
            "attempted_share": round(attempted / n, 3) if n else 0.0,
            "diagnoses": [{"message": m, "count": c} for m, c in diagnoses.most_common()],
            "common_errors": [{"error": e, "count": c, "example": examples[e]}
                              for e, c in errors.most_common(3)]})
    revisit = sorted((p for p in per_question if p["passed_share"] < REVISIT_BELOW),
                     key=lambda p: p["passed_share"])
    return {"assignment": name or ", ".join(assignment), "seed": seed, "submissions": n,
            "not_graded": len(rows) - n, "possible": possible,
            "mean": round(statistics.fmean(totals), 3) if totals else 0.0,
            "median": round(statistics.median(totals), 3) if totals else 0.0,
            "histogram": _histogram(totals, possible),
            "questions": per_question,
            "revisit": [{"id": p["id"], "title": p["title"], "passed_share": p["passed_share"],
                         "why": (p["diagnoses"][0]["message"] if p["diagnoses"] else
                                 p["common_errors"][0]["example"] if p["common_errors"] else
                                 "mostly not attempted")} for p in revisit]}


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
body{font-family:-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;max-width:60rem;
margin:2rem auto;padding:0 1.2rem;color:#1d2430;line-height:1.45}
h1{font-size:1.5rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin:1.8rem 0 .5rem}
.sub{color:#5a6472;margin-top:0}
.cards{display:flex;gap:1rem;margin:1rem 0}.card{background:#f2f5f9;border-radius:6px;
padding:.6rem 1rem;min-width:8rem}.card b{display:block;font-size:1.3rem}
table{border-collapse:collapse;width:100%}th.q{width:17%}th.d{width:30%}th.e{width:25%}th,td{text-align:left;padding:.45rem .5rem;
border-bottom:1px solid #e3e8ef;vertical-align:top}td.num{text-align:right;white-space:nowrap;
font-variant-numeric:tabular-nums}.meter{display:inline-block;width:5rem;height:.55rem;
background:#e3e8ef;border-radius:3px;margin-left:.4rem;vertical-align:middle}
.meter span{display:block;height:100%;background:#2f7d4f;border-radius:3px}
ul{margin:.2rem 0;padding-left:1.1rem}li{margin:.1rem 0}small{color:#5a6472}
.revisit{background:#fdf6e7;border-left:4px solid #e0a030;padding:.6rem 1rem;border-radius:4px}
"""


def report_html(report: dict) -> str:
    """The class report as one self-contained HTML page."""
    e = html.escape
    out = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
           f"<title>Class report: {e(report['assignment'])}</title><style>{_CSS}</style>"
           "</head><body>",
           f"<h1>Class report: {e(report['assignment'])}</h1>",
           f"<p class='sub'>cases drawn with seed {e(str(report['seed']))}</p>",
           "<div class='cards'>"
           f"<div class='card'><b>{report['submissions']}</b>submissions graded</div>"
           f"<div class='card'><b>{_fmt(report['mean'])}</b>mean of {_fmt(report['possible'])}"
           "</div>"
           f"<div class='card'><b>{_fmt(report['median'])}</b>median</div>"
           + (f"<div class='card'><b>{report['not_graded']}</b>files not graded</div>"
              if report["not_graded"] else "") + "</div>",
           "<h2>Distribution of the totals</h2>", _svg(report["histogram"], report["possible"])]
    out.append("<h2>Revisit in the next lecture</h2>")
    if report["revisit"]:
        out.append("<div class='revisit'><ul>")
        for r in report["revisit"]:
            out.append(f"<li><b>{e(r['id'])} {e(r['title'])}</b>: passed by "
                       f"{100 * r['passed_share']:.0f}% &middot; {e(r['why'])}</li>")
        out.append("</ul></div>")
    else:
        out.append(f"<p>Every question was passed by at least {100 * REVISIT_BELOW:.0f}% of the "
                   "class.</p>")
    out.append("<h2>Per question</h2><table><tr><th class='q'>question</th><th>mean points</th>"
               "<th>passed</th><th>attempted</th><th class='d'>diagnoses that fired</th>"
               "<th class='e'>most common errors (first example)</th></tr>")
    for q in report["questions"]:
        diag = "".join(f"<li>{d['count']} &times; {e(d['message'])}</li>"
                       for d in q["diagnoses"]) or "<small>none</small>"
        errs = "".join(f"<li>{c['count']} &times; <small>{e(c['example'])}</small></li>"
                       for c in q["common_errors"]) or "<small>none</small>"
        out.append(f"<tr><td><b>{e(q['id'])}</b> {e(q['title'])}</td>"
                   f"<td class='num'>{_fmt(q['mean_points'])} / {_fmt(q['points'])}</td>"
                   f"<td class='num'>{100 * q['passed_share']:.0f}%<span class='meter'><span "
                   f"style='width:{100 * q['passed_share']:.0f}%'></span></span></td>"
                   f"<td class='num'>{100 * q['attempted_share']:.0f}%</td>"
                   f"<td><ul>{diag}</ul></td><td><ul>{errs}</ul></td></tr>")
    out.append("</table>")
    if report.get("similarity") is not None:
        sim = report["similarity"]
        out.append(f"<h2>Similar answers (AST similarity &ge; {sim['threshold']})</h2>")
        if sim["pairs"]:
            out.append("<table><tr><th>question</th><th>submission</th><th>submission</th>"
                       "<th>similarity</th></tr>")
            for p in sim["pairs"]:
                out.append(f"<tr><td>{e(p['question'])}</td><td>{e(p['a'])}</td>"
                           f"<td>{e(p['b'])}</td><td class='num'>{p['similarity']:.2f}</td></tr>")
            out.append("</table>")
        else:
            out.append("<p>No pair above the threshold.</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write_report(report: dict, output, name: str | None = None) -> tuple[Path, Path]:
    """Write ``report-NAME.html`` and ``report-NAME.json`` (``report.*`` without a name)."""
    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    suffix = f"-{name}" if name else ""
    html_path, json_path = output / f"report{suffix}.html", output / f"report{suffix}.json"
    html_path.write_text(report_html(report), encoding="utf-8")
    json_path.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return html_path, json_path
