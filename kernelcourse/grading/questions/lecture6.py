"""Lecture 6 (kernel methods at scale: Nystroem, random features in chunks, kernel PCA):
exercise set ``ex6`` and the checkpoints ``l6.cp1``, ``l6.cp2`` of the lecture notebook.

Every answer works on plain arrays: kernel values against landmarks or
training points, frequencies and offsets already drawn, feature matrices, or
measured costs. Nothing here imports Dask: the chunked solve is the same sum
whether the chunks live on one machine or many.

============  ===========================  ====  =========  =======  ==================================
id            function                     pts   kind       section  asks for
============  ===========================  ====  =========  =======  ==================================
l6.cp1        nystroem_features            2     derive     6.2      the Nystroem features
l6.cp2        explained_variance           2     derive     6.4      kernel PCA's explained variance
ex6.q1        rff_gram                     2     derive     6.3      the random-feature Gram matrix
ex6.q2        nystroem_gram                2     derive     6.2      the Nystroem approximation of K
ex6.q3        kpca_project                 3     derive     6.4      new points on the components
ex6.q4        chunked_ridge                3     derive     6.5      ridge, Phi read chunk by chunk
ex6.q5        scaling_exponent             2     derive     6.1      the fitted exponent of a cost
ex6.q6        choose_landmarks             2     parameter  6.2      the smallest m meeting an error
ex6.q7        exact_landmarks              2     predict    6.3      m for an exact polynomial kernel
ex6.q8        scale_statements             2     choice     6.1-6.5  true or false at scale
ex6.q9        kpca_transform               3     fix        6.4      fix kernel PCA's new-point centring
============  ===========================  ====  =========  =======  ==================================

No question text prints its formula: each names the quantity and the section that derives it.

ex6.q4 is checked by behaviour as well as by value: its ``Phi`` is a
:class:`~kernelcourse.grading.probes.RowSource`, read by rows only, which counts the most rows
formed at once; the constraint :func:`~kernelcourse.grading.probes.rows_at_most` fails an answer
that forms more than ``chunk_size`` rows at a time (it crosses to the grading worker as a probe).
"""
from __future__ import annotations

import math

import numpy as np

from ...feature_space import center_gram, center_kernel_rows
from ...kernel_pca import explained_variance_ratio
from ...kernels import RBF
from ...nystroem import nystroem_features
from ...random_features import fourier_features
from ...ridge import primal_ridge
from ...scaling import power_law_exponent
from ..probes import RowSource, formed_more_rows_than, rows_at_most
from ..core import Case, Diagnosis, Property, Question, choice_parts
from .lecture3 import _own_mean             # centring new rows on their own mean: the lecture 3 mistake


# --------------------------------------------------------------------- helpers
def _points(rng, n, d, shift=0.3):
    return np.round(rng.normal(size=(n, d)) + shift, 3)


def _landmark_case(rng, n, m, d=2, gamma=0.5):
    """Kernel values of n points against m landmarks (the first m points), an invertible K_mm."""
    X = _points(rng, n, d)
    k = RBF(gamma)
    Z = X[:m]
    return k(X, Z), k(Z)


def _fixed(cases, seed=20266):
    """Fixed cases: ``cases`` drawn once with a seed of the question's own, the same in every run
    (each of them shows every named mistake: the mistakes fail on every draw)."""
    return lambda: cases(np.random.default_rng(seed))


def _sym_power(K, p):
    s, U = np.linalg.eigh(K)
    return (U * s**p) @ U.T


# ===================================================================== l6.cp1
def _cases_nystroem(rng):
    cases = []
    for n, m in [(5, 2), (7, 3), (9, 4)]:
        K_nm, K_mm = _landmark_case(rng, n, m)
        cases.append(Case((K_nm, K_mm), label=f"K_nm of shape ({n}, {m}), K_mm ({m}, {m})"))
    return cases


def _cholesky_features(K_nm, K_mm):
    L = np.linalg.cholesky(K_mm)
    return np.linalg.solve(L, K_nm.T).T


CP1 = Question(
    id="l6.cp1", title="the Nystroem features", function="nystroem_features", points=2,
    forbidden=(
        "kernelcourse.nystroem.nystroem_features",
        "kernelcourse.nystroem.Nystroem",
        "kernelcourse.nystroem.inverse_sqrt_psd",
    ),
    reference=lambda K_nm, K_mm: nystroem_features(K_nm, K_mm), cases=_cases_nystroem,
    fixed_cases=_fixed(_cases_nystroem),
    diagnoses=[
        Diagnosis("no K_mm^{-1/2}", "the features are K_nm K_mm^{-1/2}: without the inverse square "
                  "root, Phi Phi^T = K_nm K_mn counts the landmarks' overlap twice",
                  lambda K_nm, K_mm: np.array(K_nm, dtype=float)),
        Diagnosis("K_mm^{-1}", "one factor K_mm^{-1/2} per feature map, so that Phi Phi^T = "
                  "K_nm K_mm^{-1} K_mn; you multiplied by the whole inverse K_mm^{-1}",
                  lambda K_nm, K_mm: K_nm @ np.linalg.inv(K_mm)),
        Diagnosis("K_mm^{1/2}", "the power is -1/2: the inverse of the square root, not the square root",
                  lambda K_nm, K_mm: K_nm @ _sym_power(K_mm, 0.5)),
        Diagnosis("Cholesky", "K_nm L^{-T} with the Cholesky factor L gives the same Phi Phi^T but "
                  "rotated features; the question asks for the symmetric root U diag(s^{-1/2}) U^T",
                  _cholesky_features),
    ],
    rtol=2e-5, atol=1e-6, kind="derive", section="6.2",
    hints=("section 6.2: the features must satisfy Phi Phi^T = K_nm K_mm^{-1} K_mn; split the "
           "middle factor into two equal symmetric halves, one for each side",
           "a symmetric matrix's power is taken on its eigenvalues: decompose K_mm, apply the "
           "power to the eigenvalues, and put the eigenvectors back on both sides"),
)


# ===================================================================== l6.cp2
def _cases_variance(rng):
    cases = []
    for n, d, gamma in [(4, 2, 0.5), (6, 2, 1.0), (8, 3, 0.3)]:
        X = _points(rng, n, d, shift=1.0)
        cases.append(Case((RBF(gamma)(X),), label=f"RBF Gram matrix of shape ({n}, {n}), gamma={gamma}"))
    return cases


def _sums_to_one(r, case):
    return abs(float(np.sum(r)) - 1.0) < 1e-6


def _eig_desc(K):
    return np.linalg.eigvalsh(K)[::-1]


CP2 = Question(
    id="l6.cp2", title="kernel PCA's explained variance", function="explained_variance", points=2,
    forbidden=(
        "kernelcourse.kernel_pca.explained_variance_ratio",
        "kernelcourse.kernel_pca.KernelPCA",
    ),
    reference=explained_variance_ratio, cases=_cases_variance, fixed_cases=_fixed(_cases_variance),
    properties=[Property("sums to one", _sums_to_one,
                         "the shares of the variance add up to 1: divide by the sum of all eigenvalues")],
    diagnoses=[
        Diagnosis("not centred", "kernel PCA works on centred features: centre K first "
                  "(row means, column means, overall mean), then take its eigenvalues",
                  lambda K: _eig_desc(K) / np.trace(K)),
        Diagnosis("ascending", "np.linalg.eigvalsh returns the eigenvalues in increasing order; "
                  "the largest share comes first", lambda K: explained_variance_ratio(K)[::-1]),
        Diagnosis("divided by m", "the share of the variance is lambda_k / trace(K_c); dividing by "
                  "the number of points gives the variance itself, not its share",
                  lambda K: _eig_desc(center_gram(K)) / K.shape[0]),
    ],
    rtol=2e-5, atol=1e-6, kind="derive", section="6.4",
    hints=("section 6.4: kernel PCA diagonalises the Gram matrix of the centred features, so "
           "centre K first (section 3.7's double centring), then look at its eigenvalues",
           "each component's share is its eigenvalue over the total variance, the trace of the "
           "centred matrix; order them from the largest, and rounding can leave tiny negative "
           "eigenvalues that are really zero"),
)


# ===================================================================== ex6.q1
def _rff_gram(X, Omega, b):
    Z = fourier_features(X, Omega, b)
    return Z @ Z.T


def _cases_rff(rng):
    cases = []
    for n, d, D in [(3, 3, 8), (4, 4, 20), (5, 5, 50)]:   # d != 2: D/d and D/2 stay apart
        X = _points(rng, n, d)
        Omega = np.round(rng.standard_normal((D, d)), 4)
        b = np.round(rng.uniform(0, 2 * np.pi, D), 4)
        cases.append(Case((X, Omega, b), label=f"X of shape ({n}, {d}), D={D}"))
    return cases


def _rff_gram_with(scale, offset=True, width=lambda X, b: len(b)):
    def mistake(X, Omega, b):
        D = width(X, b)
        Z = scale(D) * np.cos(X @ Omega.T + (b if offset else 0.0))
        return Z @ Z.T
    return mistake


Q1 = Question(
    id="ex6.q1", title="the random-feature Gram matrix", function="rff_gram", points=2,
    forbidden=(
        "kernelcourse.random_features.fourier_features",
        "kernelcourse.random_features.RandomFourierFeatures",
        "kernelcourse.chunked_ridge.RFFRidge",
    ),
    reference=_rff_gram, cases=_cases_rff, fixed_cases=_fixed(_cases_rff),
    diagnoses=[
        Diagnosis("no sqrt(2/D)", "each feature carries sqrt(2/D); without it Z Z^T is D/2 times "
                  "the kernel estimate", _rff_gram_with(lambda D: 1.0)),
        Diagnosis("sqrt(1/D)", "the factor is sqrt(2/D): Z Z^T must average the D terms "
                  "2 cos(w.x + b) cos(w.z + b)", _rff_gram_with(lambda D: math.sqrt(1.0 / D))),
        Diagnosis("no offset", "the offsets b go inside the cosine: cos(X Omega^T + b)",
                  _rff_gram_with(lambda D: math.sqrt(2.0 / D), offset=False)),
        Diagnosis("input dimension as D", "D in sqrt(2/D) is the number of random features "
                  "(len(b), the rows of Omega), not the input dimension X.shape[1]",
                  _rff_gram_with(lambda D: math.sqrt(2.0 / D), width=lambda X, b: X.shape[1])),
    ],
    rtol=2e-5, atol=1e-6, kind="derive", section="6.3",
    hints=("section 6.3 (and 2.8): each random feature is a cosine of a frequency-projected point "
           "plus its offset, scaled so that the average of D products estimates the kernel",
           "D is the number of features (the rows of Omega, the length of b), not the input "
           "dimension; the scale is chosen so that E[2 cos(w.x + b) cos(w.z + b)] = K(x, z) "
           "becomes an average over D terms"),
)


# ===================================================================== ex6.q2
def _nystroem_gram(K_nm, K_mm):
    Phi = nystroem_features(K_nm, K_mm)
    return Phi @ Phi.T


Q2 = Question(
    id="ex6.q2", title="the Nystroem approximation of K", function="nystroem_gram", points=2,
    forbidden=(
        "kernelcourse.nystroem.nystroem_features",
        "kernelcourse.nystroem.Nystroem",
        "kernelcourse.nystroem.inverse_sqrt_psd",
    ),
    reference=_nystroem_gram, cases=_cases_nystroem, fixed_cases=_fixed(_cases_nystroem),
    diagnoses=[
        Diagnosis("no K_mm^{-1}", "the approximation is K_nm K_mm^{-1} K_mn; without K_mm^{-1} the "
                  "landmarks' own similarities are counted twice", lambda K_nm, K_mm: K_nm @ K_nm.T),
        Diagnosis("K_mm^{-1/2}", "Phi = K_nm K_mm^{-1/2} are the features; their Gram matrix "
                  "Phi Phi^T has K_mm^{-1/2} twice, i.e. K_mm^{-1}",
                  lambda K_nm, K_mm: K_nm @ _sym_power(K_mm, -0.5) @ K_nm.T),
        Diagnosis("K_mm", "the middle factor is the inverse K_mm^{-1}, not K_mm",
                  lambda K_nm, K_mm: K_nm @ K_mm @ K_nm.T),
    ],
    rtol=2e-5, atol=1e-6, kind="derive", section="6.2",
    hints=("section 6.2: the Nystroem approximation is the Gram matrix of the Nystroem features, "
           "so multiply the features by their own transpose and simplify the middle",
           "the landmarks' Gram matrix appears once, inverted, between K_nm and its transpose; a "
           "linear solve is more accurate than forming the inverse"),
)


# ===================================================================== ex6.q3
def _kpca_project(K_new, K_train, U, eigenvalues):
    return center_kernel_rows(K_new, K_train) @ (U / np.sqrt(eigenvalues))


def _cases_project(rng):
    cases = []
    for n, p, k in [(6, 2, 2), (8, 3, 2), (10, 4, 3)]:
        X = _points(rng, n, 2, shift=1.0)
        X_new = _points(rng, p, 2, shift=-0.5)       # elsewhere: their own mean differs
        kern = RBF(0.4)
        s, U = np.linalg.eigh(center_gram(kern(X)))
        s, U = np.round(s[::-1][:k], 8), U[:, ::-1][:, :k]
        cases.append(Case((kern(X_new, X), kern(X), U, s),
                          label=f"K_new of shape ({p}, {n}), K_train ({n}, {n}), {k} components"))
    return cases


def _proj_own_mean(K_new, K_train, U, eigenvalues):
    return _own_mean(K_new, K_train) @ (U / np.sqrt(eigenvalues))


Q3 = Question(
    id="ex6.q3", title="projecting new points with kernel PCA", function="kpca_project", points=3,
    forbidden=(
        "kernelcourse.feature_space.center_kernel_rows",
        "kernelcourse.feature_space.GramCenterer",
        "kernelcourse.kernel_pca.KernelPCA",
    ),
    reference=_kpca_project, cases=_cases_project, fixed_cases=_fixed(_cases_project),
    diagnoses=[
        Diagnosis("own mean", "new points are centred with the TRAINING mean phi_S: subtract each "
                  "new row's own mean, the training column means of K_train, and add back the mean "
                  "of K_train; you centred the new points on their own mean", _proj_own_mean),
        Diagnosis("not centred", "the components live in centred feature space: centre the new "
                  "kernel rows with the training statistics before projecting",
                  lambda K_new, K_train, U, eigenvalues: K_new @ (U / np.sqrt(eigenvalues))),
        Diagnosis("times sqrt(lambda)", "the direction v_k = sum_i alpha_ik phi(x_i) has unit norm "
                  "for alpha_k = u_k / sqrt(lambda_k): divide by sqrt(lambda_k), do not multiply",
                  lambda K_new, K_train, U, eigenvalues:
                  center_kernel_rows(K_new, K_train) @ (U * np.sqrt(eigenvalues))),
        Diagnosis("divided by lambda", "alpha_k = u_k / sqrt(lambda_k), the square root of the "
                  "eigenvalue", lambda K_new, K_train, U, eigenvalues:
                  center_kernel_rows(K_new, K_train) @ (U / eigenvalues)),
    ],
    rtol=1e-4, atol=1e-6, kind="derive", section="6.4",
    hints=("section 6.4: a new point is centred with the TRAINING mean in feature space; write "
           "<phi(x) - phi_mean, phi(x_i) - phi_mean> with kernel values only",
           "four terms: the kernel value, the new row's mean over the training points, the "
           "training columns' means, the training matrix's overall mean; then each component "
           "direction is its eigenvector scaled so that it has unit norm in feature space"),
)


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
    for n, D, chunk, lam in [(12, 3, 5, 0.5), (20, 4, 6, 2.0), (30, 5, 7, 1.0)]:
        Phi = np.round(rng.normal(size=(n, D)), 3)
        y = np.round(rng.normal(size=n), 3)
        cases.append(Case((RowSource(Phi), y, lam, chunk),
                          label=f"Phi of shape ({n}, {D}), lam={lam}, chunk_size={chunk}"))
    return cases


def _chunks(Phi, y, chunk_size):
    return [(Phi[s:s + chunk_size], y[s:s + chunk_size]) for s in range(0, len(y), chunk_size)]


def _lam_per_chunk(Phi, y, lam, chunk_size):
    D = Phi.shape[1]
    A = sum(P.T @ P + lam * np.eye(D) for P, _ in _chunks(Phi, y, chunk_size))
    c = sum(P.T @ t for P, t in _chunks(Phi, y, chunk_size))
    return np.linalg.solve(A, c)


def _average_of_solves(Phi, y, lam, chunk_size):
    return np.mean([primal_ridge(P, t, lam) for P, t in _chunks(Phi, y, chunk_size)], axis=0)


def _whole_phi(Phi, y, lam, chunk_size):
    return _chunked_ridge(Phi, y, lam, len(y))     # one chunk: all of Phi at once


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


# ===================================================================== ex6.q6
def _nystroem_error(K, m, absolute=False):
    """||K - Phi Phi^T||_F / ||K||_F with the first m points as landmarks."""
    Phi = nystroem_features(K[:, :m], K[:m, :m])
    err = float(np.linalg.norm(K - Phi @ Phi.T))
    return err if absolute else err / float(np.linalg.norm(K))


def _landmark_errors(K, absolute=False):
    """The errors for m = 1, 2, ..., computed only as far as they are read."""
    return (_nystroem_error(K, m, absolute) for m in range(1, len(K) + 1))


def _first_meeting(errors, target):
    return next(m for m, e in enumerate(errors, 1) if e <= target)


def _choose_landmarks(X, gamma, target):
    return _first_meeting(_landmark_errors(RBF(gamma)(X)), target)


def _cases_landmarks(rng):
    cases = []
    for n, gamma, share in [(25, 0.5, 0.35), (30, 1.0, 0.5), (35, 0.3, 0.3)]:
        X = _points(rng, n, 2)
        K = RBF(gamma)(X)
        m = max(3, int(share * n))
        before, at = _nystroem_error(K, m - 1), _nystroem_error(K, m)
        # a target between two consecutive errors, far from both: m meets it, m - 1 does not
        while not at < float(np.round(np.sqrt(at * before), 4)) < before:
            m, before, at = m + 1, at, _nystroem_error(K, m + 1)
        target = float(np.round(np.sqrt(at * before), 4))
        cases.append(Case((X, gamma, target), label=f"{n} points in 2-D, gamma={gamma}, "
                                                    f"target relative error {target}"))
    return cases


def _landmark_error_of(m, case):
    X, gamma, _ = case.args
    return _nystroem_error(RBF(gamma)(X), int(m))


def _meets_target(m, case):
    X, _, target = case.args
    return (isinstance(m, (int, np.integer)) and 1 <= m <= len(X)
            and _landmark_error_of(m, case) <= target)


def _smallest(m, case):
    return int(m) == 1 or _landmark_error_of(int(m) - 1, case) > case.args[2]


def _best_rank_m(X, gamma, target):
    K = RBF(gamma)(X)
    s = np.clip(np.linalg.eigvalsh(K)[::-1], 0, None)
    tail = [float(np.sqrt(np.sum(s[m:] ** 2)) / np.linalg.norm(K)) for m in range(1, len(K) + 1)]
    return _first_meeting(tail, target)


Q6 = Question(
    id="ex6.q6", title="how many landmarks for a target error", function="choose_landmarks",
    points=2, kind="parameter", section="6.2",
    forbidden=("kernelcourse.nystroem.approximation_error",
               "kernelcourse.nystroem.errors_against_components",
               "kernelcourse.nystroem.Nystroem"),
    reference=_choose_landmarks, cases=_cases_landmarks, fixed_cases=_fixed(_cases_landmarks),
    properties=[
        Property("meets the target", _meets_target, "with that many landmarks (the first m points) "
                 "the relative Frobenius error of the Nystroem approximation is above the target"),
        Property("smallest", _smallest, "one landmark fewer also meets the target: the question "
                 "asks for the smallest m"),
    ],
    diagnoses=[
        Diagnosis("all points", "m = n always meets the target (the approximation is then exact); "
                  "the point is the smallest m that does",
                  lambda X, gamma, target: len(X)),
        Diagnosis("absolute error", "the target is a relative error: divide ||K - K~||_F by "
                  "||K||_F", lambda X, gamma, target:
                  _first_meeting(_landmark_errors(RBF(gamma)(X), absolute=True), target)),
        Diagnosis("best rank m", "the tail of K's eigenvalues is the error of the BEST rank-m "
                  "approximation; Nystroem with the first m points as landmarks does worse, so "
                  "measure its own error", _best_rank_m),
        Diagnosis("one short", "you returned the largest m that still misses the target; the "
                  "answer is the first m whose error is at or below it",
                  lambda X, gamma, target: _choose_landmarks(X, gamma, target) - 1),
    ],
    hints=("section 6.2: for each m, build the Nystroem approximation from the first m points "
           "as landmarks and measure its error the way the target is stated",
           "the error is relative, ||K - K~||_F / ||K||_F, and it falls as m grows; return the "
           "first m at or below the target, as a Python int"),
)


# ===================================================================== ex6.q7
def _exact_landmarks(d, degree):
    """The rank of (x.z + 1)^p on R^d: the number of monomials of degree <= p in d variables."""
    return math.comb(d + degree, degree)


def _cases_exact(rng):
    pairs = [(d, p) for d in (2, 3, 4, 5) for p in (2, 3, 4)]
    picked = rng.permutation(len(pairs))[:4]
    return [Case(pairs[i], label=f"d={pairs[i][0]}, degree={pairs[i][1]}") for i in picked]


def _fixed_exact():
    """Every drawn pair, and degree 1 and d = 1, where some wrong counts meet the right one."""
    pairs = [(2, 2), (3, 3), (4, 2), (5, 4), (1, 3), (6, 1)]
    return [Case(pair, label=f"d={pair[0]}, degree={pair[1]}") for pair in pairs]


Q7 = Question(
    id="ex6.q7", title="how many landmarks make Nystroem exact", function="exact_landmarks",
    points=2, kind="predict", section="6.3",
    forbidden=("kernelcourse.features.feature_dim_polynomial", "kernelcourse.features.polynomial_map",
               "kernelcourse.kernels.Polynomial"),
    reference=_exact_landmarks, cases=_cases_exact, fixed_cases=_fixed_exact,
    diagnoses=[
        Diagnosis("degree p only", "(x.z + 1)^p contains every degree from 0 to p, not only the "
                  "monomials of degree exactly p", lambda d, degree: math.comb(d + degree - 1, degree)),
        Diagnosis("ordered products", "(d + 1)^p counts the coordinates of the explicit map with "
                  "repeats (x1 x2 and x2 x1 separately); the rank counts distinct monomials",
                  lambda d, degree: (d + 1) ** degree),
        Diagnosis("d^p", "d^p counts ordered products of exactly p coordinates; the rank of K is "
                  "the number of distinct monomials of degree at most p",
                  lambda d, degree: d ** degree),
    ],
    hints=("section 6.3: Nystroem is exact once the landmarks span the feature space, so the "
           "answer is the rank of the kernel: the dimension of its feature map",
           "expand (x.z + 1)^p: which monomials of x appear, and how many distinct ones are there "
           "of each degree from 0 to p? A stars-and-bars count"),
)


# ===================================================================== ex6.q8
from .lecture5 import _given  # noqa: E402

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


# ===================================================================== ex6.q9
_BUGGY_TRANSFORM = """\
def kpca_transform(K_new, K_train, k):
    m = K_train.shape[0]
    J = np.eye(m) - np.ones((m, m)) / m
    s, U = np.linalg.eigh(J @ K_train @ J)              # the centred training Gram matrix
    s, U = s[::-1][:k], U[:, ::-1][:, :k]               # its k leading eigenpairs
    K_c = K_new - K_new.mean(axis=1, keepdims=True) - K_new.mean(axis=0) + K_new.mean()
    return K_c @ U / np.sqrt(s)
"""


def _kpca_transform(K_new, K_train, k):
    s, U = np.linalg.eigh(center_gram(K_train))
    s, U = s[::-1][:k], U[:, ::-1][:, :k]
    return center_kernel_rows(K_new, K_train) @ U / np.sqrt(s)


def _transform_with(centre, power=0.5, centred=True):
    def mistake(K_new, K_train, k):
        s, U = np.linalg.eigh(center_gram(K_train) if centred else K_train)
        s, U = s[::-1][:k], U[:, ::-1][:, :k]
        return centre(K_new, K_train) @ U / s**power
    return mistake


def _cases_transform(rng):
    cases = []
    for n, p, k in [(8, 3, 2), (10, 4, 2), (12, 5, 3)]:
        X = _points(rng, n, 2, shift=1.0)
        X_new = _points(rng, p, 2, shift=-0.5)       # elsewhere: their own mean differs
        kern = RBF(0.4)
        cases.append(Case((kern(X_new, X), kern(X), k),
                          label=f"K_new of shape ({p}, {n}), K_train ({n}, {n}), k={k}"))
    return cases


def _transform_is(centre, power=0.5, centred=True):
    def detect(actual, case):
        expected = _transform_with(centre, power, centred)(*case.args)
        actual = np.asarray(actual, dtype=float)
        if actual.shape != expected.shape:
            return False
        signs = np.sign(np.sum(actual * expected, axis=0))
        signs[signs == 0] = 1.0
        return bool(np.allclose(actual * signs, expected, rtol=1e-4,
                                atol=1e-6 * max(np.abs(expected).max(), 1e-12)))
    return detect


def _training_centring(K_new, K_train):
    return center_kernel_rows(K_new, K_train)


Q9 = Question(
    id="ex6.q9", title="fix kernel PCA's projection of new points", function="kpca_transform",
    points=3, kind="fix", section="6.4",
    forbidden=("kernelcourse.feature_space.center_kernel_rows",
               "kernelcourse.feature_space.GramCenterer",
               "kernelcourse.kernel_pca.KernelPCA"),
    reference=_kpca_transform, cases=_cases_transform, compare_reference=False,
    fixed_cases=_fixed(_cases_transform),
    properties=[Property("the projection", _transform_is(_training_centring),
                         "the projections differ from kernel PCA's (each component compared up "
                         "to its sign, to 4 significant digits)")],
    diagnoses=[
        Diagnosis("own mean", "the bug is still there: the new rows are centred with the new "
                  "points' own means; kernel PCA's components live around the TRAINING mean, so "
                  "the column means and the overall mean must come from K_train",
                  _given(_BUGGY_TRANSFORM, "kpca_transform"), detect=_transform_is(_own_mean)),
        Diagnosis("fixed the scaling", "dividing by sqrt(lambda_k) was right (it gives each "
                  "direction unit norm in feature space); the bug is in how the new rows are "
                  "centred: with the new points' own means instead of the training ones",
                  _transform_with(_own_mean, power=1.0),
                  detect=_transform_is(_own_mean, power=1.0)),
        Diagnosis("not centred", "the components were found for centred features: the new "
                  "kernel rows need centring too, with the training statistics",
                  _transform_with(lambda K_new, K_train: K_new),
                  detect=_transform_is(lambda K_new, K_train: K_new)),
        Diagnosis("uncentred training", "the line that centres K_train (J K_train J) was right: "
                  "kernel PCA's components are eigenvectors of the CENTRED Gram matrix; the bug "
                  "is in how the new rows are centred",
                  _transform_with(_own_mean, centred=False),
                  detect=_transform_is(_own_mean, centred=False)),
    ],
    hint="delete this line; the code below has one bug: find it and fix it",
    hints=("the training Gram matrix is centred on the training mean in feature space; ask which "
           "mean the line that centres the new rows subtracts",
           "of the four terms that centre a new kernel row, the first two are right; the other "
           "two must be statistics of the training points, which the components were built on"),
)


QUESTIONS = [CP1, CP2, Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9]
