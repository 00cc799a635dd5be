"""The store's JSON columns of numbers (seats, ranks, points: one JSON list per game) as numpy arrays.

Why not `loads` a row at a time: at 100,000 games, decoding the columns row by row into Python lists and
then into arrays costs more than everything done with them after (the compiled ratings, the bootstrap).
numpy reads a whole column's numbers in one call instead.
"""

from __future__ import annotations

import warnings
from typing import Sequence

import numpy as np
import numpy.typing as npt

from arena.jsonvalue import loads

__all__ = ["number_matrix", "rows_or_matrix"]


def number_matrix(texts: Sequence[str], kind: type[np.int64] | type[np.float64]) -> npt.NDArray[np.generic] | None:
    """Rows of JSON lists of numbers as one (rows x width) array of dtype `kind`, parsed in one go; None
    unless every row is a list of `width` numbers that `kind` reads exactly (an integer column with a
    fraction in it, a null, a nested list: None, and the caller decodes row by row)."""
    if not texts:
        return None
    width = texts[0].count(",") + 1
    if any(text.count(",") + 1 != width for text in texts):
        return None
    joined = ",".join(texts)
    if joined.count("[") != len(texts) or joined.count("]") != len(texts):
        return None  # a list inside a list
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy ends a parse at a value it cannot read, with a warning
        try:
            values = np.fromstring(joined.replace("[", "").replace("]", ""), dtype=kind, sep=",")
        except (ValueError, DeprecationWarning):
            return None
    if values.size != len(texts) * width:
        return None
    return values.reshape(len(texts), width)


def rows_or_matrix(texts: Sequence[str]) -> npt.NDArray[np.generic] | list[list[int]]:
    """An integer column as an array where every row has as many numbers, else as lists (one parse)."""
    matrix = number_matrix(texts, np.int64)
    if matrix is not None:
        return matrix
    rows: list[list[int]] = loads("[" + ",".join(texts) + "]")
    return rows
