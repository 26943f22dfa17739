"""The ranking reads feasible rows in order without sorting them all: the cheapest few priced
rows (and every row tying with them) are sorted first, and each group's best row is found by
per-group minima. Both must give exactly what one stable sort of every row gives: priced rows
cheapest first (more headroom first on ties), unpriced rows after them (least headroom
first), ties in the order of evaluation. Random rows with many ties, unpriced rows and NaN."""

from __future__ import annotations

import numpy as np
import pytest

from iolab.plan.rank import _Order


def _rows(seed: int, n: int):
    rng = np.random.default_rng(seed)
    cost = rng.choice([10.0, 20.0, 20.5, 30.0, 99.0, np.inf], size=n) + rng.integers(0, 40, size=n)
    cost[rng.random(n) < 0.15] = np.nan                       # unpriced
    busy = rng.choice([0.1, 0.5, 0.5, 0.79, 0.8], size=n)     # many ties
    if seed % 2:
        busy[rng.random(n) < 0.02] = np.nan
    ok = rng.random(n) < 0.6
    groups = rng.integers(0, 37, size=n)
    return ok, cost, busy, groups


def _sorted(ok, cost, busy):
    feasible = np.nonzero(ok)[0]
    u = np.isnan(cost)[feasible]
    keys = (np.where(u, -busy[feasible], busy[feasible]), np.where(u, 0.0, cost[feasible]), u)
    return feasible[np.lexsort(keys)]


@pytest.mark.parametrize("seed", range(8))
def test_reading_in_order_is_one_stable_sort_of_every_feasible_row(seed):
    ok, cost, busy, groups = _rows(seed, 3000)
    order = _Order(np.nonzero(ok)[0], np.isnan(cost), cost, busy)
    expected = _sorted(ok, cost, busy)
    assert list(order) == expected.tolist()
    first = {}
    for idx in expected.tolist():
        first.setdefault(int(groups[idx]), idx)
    assert order.group_firsts(groups, 37) == list(first.values())


def test_few_priced_rows_and_none_feasible():
    ok, cost, busy, groups = _rows(3, 40)
    order = _Order(np.nonzero(ok)[0], np.isnan(cost), cost, busy)
    assert list(order) == _sorted(ok, cost, busy).tolist()
    empty = _Order(np.array([], dtype=int), np.isnan(cost), cost, busy)
    assert list(empty) == [] and empty.group_firsts(groups, 37) == []
