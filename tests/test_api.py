"""The public API: every name in ``__all__`` exists, the package is typed, and the version is
the installed distribution's."""

from __future__ import annotations

import importlib
import pkgutil
from importlib.metadata import version
from pathlib import Path

import pytest

import iolab

# The public modules: the package's own and every module of iolab.bench (each declares __all__).
MODULES = ["iolab", "iolab.errors", "iolab.units", "iolab.network", "iolab.analytic", "iolab.scenario",
           "iolab.prediction", "iolab.compile", "iolab.plot", "iolab.catalog", "iolab.fio", "iolab.sim",
           "iolab.plan", "iolab.schema", "iolab.bench",
           *(f"iolab.bench.{m.name}" for m in pkgutil.iter_modules(importlib.import_module("iolab.bench").__path__))]


@pytest.mark.parametrize("name", MODULES)
def test_all_names_exist(name):
    module = importlib.import_module(name)
    assert module.__all__, f"{name} declares no public API"
    for attr in module.__all__:
        assert hasattr(module, attr), f"{name}.__all__ names {attr!r}, which does not exist"


def test_typed_and_versioned():
    assert (Path(iolab.__file__).parent / "py.typed").exists()
    assert iolab.__version__ == version("iolab")


def test_exit_codes_of_the_error_tree():
    from iolab import errors

    assert errors.SchemaError("x").exit_code == 2
    assert errors.UnknownIdError("disk", "P31", ["P30"]).exit_code == 2
    assert errors.RuleViolation("r", "x").exit_code == 2
    assert errors.SafetyError("x").exit_code == 3
    assert errors.RunError("x").exit_code == 1


def test_version_command(iolab):
    r = iolab("--version")
    assert r.code == 0 and r.out.strip() == f"iolab {iolab_version()}"


def iolab_version() -> str:
    return version("iolab")


def test_starting_the_cli_loads_no_heavy_module():
    """`iolab --help` and `--version` stay fast: commands import the catalog, numpy and the
    simulator only when they run."""
    import subprocess
    import sys

    code = ("import sys, iolab.cli; heavy = [m for m in ('numpy', 'iolab.catalog', 'iolab.sim', 'iolab.plan',"
            " 'matplotlib') if m in sys.modules]; print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
