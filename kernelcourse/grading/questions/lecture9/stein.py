"""Lecture 9, section 9.8: the kernel Stein discrepancy's U-statistic from a sample and its
scores (ex9.q12)."""
from __future__ import annotations

import numpy as np

from ...model import Case, Diagnosis, Question
from ._common import ALL_KSD


# ===================================================================== ex9.q12
def _ksd(X, S, gamma, variant="right"):
    X, S = np.asarray(X, float), np.asarray(S, float)
    n, d = X.shape
    diff = X[:, None, :] - X[None, :, :]                      # r = x_i - x_j
    R2 = np.sum(diff**2, axis=2)
    K = np.exp(-gamma * R2)
    cross = np.einsum("ik,ijk->ij", S, diff) - np.einsum("jk,ijk->ij", S, diff)   # (s_i - s_j).r
    sign = -1.0 if variant == "cross sign" else 1.0
    trace = 0.0 if variant == "no trace" else 2.0 * gamma * d
    curv = 0.0 if variant == "no curvature" else 4.0 * gamma**2 * R2
    U = K * (S @ S.T + sign * 2.0 * gamma * cross + trace - curv)
    if variant == "V-statistic":
        return float(U.mean())
    return float((U.sum() - np.trace(U)) / (n * (n - 1)))


def _sample(rng, n, d, shift):
    X = np.round(rng.normal(size=(n, d)) * 1.2 + shift, 3)
    return X, -X, float(np.round(rng.uniform(0.2, 1.0), 2))    # scores of N(0, I): -x


def _cases_ksd(rng):
    return [Case(_sample(rng, int(rng.integers(6, 15)), int(d), 0.5), label=f"{int(d)} dimensions, N(0, I) model")
            for d in (1, rng.integers(2, 4))]


Q12 = Question(
    id="ex9.q12", title="the kernel Stein discrepancy from a sample and its scores", function="ksd_u",
    points=3, kind="derive", section="9.8", reference=lambda X, S, gamma: _ksd(X, S, gamma),
    cases=_cases_ksd,
    fixed_cases=lambda: [Case(_sample(np.random.default_rng(590), 5, 1, 0.0), label="five numbers"),
                         Case(_sample(np.random.default_rng(591), 8, 2, 1.0), label="eight points in the plane")],
    rtol=1e-9, atol=1e-12, forbidden=ALL_KSD,
    diagnoses=[
        Diagnosis("V-statistic", "the U-statistic leaves out u_p(x_i, x_i): average over i != j",
                  lambda X, S, g: _ksd(X, S, g, "V-statistic")),
        Diagnosis("cross sign", "grad_y k(x, y) = +2 gamma (x - y) k and grad_x k = -2 gamma (x - y) k: "
                  "the term is 2 gamma (s(x) - s(y)).(x - y) k", lambda X, S, g: _ksd(X, S, g, "cross sign")),
        Diagnosis("no trace", "tr(grad_x grad_y k) has a term 2 gamma d k from the d coordinates",
                  lambda X, S, g: _ksd(X, S, g, "no trace")),
        Diagnosis("no curvature", "tr(grad_x grad_y k) also has -4 gamma^2 ||x - y||^2 k",
                  lambda X, S, g: _ksd(X, S, g, "no curvature")),
    ],
    hints=("differentiate k(x, y) = exp(-gamma ||x - y||^2) once in x, once in y, and take the "
           "trace of the mixed second derivative",
           "build the n x n matrix of u_p(x_i, x_j) from K, the scores and the differences x_i - x_j, "
           "then average it without its diagonal"),
)
