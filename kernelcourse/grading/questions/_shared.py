"""What the question modules of more than one lecture share: lecture 6's kernel PCA questions
reuse lecture 3's centring mistake and lecture 5's way of handing out a buggy function. Kept
here, so that a notebook's first check of set 6 loads no other lecture's questions (issue 40).
"""
from __future__ import annotations

import numpy as np

__all__ = ["own_mean", "given"]


def own_mean(K_test, K_train):
    """The mistake of centring new points' kernel rows on their own means instead of the
    training sample's (lecture 3.7): the shape of :func:`center_kernel_rows`, its own mean."""
    return (K_test - K_test.mean(axis=1, keepdims=True) - K_test.mean(axis=0, keepdims=True)
            + K_test.mean())


def given(source, name):
    """The function a fix question hands out, bug included (exec'd from its source)."""
    space = {"np": np}
    exec(compile(source, f"<the given {name}>", "exec"), space)
    return space[name]
