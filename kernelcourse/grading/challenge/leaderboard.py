"""The challenge's outputs: a gradebook (CSV and JSON), a leaderboard page with pseudonyms and
Gradescope's ``leaderboard`` entries.

The page is static HTML (no script), every value escaped, one table with a caption, column
headers (``<th scope="col">``) and the rank as a row header. A student appears under a
pseudonym (two words and a number drawn from the SHA-256 of the challenge's commitment and the
login), the same in every run of the same challenge and different across challenges.

Gradescope shows a leaderboard when ``results.json`` holds a list ``leaderboard`` of
``{"name", "value", "order"}`` (``order`` ``"desc"`` when larger is better);
:func:`gradescope_results` writes one for a scored submission.
"""
from __future__ import annotations

import csv
import hashlib
import html
import json
from pathlib import Path

__all__ = ["pseudonym", "board_rows", "leaderboard_html", "gradescope_results", "write_outputs"]

_FIRST = ("Amber", "Brisk", "Calm", "Deft", "Eager", "Fleet", "Gentle", "Hardy", "Keen",
          "Lucid", "Merry", "Nimble", "Plucky", "Quiet", "Rapid", "Sly", "Steady", "Tidy",
          "Vivid", "Wry")
_SECOND = ("Heron", "Otter", "Lynx", "Finch", "Badger", "Ibis", "Marten", "Newt", "Osprey",
           "Puffin", "Quail", "Raven", "Stoat", "Tern", "Vole", "Wren", "Yak", "Zebu",
           "Gecko", "Koala")


def _when(stamp: str) -> str:
    """``2026-11-20T09:00:00+00:00`` as ``2026-11-20 09:00 UTC``."""
    return stamp[:16].replace("T", " ") + " UTC" if len(stamp) >= 16 else stamp


def pseudonym(student: str, commitment: str) -> str:
    """Two words and a number from ``sha256(commitment + ':' + student)``."""
    digest = hashlib.sha256(f"{commitment}:{student}".encode()).digest()
    return (f"{_FIRST[digest[0] % len(_FIRST)]} {_SECOND[digest[1] % len(_SECOND)]} "
            f"{int.from_bytes(digest[2:4], 'big') % 100:02d}")


def board_rows(entries, key, final: bool) -> list[dict]:
    """One row per student, best first: the best public accuracy (public board) or the final
    submission's private accuracy (``final``); ties share a rank."""
    best = {}
    for e in entries:
        if e.status != "scored":
            continue
        value = e.private if final else e.public
        if final and not e.final:
            continue
        if e.student not in best or value > best[e.student]["accuracy"]:
            best[e.student] = {"name": pseudonym(e.student, key["commitment"]),
                               "accuracy": value, "submitted": e.submitted}
    count = {}
    for e in entries:
        if e.status == "scored":
            count[e.student] = count.get(e.student, 0) + 1
    rows = sorted(best.items(), key=lambda kv: (-kv[1]["accuracy"], kv[1]["name"]))
    out, rank, previous = [], 0, None
    for place, (student, row) in enumerate(rows, start=1):
        if row["accuracy"] != previous:
            rank, previous = place, row["accuracy"]
        out.append(dict(row, rank=rank, submissions=count[student]))
    return out


def leaderboard_html(rows, key, final: bool, title: str = "Data challenge") -> str:
    """The static leaderboard page (see the module's text)."""
    e = html.escape
    split = "private" if final else "public"
    base = key["baselines"]
    css = ("body{font-family:system-ui,sans-serif;max-width:46em;margin:2em auto;color:#1b2330}"
           "table{border-collapse:collapse;width:100%}caption{text-align:left;font-weight:600;"
           "margin-bottom:.5em}th,td{padding:.35em .7em;border-bottom:1px solid #c8ced8;"
           "text-align:left}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}"
           "thead th{background:#eef1f5}tr.line td,tr.line th{color:#3d4a5c;font-style:italic;"
           "background:#fafbfc}td.time{white-space:nowrap}")
    body = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
            f"<meta name='viewport' content='width=device-width, initial-scale=1'>",
            f"<title>{e(title)}: {split} leaderboard</title><style>{css}</style></head><body>",
            f"<main><h1>{e(title)}: {split} leaderboard</h1>",
            f"<p>Accuracy on the {split} part of the test set ("
            + ("the final standings: each student's last scored submission, on labels no one "
               "had seen)." if final else
               "the other part decides the final standings after the deadline).")
            + " Names are pseudonyms. Grades come from the two baselines, not from the rank: "
            f"the spectrum kernel's accuracy ({base['spectrum'][split]:.4f}) passes, the "
            f"mismatch kernel's ({base['mismatch'][split]:.4f}) earns full marks.</p>",
            f"<p>Commitment to the hidden labels (SHA-256): <code>{e(key['commitment'])}</code></p>",
            "<table><caption>Standings, best first</caption><thead><tr>"
            "<th scope='col' class='num'>Rank</th><th scope='col'>Pseudonym</th>"
            "<th scope='col' class='num'>Accuracy</th><th scope='col' class='num'>Scored "
            "submissions</th><th scope='col'>Last scored</th></tr></thead><tbody>"]
    lines = sorted(((base[n][split], n) for n in ("spectrum", "mismatch")), reverse=True)
    shown = list(rows)
    for value, name in lines:
        at = next((i for i, r in enumerate(shown) if "line" not in r and r["accuracy"] < value),
                  len(shown))
        shown.insert(at, {"line": name, "accuracy": value})
    for r in shown:
        if "line" in r:
            body.append(f"<tr class='line'><th scope='row' class='num'>-</th><td>baseline: "
                        f"{e(r['line'])} kernel</td><td class='num'>{r['accuracy']:.4f}</td>"
                        f"<td class='num'>-</td><td>-</td></tr>")
        else:
            body.append(f"<tr><th scope='row' class='num'>{r['rank']}</th><td>{e(r['name'])}</td>"
                        f"<td class='num'>{r['accuracy']:.4f}</td><td class='num'>"
                        f"{r['submissions']}</td><td class='time'>{e(_when(r['submitted']))}</td></tr>")
    body.append("</tbody></table></main></body></html>\n")
    return "\n".join(body)


def gradescope_results(entry, possible: float, final: bool) -> dict:
    """Gradescope's ``results.json`` for one submission, with its ``leaderboard`` list."""
    value = entry.private if final else entry.public
    if entry.status != "scored":
        return {"score": 0.0, "output": f"Not scored: {entry.message}", "visibility": "visible"}
    split = "private" if final else "public"
    score = entry.points if entry.points is not None else 0.0
    return {"score": round(float(score), 4),
            "output": f"Accuracy on the {split} split: {value:.4f}; {score:g}/{possible:g} points.",
            "visibility": "visible",
            "leaderboard": [{"name": f"Accuracy ({split})", "value": round(value, 6),
                             "order": "desc"}]}


def write_outputs(entries, key, out, *, final: bool, possible: float,
                  title: str = "Data challenge") -> dict:
    """Write ``challenge-gradebook.csv``/``.json``, ``leaderboard.html`` and
    ``gradescope/<file>.json`` into ``out``; return the paths."""
    out = Path(out)
    (out / "gradescope").mkdir(parents=True, exist_ok=True)
    rows = [e.as_row() for e in entries]
    fields = list(rows[0]) if rows else ["file"]
    paths = {"csv": out / "challenge-gradebook.csv", "json": out / "challenge-gradebook.json",
             "html": out / "leaderboard.html"}
    with open(paths["csv"], "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    paths["json"].write_text(json.dumps({"final": final, "commitment": key["commitment"],
                                         "baselines": key["baselines"], "rows": rows},
                                        indent=1) + "\n")
    paths["html"].write_text(leaderboard_html(board_rows(entries, key, final), key, final, title))
    for e in entries:
        (out / "gradescope" / f"{Path(e.file).stem}.json").write_text(
            json.dumps(gradescope_results(e, possible, final), indent=1) + "\n")
    return paths
