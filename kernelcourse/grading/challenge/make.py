"""``kernelcourse challenge make`` and ``verify``: the challenge's files and the commitment to
its hidden labels.

The instructor runs ``make`` once. It writes

* ``DIR/public/``: what the students get: ``train.csv`` (``id,sequence,label``),
  ``test.csv`` (``id,sequence``, no labels), ``sample_submission.csv`` (the header and every
  test id, each labelled ``1``) and ``commitment.txt`` (the SHA-256 of the hidden labels);
* ``DIR/key/``: what the instructor keeps: ``hidden-labels.csv`` (a salt line, then
  ``id,label,split`` for every test id, ``split`` being ``public`` or ``private``) and
  ``key.json`` (the parameters, the seed and the two baselines).

The commitment is the SHA-256 of the bytes of ``hidden-labels.csv``. Publish it before the
challenge opens; afterwards publish the file, and anyone can check (``sha256sum``, or
``kernelcourse challenge verify``) that neither the labels nor the public/private split moved.
The salt (random bytes from the operating system) keeps anyone from testing guesses of the
labels against the hash.

The baselines are what the course's own kernels reach on the same data: kernel ridge
regression on the labels -1/+1, ``alpha = (K + lam n I)^{-1} y``, prediction
``sign(K_test alpha)``, with the normalised spectrum kernel (the pass mark) and the normalised
mismatch kernel (full marks), each scored on the public and on the private split.
"""
from __future__ import annotations

import csv
import hashlib
import json
import secrets
from pathlib import Path

import numpy as np

from ...structured.datasets import dna_motif_sequences
from ...structured.strings import mismatch_kernel, spectrum_kernel

__all__ = ["make_challenge", "verify_commitment", "commitment_of", "read_key",
           "kernel_ridge_predictions", "BASELINES"]

#: The two baselines: (name, kernel, parameters); ``lam`` is kernel ridge's regularisation.
BASELINES = {
    "spectrum": dict(kernel="spectrum_kernel", k=5, lam=1e-2),
    "mismatch": dict(kernel="mismatch_kernel", k=8, m=1, lam=1e-2),
}


def commitment_of(path) -> str:
    """The SHA-256 (hexadecimal) of the bytes of the file ``path``."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def kernel_ridge_predictions(K_train, y, K_test, lam: float) -> np.ndarray:
    """Labels -1/+1 from kernel ridge regression: ``alpha = (K + lam n I)^{-1} y``,
    ``sign(K_test alpha)`` (a score of exactly 0 counts as +1)."""
    n = len(y)
    alpha = np.linalg.solve(K_train + lam * n * np.eye(n), np.asarray(y, dtype=float))
    return np.where(K_test @ alpha >= 0, 1, -1)


def _baseline(name, train, y, test):
    params = dict(BASELINES[name])
    lam = params.pop("lam")
    kernel = {"spectrum_kernel": spectrum_kernel, "mismatch_kernel": mismatch_kernel}[params.pop("kernel")]
    both = kernel(list(train) + list(test), k=params["k"], normalize=True,
                  **({"m": params["m"]} if "m" in params else {}))
    n = len(train)
    return kernel_ridge_predictions(both[:n, :n], y, both[n:, :n], lam)


def _write_csv(path: Path, header, rows) -> None:
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def make_challenge(out, seed: int, n_train: int = 600, n_test: int = 400, length: int = 101,
                   public_share: float = 0.5, label_noise: float = 0.16) -> dict:
    """Write the challenge's public files and its key into ``out`` (see the module's text);
    return ``key.json``'s content (with ``commitment``).

    The sequences and labels come from
    :func:`~kernelcourse.structured.datasets.dna_motif_sequences` with ``random_state=seed``;
    the test ids are shuffled into a public split (``public_share`` of them) and a private one
    by the same seed. Only the salt is fresh randomness: the data are the same for the same
    seed, the commitment is not.
    """
    out = Path(out)
    if n_train < 2 or n_test < 2:
        raise ValueError(f"n_train and n_test must be at least 2; got {n_train} and {n_test}")
    if not 0 < public_share < 1:
        raise ValueError(f"public_share must lie strictly between 0 and 1; got {public_share}")
    for part in ("public", "key"):
        if (out / part).exists() and any((out / part).iterdir()):
            raise FileExistsError(f"{out / part} exists and is not empty: a challenge is made "
                                  f"once (its commitment may be published); choose another --out")
    seqs, y = dna_motif_sequences(n=n_train + n_test, length=length, label_noise=label_noise,
                                  random_state=seed)
    train, y_train = seqs[:n_train], y[:n_train]
    test, y_test = seqs[n_train:], y[n_train:]
    width = len(str(max(n_train, n_test)))
    train_ids = [f"tr{i:0{width}d}" for i in range(n_train)]
    test_ids = [f"te{i:0{width}d}" for i in range(n_test)]
    rng = np.random.default_rng([seed, 44])
    order = rng.permutation(n_test)
    n_public = max(1, min(n_test - 1, int(round(public_share * n_test))))
    split = np.array(["private"] * n_test, dtype=object)
    split[order[:n_public]] = "public"

    (out / "public").mkdir(parents=True, exist_ok=True)
    (out / "key").mkdir(parents=True, exist_ok=True)
    _write_csv(out / "public" / "train.csv", ["id", "sequence", "label"],
               [(i, s, int(lab)) for i, s, lab in zip(train_ids, train, y_train)])
    _write_csv(out / "public" / "test.csv", ["id", "sequence"], zip(test_ids, test))
    _write_csv(out / "public" / "sample_submission.csv", ["id", "label"],
               [(i, 1) for i in test_ids])
    hidden = out / "key" / "hidden-labels.csv"
    with open(hidden, "w", newline="") as handle:
        handle.write(f"# salt {secrets.token_hex(16)}\n")
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["id", "label", "split"])
        writer.writerows((i, int(lab), s) for i, lab, s in zip(test_ids, y_test, split))
    commitment = commitment_of(hidden)
    (out / "public" / "commitment.txt").write_text(
        f"{commitment}  hidden-labels.csv\n")

    baselines = {}
    for name in BASELINES:
        pred = _baseline(name, train, y_train, test)
        baselines[name] = {part: float(np.mean(pred[split == part] == y_test[split == part]))
                           for part in ("public", "private")}
        baselines[name]["params"] = BASELINES[name]
    key = dict(seed=int(seed), n_train=n_train, n_test=n_test, length=length,
               label_noise=label_noise, labels=[-1, 1], commitment=commitment,
               baselines=baselines)
    (out / "key" / "key.json").write_text(json.dumps(key, indent=1) + "\n")
    return key


def read_key(key_dir) -> dict:
    """The key of a challenge: ``key.json`` plus ``ids``, ``labels_by_id`` and ``split_by_id``
    read from ``hidden-labels.csv`` (a clear error when a file is missing)."""
    key_dir = Path(key_dir)
    if (key_dir / "key").is_dir():
        key_dir = key_dir / "key"
    for name in ("key.json", "hidden-labels.csv"):
        if not (key_dir / name).is_file():
            raise FileNotFoundError(f"{key_dir / name} is missing: --key is the folder "
                                    f"'challenge make' wrote (or its key/ folder)")
    key = json.loads((key_dir / "key.json").read_text())
    lines = (key_dir / "hidden-labels.csv").read_text().splitlines()
    rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
    key["ids"] = [r["id"] for r in rows]
    key["labels_by_id"] = {r["id"]: int(r["label"]) for r in rows}
    key["split_by_id"] = {r["id"]: r["split"] for r in rows}
    key["key_dir"] = str(key_dir)
    return key


def verify_commitment(hidden_labels, commitment: str) -> bool:
    """Whether ``hidden_labels`` (a file) hashes to ``commitment`` (the hexadecimal digest, or
    the line of ``commitment.txt``, or the path of that file)."""
    text = str(commitment)
    if Path(text).is_file():
        text = Path(text).read_text()
    digest = text.split()[0].strip().lower() if text.split() else ""
    return commitment_of(hidden_labels) == digest
