"""Lecture 3, sections 3.8 and 3.9: the centre-of-mass classifier's offset and distances to
the mean in feature space (ex3.q4, ex3.q5, ex3.q8)."""
from __future__ import annotations

import numpy as np

from ....feature_space import centre_of_mass_offset, squared_distances_to_mean
from ....kernels import RBF
from ...model import Case, Diagnosis, Question, fixed_draw
from ._common import _poly_gram, _signs


# ===================================================================== ex3.q4
def _cases_b(rng):
    cases = []
    for n, d in [(5, 2), (6, 3), (8, 2)]:
        _, _, K = _poly_gram(rng, n, d)
        y = _signs(rng, n)
        if y[0] < 0 or np.all(y[: int((y > 0).sum())] > 0):
            y = y[::-1].copy()                      # keep the classes interleaved
        cases.append(Case((K, y), label=f"K of shape ({n}, {n}), y = {y.astype(int).tolist()}"))
    return cases


def _block_means(K, y):
    pos, neg = y > 0, y < 0
    return K[np.ix_(pos, pos)].mean(), K[np.ix_(neg, neg)].mean(), pos.sum(), neg.sum()


def _b_no_half(K, y):
    p, n, _, _ = _block_means(K, y)
    return float(p - n)


def _b_over_m(K, y):
    p, n, mp, mn = _block_means(K, y)
    return float(p * mp / 2 - n * mn / 2)


def _b_sorted(K, y):
    mp = int((y > 0).sum())
    return float(K[:mp, :mp].mean() / 2 - K[mp:, mp:].mean() / 2)


Q4 = Question(
    id="ex3.q4", title="the centre-of-mass classifier's offset b", function="centre_of_mass_b",
    forbidden=(
        "kernelcourse.feature_space.centre_of_mass_offset",
        "kernelcourse.feature_space.centre_of_mass_scores",
        "kernelcourse.feature_space.CentreOfMassClassifier",
    ),
    points=2, reference=centre_of_mass_offset, cases=_cases_b,
    fixed_cases=fixed_draw(_cases_b, 306),
    diagnoses=[
        Diagnosis("no 1/2", "b has a factor 1/2: b = (||phi_S+||^2 - ||phi_S-||^2) / 2",
                  _b_no_half),
        Diagnosis("1/m instead of 1/m^2", "the sums over pairs are divided by m_+^2 and m_-^2 "
                  "(each is the squared norm of a mean)", _b_over_m),
        Diagnosis("sign", "b is (1/2m_+^2) sum_{S+} k - (1/2m_-^2) sum_{S-} k: the positive "
                  "class comes first", lambda K, y: -centre_of_mass_offset(K, y)),
        Diagnosis("sorted labels", "the examples are not sorted by class: select the positive and "
                  "negative examples with y > 0 and y < 0", _b_sorted),
    ],
    kind="derive", section="3.8",
    hints=("b is half the difference of the squared norms of the two class means; write "
           "||phi_S+||^2 as a sum of kernel values",
           "||phi_S+||^2 is the mean of the block of K whose rows and columns are both positive "
           "examples; select the block with boolean masks (np.ix_) since the labels are not sorted"),
)


# ===================================================================== ex3.q5
def _novelty_scores(K_train, K_test, diag_test):
    """``||phi(x) - phi_S|| - r`` with ``r = max_i ||phi(x_i) - phi_S||``."""
    d_train = np.sqrt(squared_distances_to_mean(K_train, np.diag(K_train), K_train))
    d_test = np.sqrt(squared_distances_to_mean(K_test, diag_test, K_train))
    return d_test - d_train.max()


def _cases_novelty(rng):
    cases = []
    for n, p, d in [(5, 3, 2), (6, 4, 2), (8, 3, 3)]:
        X, k, K = _poly_gram(rng, n, d)
        Xt = np.round(rng.normal(scale=1.5, size=(p, d)), 3)
        cases.append(Case((K, k(Xt, X), k.diag(Xt)),
                          label=f"K_train ({n}, {n}), K_test ({p}, {n}), diag_test ({p},)"))
    return cases


def _novelty_near_centre():
    """New points close to the centre of mass (the linear kernel, so phi(x) = x): the first at
    the training mean itself (distance 0), the second at squared distance 0.13, the third
    outside the ball. Squared distances below one half, where a wrong floor under the
    rounding clamp of ||phi(x) - phi_S||^2 shows."""
    X = np.array([[0.5, -1.0], [1.5, 0.0], [-0.5, 1.0], [0.5, 0.6]])
    centre = X.mean(axis=0)
    Xt = np.array([centre, centre + [0.3, -0.2], [3.0, 2.0]])
    return [Case((X @ X.T, Xt @ X.T, (Xt ** 2).sum(axis=1)),
                 label="linear kernel: K_train (4, 4), K_test (3, 4), diag_test (3,); the first "
                       "new point at the training mean")]


def _sq_dists(K_train, K_test, diag_test, grand_divisor):
    m = K_train.shape[0]
    g = K_train.sum() / grand_divisor(m)
    d_train = np.diag(K_train) - 2 * K_train.mean(axis=1) + g
    d_test = diag_test - 2 * K_test.mean(axis=1) + g
    return d_train, d_test


def _nov_squared(K_train, K_test, diag_test):
    d_train, d_test = _sq_dists(K_train, K_test, diag_test, lambda m: m**2)
    return d_test - d_train.max()


def _nov_mean_radius(K_train, K_test, diag_test):
    d_train, d_test = _sq_dists(K_train, K_test, diag_test, lambda m: m**2)
    return np.sqrt(d_test) - np.sqrt(d_train).mean()


def _nov_over_m(K_train, K_test, diag_test):
    d_train, d_test = _sq_dists(K_train, K_test, diag_test, lambda m: m)
    return np.sqrt(d_test) - np.sqrt(d_train).max()


def _nov_test_radius(K_train, K_test, diag_test):
    _, d_test = _sq_dists(K_train, K_test, diag_test, lambda m: m**2)
    return np.sqrt(d_test) - np.sqrt(d_test).max()


Q5 = Question(
    id="ex3.q5", title="the novelty score", function="novelty_scores", points=3,
    forbidden=(
        "kernelcourse.feature_space.squared_distances_to_mean",
        "kernelcourse.feature_space.NoveltyBall",
    ),
    reference=_novelty_scores, cases=_cases_novelty, fixed_cases=fixed_draw(_cases_novelty, 307, extra=_novelty_near_centre),
    diagnoses=[
        Diagnosis("squared", "you compared squared distances; the score is the distance "
                  "||phi(x) - phi_S|| minus the radius, both square-rooted", _nov_squared),
        Diagnosis("mean radius", "the radius is the LARGEST training distance to the centre, "
                  "so that the ball holds all the training data", _nov_mean_radius),
        Diagnosis("1/m instead of 1/m^2", "||phi_S||^2 = (1/m^2) j^T K j: divide the sum of all "
                  "entries of K_train by m^2", _nov_over_m),
        Diagnosis("radius from the new points", "the radius is the largest distance of a "
                  "TRAINING point to phi_S (the ball that holds the training data); you took it "
                  "over the new points", _nov_test_radius),
    ],
    kind="derive", section="3.9",
    hints=("expand ||phi(x) - phi_S||^2 into three kernel terms; the same expansion serves the "
           "training points (for the radius) and the new points",
           "the three terms are k(x, x), a mean of x's kernel row and ||phi_S||^2 (a mean over "
           "all of K_train); take square roots before subtracting the radius"),
)


# ===================================================================== ex3.q8
def _far_point_distance(K_train):
    """The limit of ||phi(x) - phi_S|| for a Gaussian kernel as x moves away from all x_i."""
    return float(np.sqrt(1.0 + np.mean(K_train)))


def _cases_far(rng):
    cases = []
    for n, gamma in [(4, 0.5), (6, 2.0), (8, 0.2)]:
        X = np.round(rng.normal(size=(n, 2)), 3)
        cases.append(Case((RBF(gamma=gamma)(X),),
                          label=f"Gaussian Gram matrix of {n} points (gamma={gamma})"))
    return cases


Q8 = Question(
    id="ex3.q8", title="how far is far away?", function="far_point_distance", points=2,
    kind="predict", section="3.9", rtol=1e-6, atol=1e-9,
    forbidden=(
        "kernelcourse.feature_space.squared_distances_to_mean",
        "kernelcourse.feature_space.mean_norm",
        "kernelcourse.feature_space.NoveltyBall",
    ),
    reference=_far_point_distance, cases=_cases_far, fixed_cases=fixed_draw(_cases_far, 310),
    diagnoses=[
        Diagnosis("no k(x, x)", "far away only the cross terms k(x, x_i) vanish; k(x, x) stays 1 "
                  "for the Gaussian kernel", lambda K: float(np.sqrt(np.mean(K)))),
        Diagnosis("squared", "that is the squared distance; the question asks for the distance "
                  "||phi(x) - phi_S||", lambda K: float(1.0 + np.mean(K))),
        Diagnosis("1/m instead of 1/m^2", "||phi_S||^2 = (1/m^2) j^T K j, the mean of all entries "
                  "of K; you divided the sum by m",
                  lambda K: float(np.sqrt(1.0 + np.sum(K) / len(K)))),
        Diagnosis("distance to one point", "sqrt(2) is the distance from a far point to any single "
                  "phi(x_i) (2 - 2 k(x, x_i) -> 2); the centre phi_S is closer, since "
                  "||phi_S|| < 1", lambda K: float(np.sqrt(2.0))),
        Diagnosis("distance to the origin", "1 is ||phi(x)||, the distance to the origin of "
                  "feature space; the centre is phi_S, not 0", lambda K: 1.0),
    ],
    hints=("write ||phi(x) - phi_S||^2 in kernel values (3.9), then ask which terms change when "
           "x is far from every training point",
           "for the Gaussian kernel k(x, x) = 1 always and k(x, x_i) -> 0 far away; the term "
           "||phi_S||^2 depends on the training data only"),
)
