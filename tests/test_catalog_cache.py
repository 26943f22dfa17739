"""The prebuilt catalog in the user's cache directory: used when it matches, rebuilt
silently when it is corrupt, skipped when the directory cannot be written."""

from __future__ import annotations

from pathlib import Path

from iolab.catalog import cache, loader


def _build(monkeypatch, home: Path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return loader._bundled_state()[1]


def test_cache_is_written_in_the_user_cache_dir_and_reused(monkeypatch, tmp_path):
    first = _build(monkeypatch, tmp_path)
    files = list((tmp_path / "iolab").iterdir())
    assert len(files) == 1 and files[0].name.startswith("catalog-") and files[0].suffix == ".pickle"
    stamp = files[0].stat().st_mtime_ns
    second = _build(monkeypatch, tmp_path)
    assert files[0].stat().st_mtime_ns == stamp  # read, not rewritten
    assert second.vm("Standard_DS13") == first.vm("Standard_DS13")
    assert second.vms.keys() == first.vms.keys() and second.defaults == first.defaults


def test_corrupt_cache_is_rebuilt_silently(monkeypatch, tmp_path):
    _build(monkeypatch, tmp_path)
    path = next((tmp_path / "iolab").iterdir())
    path.write_bytes(b"not a pickle")
    cat = _build(monkeypatch, tmp_path)
    assert cat.vm("Standard_DS13").uncached_iops == 25600
    assert path.read_bytes() != b"not a pickle"  # replaced by a good copy


def test_unwritable_cache_dir_is_tolerated(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cat = _build(monkeypatch, blocker / "cache")  # a path under a regular file: nothing can be made
    assert cat.disk("P30").iops == 5000
    assert blocker.read_text() == "x" and sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_cache_dir_and_key(monkeypatch, tmp_path):
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache.cache_dir() == tmp_path / ".cache" / "iolab"
    one = cache.key_of([("vms.yaml", b"a: 1\n")])
    assert one == cache.key_of([("vms.yaml", b"a: 1\n")])
    assert one != cache.key_of([("vms.yaml", b"a: 2\n")])  # a changed data file is a new key
