"""Ranking the evaluated configurations, and explaining the answer.

- **Candidates**: feasible configurations, priced ones first, cheapest first (ties: more
  headroom first); unpriced ones after them, the tightest fit (least headroom) first.
  Rows that differ only in a setting that changes neither price nor feasibility (nconnect,
  host caching) appear once. The top ones are compiled and analysed again from their real
  scenario (:func:`~iolab.plan.prediction.predict_at_load`); each runner-up says how much
  more it costs than the first, or that it has no price.
- **Rejected**: configurations cheaper than the first candidate that fail, the best attempt
  of each VM size (or service level and protocol), with what each lacks and the catalog
  rules behind it (a VM's data-disk maximum, premium support, a volume's ceiling).
- **Others**: the best of each group not shown yet: failing ones with what they lack,
  feasible ones with how much more they cost.
- **Nearest**: when nothing is feasible, the closest misses (the smallest shortfall: the
  highest utilization, or the latency over the bound) with what each lacks.
"""

from __future__ import annotations

import math

import msgspec
import numpy as np

from ..units import format_duration, format_ops, format_percent, format_size
from .config import Config, with_vm_facts
from .cost import Bill, bill, price_entry, unpriced
from .labels import dearer, money
from .prediction import LoadPrediction, predict_at_load
from .requirements import Requirements
from .table import Batch, Limits, words
from .tail import TailCheck, TailOptions, check_tail, job_rates
from .workload import Workload

__all__ = ["Candidate", "Miss", "Plan", "KindBest", "Unpriced", "rank"]


class Candidate(msgspec.Struct, frozen=True):
    """A feasible configuration, its monthly cost (None: unpriced) and its prediction at the load."""

    rank: int | None
    monthly_cost: float | None
    config: Config
    prediction: LoadPrediction
    why: str | None = None
    notes: tuple[str, ...] = ()
    bill: Bill | None = None
    tail: TailCheck | None = None

    @property
    def headroom(self) -> float:
        return self.prediction.headroom

    def to_json(self) -> dict:
        doc: dict = {"rank": self.rank,
                     "monthly_cost": None if self.monthly_cost is None else round(self.monthly_cost, 2),
                     "priced": self.monthly_cost is not None,
                     "config": self.config.to_json(),
                     "prediction": self.prediction.to_json(),
                     "headroom": round(self.headroom, 4),
                     "kind": self.config.kind}
        if self.bill is not None:
            doc["bill"] = self.bill.to_json()
        if self.tail is not None:
            doc["simulated"] = self.tail.to_json()
        if self.why:
            doc["why"] = self.why
        if self.notes:
            doc["notes"] = list(self.notes)
        return doc


class Miss(msgspec.Struct, frozen=True):
    """Another configuration and why it is not among the candidates: what it lacks and the
    catalog rules behind that (when it fails), or ``why`` (when it is feasible but costs
    more). ``shortfall``: the highest utilization or the latency over its bound, whichever
    is worse (at most 1 when feasible)."""

    monthly_cost: float | None
    config: Config
    lacks: tuple[str, ...]
    facts: tuple[str, ...]
    shortfall: float
    why: str | None = None
    tail: TailCheck | None = None

    @property
    def feasible(self) -> bool:
        return not self.lacks

    def to_json(self) -> dict:
        doc = {"monthly_cost": None if self.monthly_cost is None else round(self.monthly_cost, 2),
               "config": self.config.to_json(), "feasible": self.feasible}
        if self.lacks:
            doc.update(lacks=list(self.lacks), facts=list(self.facts))
        if self.why:
            doc["why"] = self.why
        doc["shortfall"] = round(self.shortfall, 4) if math.isfinite(self.shortfall) else None
        if self.tail is not None:
            doc["simulated"] = self.tail.to_json()
        return doc

    def near_json(self) -> dict:
        """A near miss as JSON: ``shortfall`` here is how far it came from passing, as a ratio
        at least 1 (its busiest resource over ``max_utilization``, or its latency over the
        bound), rounded to 4 digits."""
        doc: dict = {"config": self.config.to_json(),
                     "monthly_cost": None if self.monthly_cost is None else round(self.monthly_cost, 2),
                     "shortfall": round(self.shortfall, 4) if math.isfinite(self.shortfall) else None,
                     "lacks": list(self.lacks), "facts": list(self.facts)}
        if self.tail is not None:
            doc["simulated"] = self.tail.to_json()
        return doc

    def describe(self) -> str:
        cost = "unpriced" if self.monthly_cost is None else f"{money(self.monthly_cost)}/month"
        if not self.lacks:
            return f"{self.config.describe()} ({cost}): {self.why}"
        facts = f" ({'; '.join(self.facts)})" if self.facts else ""
        return f"{self.config.describe()} ({cost}): {'; '.join(self.lacks)}{facts}"


class KindBest(msgspec.Struct, frozen=True):
    """The best candidate of one kind searched: ``disks``, or a share ``service``."""

    kind: str
    service: str | None
    candidate: Candidate

    def to_json(self) -> dict:
        return {"kind": self.kind, "service": self.service, "candidate": self.candidate.to_json()}


class Unpriced(msgspec.Struct, frozen=True):
    """A feasible configuration ranked after every priced one because the catalog has no
    price for some of its parts (``missing``: their ids; ``supply``: a catalog entry that
    would price each)."""

    config: Config
    missing: tuple[str, ...]
    supply: tuple[str, ...]
    headroom: float

    def to_json(self) -> dict:
        return {"config": self.config.to_json(), "missing": list(self.missing), "supply": list(self.supply)}


class Plan(msgspec.Struct, frozen=True):
    """The answer to a requirements file: ranked candidates and why the others lost.

    ``rejected``: cheaper configurations that fail (the best attempt per VM size, or per
    level and protocol); ``others``: the best of each remaining group, feasible but
    dearer, or failing; ``nearest``: when nothing is feasible, the closest misses;
    ``excluded``: selected catalog rows that no configuration could use, and why.
    """

    requirements: Requirements
    workload: Workload
    candidates: tuple[Candidate, ...]
    evaluated: int
    feasible: int
    rejected: tuple[Miss, ...]
    others: tuple[Miss, ...]
    nearest: tuple[Miss, ...]
    excluded: tuple[str, ...]
    checked: int = 0
    near_misses: tuple[Miss, ...] = ()
    best_by_kind: tuple[KindBest, ...] = ()
    unpriced: tuple[Unpriced, ...] = ()

    def to_json(self) -> dict:
        req = self.requirements.require
        assert req is not None
        doc: dict = {
            "required": {"iops": round(self.workload.rate, 1), "bandwidth": float(round(self.workload.bandwidth)),
                         "latency": req.latency, "capacity": req.capacity, "clients": self.requirements.clients,
                         "max_utilization": req.max_utilization, "percentiles": dict(req.percentiles)},
            "region": self.requirements.region,
            "candidates": [c.to_json() for c in self.candidates],
            "evaluated": self.evaluated,
            "feasible": self.feasible,
            "rejected": [m.to_json() for m in self.rejected],
            "others": [m.to_json() for m in self.others],
            "excluded": list(self.excluded),
            "best_by_kind": [k.to_json() for k in self.best_by_kind],
            "near_misses": [m.near_json() for m in self.near_misses],
            "unpriced": [u.to_json() for u in self.unpriced],
        }
        if req.percentiles:
            doc["checked"] = self.checked
        if not self.candidates:
            doc["nearest"] = [m.to_json() for m in self.nearest]
        return with_vm_facts(doc, self.requirements.catalog)


class _Rows(msgspec.Struct):
    """Every evaluated row of every batch, as flat arrays (batch after batch)."""

    batches: list[Batch]
    cost: np.ndarray
    latency: np.ndarray
    maxu: np.ndarray
    ok: np.ndarray
    starts: np.ndarray         # the first row of each batch
    shortfall: np.ndarray
    groups: list[str]          # group names, indexed by ``group_code``
    group_code: np.ndarray     # the group of each row
    fails: np.ndarray          # how many resource kinds (capacity included) are over 1
    nan_shortfall: bool = True  # whether any row's shortfall is NaN
    ratio: np.ndarray | None = None  # how far from passing: the worst of utilization / margin, latency / bound

    def batch(self, idx: int) -> tuple[Batch, int]:
        k = int(np.searchsorted(self.starts, idx, side="right")) - 1
        return self.batches[k], int(idx - self.starts[k])

    def group(self, idx: int) -> str:
        return self.groups[self.group_code[idx]]


def rank(req: Requirements, wl: Workload, batches: list[Batch], excluded: list[str], top: int,
         explain: int = 8, tail: TailOptions | None = None) -> Plan:
    """Rank every evaluated row of ``batches`` and build the :class:`Plan` (``top``
    candidates, at most ``explain`` lines of each kind of explanation). With latency
    percentiles required, the ``tail.top`` cheapest rows that pass on means are simulated
    and only those whose percentiles meet the bounds stay candidates."""
    bounds = dict(req.require.percentiles) if req.require else {}
    tail = (tail or TailOptions()) if bounds else None
    limits = Limits.of(req)
    limit = limits.latency
    batches = [b for b in batches if len(b)]
    if not batches:
        return Plan(req, wl, (), 0, 0, (), (), (), tuple(excluded))
    busy = np.concatenate([b.max_util(capacity=False) for b in batches])
    maxu = busy.copy()
    capacity = [b.util.get("capacity") for b in batches]
    if any(c is not None for c in capacity):
        maxu = np.maximum(busy, np.concatenate([np.full(len(b), -np.inf) if c is None else c
                                                for b, c in zip(batches, capacity)]))
    latency = np.concatenate([b.latency for b in batches])
    shortfall = maxu.copy()
    if limit is not None:
        shortfall = np.maximum(shortfall, np.where(np.isfinite(latency), latency / limit, maxu))
    index: dict[str, int] = {}
    for b in batches:  # one code per group name across batches; the per-row work stays in C
        for g in b.group.names:
            index.setdefault(g, len(index))
    group_code = np.concatenate([np.array([index[g] for g in b.group.names], dtype=int)[b.group.index]
                                 for b in batches])
    groups = list(index)
    fails = np.concatenate([limits.fails(b.util) for b in batches])   # feasible: none, and the latency holds
    starts = np.cumsum([0] + [len(b) for b in batches[:-1]])
    rows = _Rows(batches, np.concatenate([b.cost for b in batches]), latency, maxu,
                 (np.asarray(fails) == 0) & limits.ok({}, latency), starts, shortfall,
                 [str(g) for g in groups], group_code.ravel(), np.asarray(fails).ravel(),
                 bool(np.isnan(shortfall).any()))
    rows.ratio = np.concatenate([b.ratio(limits) for b in batches])
    unpriced_rows = np.isnan(rows.cost)
    feasible_order = _Order(np.nonzero(rows.ok)[0], unpriced_rows, rows.cost, busy)

    candidates: list[Candidate] = []
    chosen: list[int] = []
    seen: set = set()
    dropped = 0
    tail_misses: list[Miss] = []
    checked = 0
    for idx in feasible_order:
        if len(candidates) >= top or (tail is not None and checked >= tail.top):
            break
        b, r = rows.batch(idx)
        variant = b.variant(r)
        if variant in seen:
            continue  # the same configuration but for a setting shown at its best already (nconnect, caching)
        seen.add(variant)
        config = b.config(r)
        pred = predict_at_load(req, wl, config)
        if not _meets(pred, limits):
            dropped += 1  # the compiled network disagrees with the bulk figures: trust the network
            continue
        price = None if unpriced_rows[idx] else float(rows.cost[idx])
        check = None
        if tail is not None:
            check = _simulate(wl, pred, bounds, tail, checked)
            checked += 1
            if not check.meets:
                tail_misses.append(Miss(price, config, tuple(check.lacks()), (), check.shortfall, tail=check))
                continue
        candidates.append(_candidate(req, len(candidates) + 1, price, config, pred, candidates, check))
        chosen.append(int(idx))

    misses = np.nonzero(~rows.ok)[0]
    rejected: list[int] = []
    nearest: list[Miss] = []
    first_cost = candidates[0].monthly_cost if candidates else None
    if first_cost is not None:
        cheaper = np.nonzero(~rows.ok & (rows.cost < first_cost))[0]   # NaN (unpriced) is never cheaper
        rejected = _best_per_group(cheaper, rows)[:explain]
    slow = [m for m in tail_misses if candidates and m.monthly_cost is not None and first_cost is not None
            and m.monthly_cost <= first_cost]
    if not candidates:
        nearest = sorted(tail_misses, key=lambda m: m.shortfall)[:explain]
        nearest += [_miss(req, wl, rows, i) for i in _best_per_group(misses, rows, by_shortfall=True)]
        nearest = nearest[:explain]
    taken = {rows.group(i) for i in chosen + rejected}
    others = _others(req, wl, rows, feasible_order, misses, candidates, taken, explain) if candidates else []
    others = [m for m in tail_misses if m not in slow][:explain] + others if candidates else others
    near_pool = misses if first_cost is None else np.nonzero(~rows.ok & (rows.cost < first_cost))[0]
    near = sorted((slow if candidates else tail_misses) +
                  [_miss(req, wl, rows, i, rows.ratio) for i in _nearest(near_pool, rows, explain)],
                  key=lambda m: (m.shortfall, _c(m.monthly_cost if m.monthly_cost is not None else math.nan)))
    kinds = _best_by_kind(req, wl, rows, candidates, tail is not None)
    return Plan(req, wl, tuple(candidates), int(len(rows.cost)), int(rows.ok.sum()) - dropped,
                tuple(slow + [_miss(req, wl, rows, i) for i in rejected]), tuple(others[:explain]),
                tuple(nearest), tuple(excluded), checked, tuple(near[:explain]), tuple(kinds),
                tuple(_unpriced(req, rows, feasible_order, unpriced_rows, candidates, explain)))


def _nearest(idxs: np.ndarray, rows: _Rows, limit: int) -> list[int]:
    """The near misses among ``idxs``: the closest row of each group (the smallest ratio,
    then the cheapest), the closest groups first, then the cheaper."""
    idxs = np.asarray(idxs, dtype=int)
    if not len(idxs):
        return []
    assert rows.ratio is not None

    def cost(i: np.ndarray) -> np.ndarray:
        c = rows.cost[i]
        return np.where(np.isnan(c), np.inf, c)

    best = _group_least(idxs, rows.group_code, len(rows.groups), (lambda i: rows.ratio[i], cost))
    return sorted(best.tolist(), key=lambda i: (float(rows.ratio[i]), _c(rows.cost[i]), i))[:limit]


def _kind_of(b: Batch) -> tuple[str, str | None]:
    """The kind a batch's rows are (``disks``, or ``share`` and its service)."""
    config = b.config(0)
    return config.kind, config.share.service if config.share is not None else None


def _best_by_kind(req: Requirements, wl: Workload, rows: _Rows, candidates: list[Candidate],
                  simulated: bool) -> list[KindBest]:
    """The best candidate of each kind searched (disks, each share service) that had a
    feasible one: the first candidate of that kind, else the first of its feasible rows in
    ranking order that the compiled check confirms (with percentile bounds, only the kinds
    among the simulated candidates, as nothing else is proposed)."""
    keys = [_kind_of(b) for b in rows.batches]
    order = list(dict.fromkeys(keys))
    out: list[KindBest] = []
    limits = Limits.of(req)
    for key in order:
        found = next((c for c in candidates if (c.config.kind, c.config.share.service if c.config.share else None)
                      == key), None)
        if found is None and not simulated and candidates:
            in_kind = np.concatenate([np.full(len(b), k == key) for b, k in zip(rows.batches, keys)])
            mask = rows.ok & in_kind
            busy = rows.maxu  # capacity included: only the order among feasible rows matters
            for idx in _Order(np.nonzero(mask)[0], np.isnan(rows.cost), rows.cost, busy):
                b, r = rows.batch(idx)
                config = b.config(r)
                pred = predict_at_load(req, wl, config)
                if not _meets(pred, limits):
                    continue
                price = None if np.isnan(rows.cost[idx]) else float(rows.cost[idx])
                found = _candidate(req, None, price, config, pred, candidates)
                break
        if found is not None:
            out.append(KindBest(key[0], key[1], found))
    return out


def _unpriced(req: Requirements, rows: _Rows, feasible_order: _Order, unpriced_rows: np.ndarray,
              candidates: list[Candidate], limit: int) -> list[Unpriced]:
    """Feasible configurations that lack a price: the tightest fit of each group, one for
    each set of missing prices, with the ids whose price is missing and a catalog entry
    that would price each."""
    out: list[Unpriced] = []
    shown = {c.config for c in candidates}
    told: set[tuple[str, ...]] = set()
    for idx in feasible_order.group_firsts(rows.group_code, len(rows.groups)):
        if len(out) >= limit:
            break
        if not unpriced_rows[idx]:
            continue
        b, r = rows.batch(idx)
        config = b.config(r)
        if config in shown:
            continue
        missing = tuple(unpriced(req.catalog, config))
        if missing in told:
            continue
        told.add(missing)
        out.append(Unpriced(config, missing, tuple(price_entry(req.catalog, m) for m in missing),
                            1.0 - float(b.max_util(capacity=False)[r])))
    return out


def _simulate(wl: Workload, pred: LoadPrediction, bounds: dict[str, float], tail: TailOptions,
              done: int) -> TailCheck:
    """Simulate one candidate's network at the required load for its percentiles."""
    rates = pred.job_rates if pred.job_rates is not None else job_rates(pred.network, wl.rate)
    return check_tail(pred.network, rates, bounds, tail, done)  # the load the shown figures were solved at


class _Order:
    """The feasible rows in ranking order, sorted only as far as they are read. Priced:
    cheapest first, more headroom first on ties. Unpriced: the tightest fit first (the least
    headroom), the nearest thing to the cheapest that the catalog can say. Ties keep the
    order of evaluation."""

    HEAD = 64
    """Reading in order sorts the cheapest this many priced rows (and every row tying with the
    last of them) first, and the rest only when the reader goes past them."""

    def __init__(self, feasible: np.ndarray, unpriced: np.ndarray, cost: np.ndarray, busy: np.ndarray):
        self.rows = feasible
        self.unpriced = unpriced[feasible]
        self.cost = np.where(self.unpriced, 0.0, cost[feasible])
        self.fit = np.where(self.unpriced, -busy[feasible], busy[feasible])

    def _sort(self, pos: np.ndarray) -> np.ndarray:
        """Positions ``pos`` (ascending) in ranking order (a stable sort: ties stay in order)."""
        return pos[np.lexsort((self.fit[pos], self.cost[pos], self.unpriced[pos]))]

    def __iter__(self):
        priced = np.nonzero(~self.unpriced)[0]
        head = 0
        if len(priced) > self.HEAD:
            cost = self.cost[priced]
            # Every priced row up to the HEAD-th cost comes before every other row.
            first = self._sort(priced[cost <= np.partition(cost, self.HEAD - 1)[self.HEAD - 1]])
            yield from self.rows[first].tolist()
            head = len(first)
        yield from self.rows[self._sort(np.arange(len(self.rows)))[head:]].tolist()

    def group_firsts(self, group_code: np.ndarray, groups: int) -> list[int]:
        """The first row of each group (``group_code``: the group of each row) in this order."""
        codes = group_code[self.rows]
        every = np.arange(len(self.rows))
        if np.isnan(self.fit).any():  # NaN sorts after everything: take the sorting route
            order = self._sort(every)
            return self.rows[order[_firsts(codes[order], groups)]].tolist()
        best = _group_least(every, codes, groups, (lambda i: self.unpriced[i].astype(float),
                                                   lambda i: self.cost[i], lambda i: self.fit[i]))
        return self.rows[self._sort(best)].tolist()


def _others(req: Requirements, wl: Workload, rows: _Rows, feasible_order: _Order, misses: np.ndarray,
            candidates: list[Candidate], taken: set[str], limit: int) -> list[Miss]:
    """The best of each group not shown yet (failing ones first, as they explain the most):
    its best attempt when nothing in it is feasible, else its cheapest feasible row."""
    out: list[Miss] = []
    first = candidates[0]
    best = [(idx, rows.group(idx)) for idx in feasible_order.group_firsts(rows.group_code, len(rows.groups))]
    shown = taken | {g for _, g in best}
    failing = [i for i in _best_per_group(misses, rows) if rows.group(i) not in shown][:limit]
    for idx, g in best:
        if g in taken:
            continue
        if len(failing) + len(out) >= limit:
            break  # what follows is not shown
        b, r = rows.batch(idx)
        config = b.config(r)
        cost = None if np.isnan(rows.cost[idx]) else float(rows.cost[idx])
        if cost is None:
            why = f"feasible, but no price in the catalog for {', '.join(unpriced(req.catalog, config))}"
        elif first.monthly_cost is not None:
            why = f"feasible, but {dearer(cost - first.monthly_cost)}"
        else:
            why = "feasible and priced, but ranked after the candidates shown"
        out.append(Miss(cost, config, (), (), float(rows.shortfall[idx]), why))
    out = [_miss(req, wl, rows, i) for i in failing] + out
    return out[:limit]


def _meets(pred: LoadPrediction, limits: Limits) -> bool:
    if any(limits.over(r.kind, r.utilization) for r in pred.loads):
        return False
    return limits.latency is None or pred.latency <= limits.latency * (1 + 1e-9)


def _candidate(req: Requirements, rank_: int, price: float | None, config: Config, pred: LoadPrediction,
               before: list[Candidate], check: TailCheck | None = None) -> Candidate:
    notes = []
    missing = unpriced(req.catalog, config)
    if price is None:
        notes.append(f"no price in the catalog for {', '.join(missing)}: ranked after priced configurations")
    why = None
    if before:
        first = before[0]
        if price is None:
            why = "unpriced: " + notes[0]
        elif first.monthly_cost is not None:
            why = f"{dearer(price - first.monthly_cost)} (headroom {format_percent(pred.headroom)} against " \
                  f"{format_percent(first.headroom)})"
    return Candidate(rank_, price, config, pred, why, tuple(notes), bill(req.catalog, config), check)


def _best_per_group(idxs: np.ndarray, rows: _Rows, by_shortfall: bool = False) -> list[int]:
    """The least-failing row of each group (fewest requirements failed, then the smallest
    shortfall, then the cheaper, then the first evaluated), ordered by cost (or by shortfall)."""
    idxs = np.asarray(idxs, dtype=int)
    if not len(idxs):
        return []
    best = [int(i) for i in _least(idxs, rows)]
    if by_shortfall:
        return sorted(best, key=lambda i: (rows.shortfall[i], _c(rows.cost[i]), i))
    return sorted(best, key=lambda i: (_c(rows.cost[i]), rows.shortfall[i], i))


def _least(idxs: np.ndarray, rows: _Rows) -> np.ndarray:
    """For each group among ``idxs`` (ascending row numbers), the row that is least by
    (fails, shortfall, cost, row number): each key's minimum per group narrows the rows in
    turn, without sorting them all. A NaN shortfall (which sorts after everything) takes
    the sorting route."""
    if rows.nan_shortfall and np.isnan(rows.shortfall[idxs]).any():
        codes, shortfall = rows.group_code[idxs], rows.shortfall[idxs]
        cost = np.where(np.isnan(rows.cost[idxs]), np.inf, rows.cost[idxs])
        order = np.lexsort((cost, shortfall, rows.fails[idxs], codes))
        first = np.ones(len(order), dtype=bool)
        first[1:] = codes[order][1:] != codes[order][:-1]
        return idxs[order][first]
    def cost(i: np.ndarray) -> np.ndarray:
        c = rows.cost[i]
        c[np.isnan(c)] = np.inf
        return c

    return _group_least(idxs, rows.group_code, len(rows.groups),
                        (lambda i: rows.fails[i].astype(float), lambda i: rows.shortfall[i], cost))


def _group_least(idxs: np.ndarray, group_code: np.ndarray, groups: int, keys) -> np.ndarray:
    """For each group among ``idxs`` (ascending; ``group_code`` gives each one's group, below
    ``groups``), the first of its rows least by each of ``keys`` in turn: each key (a function
    of an index array, giving floats with no NaN) is read only for the rows still in the
    running and its minimum per group narrows them. Ascending."""
    keep = idxs
    for key in keys:
        g, k = group_code[keep], key(keep)
        least = np.full(groups, np.inf)
        np.minimum.at(least, g, k)   # float keys: numpy's fast ufunc.at
        keep = keep[k == least[g]]
    return keep[_firsts(group_code[keep], groups)]


def _firsts(codes: np.ndarray, groups: int) -> np.ndarray:
    """The position of each group's first occurrence in ``codes`` (group numbers below
    ``groups``), in ascending order."""
    first = np.full(groups, len(codes))
    np.minimum.at(first, codes, np.arange(len(codes)))
    return np.sort(first[first < len(codes)])


def _c(x: float) -> float:
    return math.inf if math.isnan(x) else float(x)


def _miss(req: Requirements, wl: Workload, rows: _Rows, idx: int, shortfall: np.ndarray | None = None) -> Miss:
    """Row ``idx`` as a :class:`Miss`; its ``shortfall`` from ``shortfall`` (default: the rows' own)."""
    b, r = rows.batch(idx)
    failing = set(failing_kinds(req, b, r))
    facts = tuple(dict.fromkeys(text for kind, text in b.facts(r) if kind in failing))
    cost = rows.cost[idx]
    return Miss(None if math.isnan(cost) else float(cost), b.config(r), tuple(lacks(req, wl, b, r)), facts,
                float((rows.shortfall if shortfall is None else shortfall)[idx]))


def failing_kinds(req: Requirements, b: Batch, r: int) -> list[str]:
    """The resource kinds (``capacity`` included) over 1 in row ``r``; the binding kind when
    only the latency fails."""
    limits = Limits.of(req)
    kinds = [k for k, u in b.util.items() if limits.over(k, u[r])]
    if not kinds and not limits.ok({}, b.latency[r:r + 1]).all():
        kinds = [b.binding(r)[0]]
    return kinds


def lacks(req: Requirements, wl: Workload, b: Batch, r: int) -> list[str]:
    """What row ``r`` of ``b`` lacks, worst first: the resources that break the margin
    (``require.max_utilization``), the capacity, the latency."""
    limits = Limits.of(req)
    out = []
    cloud = req.catalog.cloud
    need = req.require.capacity if req.require else None
    cap_u = float(b.util["capacity"][r]) if "capacity" in b.util else 0.0
    if need and limits.over("capacity", cap_u):
        out.append(f"holds {format_size(need / cap_u)}, not the {format_size(need)} required")
    over = sorted(((float(u[r]), k) for k, u in b.util.items() if k != "capacity" and limits.over(k, u[r])),
                  reverse=True)
    finite = [(float(u[r]), k) for k, u in b.util.items() if k != "capacity" and math.isfinite(u[r])]
    margin = limits.max_utilization < 1.0
    for u, k in over:
        if math.isfinite(u):
            busy, most = over_margin(u, limits.max_utilization)
            allowed = f", over the {most} allowed" if margin and u <= 1 + 1e-9 else ""
            out.append(f"{words(k, cloud)} would be {busy} busy at {format_ops(wl.rate)}{allowed}")
            continue
        # Slots fill without bound when a cap on their path is exactly saturated.
        top_u, top_k = max(finite, default=(0.0, ""))
        cause = f" ({words(top_k, cloud)} is {top_u:.0%} busy)" if top_k else ""
        out.append(f"{words(k, cloud)} would fill without bound at {format_ops(wl.rate)}{cause}")
    limit = limits.latency
    lat = float(b.latency[r])
    if limit is not None and not over and not limits.ok({}, b.latency[r:r + 1]).all():
        kind, u = b.binding(r)
        shown = format_duration(lat) if math.isfinite(lat) else "unbounded"
        out.append(f"mean latency {shown} over the required {format_duration(limit)} "
                   f"({words(kind, cloud)} at {u:.0%})")
    return out or ["fails"]


def over_margin(u: float, limit: float) -> tuple[str, str]:
    """A utilization over its margin and the margin, as percentages with as many decimals as
    it takes for the two to read differently ("63.5%" over "63%", never "63%" over "63%")."""
    for digits in range(4):
        busy, most = f"{u:.{digits}%}", f"{limit:.{digits}%}"
        if busy != most:
            break
    return busy, most
