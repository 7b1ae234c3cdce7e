"""Kernels on strings (lecture 10.2-10.4): spectrum, mismatch and subsequence kernels.

Each function takes two lists of strings ``X`` and ``Z`` (``Z`` defaults to ``X``) and
returns the Gram matrix of shape ``(len(X), len(Z))``:

* :func:`spectrum_kernel`, ``k(s, t) = sum_u N_u(s) N_u(t)`` over the k-mers ``u``, where
  ``N_u(s)`` counts the occurrences of ``u`` in ``s`` (Leslie, Eskin and Noble, *The spectrum
  kernel: a string kernel for SVM protein classification*, PSB 2002);
* :func:`mismatch_kernel`, the same inner product of the counts ``phi_b(s)`` of k-mers of
  ``s`` within Hamming distance ``m`` of each ``b`` of ``A^k`` (Leslie, Eskin, Weston and
  Noble, *Mismatch string kernels for discriminative protein classification*, 2004);
* :func:`subsequence_kernel`, gapped subsequences of length ``n`` weighted by
  ``lam^(length spanned)`` in each string, by dynamic programming in ``O(n |s| |t|)``
  (Lodhi, Saunders, Shawe-Taylor, Cristianini and Watkins, *Text classification using
  string kernels*, JMLR 2002).

With ``normalize=True`` each returns the cosine-normalised kernel
``k(s, t) / sqrt(k(s, s) k(t, t))`` (10.1), so that long strings do not dominate.
"""
from __future__ import annotations

import itertools
from math import comb

import numpy as np

from .._validation import check_nonnegative_int, check_positive_int

__all__ = ["as_strings", "kmers", "kmer_counts", "spectrum_features", "spectrum_kernel",
           "mismatch_neighbourhood", "mismatch_neighbourhood_size", "mismatch_pair_count",
           "mismatch_features", "mismatch_kernel", "hamming_pair_counts", "subsequence_kernel", "subsequence_pair",
           "cosine_normalize", "DNA"]

#: The alphabet of DNA, the default of the mismatch kernel.
DNA = "ACGT"


def as_strings(X, name: str = "X") -> list[str]:
    """``X`` as a list of strings; a single string or anything else is refused by name."""
    if isinstance(X, (str, bytes)):
        raise TypeError(f"{name} must be a list of strings, not one string: wrap it as [{name}]")
    try:
        X = list(X)
    except TypeError:
        raise TypeError(f"{name} must be a list of strings; got {type(X).__name__}") from None
    bad = [(i, type(s).__name__) for i, s in enumerate(X) if not isinstance(s, str)]
    if bad:
        i, kind = bad[0]
        raise TypeError(f"{name} must be a list of strings; {name}[{i}] is a {kind}")
    return X


def cosine_normalize(K, diag_X, diag_Z) -> np.ndarray:
    """``K[i, j] / sqrt(diag_X[i] diag_Z[j])`` (10.1); a zero self-similarity gives a zero row."""
    dx, dz = np.sqrt(np.asarray(diag_X, float)), np.sqrt(np.asarray(diag_Z, float))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = K / np.outer(dx, dz)
    out[~np.isfinite(out)] = 0.0
    return out


# ---------------------------------------------------------------------------
# 10.2 The spectrum kernel
# ---------------------------------------------------------------------------

def kmers(s: str, k: int) -> list[str]:
    """The ``|s| - k + 1`` k-mers (contiguous substrings of length ``k``) of ``s``, in order."""
    k = check_positive_int(k, "k")
    return [s[i:i + k] for i in range(len(s) - k + 1)]


def kmer_counts(s: str, k: int) -> dict[str, int]:
    """``{u: N_u(s)}``: how often each k-mer occurs in ``s`` (overlaps counted)."""
    counts: dict[str, int] = {}
    for u in kmers(s, k):
        counts[u] = counts.get(u, 0) + 1
    return counts


def _count_matrix(strings, k, index):
    """Sparse ``C[i, index[u]] = N_u(strings[i])``, adding new k-mers to ``index``."""
    rows, cols = [], []
    for i, s in enumerate(strings):
        for u in kmers(s, k):
            cols.append(index.setdefault(u, len(index)))
            rows.append(i)
    data = np.ones(len(rows))
    # duplicates (a k-mer seen twice in one string) are summed by the conversion to CSR
    return rows, cols, data


def spectrum_features(X, k: int, Z=None):
    """The explicit count vectors: sparse ``Phi_X`` (and ``Phi_Z``) over one k-mer vocabulary.

    Returns ``(Phi_X, vocabulary)``, or ``(Phi_X, Phi_Z, vocabulary)`` when ``Z`` is given;
    ``vocabulary[j]`` is the k-mer of column ``j``, in order of first appearance.
    """
    from scipy import sparse  # loaded at the first call: a first check of set 10 need not wait
    X = as_strings(X, "X")
    k = check_positive_int(k, "k")
    index: dict[str, int] = {}
    parts = [_count_matrix(X, k, index)]
    if Z is not None:
        parts.append(_count_matrix(as_strings(Z, "Z"), k, index))
    sizes = [len(X)] + ([len(Z)] if Z is not None else [])
    mats = [sparse.csr_matrix((d, (r, c)), shape=(n, len(index))) for (r, c, d), n in zip(parts, sizes)]
    vocabulary = list(index)
    return (*mats, vocabulary)


def spectrum_kernel(X, Z=None, k: int = 3, normalize: bool = False) -> np.ndarray:
    """The k-spectrum kernel ``k(s, t) = sum_u N_u(s) N_u(t)`` (10.2).

    The count vectors are hashed (a dictionary from k-mer to column), so building them costs
    ``O(k (|s| + |t|))`` and the Gram matrix is one sparse product ``Phi_X Phi_Z^T``.

    Examples
    --------
    >>> spectrum_kernel(["ACGTA", "CGTT"], k=2)
    array([[4., 2.],
           [2., 3.]])
    """
    symmetric = Z is None
    if symmetric:
        F, _ = spectrum_features(X, k)
        G = F
    else:
        F, G, _ = spectrum_features(X, k, Z)
    K = (F @ G.T).toarray()
    if normalize:
        dX = np.asarray(F.multiply(F).sum(axis=1)).ravel()
        dZ = dX if symmetric else np.asarray(G.multiply(G).sum(axis=1)).ravel()
        K = cosine_normalize(K, dX, dZ)
    return K


# ---------------------------------------------------------------------------
# 10.3 The mismatch kernel
# ---------------------------------------------------------------------------

def _check_alphabet(alphabet, strings, names):
    alphabet = str(alphabet)
    if len(set(alphabet)) != len(alphabet) or not alphabet:
        raise ValueError(f"alphabet must list distinct characters; got {alphabet!r}")
    allowed = set(alphabet)
    for name, group in zip(names, strings):
        for i, s in enumerate(group):
            extra = set(s) - allowed
            if extra:
                raise ValueError(f"{name}[{i}] holds characters {sorted(extra)} outside the alphabet "
                                 f"{alphabet!r}; pass alphabet= with every character the strings use")
    return alphabet


def mismatch_neighbourhood(u: str, m: int, alphabet: str = DNA) -> list[str]:
    """``N_m(u)``: every string of ``alphabet^k`` within Hamming distance ``m`` of ``u``."""
    m = check_nonnegative_int(m, "m")
    out = []
    for d in range(min(m, len(u)) + 1):
        for where in itertools.combinations(range(len(u)), d):
            choices = [[c for c in alphabet if c != u[p]] for p in where]
            for letters in itertools.product(*choices):
                v = list(u)
                for p, c in zip(where, letters):
                    v[p] = c
                out.append("".join(v))
    return out


def mismatch_neighbourhood_size(k: int, m: int, a: int = 4) -> int:
    """``|N_m(u)| = sum_{d <= m} C(k, d) (a - 1)^d`` for an alphabet of ``a`` letters."""
    return sum(comb(k, d) * (a - 1) ** d for d in range(min(m, k) + 1))


def mismatch_pair_count(k: int, m: int, d: int, a: int = 4) -> int:
    """``|N_m(u) n N_m(v)|`` for two k-mers at Hamming distance ``d`` (zero past ``2m``).

    A common neighbour ``b`` agrees with ``u`` and ``v`` wherever they agree except at ``i``
    of those ``k - d`` places (``(a - 1)^i`` letters each); of the ``d`` places where they
    differ it takes ``u``'s letter at ``p``, ``v``'s at ``q`` and a third letter at the other
    ``d - p - q`` (``(a - 2)`` choices each), with ``i + d - p <= m`` and ``i + d - q <= m``.
    """
    total = 0
    for i in range(k - d + 1):
        for p in range(d + 1):
            for q in range(d - p + 1):
                r = d - p - q
                if i + q + r <= m and i + p + r <= m:
                    total += (comb(k - d, i) * (a - 1) ** i
                              * comb(d, p) * comb(d - p, q) * (a - 2) ** r)
    return total


def _codes(strings, k, alphabet):
    """Integer codes (base ``a`` digits) of every k-mer, and the string each belongs to."""
    lookup = np.full(1 << 16, -1, dtype=np.int64)
    for j, c in enumerate(alphabet):
        lookup[ord(c)] = j
    a = len(alphabet)
    codes, owner = [], []
    for i, s in enumerate(strings):
        if len(s) < k:
            continue
        digits = lookup[np.frombuffer(s.encode("utf-32-le"), dtype=np.uint32)]
        windows = np.lib.stride_tricks.sliding_window_view(digits, k)
        codes.append(windows @ (a ** np.arange(k - 1, -1, -1, dtype=np.int64)))
        owner.append(np.full(len(windows), i))
    if not codes:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(codes), np.concatenate(owner)


def _neighbour_codes(codes, k, m, a):
    """``(source, neighbour)`` pairs: every code of ``A^k`` within ``m`` substitutions."""
    powers = a ** np.arange(k - 1, -1, -1, dtype=np.int64)
    digits = (codes[:, None] // powers) % a                     # (V, k)
    src, dst = [np.arange(len(codes))], [codes]
    for d in range(1, min(m, k) + 1):
        for where in itertools.combinations(range(k), d):
            for shifts in itertools.product(range(1, a), repeat=d):
                new = codes.copy()
                for p, sh in zip(where, shifts):
                    new += (((digits[:, p] + sh) % a) - digits[:, p]) * powers[p]
                src.append(np.arange(len(codes)))
                dst.append(new)
    return np.concatenate(src), np.concatenate(dst)


def mismatch_features(X, k: int, m: int, alphabet: str = DNA, Z=None):
    """Sparse ``Phi[i, b] = #{k-mers of X[i] within Hamming distance m of b}``.

    Only the columns ``b`` that some neighbourhood reaches are kept, shared by ``X`` and
    ``Z``. Returns ``Phi_X`` or ``(Phi_X, Phi_Z)``.
    """
    from scipy import sparse  # loaded at the first call: a first check of set 10 need not wait
    X = as_strings(X, "X")
    groups = [X] + ([as_strings(Z, "Z")] if Z is not None else [])
    k = check_positive_int(k, "k")
    m = check_nonnegative_int(m, "m")
    alphabet = _check_alphabet(alphabet, groups, ["X", "Z"])
    a = len(alphabet)
    if k * np.log2(max(a, 2)) > 62:
        raise ValueError(f"k={k} over an alphabet of {a} letters has more k-mers than int64 codes")
    counts, sizes = [], []
    for g in groups:
        codes, owner = _codes(g, k, alphabet)
        kinds, inverse = np.unique(codes, return_inverse=True)
        C = sparse.csr_matrix((np.ones(len(codes)), (owner, inverse)), shape=(len(g), len(kinds)))
        counts.append((C, kinds))
        sizes.append(len(g))
    kinds_all = np.unique(np.concatenate([kinds for _, kinds in counts]))
    src, dst = _neighbour_codes(kinds_all, k, m, a)
    columns, col_of = np.unique(dst, return_inverse=True)
    B = sparse.csr_matrix((np.ones(len(src)), (src, col_of)), shape=(len(kinds_all), len(columns)))
    out = []
    for C, kinds in counts:
        rows_in_all = np.searchsorted(kinds_all, kinds)
        out.append((C @ B[rows_in_all]).tocsr())
    return out[0] if Z is None else tuple(out)


def hamming_pair_counts(X, Z=None, k: int = 5, d_max: int = 2, alphabet: str = DNA) -> np.ndarray:
    """``S[d, i, j]`` = how many pairs (k-mer of ``X[i]``, k-mer of ``Z[j]``) differ in exactly
    ``d`` places, for ``d = 0..d_max``.

    Masking: for each set ``P`` of ``j`` positions, two k-mers that agree outside ``P`` are
    counted by one sparse product of the counts of the k-mers with ``P`` deleted. A pair that
    differs exactly on a set ``D`` is counted once for each ``P`` containing ``D``, so the sum
    over ``|P| = j`` is ``E_j = sum_{d <= j} C(k - d, j - d) S_d``, a triangular system solved
    from ``S_0 = E_0`` up.
    """
    from scipy import sparse  # loaded at the first call: a first check of set 10 need not wait
    X = as_strings(X, "X")
    symmetric = Z is None
    Zs = X if symmetric else as_strings(Z, "Z")
    k = check_positive_int(k, "k")
    d_max = min(check_nonnegative_int(d_max, "d_max"), k)
    alphabet = _check_alphabet(alphabet, [X] if symmetric else [X, Zs], ["X", "Z"])
    a = len(alphabet)
    cx, ox = _codes(X, k, alphabet)
    cz, oz = (cx, ox) if symmetric else _codes(Zs, k, alphabet)
    powers = a ** np.arange(k - 1, -1, -1, dtype=np.int64)
    dx, dz = (cx[:, None] // powers) % a, (cz[:, None] // powers) % a
    E = np.zeros((d_max + 1, len(X), len(Zs)))
    for j in range(d_max + 1):
        for masked in itertools.combinations(range(k), j):
            keep = [p for p in range(k) if p not in masked]
            w = a ** np.arange(len(keep) - 1, -1, -1, dtype=np.int64)
            keys = np.concatenate([dx[:, keep] @ w, dz[:, keep] @ w])
            _, col = np.unique(keys, return_inverse=True)
            width = int(col.max()) + 1 if col.size else 0
            CX = sparse.csr_matrix((np.ones(len(cx)), (ox, col[:len(cx)])), shape=(len(X), width))
            CZ = CX if symmetric else sparse.csr_matrix(
                (np.ones(len(cz)), (oz, col[len(cx):])), shape=(len(Zs), width))
            E[j] += (CX @ CZ.T).toarray()
    S = np.zeros_like(E)
    for j in range(d_max + 1):
        S[j] = E[j] - sum(comb(k - d, j - d) * S[d] for d in range(j))
    return S


#: The pair route of :func:`mismatch_kernel` keeps a dense block of ``a^k`` rows; past this
#: many k-mers it counts through the explicit features instead.
_PAIR_ROUTE_MAX_KMERS = 1 << 20
#: The largest table of neighbours (distinct k-mers times neighbourhood size) it lists at once.
_TABLE_MAX_ENTRIES = 1 << 25


def _substitutions(codes, k, r, a):
    """``(neighbours, dist)``: row ``i`` of ``neighbours`` lists the codes of every string
    within ``r`` substitutions of the k-mer ``codes[i]``, ``dist[c]`` the substitutions of
    column ``c`` (the same for every row).

    Substituting letter ``(x_p + s) mod a`` for digit ``x_p`` at place ``p`` (weight
    ``a^(k-1-p)``) adds ``step[p, s] = ((x_p + s) mod a - x_p) a^(k-1-p)`` to the code,
    ``s = 1..a-1``; a neighbour at distance ``d`` adds one such step at each of ``d`` places.
    """
    n = len(codes)
    powers = a ** np.arange(k - 1, -1, -1, dtype=np.int64)
    digits = (codes // powers[:, None]) % a                                     # (k, n)
    step = ((digits[:, None, :] + np.arange(1, a)[:, None]) % a - digits[:, None, :]) \
        * powers[:, None, None]                                                 # (k, a-1, n)
    sizes = [comb(k, d) * (a - 1) ** d for d in range(min(r, k) + 1)]
    out = np.empty((sum(sizes), n), dtype=np.int64)      # built column-wise: long inner loops
    start = 0
    for d, size in enumerate(sizes):
        places = np.array(list(itertools.combinations(range(k), d)), dtype=np.intp).reshape(comb(k, d), d)
        view = out[start:start + size].reshape((len(places),) + (a - 1,) * d + (n,))
        view[...] = codes
        for i in range(d):                        # axis 1 + i: the letter put at the i-th place
            shape = [len(places)] + [1] * d + [n]
            shape[1 + i] = a - 1
            view += step[places[:, i]].reshape(shape)
        start += size
    return np.ascontiguousarray(out.T), np.repeat(np.arange(len(sizes)), sizes)


def _pair_weighted_blocks(codes, owner, n, k, m, a, dtype=np.float64):
    """Blocks ``(lo, hi, D)`` with ``D[b, j - lo] = sum_{u in strings[j]} N(d(u, b))`` for
    every code ``b`` of ``A^k``: the counts of string ``j`` smoothed by the common-neighbour
    counts ``N(d)`` (:func:`mismatch_pair_count`), so that ``C D`` is a block of the kernel
    when ``C`` holds the k-mer counts of the other strings.

    The codes within ``2m`` substitutions of each distinct k-mer are listed once (a table,
    when it holds at most ``_TABLE_MAX_ENTRIES``; else anew for each block), then every k-mer of the
    block adds ``N(d)`` at its neighbours' rows by one ``bincount``.
    """
    N = np.array([mismatch_pair_count(k, m, d, a) for d in range(2 * m + 1)], float)
    size = a ** k
    width = max(1, min(n, (1 << 20) // size))
    kinds, kind_of = np.unique(codes, return_inverse=True)
    R = mismatch_neighbourhood_size(k, 2 * m, a)
    table = None
    if len(kinds) * R <= _TABLE_MAX_ENTRIES:
        table, dist = _substitutions(kinds, k, 2 * m, a)
        table *= width                            # row b of D starts at b * width
    starts = np.searchsorted(owner, np.arange(n + 1))
    chunk = max(1, (1 << 22) // R)                # k-mers scattered at a time
    buffer = weights = None
    for lo in range(0, n, width):
        hi = min(n, lo + width)
        D = None
        for c0 in range(starts[lo], starts[hi], chunk):
            c1 = min(starts[hi], c0 + chunk)
            if table is None:
                where, dist = _substitutions(codes[c0:c1], k, 2 * m, a)
                where *= width
            else:
                if buffer is None:
                    buffer = np.empty((min(chunk, len(codes)), R), dtype=np.int64)
                where = buffer[:c1 - c0]
                np.take(table, kind_of[c0:c1], axis=0, out=where)
            where += (owner[c0:c1] - lo)[:, None]
            if weights is None:                   # N(d) repeated row after row
                weights = np.tile(N[dist], min(chunk, len(codes)))
            more = np.bincount(where.ravel(), weights[:where.size], minlength=size * width)
            D = more if D is None else D + more
        D = np.zeros(size * width) if D is None else D
        yield lo, hi, D.reshape(size, width)[:, :hi - lo].astype(dtype, copy=False)


def _pair_gram(X, Zs, k, m, alphabet, symmetric, normalize):
    """The mismatch Gram matrix from pairs of k-mers: ``K = C_X M C_Z^T`` with
    ``M[u, v] = N(d(u, v))``, block by block of ``Z``'s strings (dense ``M C_Z^T``)."""
    from scipy import sparse  # loaded at the first call: a first check of set 10 need not wait
    a = len(alphabet)
    cx, ox = _codes(X, k, alphabet)
    cz, oz = (cx, ox) if symmetric else _codes(Zs, k, alphabet)

    # every entry and partial sum is an integer at most (k-mers of s)(k-mers of t) N(0): below
    # 2^24, single precision holds it exactly and halves the memory the product reads
    longest = max([np.bincount(ox).max(initial=0) if len(ox) else 0,
                   np.bincount(oz).max(initial=0) if len(oz) else 0])
    exact32 = int(longest) ** 2 * mismatch_pair_count(k, m, 0, a) < 2 ** 24
    dtype = np.float32 if exact32 else np.float64

    def counts(codes, owner, n):
        indptr = np.searchsorted(owner, np.arange(n + 1))   # owner is sorted: rows in order
        return sparse.csr_matrix((np.ones(len(codes), dtype), codes, indptr), shape=(n, a ** k))

    CX = counts(cx, ox, len(X))
    CZ = CX if symmetric else counts(cz, oz, len(Zs))
    K = np.zeros((len(X), len(Zs)))
    diag_Z = np.zeros(len(Zs))
    for lo, hi, D in _pair_weighted_blocks(cz, oz, len(Zs), k, m, a, dtype):
        if symmetric:                                        # the lower triangle, mirrored
            K[lo:, lo:hi] = CX[lo:] @ D
            K[lo:hi, hi:] = K[hi:, lo:hi].T
        else:
            K[:, lo:hi] = CX @ D
            diag_Z[lo:hi] = np.diag(CZ[lo:hi] @ D) if normalize else 0.0
    if not normalize:
        return K
    if symmetric:
        return cosine_normalize(K, np.diag(K), np.diag(K))
    diag_X = np.zeros(len(X))
    for lo, hi, D in _pair_weighted_blocks(cx, ox, len(X), k, m, a, dtype):
        diag_X[lo:hi] = np.diag(CX[lo:hi] @ D)
    return cosine_normalize(K, diag_X, diag_Z)


def mismatch_kernel(X, Z=None, k: int = 5, m: int = 1, alphabet: str = DNA,
                    normalize: bool = False) -> np.ndarray:
    """The (k, m)-mismatch kernel ``k(s, t) = sum_{b in A^k} phi_b(s) phi_b(t)`` (10.3).

    ``phi_b(s)`` counts the k-mers of ``s`` within ``m`` substitutions of ``b``
    (:func:`mismatch_features`); ``m = 0`` is the spectrum kernel. Each k-mer reaches
    ``sum_{d <= m} C(k, d) (a - 1)^d`` neighbours (:func:`mismatch_neighbourhood_size`), so the
    cost grows as ``k^m a^m``. Summing over ``b`` first gives the same kernel from pairs of
    k-mers: ``k(s, t) = sum_{d <= 2m} N(d) S_d(s, t)``, with ``N(d)``
    (:func:`mismatch_pair_count`) the common neighbours of two k-mers at distance ``d`` and
    ``S_d`` (:func:`hamming_pair_counts`) the pairs at that distance.

    The computation takes the second form: ``K = C_X M C_Z^T``, with ``C`` the sparse k-mer
    counts and ``M[u, v] = N(d(u, v))``. For a block of strings ``t``, ``M C_t^T`` is built
    densely (every k-mer of ``t`` adds ``N(d)`` to each of the codes within ``2m``
    substitutions), then one sparse-times-dense product gives the block's column of ``K``.
    Past ``2^20`` k-mers (``a^k``) it takes the explicit features, ``Phi_X Phi_Z^T``.
    Every character must belong to ``alphabet``.
    """
    X = as_strings(X, "X")
    symmetric = Z is None
    Zs = X if symmetric else as_strings(Z, "Z")
    k = check_positive_int(k, "k")
    m = check_nonnegative_int(m, "m")
    alphabet = _check_alphabet(alphabet, [X] if symmetric else [X, Zs], ["X", "Z"])
    if len(alphabet) ** k <= _PAIR_ROUTE_MAX_KMERS:
        return _pair_gram(X, Zs, k, m, alphabet, symmetric, normalize)
    return _feature_gram(X, None if symmetric else Zs, k, m, alphabet, normalize)


def _feature_gram(X, Z, k, m, alphabet, normalize):
    """``Phi_X Phi_Z^T`` from the explicit neighbourhood counts (:func:`mismatch_features`)."""
    if Z is None:
        F = mismatch_features(X, k, m, alphabet)
        G = F
    else:
        F, G = mismatch_features(X, k, m, alphabet, Z)
    K = (F @ G.T).toarray()
    if normalize:
        dX = np.asarray(F.multiply(F).sum(axis=1)).ravel()
        dZ = dX if Z is None else np.asarray(G.multiply(G).sum(axis=1)).ravel()
        K = cosine_normalize(K, dX, dZ)
    return K


# ---------------------------------------------------------------------------
# 10.4 The subsequence kernel
# ---------------------------------------------------------------------------

def subsequence_pair(s: str, t: str, n: int, lam: float) -> float:
    """``K_n(s, t)`` of Lodhi et al. (2002) by their dynamic programme, ``O(n |s| |t|)``.

    ``Kp[i][a, b]`` is ``K'_i`` of the prefixes ``s[:a]``, ``t[:b]``: every common
    subsequence of length ``i``, weighted by ``lam`` to the distance from its first letter to
    each prefix's end. With ``match[a, b] = [s_a == t_b]``:

    * ``K'_0 = 1``;
    * ``K''_i(a, b) = lam K''_i(a, b - 1) + match[a, b] lam^2 K'_{i-1}(a - 1, b - 1)``;
    * ``K'_i(a, b) = lam K'_i(a - 1, b) + K''_i(a, b)``;
    * ``K_n(s, t) = sum_{a, b} match[a, b] lam^2 K'_{n-1}(a - 1, b - 1)``.

    The two first-order recursions run as linear filters along each axis.
    """
    if len(s) < n or len(t) < n:
        return 0.0
    from scipy.signal import lfilter   # here, not at the top: scipy.signal takes a second to load
    S = np.frombuffer(s.encode("utf-32-le"), dtype=np.uint32)
    T = np.frombuffer(t.encode("utf-32-le"), dtype=np.uint32)
    match = (S[:, None] == T[None, :]).astype(float)        # match[a - 1, b - 1]
    Kp = np.ones((len(s) + 1, len(t) + 1))                  # K'_0 on all prefixes
    for _ in range(1, n):
        M = np.zeros_like(Kp)
        M[1:, 1:] = match * lam ** 2 * Kp[:-1, :-1]
        Kpp = lfilter([1.0], [1.0, -lam], M, axis=1)        # K''_i along t
        Kp = lfilter([1.0], [1.0, -lam], Kpp, axis=0)       # K'_i along s
    return float(lam ** 2 * np.sum(match * Kp[:-1, :-1]))


def subsequence_kernel(X, Z=None, n: int = 2, lam: float = 0.5, normalize: bool = False) -> np.ndarray:
    """The gap-weighted subsequence kernel of length ``n`` and decay ``lam`` (10.4).

    ``K_n(s, t) = sum_{u in A^n} sum_{i: s[i] = u} sum_{j: t[j] = u} lam^(l(i) + l(j))``
    with ``l(i) = i_n - i_1 + 1`` the length a subsequence spans; :func:`subsequence_pair`
    computes each entry.
    """
    X = as_strings(X, "X")
    n = check_positive_int(n, "n")
    lam = float(lam)
    if not 0.0 < lam <= 1.0:
        raise ValueError(f"lam must lie in (0, 1]; got {lam}")
    symmetric = Z is None
    Zs = X if symmetric else as_strings(Z, "Z")
    K = np.zeros((len(X), len(Zs)))
    for i, s in enumerate(X):
        for j in range(i if symmetric else 0, len(Zs)):
            K[i, j] = subsequence_pair(s, Zs[j], n, lam)
            if symmetric:
                K[j, i] = K[i, j]
    if normalize:
        dX = np.diag(K).copy() if symmetric else np.array([subsequence_pair(s, s, n, lam) for s in X])
        dZ = dX if symmetric else np.array([subsequence_pair(t, t, n, lam) for t in Zs])
        K = cosine_normalize(K, dX, dZ)
    return K
