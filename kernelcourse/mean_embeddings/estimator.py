"""The kernel two-sample test (9.3) as a scikit-learn style estimator, :class:`MMDTest`.

Apart from :mod:`.two_sample_test` because its base class imports scikit-learn, seconds on a
cold start that the functions never need; ``kernelcourse.mean_embeddings`` loads this module
when ``MMDTest`` is first asked for (PEP 562).
"""
from __future__ import annotations

from sklearn.base import BaseEstimator

from .._validation import check_unit_interval
from .two_sample_test import permutation_test

__all__ = ["MMDTest"]


class MMDTest(BaseEstimator):
    """The kernel two-sample test as an object: parameters in ``__init__``, results after ``fit``.

    Parameters
    ----------
    kernel : kernel object, name or None (RBF with the pooled median heuristic)
    estimator : "unbiased" or "biased"
    n_permutations : int, default 1000
    alpha : float in (0, 1), default 0.05
    random_state : None, int or Generator

    Attributes
    ----------
    kernel_, statistic_, null_, p_value_, reject_ (p_value_ <= alpha)
    """

    def __init__(self, kernel=None, estimator="unbiased", n_permutations=1000, alpha=0.05,
                 random_state=None):
        self.kernel = kernel
        self.estimator = estimator
        self.n_permutations = n_permutations
        self.alpha = alpha
        self.random_state = random_state

    def fit(self, X, Y) -> "MMDTest":
        """Test whether the samples ``X`` and ``Y`` come from one distribution; returns self."""
        alpha = check_unit_interval(self.alpha, "alpha")
        result = permutation_test(X, Y, self.kernel, self.n_permutations, self.estimator,
                                  self.random_state)
        self.kernel_, self.statistic_ = result.kernel, result.statistic
        self.null_, self.p_value_ = result.null, result.p_value
        self.reject_ = bool(result.p_value <= alpha)
        return self
