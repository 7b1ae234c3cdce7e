"""Lecture 10, sections 10.1-10.4: a Gram matrix normalised (ex10.q1), the spectrum feature
vector (ex10.q2), the mismatch kernel of two strings (ex10.q3), and the subsequence kernel's
recursion to fix (ex10.q4)."""
from __future__ import annotations

import itertools

import numpy as np

from ....structured import kmer_counts, mismatch_kernel, subsequence_pair
from ...model import Case, Diagnosis, Question
from .._typed import drawn_like
from ._common import STRINGS, random_string


# ===================================================================== ex10.q1
def _gram(strings, k):
    """The spectrum kernel's Gram matrix by its definition, ``K_st = sum_u phi_u(s) phi_u(t)``
    over the k-mers ``u`` (``spectrum_kernel``'s integers exactly, without its sparse
    product: a notebook's first check of set 10 need not load scipy.sparse)."""
    counts = [kmer_counts(s, k) for s in strings]
    return np.array([[float(sum(n * t.get(u, 0) for u, n in s.items())) for t in counts] for s in counts])


def _reference_normalized(K):
    K = np.asarray(K, float)
    d = np.sqrt(np.diag(K))
    return K / np.outer(d, d)


def _normalized_no_sqrt(K):
    K = np.asarray(K, float)
    return K / np.outer(np.diag(K), np.diag(K))


def _normalized_rows(K):
    K = np.asarray(K, float)
    return K / np.diag(K)[:, None]


def _normalized_max(K):
    K = np.asarray(K, float)
    return K / K.max()


def _fixed_normalized():
    return [Case((_gram(["GATTACA", "ATTACCA", "CATCAT"], 2),), label="GATTACA, ATTACCA, CATCAT, k = 2"),
            Case((_gram(["AAAAAA", "AAAT", "TTAAT", "ATAT"], 2),), label="four strings, k = 2")]


def _draw_normalized(rng):
    k = int(rng.integers(1, 4))
    strings = [random_string(rng, "ACGT", k + 3, 12) for _ in range(int(rng.integers(3, 6)))]
    K = _gram(strings, k)
    if np.any(np.diag(K) == 0):
        return None
    return Case((K,), label=f"{len(strings)} strings, k = {k}")


Q1 = Question(
    id="ex10.q1", title="normalise a Gram matrix of strings", function="normalized_gram", points=2,
    kind="derive", section="10.1", reference=_reference_normalized, fixed_cases=_fixed_normalized,
    cases=lambda rng: drawn_like(Q1, rng, [(_fixed_normalized()[1], _draw_normalized)] * 2),
    rtol=1e-9, atol=1e-12, forbidden=STRINGS,
    diagnoses=[
        Diagnosis("no square root", "the normalised kernel is the cosine of the angle between the "
                  "feature vectors: divide by the product of their norms, sqrt(K_ii) sqrt(K_jj)",
                  _normalized_no_sqrt),
        Diagnosis("rows only", "dividing row i by K_ii gives a matrix that is not symmetric: both "
                  "strings' norms belong in the denominator", _normalized_rows),
        Diagnosis("largest entry", "one common scale keeps long strings ahead of short ones; the "
                  "normalised kernel has 1 on its whole diagonal", _normalized_max),
    ],
    hints=("the normalised kernel is <phi(s), phi(t)> / (||phi(s)|| ||phi(t)||)",
           "the squared norm of phi(s) is already in the matrix: it is an entry on the diagonal"),
)


# ===================================================================== ex10.q2
def _all_kmers(k, alphabet):
    return ["".join(p) for p in itertools.product(alphabet, repeat=k)]


def _reference_spectrum(s, k, alphabet):
    counts = kmer_counts(s, k)
    return np.array([counts.get(u, 0) for u in _all_kmers(k, alphabet)], dtype=float)


def _spectrum_sets(s, k, alphabet):
    return (_reference_spectrum(s, k, alphabet) > 0).astype(float)


def _spectrum_str_count(s, k, alphabet):
    return np.array([s.count(u) for u in _all_kmers(k, alphabet)], dtype=float)


def _spectrum_last_missing(s, k, alphabet):
    windows = [s[i:i + k] for i in range(len(s) - k)]
    return np.array([windows.count(u) for u in _all_kmers(k, alphabet)], dtype=float)


def _fixed_spectrum():
    return [Case(("AAAAC", 2, "ACGT"), label="AAAAC, k = 2 over ACGT"),
            Case(("AAABABAB", 2, "AB"), label="AAABABAB, k = 2 over AB"),
            Case(("GATTACA", 3, "ACGT"), label="GATTACA, k = 3 over ACGT")]


def _draw_spectrum(rng):
    k = int(rng.integers(2, 4))
    alphabet = "AB" if rng.random() < 0.5 else "ACGT"
    run = alphabet[0] * (k + 2)
    s = random_string(rng, alphabet, 2, 6) + run + random_string(rng, alphabet, 1, 4)
    return Case((s, k, alphabet), label=f"{s}, k = {k} over {alphabet}")


Q2 = Question(
    id="ex10.q2", title="the spectrum feature vector", function="spectrum_vector", points=2,
    kind="derive", section="10.2", reference=_reference_spectrum, fixed_cases=_fixed_spectrum,
    cases=lambda rng: drawn_like(Q2, rng, [(_fixed_spectrum()[0], _draw_spectrum),
                                           (_fixed_spectrum()[1], _draw_spectrum)]),
    rtol=0, atol=0, forbidden=STRINGS,
    diagnoses=[
        Diagnosis("sets, not counts", "phi_u(s) counts the occurrences of u in s: a k-mer seen "
                  "three times has the value 3, not 1", _spectrum_sets),
        Diagnosis("str.count", "str.count skips overlapping occurrences (\"AAAA\".count(\"AA\") is 2, "
                  "but AA starts at three places); slide a window one place at a time",
                  _spectrum_str_count),
        Diagnosis("last k-mer missing", "a string of length n has n - k + 1 windows: the window "
                  "starting at n - k is the last", _spectrum_last_missing),
    ],
    hints=("one entry per k-mer of the alphabet, in the order itertools.product(alphabet, repeat=k) "
           "gives them",
           "count the windows s[i:i + k] for every starting place i"),
)


# ===================================================================== ex10.q3
def _ham(u, v):
    return sum(a != b for a, b in zip(u, v))


def _windows(s, k):
    return [s[i:i + k] for i in range(len(s) - k + 1)]


def _reference_mismatch(s, t, k, m):
    return float(mismatch_kernel([s], [t], k=k, m=m)[0, 0])


def _mismatch_close_windows(s, t, k, m):
    return float(sum(_ham(u, v) <= m for u in _windows(s, k) for v in _windows(t, k)))


def _mismatch_within_2m(s, t, k, m):
    return float(sum(_ham(u, v) <= 2 * m for u in _windows(s, k) for v in _windows(t, k)))


def _mismatch_exactly_m(s, t, k, m):
    total = 0
    for b in _all_kmers(k, "ACGT"):
        total += (sum(_ham(b, u) == m for u in _windows(s, k))
                  * sum(_ham(b, v) == m for v in _windows(t, k)))
    return float(total)


def _fixed_mismatch():
    return [Case(("ACGTA", "ACCTT", 3, 1), label="ACGTA and ACCTT, k = 3, m = 1"),
            Case(("GATTACA", "GATCACA", 4, 1), label="GATTACA and GATCACA, k = 4, m = 1"),
            Case(("GGGTCTG", "GGATCT", 4, 1), label="GGGTCTG and GGATCT, k = 4, m = 1"),
            # windows shared whole (distance 0): each pair counts |N_1(u)| = 1 + 3k neighbours
            Case(("ACGTAC", "CGTA", 3, 1), label="ACGTAC and CGTA, k = 3, m = 1")]


def _draw_mismatch(rng):
    k = int(rng.integers(3, 5))
    s = random_string(rng, "ACGT", k + 1, k + 4)
    t = list(s[:k + 2])
    for i in rng.choice(len(t), size=2, replace=False):
        t[i] = "ACGT"[int(rng.integers(0, 4))]
    return Case((s, "".join(t), k, 1), label=f"{s} and {''.join(t)}, k = {k}, m = 1")


Q3 = Question(
    id="ex10.q3", title="the mismatch kernel of two strings", function="mismatch_value", points=3,
    kind="derive", section="10.3", reference=_reference_mismatch, fixed_cases=_fixed_mismatch,
    cases=lambda rng: drawn_like(Q3, rng, [(_fixed_mismatch()[0], _draw_mismatch),
                                           (_fixed_mismatch()[1], _draw_mismatch)]),
    rtol=0, atol=0, forbidden=STRINGS,
    diagnoses=[
        Diagnosis("close windows", "the kernel is not the number of pairs of windows within m of "
                  "each other: a pair counts once for every k-mer b within m of both, "
                  "|N_m(u) n N_m(v)| times", _mismatch_close_windows),
        Diagnosis("within 2m", "two windows at distance up to 2m share a neighbour, but they share "
                  "|N_m(u) n N_m(v)| of them, not one", _mismatch_within_2m),
        Diagnosis("exactly m", "phi_b(s) counts the windows within m substitutions of b: at "
                  "distance 0, 1, ..., m, not only at m", _mismatch_exactly_m),
    ],
    hints=("phi_b(s) is the number of windows of s within m substitutions of the k-mer b; the "
           "kernel adds phi_b(s) phi_b(t) over every b in A^k",
           "with k at most 4 over ACGT, there are at most 256 k-mers b: a loop over them is fine"),
)


# ===================================================================== ex10.q4
def _ssk(s, t, n, lam, *, gap_t=True, gap_s=True, match=2, empty=True, final=2):
    """K_n(s, t) by Lodhi et al.'s recursion in plain loops, each flag one place to go wrong."""
    if len(s) < n or len(t) < n:
        return 0.0
    S, T = len(s), len(t)
    Kp = [[1.0 if (empty or (a > 0 and b > 0)) else 0.0 for b in range(T + 1)] for a in range(S + 1)]
    for _ in range(1, n):
        Kpp = [[0.0] * (T + 1) for _ in range(S + 1)]
        new = [[0.0] * (T + 1) for _ in range(S + 1)]
        for a in range(1, S + 1):
            for b in range(1, T + 1):
                hit = lam ** match * Kp[a - 1][b - 1] if s[a - 1] == t[b - 1] else 0.0
                Kpp[a][b] = (lam if gap_t else 1.0) * Kpp[a][b - 1] + hit
                new[a][b] = (lam if gap_s else 1.0) * new[a - 1][b] + Kpp[a][b]
        Kp = new
    return float(sum(lam ** final * Kp[a - 1][b - 1]
                     for a in range(1, S + 1) for b in range(1, T + 1) if s[a - 1] == t[b - 1]))


def _reference_ssk(s, t, n, lam):
    return subsequence_pair(s, t, n, lam)


def _ssk_given(s, t, n, lam):
    return _ssk(s, t, n, lam, gap_t=False)


def _ssk_no_gap_s(s, t, n, lam):
    return _ssk(s, t, n, lam, gap_s=False)


def _ssk_lam_once(s, t, n, lam):
    return _ssk(s, t, n, lam, match=1, final=1)


def _ssk_empty_zero(s, t, n, lam):
    return _ssk(s, t, n, lam, empty=False)


def _fixed_ssk():
    return [Case(("cat", "cart", 2, 0.5), label="cat and cart, n = 2, lam = 0.5"),
            Case(("abcab", "acbba", 3, 0.7), label="abcab and acbba, n = 3, lam = 0.7")]


def _draw_ssk(rng):
    n = int(rng.integers(2, 4))
    s, t = random_string(rng, "abc", n + 1, 7), random_string(rng, "abc", n + 1, 7)
    lam = float(rng.choice([0.3, 0.5, 0.6, 0.7, 0.8]))
    return Case((s, t, n, lam), label=f"{s} and {t}, n = {n}, lam = {lam}")


Q4 = Question(
    id="ex10.q4", title="fix the subsequence kernel's recursion", function="subsequence_value",
    points=3, kind="fix", section="10.4", reference=_reference_ssk, fixed_cases=_fixed_ssk,
    cases=lambda rng: drawn_like(Q4, rng, [(_fixed_ssk()[0], _draw_ssk), (_fixed_ssk()[1], _draw_ssk)]),
    rtol=1e-9, atol=1e-12, forbidden=STRINGS,
    diagnoses=[
        Diagnosis("the given code", "K''_i(a, b) runs along t: each letter of t skipped after the "
                  "match costs a factor lam, as each letter of s does in K'_i", _ssk_given),
        Diagnosis("no decay along s", "K'_i(a, b) = lam K'_i(a - 1, b) + K''_i(a, b): a letter of s "
                  "after the last match lengthens the span by one", _ssk_no_gap_s),
        Diagnosis("lam, not lam^2", "a matched pair of letters lengthens both spans, one letter in s "
                  "and one in t: lam^2 per match", _ssk_lam_once),
        Diagnosis("empty prefixes", "K'_0 = 1 on every pair of prefixes, the empty ones too: the "
                  "first letter of a subsequence can be the first letter of the string",
                  _ssk_empty_zero),
    ],
    hints=("each letter between a subsequence's first letter and a prefix's end, in s or in t, "
           "costs one factor lam",
           "compare the two inner recursions: one runs along s, the other along t, and both "
           "should decay"),
)
