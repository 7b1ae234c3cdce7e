"""Where the grader's drawn cases come from: the instructor's secret, per submission, per
attempt and per question.

The package is public, so a seed a student can see lets anyone draw the same cases and hand in
a table of the reference's outputs keyed by the inputs. The grader therefore draws from a
**secret** only the instructor holds: 32 random bytes kept in a key file beside the gradebook
(:data:`SECRET_NAME`, created once with mode 0600, or the file ``--secret`` names) and, for
Gradescope, inside the autograder zip (which students never see). Each submission graded gets
a fresh **draw token** (random, or Gradescope's submission id), so every attempt (a new run, an
``--update``, a Gradescope resubmission) draws new cases and one student's cases say nothing
about a classmate's. A question's seed is

    HMAC-SHA256(secret, "kernelcourse-draw-v1|" + token + "|" + question id), first 8 bytes,

(:func:`question_seed`): without the secret, the token (recorded in the instructor's gradebook)
reproduces nothing; with it, ``kernelcourse grade FILE --questions ID --draw TOKEN --secret
KEY`` replays a row exactly. Nothing a student reads holds a seed, the secret or a token.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path

__all__ = ["SECRET_NAME", "load_secret", "new_secret", "new_token", "question_seed",
           "secret_file"]

#: the key file's name in the gradebook folder (or beside the Gradescope zip)
SECRET_NAME = "grading-secret.key"
_DOMAIN = b"kernelcourse-draw-v1|"


def new_secret() -> bytes:
    """32 random bytes: a fresh secret."""
    return secrets.token_bytes(32)


def new_token() -> str:
    """A fresh draw token for one attempt of one submission (24 hex digits)."""
    return secrets.token_hex(12)


def question_seed(secret: bytes, token: str, question_id: str) -> int:
    """The seed of one question's drawn cases for one attempt: HMAC-SHA256 of the token and
    the question id under the secret, its first 8 bytes as an integer."""
    if not isinstance(secret, (bytes, bytearray)) or len(secret) < 16:
        raise ValueError(f"the grading secret must be at least 16 bytes; got "
                         f"{type(secret).__name__} of length {len(secret or b'')}")
    message = _DOMAIN + str(token).encode() + b"|" + str(question_id).encode()
    return int.from_bytes(hmac.new(bytes(secret), message, hashlib.sha256).digest()[:8], "big")


def secret_file(output, given=None) -> Path:
    """The key file: ``given`` when named, else :data:`SECRET_NAME` in ``output``."""
    return Path(given) if given else Path(output) / SECRET_NAME


def load_secret(path, create: bool = False) -> bytes:
    """The secret in the key file ``path`` (hex, one line). With ``create``, a missing file is
    made with a fresh secret, readable by its owner only (mode 0600). A file that others may
    read is refused (the secret would be no secret), as is one that holds no key."""
    path = Path(path)
    if not path.exists():
        if not create:
            raise ValueError(f"there is no grading secret at {path}: replaying a row needs the "
                             f"key file its gradebook was drawn with (--secret FILE)")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(new_secret().hex() + "\n")
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise ValueError(f"the grading secret {path} may be read by others (mode {mode:o}): "
                         f"run chmod 600 on it")
    text = path.read_text().strip()
    try:
        secret = bytes.fromhex(text)
    except ValueError:
        secret = b""
    if len(secret) < 16:
        raise ValueError(f"{path} holds no grading secret (expected at least 32 hex digits, "
                         f"as 'kernelcourse grade' writes it)")
    return secret
