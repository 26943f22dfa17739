"""An output path that cannot be written — a directory given as the file, a "directory"
that is a regular file, a place the system refuses (/proc) — is refused with one line naming
it, never a traceback: exit 2 when it is known before any work (-o, --plot), exit 1 when
the system refuses the write itself. Nothing is left behind."""

from __future__ import annotations

import pytest

from conftest import DATA, EXAMPLES

IOSTAT = str(DATA / "telemetry" / "iostat-12.5.txt")
PAGE = str(DATA / "catalog" / "retail" / "westeurope-1.json")
NVME = str(EXAMPLES / "local-nvme.yaml")


def _commands(out: str, plot: str) -> list[tuple[list[str], str]]:
    return [
        (["report", "predict", NVME, "-o", out, "--force"], "--output"),
        (["characterize", IOSTAT, "-o", out, "--force", "--no-store"], "--output"),
        (["catalog", "import-prices", PAGE, "-o", out, "--force"], "--output"),
        (["characterize", IOSTAT, "--plot", plot, "--no-store"], "--plot"),
        (["predict", NVME, "--sweep", "iodepth=1,2", "--plot", plot], "--plot"),
        (["simulate", NVME, "--ios", "1000", "--plot", plot], "--plot"),
    ]


@pytest.mark.parametrize("i", range(6))
def test_a_directory_named_as_the_output_is_refused_before_any_work(iolab, tmp_path, i):
    out, plot = tmp_path / "out.yaml", tmp_path / "out.png"
    out.mkdir()
    plot.mkdir()
    args, option = _commands(str(out), str(plot))[i]
    r = iolab(*args)
    where = plot if option == "--plot" else out
    assert r.code == 2 and r.err == f"error: {option}: {where} is a directory; name a file\n", r.err
    assert list(out.iterdir()) == [] and list(plot.iterdir()) == []


@pytest.mark.parametrize("i", range(6))
def test_a_file_used_as_a_directory_is_refused(iolab, tmp_path, i):
    parent = tmp_path / "notes.txt"
    parent.write_text("mine\n")
    args, option = _commands(str(parent / "out.yaml"), str(parent / "out.png"))[i]
    r = iolab(*args)
    assert r.code == 2 and r.err == f"error: {option}: {str(parent)!r} is not a directory\n", r.err
    assert parent.read_text() == "mine\n"


@pytest.mark.parametrize("i", [0, 1, 2, 3])
def test_a_write_the_system_refuses_is_one_line_exit_1(iolab, i):
    # /proc takes no new files: the write itself fails, after the work
    out, plot = "/proc/iolab-qa2-out.yaml", "/proc/iolab-qa2-out.png"
    args, _ = _commands(out, plot)[i]
    r = iolab(*args)
    lines = [line for line in r.err.splitlines() if line.startswith("error: ")]
    assert r.code == 1 and len(lines) == 1 and "Traceback" not in r.err, r.err
    assert lines[0].startswith(f"error: cannot write {plot if i == 3 else out}: ")
