"""Lecture 6, sections 6.1 and 6.5: measured costs, ridge regression chunk by chunk, and true or
false at scale (ex6.q4, ex6.q5, ex6.q8).
"""
from __future__ import annotations

import numpy as np

from ....ridge import primal_ridge
from ....scaling import power_law_exponent
from ...model import Case, Diagnosis, Question, choice_parts
from ...model.probes import RowSource, formed_more_rows_than, held_more_rows_than, rows_at_most
from ._common import _fixed


# ===================================================================== ex6.q4
def _chunked_ridge(Phi, y, lam, chunk_size):
    """The ridge weights from the two sums, chunk by chunk (equal to lecture 3.1's primal_ridge)."""
    D = Phi.shape[1]
    A, c = np.zeros((D, D)), np.zeros(D)
    for P, t in _chunks(Phi, y, chunk_size):
        A += P.T @ P
        c += P.T @ t
    return np.linalg.solve(A + lam * np.eye(D), c)


def _cases_chunked(rng):
    cases = []
    # the last is long and narrow: an answer that keeps copies of its rows holds many times
    # the memory an honest loop needs, which the probe sees (RowReader._copies_held)
    for n, D, chunk, lam in [(12, 3, 5, 0.5), (20, 4, 6, 2.0), (30, 5, 7, 1.0),
                             (2400, 3, 80, 1.5)]:
        Phi = np.round(rng.normal(size=(n, D)), 3)
        y = np.round(rng.normal(size=n), 3)
        cases.append(Case((RowSource(Phi), y, lam, chunk),
                          label=f"Phi of shape ({n}, {D}), lam={lam}, chunk_size={chunk}"))
    return cases


def _chunks(Phi, y, chunk_size):
    """The chunks one after another (a generator: each chunk is let go before the next)."""
    return ((Phi[s:s + chunk_size], y[s:s + chunk_size]) for s in range(0, len(y), chunk_size))


def _lam_per_chunk(Phi, y, lam, chunk_size):
    D = Phi.shape[1]
    A = sum(P.T @ P + lam * np.eye(D) for P, _ in _chunks(Phi, y, chunk_size))
    c = sum(P.T @ t for P, t in _chunks(Phi, y, chunk_size))
    return np.linalg.solve(A, c)


def _average_of_solves(Phi, y, lam, chunk_size):
    return np.mean([primal_ridge(P, t, lam) for P, t in _chunks(Phi, y, chunk_size)], axis=0)


def _whole_phi(Phi, y, lam, chunk_size):
    return _chunked_ridge(Phi, y, lam, len(y))     # one chunk: all of Phi at once


def _stacked_rows(Phi, y, lam, chunk_size):
    whole = np.vstack([P for P, _ in _chunks(Phi, y, chunk_size)])   # every chunk read, kept
    return _chunked_ridge(whole, y, lam, len(y))


def _last_chunk_dropped(Phi, y, lam, chunk_size):
    full = (len(y) // chunk_size) * chunk_size
    return _chunked_ridge(Phi, y[:full], lam, chunk_size)      # the chunks stop at y[:full]


Q4 = Question(
    id="ex6.q4", title="ridge regression chunk by chunk", function="chunked_ridge", points=3,
    forbidden=(
        "kernelcourse.ridge.primal_ridge",
        "kernelcourse.ridge.dual_ridge",
        "kernelcourse.ridge.KernelRidge",
        "kernelcourse.chunked_ridge.RFFRidge",
        "kernelcourse.chunked_ridge.chunk_moments",
        "kernelcourse.chunked_ridge.add_moments",
    ),
    reference=_chunked_ridge, cases=_cases_chunked, fixed_cases=_fixed(_cases_chunked),
    constraints=[rows_at_most(0, lambda case: case.args[3])],
    diagnoses=[
        Diagnosis("lam per chunk", "lambda belongs to the solve, once: add lam I to the SUM of the "
                  "chunks' Phi^T Phi, not to each chunk's", _lam_per_chunk),
        Diagnosis("average of solves", "averaging the chunks' own ridge solutions is not ridge on all "
                  "the data: add up Phi^T Phi and Phi^T y over the chunks, then solve once",
                  _average_of_solves),
        Diagnosis("whole Phi", "the point of 6.5 is never to hold all of Phi: it was formed at "
                  "once here; read it chunk by chunk, Phi[start:start + chunk_size]",
                  _whole_phi, behaviour=formed_more_rows_than(0, lambda case: case.args[3])),
        Diagnosis("rows stacked", "each read was small, but every row read was kept (stacked "
                  "into one matrix): that holds all of Phi at once all the same; use each chunk "
                  "in the two sums as soon as it is read, then let it go",
                  _stacked_rows, behaviour=held_more_rows_than(0, lambda case: case.args[3])),
        Diagnosis("last chunk dropped", "the last chunk may be shorter than chunk_size: loop with "
                  "range(0, n, chunk_size) so that no row is left out", _last_chunk_dropped),
    ],
    rtol=2e-5, atol=1e-6, kind="derive", section="6.5",
    hints=("section 6.5: the ridge normal equations need only two sums over the rows of Phi; "
           "accumulate both, one chunk Phi[start:start + chunk_size] at a time",
           "lam belongs to the final solve, once; loop start over range(0, n, chunk_size) so the "
           "short last chunk is included; Phi here hands out at most chunk_size rows at a time"),
)


# ===================================================================== ex6.q5
def _cases_exponent(rng):
    cases = []
    for p in (1.0, 2.0, 3.0):
        n = np.array([500, 1000, 2000, 4000, 8000])
        noise = np.exp(np.round(rng.normal(scale=0.15, size=5), 3))
        cost = np.round(1e-9 * n.astype(float) ** p * noise, 12)
        cases.append(Case((n, cost), label=f"n = {n.tolist()}, cost ~ n^{p:g} with noise"))
    return cases


def _fixed_exponent():
    """A seeded draw, and n unevenly spaced with a fractional exponent (a semi-log fit and the
    slope of two points both part from the least-squares slope there)."""
    n = np.array([300, 500, 1200, 2000, 5000, 9000])
    noise = np.exp(np.array([0.05, -0.1, 0.12, -0.04, 0.08, -0.15]))
    cost = np.round(2e-8 * n.astype(float) ** 2.4 * noise, 12)
    return _cases_exponent(np.random.default_rng(20266)) + [
        Case((n, cost), label=f"n = {n.tolist()}, cost ~ n^2.4 with noise")]


def _last_two(n, cost):
    return float(np.log(cost[-1] / cost[-2]) / np.log(n[-1] / n[-2]))


def _semilog(n, cost):
    return float(np.polyfit(n, np.log(cost), 1)[0])


def _ends(n, cost):
    return float(np.log(cost[-1] / cost[0]) / np.log(n[-1] / n[0]))


Q5 = Question(
    id="ex6.q5", title="the exponent of a measured cost", function="scaling_exponent", points=2,
    forbidden=("kernelcourse.scaling.power_law_exponent",),
    reference=lambda n, cost: power_law_exponent(n, cost)[0], cases=_cases_exponent, rtol=1e-6,
    fixed_cases=_fixed_exponent,
    diagnoses=[
        Diagnosis("last two points", "two points give a noisy slope; fit a line through ALL the "
                  "points of (log n, log cost) by least squares", _last_two),
        Diagnosis("first and last", "the slope between the end points ignores the points in between; "
                  "fit a least-squares line through all of (log n, log cost)", _ends),
        Diagnosis("semi-log", "cost = C n^p is a line in log-log: take the logarithm of n too",
                  _semilog),
    ],
    kind="derive", section="6.1",
    hints=("section 6.1: a cost C n^p is a straight line in which coordinates? Fit that line to "
           "all the measurements",
           "take the logarithm of both n and the cost, fit a least-squares line through every "
           "point (not two of them), and return its slope"),
)


# ===================================================================== ex6.q8

_SCALE_TRUTH = {
    "all landmarks": True,
    "fast decay": False,
    "chunks": False,
    "new mean": False,
    "memory": True,
}

Q8 = Question(
    id="ex6.q8", title="true or false at scale", function="scale_statements", points=2,
    forbidden=("kernelcourse.nystroem.Nystroem",),
    kind="choice", section="6.1",
    **choice_parts(_SCALE_TRUTH, {
        "all landmarks": "with every point a landmark, K_nm = K_mm = K: what is K K^+ K for a "
                         "symmetric PSD K (6.2)?",
        "fast decay": "a fast-decaying spectrum means a few large eigenvalues carry K: which "
                      "method adapts its components to the data and can capture them, and which "
                      "ignores the data and pays the Monte Carlo rate 1/sqrt(D) (6.3)?",
        "chunks": "Phi^T Phi and Phi^T y are sums over rows: does a split into chunks change "
                  "either sum, and where does lam enter the solve (6.5)?",
        "new mean": "the components were computed around one mean in feature space; a projection "
                    "that moved with the new points would change when you add a point to the batch "
                    "(6.4)",
        "memory": "count it: n^2 entries of 8 bytes each, with n = 10^6 (6.1)",
    }),
    fixed_cases=lambda: [Case((key,), label=f"statement {key!r}") for key in _SCALE_TRUTH],
    hints=("each statement has a section of lecture 6 behind it; decide it from that section's "
           "argument, not from a guess about what sounds plausible",
           "two of the five are true; for 'memory' count the entries of the Gram matrix and their "
           "bytes, for 'chunks' write Phi^T Phi as a sum over rows"),
)
