"""Every call the web pages make into iolab, in one place: each job the page offers
(predict, simulate, plan, the runs stored, a report) through the application layer
(:mod:`iolab.service`) the command line uses, so that an endpoint returns what the
command's ``--json`` prints.

Inputs arrive as text with a display name (the file name a person would have given the
command), handed to the services as a :class:`~iolab.service.source.Source` held in memory:
they are read by the same loaders as the command line's files, so a bad field is refused
with the same :class:`~iolab.errors.InputError` naming the same field.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["predict_text", "whatif_text", "plan_text", "curve_text", "cost_text", "percentiles_text", "runs", "run",
           "choices", "report_html", "bench_text", "finite", "scenario_yaml", "parse_text"]

#: simulated IOs behind the percentiles the what-if page shows (seed 1: the same answer every time).
PERCENTILE_IOS = 20_000


def finite(value: Any) -> Any:
    """`value` with every non-finite float made None, as the command line's JSON prints it."""
    from ..outputs import json_ready

    return json_ready(value)


def parse_text(text: str, name: str) -> Any:
    """The YAML (or JSON) document `text`, read as the command line reads a file named `name`."""
    from ..schema import parse_yaml

    return parse_yaml(text, file=name)


def _source(text: str, name: str) -> Any:
    """`text` as a file named `name` (relative paths inside it start beside that name)."""
    from ..service.source import Source

    return Source.memory(text, name, base=Path(name).parent)


def _predicted(text: str, name: str, catalog: Sequence[Path], *, curve: bool = False) -> Any:
    from ..service.predict import PredictOptions, predict_file

    return predict_file(_source(text, name), PredictOptions(catalog=tuple(catalog), curve=curve))


def predict_text(text: str, name: str, catalog: Sequence[Path] = ()) -> dict:
    """What ``iolab predict NAME --json`` prints for a file holding `text`."""
    return finite(_predicted(text, name, catalog).to_json())


def whatif_text(text: str, name: str, catalog: Sequence[Path] = (), region: str = "eastus") -> dict:
    """One update of the what-if page: ``prediction`` (as :func:`predict_text`), the
    ``bottleneck`` sentence ``iolab predict`` prints, and ``cost`` (as :func:`cost_text`), the
    scenario read once."""
    from ..bottleneck import explain

    result = _predicted(text, name, catalog)
    sentence = (explain(result.prediction) if not result.phased else
                f"The file runs in {len(result.phases)} phases one after another: " +
                " ".join(f"phase {k}: {explain(p)}" for k, p in enumerate(result.phases, 1)))
    return {"prediction": finite(result.to_json()), "bottleneck": sentence, "cost": _cost(result.scenario, region)}


def curve_text(text: str, name: str, catalog: Sequence[Path] = ()) -> dict:
    """The latency-versus-load curve ``iolab report predict`` draws for this scenario: iodepth
    1, 2, 4, ... up to four times the knee, each point as ``predict --sweep`` gives it. A file
    that runs in phases has no single curve: ``points`` is empty."""
    doc = _predicted(text, name, catalog, curve=True).to_json()
    return finite({"points": doc.get("points") or [], "max_iops": doc.get("max_iops"),
                   "knee_outstanding": doc.get("knee_outstanding")})


def percentiles_text(text: str, name: str, catalog: Sequence[Path] = ()) -> dict:
    """Latency percentiles of the scenario simulated for :data:`PERCENTILE_IOS` IOs (seed 1),
    as ``iolab simulate NAME --ios 20000 --json`` gives them under ``latency``."""
    from ..service.simulate import SimulateOptions, simulate_file

    doc = simulate_file(_source(text, name), SimulateOptions(catalog=tuple(catalog), ios=PERCENTILE_IOS,
                                                             seed=1)).to_json()
    return finite({"latency": doc.get("latency"), "ios": doc.get("ios"), "seed": 1})


def cost_text(text: str, name: str, catalog: Sequence[Path] = (), region: str = "eastus") -> dict:
    """The scenario's monthly bill in `region`, priced as ``iolab plan`` prices a candidate
    (:func:`iolab.plan.cost.bill`): ``bill`` (``vm``, ``disks``, ``shares``, ``provisioned``,
    ``total``) or None with ``missing`` naming what has no price (a generic device, an
    unpriced part)."""
    from ..service.source import load_scenario_source

    return _cost(load_scenario_source(_source(text, name), catalog), region)


#: catalogs priced in a region, by (the catalog's identity, region): the loader shares one
#: catalog object per set of files, and pricing it anew took 10-40 ms of every update.
_PRICED: dict[tuple[int, str], tuple[Any, Any]] = {}


def _priced(cat: Any, region: str) -> Any:
    key = (id(cat), region)
    if key not in _PRICED or _PRICED[key][0] is not cat:
        if len(_PRICED) > 16:
            _PRICED.clear()
        _PRICED[key] = (cat, cat.in_region(region))
    return _PRICED[key][1]


def _cost(s: Any, region: str) -> dict:
    from ..plan.config import Config, DiskChoice, ShareChoice
    from ..plan.cost import Bill, bill, unpriced
    from ..scenario import DeviceVolume, DiskVolume, ShareVolume

    cat = _priced(s.catalog, region)
    n = s.clients.count
    configs = [Config(s.clients.vm, n)]
    missing: list[str] = []
    for vname, vol in s.volumes.items():
        if isinstance(vol, DiskVolume):
            groups = tuple(DiskChoice(g.sku, g.count, g.caching, *_provisioned(cat, g), g.performance_plus)
                           for g in vol.disks)
            configs.append(Config(None, n, groups))
        elif isinstance(vol, ShareVolume):
            share = ShareChoice(vol.service, vol.level, int(vol.size), float(vol.throughput or 0.0), vol.protocol,
                                vol.nconnect or 1, vol.large, vol.throughput is not None,
                                int(vol.pool) if vol.pool is not None else None)
            configs.append(Config(None, n, share=share))
        elif isinstance(vol, DeviceVolume):
            missing.append(f"volume {vname}: a generic device has no price")
    total = Bill()
    for config in configs:
        part = bill(cat, config)
        if part is None:
            missing += unpriced(cat, config) or [config.describe()]
            continue
        total += part
    return {"region": region, "bill": None if missing else total.to_json(), "missing": missing}


def _provisioned(cat: Any, group: Any) -> tuple[int | None, float | None, float | None]:
    """(size, iops, bandwidth) of a Premium SSD v2 or Ultra group, as plan bills them; the size
    only of a gp2, st1 or sc1 group (billed by its size); fixed-size disks have none."""
    from ..catalog import ProvisionedDisk, ScaledDisk

    sku = cat.disk(group.sku)
    if isinstance(sku, ScaledDisk):
        return int(group.size or sku.min_size), None, None
    if not isinstance(sku, ProvisionedDisk):
        return None, None, None
    size = int(group.size or sku.min_size)
    return size, float(group.iops or 0.0), float(group.bandwidth or 0.0)


def plan_text(text: str, name: str, catalog: Sequence[Path] = (), *, region: str = "eastus",
              top: int | None = None) -> dict:
    """What ``iolab plan NAME --json --region REGION --top TOP`` prints for a file holding `text`
    (the plan service's :func:`iolab.service.plan.plan_text`)."""
    from ..errors import SchemaError
    from ..service.plan import PlanOptions, plan_text as plan

    if top is not None and not 1 <= top <= 100:
        raise SchemaError("must be from 1 to 100", field="--top")
    return finite(plan(text, name, catalog, PlanOptions(top=top, region=region), base=Path(name).parent).to_json())


def bench_text(text: str, name: str, catalog: Sequence[Path] = (), db: Path | None = None, *, target: str,
               runtime: str | None = None) -> dict:
    """What ``iolab bench run NAME --target TARGET [--runtime T] --json`` prints for a scenario
    file holding `text`: fio runs the scenario's jobs under the bench's safety rules (never
    ``--destructive``), and the run is stored with its prediction beside it."""
    from ..bench.executor import ProcessExecutor
    from ..bench.jobs import Settings
    from ..bench.progress import QuietView
    from ..bench.runner import Bench, Request
    from ..bench.source import duration_option
    from ..bench.store import ResultsStore, default_path
    from ..errors import InputError
    from ..fio.job import LIMITS
    from ..service.source import load_scenario_source

    if not target:
        raise InputError("give the directory to run in on the storage under test", field="--target")
    s = load_scenario_source(_source(text, name), catalog)
    volumes = sorted({j.volume for j in s.jobs})
    if len(volumes) > 1:
        raise InputError(f"the jobs use volumes {', '.join(volumes)}: a run from the page takes a scenario whose "
                         "jobs use one volume", file=name, field="jobs")
    settings = Settings(runtime=duration_option(runtime, "--runtime", positive=True, most=LIMITS["runtime"]))
    request = Request(tuple(j.fio for j in s.jobs), target, settings, (), s)
    with ResultsStore(db if db is not None else default_path()) as store:
        record = Bench(store, executor=ProcessExecutor(), view=QuietView()).run(request)
    return finite(record.to_json())


def runs(db: Path | None, sweep: int | None = None) -> dict:
    """What ``iolab results list --json [--sweep ID]`` prints."""
    from ..service.results import list_runs

    return finite(list_runs(db, sweep=sweep).to_json())


def run(db: Path | None, run_id: int) -> dict:
    """What ``iolab results show ID --json`` prints."""
    from ..service.results import open_results

    with open_results(db) as store:
        record = store.load(run_id)
        doc = record.to_json()
        doc["jobfile"] = record.jobfile
        doc["fio_argv"] = list(record.fio_argv)
        return finite(doc)


def report_html(kind: str, items: Sequence[str], *, db: Path | None = None, catalog: Sequence[Path] = (),
                text: str | None = None, name: str | None = None, region: str = "eastus",
                top: int | None = None) -> str:
    """The page ``iolab report KIND ITEM... -o FILE`` writes: stored runs or sweeps by id, or, for
    ``predict`` and ``plan``, the scenario or requirements `text` named `name`."""
    from .. import __version__
    from ..report import Page, build

    if kind in ("run", "sweep"):
        return build(kind, list(items), db=db).html(__version__)
    assert text is not None and name is not None
    if kind == "predict":
        from ..report.prediction import prediction_section

        doc = finite(_predicted(text, name, catalog, curve=True).to_json())
        facts: list[tuple[str, object]] = [("iolab", __version__), ("catalog files", ", ".join(map(str, catalog))
                                                                     or "the bundled catalog")]
        section = prediction_section(doc, title=f"Prediction: {name}", scenario_text=text, facts=facts)
    else:
        from ..report.plan import plan_section

        section = plan_section(plan_text(text, name, catalog, region=region, top=top), title=f"Plan: {name}",
                               asked=text)
    return Page(section.title, [section]).html(__version__)


def choices(catalog: Sequence[Path] = (), region: str = "eastus") -> dict:
    """What the forms offer: every VM size, disk SKU and share service level in the catalog,
    with the figures a person picks by (base units; prices per month in `region`)."""
    from ..catalog import load_catalog

    cat = load_catalog(list(catalog)).in_region(region)
    vms = [{"id": v.id, "vcpus": v.vcpus, "memory": v.memory, "uncached_iops": v.uncached_iops,
            "uncached_bandwidth": v.uncached_bandwidth, "price_per_month": v.price_per_month,
            "cloud": getattr(v, "cloud", None)} for v in cat.vms.values()]
    disks = [{"id": d.id, "tier": d.tier, "size": d.size, "iops": d.iops, "bandwidth": d.bandwidth,
              "price_per_month": d.price_per_month} for d in cat.disks.values()]
    disks += [{"id": d.id, "tier": d.tier, "size": None, "iops": None, "bandwidth": None, "price_per_month": None}
              for d in cat.provisioned.values()]
    levels = [{"id": lv.id, "service": lv.service, "level": lv.level} for lv in cat.services.values()]
    return finite({"region": region, "vms": vms, "disks": disks, "levels": levels})


def scenario_yaml(data: Any) -> str:
    """A scenario built in the form, as the YAML file ``iolab predict`` reads."""
    import yaml

    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False, allow_unicode=True)
