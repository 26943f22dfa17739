"""Every job file of fio's own examples/ directory (a copy in tests/data/fio-examples, GPL-2.0,
licence beside it) is read as `iolab check` reads it: no file that fio accepts
(``fio --parse-only``) is refused, and no file gives anything but a clean error."""

from __future__ import annotations

import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import DATA
from iolab.errors import InputError
from iolab.fio import parse_jobfile

EXAMPLES = sorted((DATA / "fio-examples").glob("*.fio"))
FIO = shutil.which("fio")


def test_the_copy_is_complete():
    assert len(EXAMPLES) >= 100
    assert (DATA / "fio-examples" / "COPYING").read_text().startswith(" " * 20 + "GNU GENERAL PUBLIC LICENSE")


def fio_accepts(path) -> bool:
    r = subprocess.run([FIO, "--parse-only", str(path)], capture_output=True, text=True, timeout=60,
                       cwd=path.parent)
    return r.returncode == 0


def iolab_reads(path) -> str | None:
    """None when iolab accepts the file, else its error line."""
    try:
        parse_jobfile(path.read_text(), source=path.name)
    except InputError as e:
        return str(e)
    return None


@pytest.mark.skipif(FIO is None, reason="fio is not installed")
def test_no_file_fio_accepts_is_refused():
    refused = [p for p in EXAMPLES if iolab_reads(p)]
    assert len(refused) < len(EXAMPLES) / 4
    # fio takes ~0.4 s to start, so it is asked only about the files iolab refuses
    with ThreadPoolExecutor(8) as pool:
        verdicts = dict(zip(refused, pool.map(fio_accepts, refused)))
    assert [f"{p.name}: {iolab_reads(p)}" for p, ok in verdicts.items() if ok] == []


def test_iolab_check_reads_job_files(iolab):
    for name in ("ssd-test.fio", "page_fault.fio", "1mbs_clients.fio", "zbd-rand-write-trim-gc.fio", "steadystate.fio"):
        r = iolab("check", DATA / "fio-examples" / name, "--json")
        assert r.code == 0, r.err
        assert r.json()["kind"] == "fio job file" and r.json()["jobs"]
    # every file: exit 0 or a clean error (exit 2), never a traceback
    for path in EXAMPLES:
        problem = iolab_reads(path)
        assert problem is None or problem.startswith(path.name)
