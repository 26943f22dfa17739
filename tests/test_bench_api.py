"""iolab.bench's public API: every name in each module's ``__all__`` exists."""

from __future__ import annotations

import importlib

import pytest

MODULES = ["iolab.bench", *(f"iolab.bench.{m}" for m in (
    "compare", "executor", "fakejson", "hosts", "jobs", "machine", "measure", "program", "progress", "record",
    "report", "runner", "safety", "source", "store", "sweep"))]


@pytest.mark.parametrize("name", MODULES)
def test_all_names_exist(name):
    module = importlib.import_module(name)
    assert module.__all__, f"{name} declares no public API"
    for attr in module.__all__:
        assert hasattr(module, attr), f"{name}.__all__ names {attr!r}, which does not exist"
