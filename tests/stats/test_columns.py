"""The store's JSON columns of numbers decoded in one go (`arena.stats.columns`): exactly what a row by
row `loads` gives, or None (and the caller decodes row by row) whenever the column is not a rectangle
of plain numbers of the asked kind."""

from __future__ import annotations

import random

import numpy as np
import pytest

from arena.jsonvalue import dumps_str, loads
from arena.stats.columns import number_matrix, rows_or_matrix


def test_a_column_of_lists_reads_as_loads_reads_it_row_by_row() -> None:
    rnd = random.Random(1)
    ints = [dumps_str([rnd.randint(-10**12, 10**12) for _ in range(5)]) for _ in range(300)]
    floats = [dumps_str([rnd.uniform(-1e6, 1e6) for _ in range(5)] + [3, -0.0, 1e-300]) for _ in range(300)]
    got = number_matrix(ints, np.int64)
    assert got is not None and got.dtype == np.int64 and got.tolist() == [loads(t) for t in ints]
    got_f = number_matrix(floats, np.float64)
    assert got_f is not None
    assert [[x.hex() for x in row] for row in got_f.tolist()] == [[float(x).hex() for x in loads(t)] for t in floats]


@pytest.mark.parametrize("texts, kind", [
    (["[1,2]", "[1,2,3]"], np.int64),  # rows of different widths
    (["[1,2]", "[3,4.5]"], np.int64),  # a fraction in an integer column
    (["[1,null]", "[3,4]"], np.float64),  # not a number
    (["[1,2]", "[3,[4]]"], np.int64),  # nested
    (["[1,2]", "[3,true]"], np.int64),
    ([], np.int64),
])
def test_what_is_not_a_rectangle_of_numbers_of_its_kind_is_left_to_loads(texts: list[str], kind: type[np.int64]) -> None:
    assert number_matrix(texts, kind) is None


def test_rows_or_matrix_falls_back_to_lists_for_rows_of_several_widths() -> None:
    assert rows_or_matrix(["[1,2]", "[3,4,5]"]) == [[1, 2], [3, 4, 5]]
    matrix = rows_or_matrix(["[1,2]", "[3,4]"])
    assert isinstance(matrix, np.ndarray) and matrix.tolist() == [[1, 2], [3, 4]]
