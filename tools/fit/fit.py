"""Fit the share model's fitted parameters to the published-figures set, then validate.

    PYTHONPATH=python python tools/fit/fit.py            # fit on the train part, report both parts
    PYTHONPATH=python python tools/fit/fit.py --report   # the bundled catalog's errors, no fit

The set is ``tests/published/*.yaml`` (see :mod:`published`); each case's ``split`` puts it in
the train or the validate part, fixed in the files. The fit is a least-squares fit
(``scipy.optimize.least_squares``) of the log of the model's figure against the log of the
published one over the train part's throughput, IOPS and ratio cases, within each parameter's
bounds. It prints, per service and part, the median absolute error of throughput and IOPS
(ratios and latencies apart), and flags a parameter whose value only one train figure moves.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import published  # noqa: E402

# name in the catalog: (start, low, high). Fitted parameters: no page states them.
PARAMETERS: dict[str, tuple[float, float, float]] = {
    "services/anf-ultra/clients/nfs3/connection_iops": (66850, 20000, 200000),
    "services/anf-ultra/clients/nfs3/connection_write_iops": (45000, 10000, 200000),
}
# parameters that move together: each follower takes its leader's value
LEVELS = ("anf-standard", "anf-premium", "anf-ultra", "anf-flexible")
TIED = {f"services/{level}/clients/{proto}/{field}": f"services/anf-ultra/clients/nfs3/{field}"
        for level in LEVELS for proto in ("nfs3", "dnfs") for field in ("connection_iops", "connection_write_iops")}


def expand(values: dict[str, float]) -> dict[str, float]:
    out = dict(values)
    for follower, leader in TIED.items():
        if leader in values:
            out[follower] = values[leader]
    return out


def evaluate(cases, params: dict[str, float], tmp: Path) -> list[float]:
    catalog = published.catalog_file(expand(params), tmp)
    return [published.model_figure(c, catalog) for c in cases]


def summary(cases, values) -> dict[tuple[str, str, str], list[float]]:
    """Absolute relative errors per (service, split, kind)."""
    out: dict[tuple[str, str, str], list[float]] = {}
    for c, v in zip(cases, values):
        out.setdefault((c.service, c.split, c.kind), []).append(abs(published.error(c, v)))
    return out


def print_table(cases, values, title: str) -> None:
    print(f"\n{title}")
    print(f"{'case':58} {'published':>14} {'model':>14} {'error':>8}  ok")
    for c, v in zip(cases, values):
        ok = "yes" if published.within(c, v) else "NO"
        print(f"{c.name:58} {c.expected:14.4g} {v:14.4g} {published.error(c, v):+8.1%}  {ok}  [{c.split}]")
    print(f"\n{'service':12} {'part':9} {'kind':10} {'cases':>5} {'median |error|':>15}")
    for (service, split, kind), errs in sorted(summary(cases, values).items()):
        print(f"{service:12} {split:9} {kind:10} {len(errs):5d} {statistics.median(errs):15.1%}")


def fit(cases, tmp: Path) -> dict[str, float]:
    """Least squares over the train part's throughput, IOPS and ratio cases that the parameters
    move; prints each parameter's fitted value and how many train figures it moves."""
    from scipy.optimize import least_squares

    names = list(PARAMETERS)
    start = {n: PARAMETERS[n][0] for n in names}
    train = [c for c in cases if c.split == "train" and c.kind in ("iops", "bandwidth", "ratio")]
    base = evaluate(train, start, tmp)
    moves = {}
    for n in names:
        moved = evaluate(train, {**start, n: start[n] * 1.1}, tmp)
        moves[n] = {c.name for c, m, b in zip(train, moved, base) if b and abs(m / b - 1) > 0.005}
    used = [c for c in train if any(c.name in m for m in moves.values())]

    def residuals(x):
        values = evaluate(used, {n: math.exp(v) for n, v in zip(names, x)}, tmp)
        return [0.0 if c.bound and published.error(c, v) == 0 else math.log(max(v, 1e-12) / c.expected)
                for c, v in zip(used, values)]

    result = least_squares(residuals, [math.log(start[n]) for n in names],
                           bounds=([math.log(PARAMETERS[n][1]) for n in names], [math.log(PARAMETERS[n][2]) for n in names]),
                           diff_step=0.01, xtol=1e-3, ftol=1e-4, max_nfev=30)
    fitted = {n: math.exp(v) for n, v in zip(names, result.x)}
    print(f"\n{'parameter':50} {'fitted':>12}  train figures it moves")
    for n in names:
        count = len(moves[n])
        flag = {0: "  <- no figure determines it", 1: "  <- only one figure determines it"}.get(count, "")
        print(f"{n:50} {fitted[n]:12.6g}  {count}: {', '.join(sorted(moves[n]))}{flag}")
    return fitted


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--report", action="store_true", help="report the bundled catalog's errors without fitting")
    args = ap.parse_args(argv)
    cases = published.load_cases()
    with tempfile.TemporaryDirectory() as tmp:
        if args.report:
            print_table(cases, evaluate(cases, {}, Path(tmp)), "bundled catalog")
            return 0
        fitted = fit(cases, Path(tmp))
        print_table(cases, evaluate(cases, fitted, Path(tmp)), "fitted on the train part")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
