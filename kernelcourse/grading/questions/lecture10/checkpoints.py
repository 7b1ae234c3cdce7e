"""Lecture 10 (kernels on strings and graphs): the checkpoints ``l10.cp1``, ``l10.cp2`` of the
lecture notebook.

============  =========================  ====  ==========  ==========================================
id            function                   pts   kind        syllabus
============  =========================  ====  ==========  ==========================================
l10.cp1       neighbourhood_size         2     derive      10.3 |N_m(u)| over an alphabet of a letters
l10.cp2       spectrum_value             2     derive      10.2 shared k-mers counted with multiplicity
============  =========================  ====  ==========  ==========================================

Each drawn case is built so that every named mistake gives another value than the reference
(m >= 2 for the neighbourhood; repeated, overlapping k-mers for the spectrum), so a mistake
scores the same points in every seed.
"""
from __future__ import annotations

from math import comb

from ....structured import mismatch_neighbourhood_size, spectrum_kernel
from ...model import Case, Diagnosis, Question

_S = "kernelcourse.structured."
_STRUCTURED = tuple(_S + name for name in (
    "mismatch_neighbourhood_size", "mismatch_neighbourhood", "mismatch_pair_count", "mismatch_kernel",
    "mismatch_features", "spectrum_kernel", "spectrum_features", "kmer_counts", "kmers",
    "hamming_pair_counts", "SpectrumKernel", "MismatchKernel"))


# ===================================================================== l10.cp1
def _size_alphabet_not_minus_one(k, m, a):
    return sum(comb(k, d) * a ** d for d in range(m + 1))


def _size_exactly_m(k, m, a):
    return comb(k, m) * (a - 1) ** m


def _size_powers_of_k(k, m, a):
    return sum(k ** d * (a - 1) ** d for d in range(m + 1))


def _size_no_alphabet(k, m, a):
    return sum(comb(k, d) for d in range(m + 1))


def _cases_size(rng):
    cases = []
    for _ in range(3):
        k = int(rng.integers(4, 11))
        m = int(rng.integers(2, min(k, 4) + 1))
        a = int(rng.integers(3, 6))
        cases.append(Case((k, m, a), label=f"k = {k}, m = {m}, a = {a}"))
    return cases


CP1 = Question(
    id="l10.cp1", title="the size of a mismatch neighbourhood", function="neighbourhood_size",
    points=2, kind="derive", section="10.3", reference=lambda k, m, a: mismatch_neighbourhood_size(k, m, a),
    cases=_cases_size,
    fixed_cases=lambda: [Case((4, 2, 4), label="k = 4, m = 2 over ACGT"),
                         Case((8, 1, 4), label="k = 8, m = 1 over ACGT"),
                         Case((5, 3, 20), label="k = 5, m = 3 over the 20 amino acids")],
    rtol=0, atol=0, forbidden=_STRUCTURED,
    diagnoses=[
        Diagnosis("a, not a - 1", "a substituted place takes one of the a - 1 letters other than "
                  "the one already there; a letters would count the k-mer itself again",
                  _size_alphabet_not_minus_one),
        Diagnosis("exactly m", "the neighbourhood holds every k-mer within distance m: at distance "
                  "0, 1, ..., m, not only at m", _size_exactly_m),
        Diagnosis("k^d, not C(k, d)", "the d substituted places form a set: C(k, d) choices, not "
                  "k^d ordered ones", _size_powers_of_k),
        Diagnosis("places only", "each substituted place also has a choice of letter: (a - 1)^d "
                  "ways for d places", _size_no_alphabet),
    ],
    hints=("count the k-mers at Hamming distance exactly d first, then add over d",
           "at distance d: choose which d places change, then a new letter for each place"),
)


# ===================================================================== l10.cp2
def _spectrum_reference(s, t, k):
    return float(spectrum_kernel([s], [t], k=k)[0, 0])


def _windows(s, k):
    return [s[i:i + k] for i in range(len(s) - k + 1)]


def _spectrum_sets(s, t, k):
    return float(len(set(_windows(s, k)) & set(_windows(t, k))))


def _spectrum_no_overlap(s, t, k):
    return float(sum(s.count(u) * t.count(u) for u in set(_windows(s, k))))


def _spectrum_last_missing(s, t, k):
    a = [s[i:i + k] for i in range(len(s) - k)]
    b = [t[i:i + k] for i in range(len(t) - k)]
    return float(sum(a.count(u) * b.count(u) for u in set(a)))


def _spectrum_min(s, t, k):
    a, b = _windows(s, k), _windows(t, k)
    return float(sum(min(a.count(u), b.count(u)) for u in set(a)))


def _repeats(rng, k):
    """Two strings with a repeated, overlapping k-mer shared, and shared k-mers at their ends."""
    unit = "".join(rng.choice(list("AC"), size=k - 1))
    run = "A" * (k + 2)
    end = "".join(rng.choice(list("GT"), size=k))
    s = run + "".join(rng.choice(list("ACGT"), size=int(rng.integers(3, 8)))) + unit + end
    t = end + unit + "A" * (k + 1) + "".join(rng.choice(list("ACGT"), size=int(rng.integers(3, 8)))) + end
    return s, t


def _cases_spectrum(rng):
    cases = []
    for _ in range(3):
        k = int(rng.integers(2, 5))
        s, t = _repeats(rng, k)
        cases.append(Case((s, t, k), label=f"k = {k}, |s| = {len(s)}, |t| = {len(t)}"))
    return cases


CP2 = Question(
    id="l10.cp2", title="the spectrum kernel of two strings", function="spectrum_value", points=2,
    kind="derive", section="10.2", reference=_spectrum_reference, cases=_cases_spectrum,
    fixed_cases=lambda: [Case(("AAAAGT", "AAAGTT", 2), label="AAAAGT and AAAGTT, k = 2"),
                         Case(("ACGTACGT", "CGTACG", 3), label="ACGTACGT and CGTACG, k = 3"),
                         Case(("GATTACA", "ATTAC", 5), label="one shared 5-mer, k = 5")],
    rtol=0, atol=0, forbidden=_STRUCTURED,
    diagnoses=[
        Diagnosis("sets, not counts", "a k-mer seen twice in s and three times in t adds 2 x 3 = 6: "
                  "the features are counts, not presence", _spectrum_sets),
        Diagnosis("str.count", "str.count skips overlapping occurrences (\"AAA\".count(\"AA\") is 1); "
                  "slide a window one place at a time", _spectrum_no_overlap),
        Diagnosis("last k-mer missing", "a string of length n has n - k + 1 k-mers: the window "
                  "starting at n - k is the last", _spectrum_last_missing),
        Diagnosis("min, not product", "the kernel is an inner product of count vectors: multiply "
                  "the two counts of each k-mer", _spectrum_min),
    ],
    hints=("write each string as its vector of k-mer counts, then take an inner product",
           "a dictionary from k-mer to count, filled by one window per starting place"),
)

QUESTIONS = [CP1, CP2]
