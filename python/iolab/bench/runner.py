"""One benchmark run, from request to stored record: :class:`Bench`.

A run checks the safety rules before anything is touched, writes the job file it runs into
its record, runs fio (here, or on every ``--client`` host at once), removes the files fio
made, maps fio's JSON into figures and stores the whole run in one transaction: ``ok``,
``failed`` (with a message saying what to do) or ``interrupted`` (Ctrl-C).
"""

from __future__ import annotations

import os
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import InputError, RunError
from ..fio import FioJob, FioResult, parse_output, render_jobfile
from ..units import format_duration, format_ops, format_rate, format_size
from .compare import predicted as predict_json
from .executor import Completed, Executor, ProcessExecutor
from .leftovers import SCRATCH_PREFIX, remove_scratch, remove_target_files
from .hosts import Host, check_reachable, check_remote_jobs
from .jobs import (Settings, configure, duration, outstanding, override, place, place_remote, private,
                   time_limit)
from .machine import describe
from .measure import combine, measure, measure_jobs
from .program import diagnose, fio_version
from .progress import QuietView, View
from .record import HostMeasure, RunRecord
from .ready import check_ready
from .probe import Probe, SystemProbe, Target, inspect_target, mounted_reason
from .workspace import Workspace
from .write_policy import check_jobs, job_writes
from .store import ResultsStore

__all__ = ["Request", "Bench", "summary_line", "host_timeout"]

#: seconds fio may take beyond the jobs' runtime (here or on a host) before it is stopped.
HOST_GRACE = 60.0
#: the slowest file layout (bytes/s) fio is allowed before it counts as stuck.
SLOWEST_LAYOUT = 20e6


@dataclass(frozen=True)
class Request:
    """What to run: the jobs, the target (a local path, or a directory on every host), the
    settings, the hosts (none: this machine), and the scenario that describes the target
    (then each run carries its prediction)."""

    jobs: tuple[FioJob, ...]
    target: str
    settings: Settings = field(default_factory=Settings)
    hosts: tuple[Host, ...] = ()
    scenario: Any = None

    @property
    def remote(self) -> bool:
        return bool(self.hosts)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def summary_line(record: RunRecord) -> str:
    """One line about a finished run: its id, status and headline figures."""
    head = f"run {record.run_id}: {record.status}"
    if record.params:
        head += " (" + ", ".join(f"{k}={v}" for k, v in record.params.items()) + ")"
    if record.measured is not None:
        t = record.measured.total
        lat = t.latency.get("mean")
        head += f"  {format_ops(t.iops)}  {format_rate(t.bandwidth)}"
        if lat is not None:
            head += f"  mean latency {format_duration(lat)}"
    if record.error:
        head += f"  — {record.error}"
    return head


class Bench:
    """Runs requests with `executor` (default: the real fio), stores them in `store`.

    `probe` reads the machine for the safety rules, `view` watches the runs, `fio` is the
    program to run, `reachable` checks the ``--client`` hosts answer before a run.
    """

    def __init__(self, store: ResultsStore, *, executor: Executor | None = None, probe: Probe | None = None,
                 view: View | None = None, fio: str = "fio",
                 reachable: Callable[[Sequence[Host]], None] = check_reachable, margin: float = HOST_GRACE):
        self.reachable = reachable
        self.margin = margin
        self.store = store
        self.executor = executor or ProcessExecutor()
        self.probe = probe or SystemProbe()
        self.view = view or QuietView()
        self.fio = fio
        self._version: str | None = None

    @property
    def version(self) -> str:
        """fio's version (asked once). Raises RunError when fio is missing or too old."""
        if self._version is None:
            self._version = fio_version(self.executor, self.fio)
        return self._version

    def run(self, request: Request, *, params: Mapping[str, Any] | None = None,
            sweep_id: int | None = None) -> RunRecord:
        """Run `request` (at sweep point `params`, options set on every job) and store it.

        Raises SafetyError (nothing touched), InputError or RunError (fio missing, a host
        that does not answer) before anything runs; a run that starts is always stored, and
        its record says whether it failed or was interrupted.
        """
        params = dict(params or {})
        jobs = override(request.jobs, params)
        prediction = predict_json(request.scenario, jobs) if request.scenario is not None else None
        if request.remote:
            record = self._remote(request, jobs)
        else:
            record = self._local(request, jobs)
        record = replace(record, params=params, predicted=prediction, sweep_id=sweep_id,
                         scenario=getattr(request.scenario, "file", None))
        run_id = self.store.save(record)
        record = record.with_id(run_id)
        self.view.end(summary_line(record))
        return record

    def preflight(self, request: Request, params: Mapping[str, Any] | None = None) -> None:
        """The checks :meth:`run` makes before anything runs (the safety rules, fio present,
        the hosts answering), and nothing else: a sweep makes them for its first point
        before it stores anything."""
        jobs = override(request.jobs, dict(params or {}))
        if request.remote:
            self._check_remote(request, jobs)
        else:
            self._check_local(request, jobs)

    # -- here --------------------------------------------------------------------------------

    def _check_local(self, request: Request, jobs: Sequence[FioJob]) -> tuple[Target, list[Path], str]:
        """The target, the paths the run will create, fio's version; SafetyError, InputError
        or RunError when the run may not start."""
        target = inspect_target(request.target, self.probe)
        created = check_jobs(target, jobs, destructive=request.settings.destructive, probe=self.probe)
        sized = [configure(j, request.settings, sized=target.is_directory) for j in jobs]
        check_ready(target, sized, self.probe, writes=any(job_writes(j) for j in sized), new_files=created)
        return target, created, self.version

    def _local(self, request: Request, jobs: Sequence[FioJob]) -> RunRecord:
        settings = request.settings
        target, created, version = self._check_local(request, jobs)
        workspace = Workspace(target, created)
        machine = describe(target.path, self.probe)
        final = [place(configure(j, settings, sized=target.is_directory), target, workspace, private=own)
                 for j, own in zip(jobs, private(jobs))]
        direct = any(j.direct for j in final)
        if target.is_directory:
            self._sweep_leftovers(target.path)
        if target.is_directory and direct and not self.probe.direct_io(target.path, workspace.prefix + "probe"):
            raise RunError(diagnose("Invalid argument", fstype=machine.fstype, direct=True))
        jobfile = render_jobfile(final)
        limit = host_timeout(final, self.margin)
        writes = any(job_writes(j) for j in final)
        if target.kind == "block" and not writes:
            mounted = mounted_reason(target.path, self.probe)
            if mounted:
                self.view.note(f"note: reading {target.path} while {mounted.removeprefix('it ')}: the filesystem's "
                               "own IO shares the device with the run, so the figures may be lower and vary")
        with scratch() as tmp:
            argv = self._argv(tmp, jobfile, readonly=not writes and not settings.destructive)
            started = _now()
            self.view.begin(_label(final), duration=duration(final), ramp=max((j.ramp_time or 0.0) for j in final),
                            outstanding=outstanding(final))
            try:
                done = self.executor.run(argv, self.view.line if self.view.live else None,
                                         cwd=target.path if target.is_directory else None, timeout=limit)
            finally:
                workspace.cleanup()
            ended = _now()
            text = _read(tmp / "out.json")
        result, error = _parse(text)
        status, error = _status(done, result, error, fstype=machine.fstype, direct=direct, limit=limit,
                                writes=writes)
        figures = result if status != "failed" else None   # a failed run has no figures, never zeros
        return RunRecord(
            status=status, started=started, ended=ended, jobfile=jobfile, fio_argv=tuple(argv),
            fio_version=version, host=machine.host, kernel=machine.kernel, target=str(target.path),
            fstype=machine.fstype, mount_options=machine.mount_options,
            measured=measure(figures.jobs) if figures and figures.jobs else None,
            jobs=measure_jobs(figures) if figures else (), error=error,
        )

    def _sweep_leftovers(self, directory: Path) -> None:
        """Remove the data files runs killed earlier left in the target, saying which."""
        for left in remove_target_files(directory):
            self.view.note(f"removed {left.path} ({format_size(left.size)}), left by an iolab run "
                           f"(process {left.pid}) that was killed before it could remove it")

    def _argv(self, tmp: Path, jobfile: str, *, client: str | None = None, out: str = "out.json",
              readonly: bool = False) -> list[str]:
        """fio's command line; `readonly` (jobs that only read) adds fio's own ``--readonly``,
        under which fio refuses any write: a second guard behind the safety rules."""
        path = tmp / "run.fio"
        path.write_text(jobfile)
        eta = ["--eta=always"] if self.view.live and client is None else ["--eta=never"]
        head = [self.fio] + ([client] if client else [])
        guard = ["--readonly"] if readonly else []
        return [*head, "--output-format=json+", f"--output={tmp / out}", *eta, *guard, str(path)]

    # -- on every host -----------------------------------------------------------------------

    def _check_remote(self, request: Request, jobs: Sequence[FioJob]) -> tuple[list[FioJob], str, str]:
        """The jobs as they will run on the hosts, their job file and fio's version, after
        the rules for jobs on other hosts, their placement in the target and the hosts
        answering."""
        settings = request.settings
        check_remote_jobs(jobs, destructive=settings.destructive)
        workspace = Workspace(Target(request.target, Path(request.target), "directory"))
        final = [place_remote(configure(j, settings, sized=True), request.target, workspace, private=own)
                 for j, own in zip(jobs, private(jobs))]
        jobfile = render_jobfile(final)
        version = self.version
        self.reachable(request.hosts)
        return final, jobfile, version

    def _remote(self, request: Request, jobs: Sequence[FioJob]) -> RunRecord:
        final, jobfile, version = self._check_remote(request, jobs)
        hosts = request.hosts
        with scratch() as tmp:
            argvs = [self._argv(tmp, jobfile, client=h.client_option(), out=f"host{i}.json")
                     for i, h in enumerate(hosts)]
            started = _now()
            self.view.begin(f"{_label(final)} on {len(hosts)} hosts", duration=duration(final),
                            ramp=max((j.ramp_time or 0.0) for j in final), outstanding=outstanding(final) * len(hosts))
            dones = self._run_all(argvs, host_timeout(final, self.margin))
            ended = _now()
            texts = [_read(tmp / f"host{i}.json") for i in range(len(hosts))]
        per_host: list[HostMeasure] = []
        results: list[FioResult] = []
        job_measures = []
        interrupted = False
        for host, done, text in zip(hosts, dones, texts):
            result, error = _parse(text)
            status, error = _status(done, result, error, fstype=None, direct=False)
            interrupted = interrupted or status == "interrupted"
            if result is not None and result.jobs and status != "failed":
                results.append(result)
                job_measures.extend(measure_jobs(result, host.label))
                per_host.append(HostMeasure(host.label, status, measure(result.jobs), error))
            else:
                per_host.append(HostMeasure(host.label, "failed" if status != "interrupted" else status, None,
                                            error or "no results"))
        failed = [h for h in per_host if h.status == "failed"]
        status = "interrupted" if interrupted else ("failed" if failed else "ok")
        error = "; ".join(f"host {h.host} failed: {h.error}" for h in failed) or (
            "interrupted" if interrupted else None)
        return RunRecord(
            status=status, started=started, ended=ended, jobfile=jobfile, fio_argv=tuple(argvs[0]),
            fio_version=version, host=socket.gethostname(), kernel=None, target=request.target,
            measured=combine(results) if results else None, jobs=tuple(job_measures), hosts=tuple(per_host),
            error=error,
        )

    def _run_all(self, argvs: Sequence[Sequence[str]], timeout: float | None) -> list[Completed]:
        """Run every argv at once; Ctrl-C stops them all and they report it."""
        dones: list[Completed | BaseException | None] = [None] * len(argvs)

        def one(i: int) -> None:
            try:
                dones[i] = self.executor.run(argvs[i], None, timeout=timeout)
            except BaseException as e:  # reported per host below
                dones[i] = e

        threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(len(argvs))]
        for t in threads:
            t.start()
        try:
            for t in threads:
                while t.is_alive():
                    t.join(0.2)
        except KeyboardInterrupt:
            self.executor.interrupt()
            for t in threads:
                t.join()
        out = []
        for d in dones:
            if isinstance(d, Completed):
                out.append(d)
            else:
                out.append(Completed(1, "", str(d or "did not run")))
        return out


def host_timeout(jobs: Sequence[FioJob], margin: float = HOST_GRACE) -> float | None:
    """How long fio may run: the jobs' runtime, ramp and start delay (phases in turn), plus
    `margin`, plus laying out their files at :data:`SLOWEST_LAYOUT`; None when a job has no
    runtime."""
    span = time_limit(jobs)
    if span is None:
        return None
    layout = sum((j.size or j.filesize or 0) * j.numjobs for j in jobs) / SLOWEST_LAYOUT
    return span + margin + layout


@contextmanager
def scratch() -> Iterator[Path]:
    """A scratch directory for one run, removed at its end; leftovers of iolab processes
    that died (``kill -9``) are removed first."""
    remove_scratch()
    with tempfile.TemporaryDirectory(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-") as tmp:
        yield Path(tmp)


def _label(jobs: Sequence[FioJob]) -> str:
    names = [j.name for j in jobs]
    return names[0] if len(names) == 1 else f"{names[0]} +{len(names) - 1}"


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def _parse(text: str) -> tuple[FioResult | None, str | None]:
    if not text.strip():
        return None, None
    try:
        return parse_output(text, source="fio output"), None
    except InputError as e:
        return None, f"cannot read fio's output: {e}"


def _status(done: Completed, result: FioResult | None, error: str | None, *, fstype: str | None,
            direct: bool, limit: float | None = None, writes: bool = True) -> tuple[str, str | None]:
    """``ok``, ``failed`` or ``interrupted``, and the message that goes with it; `limit` is
    a local run's time limit (None: a host's)."""
    if done.interrupted:
        return "interrupted", "interrupted (Ctrl-C); fio was stopped and its files removed"
    if done.timed_out and limit is not None:
        return "failed", (f"fio was still running after its time limit of {limit:.0f} s (runtime, ramp and "
                          "layout plus a margin): it was stopped (SIGTERM, then SIGKILL) and its files removed")
    if done.timed_out:
        return "failed", f"no result after {done.elapsed:.0f} s: the host stopped answering, fio was stopped"
    job_errors = [(j.name, j.error) for j in result.jobs if j.error] if result else []
    if done.returncode != 0 or job_errors:
        return "failed", diagnose(done.stderr or done.stdout, job_errors=job_errors, fstype=fstype,
                                  direct=direct, returncode=done.returncode, writes=writes)
    if result is None:
        said = (done.stderr or "").strip().splitlines()
        return "failed", error or ("fio wrote no results" + (f": {said[-1]}" if said else ""))
    return "ok", None
