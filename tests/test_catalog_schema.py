"""iolab.schema: YAML loading and validation with errors located by file and field path."""

from __future__ import annotations

import pytest
from pydantic import field_validator

from iolab.errors import RuleViolation, SchemaError
from iolab.schema import (
    Duration,
    FrozenModel,
    PositiveOps,
    PositiveRate,
    PositiveSize,
    Rate,
    field_path,
    load_yaml,
    parse_yaml,
    unit_of,
    validate,
)


class Member(FrozenModel):
    sku: str
    size: PositiveSize


class Volume(FrozenModel):
    disks: list[Member]
    bandwidth: PositiveRate | None = None
    latency: Duration = 0.0


class Doc(FrozenModel):
    volumes: dict[str, Volume]
    iops: PositiveOps = 1.0

    @field_validator("iops")
    @classmethod
    def _rule(cls, v: float) -> float:
        if v > 1e6:
            raise RuleViolation("iops-max", "too many IOPS", field="iops")  # pydantic does not locate it
        return v


# ---- YAML


def test_load_yaml_reads_a_mapping(tmp_path):
    (tmp_path / "a.yaml").write_text("a: 1\nb: [x, y]\n")
    assert load_yaml(tmp_path / "a.yaml") == {"a": 1, "b": ["x", "y"]}
    assert parse_yaml("\ufeffa: 1\n".encode()) == {"a": 1}          # a byte-order mark is fine


@pytest.mark.parametrize("content,words", [
    (b"a: [1,\n", "YAML syntax error at line 2, column 1"),
    (b"a:\n  - b\n c: d\n", "YAML syntax error at line 3, column 2"),
    (b"a: 'open\n", "YAML syntax error at line 2, column 1: found unexpected end of stream"),
    (b"\x00\x01\x02", "binary content, not a YAML text file"),
    (b"a: caf\xe9\n", "not UTF-8 text (byte 0xe9 at offset 6)"),
    (b"a: 1\nb: \x07\n", "control characters are not allowed (#x0007 at line 2)"),
    (b"", "the file is empty"),
    (b"# a comment only\n", "the file is empty"),
    (b"a: 1\nb: 2\na: 3\n", "duplicate key 'a' (key 'a' first given at line 1)"),
    (b"a: {x: 1, x: 2}\n", "duplicate key 'x'"),
])
def test_yaml_errors_name_the_file(tmp_path, content, words):
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    with pytest.raises(SchemaError) as e:
        load_yaml(path)
    assert e.value.file == str(path) and e.value.field is None
    assert words in str(e.value)
    assert str(e.value).startswith(f"{path}: ")


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(SchemaError, match="file not found"):
        load_yaml(tmp_path / "nope.yaml")
    with pytest.raises(SchemaError, match="is a directory"):
        load_yaml(tmp_path)


# ---- validation


def test_validate_parses_units():
    doc = validate(Doc, {"volumes": {"data": {"disks": [{"sku": "P30", "size": "1TiB"}], "bandwidth": "200MB/s",
                                              "latency": "2ms"}}, "iops": "5k"})
    vol = doc.volumes["data"]
    assert (vol.disks[0].size, vol.bandwidth, vol.latency, doc.iops) == (2**40, 200e6, 0.002, 5000)


@pytest.mark.parametrize("data,field,words", [
    ({"volumes": {"data": {"disks": [{"sku": "P30", "size": 1}, {"sku": "P30", "sise": 1}]}}},
     "volumes.data.disks[1].sise", "unknown field 'sise'; did you mean 'size'?"),
    ({"volumes": {"data": {"disks": [{"sku": "P30", "size": 0}]}}}, "volumes.data.disks[0].size",
     "must be greater than 0 (got 0)"),
    ({"volumes": {"data": {"disks": [{"sku": "P30", "size": "1 TiBs"}]}}}, "volumes.data.disks[0].size",
     "'1 TiBs' is not a size"),
    ({"volumes": {"data": {"disks": [], "bandwidth": "-1MB/s"}}}, "volumes.data.bandwidth", "is negative"),
    ({"volumes": {"data": {"disks": {"sku": "P30"}}}}, "volumes.data.disks", "expected a valid list"),
    ({"volumes": {"data": {}}}, "volumes.data.disks", "missing required field"),
    ({"volumes": {"data": 3}}, "volumes.data", "expected a mapping of fields, got 3"),
    ({"volumes": {}, "iops": 2e6}, "iops", "too many IOPS (rule: iops-max)"),
    ({"volumes": {}, "extra": 1}, "extra", "unknown field 'extra' (valid fields: volumes, iops)"),
])
def test_validate_locates_errors(data, field, words):
    with pytest.raises((SchemaError, RuleViolation)) as e:
        validate(Doc, data, file="scenario.yaml", root_field="top")
    assert e.value.file == "scenario.yaml"
    assert e.value.field == f"top.{field}"
    assert words in str(e.value)


def test_typo_is_reported_before_the_missing_field_it_causes():
    with pytest.raises(SchemaError) as e:
        validate(Member, {"sku": "P30", "sise": 5})
    assert e.value.field == "sise"
    assert str(e.value) == "sise: unknown field 'sise'; did you mean 'size'? (and 1 more problem)"


def test_root_field_before_an_index():
    with pytest.raises(SchemaError) as e:
        validate(Volume, {"disks": [{"sku": 1, "size": 1}]}, root_field="volumes.v")
    assert e.value.field == "volumes.v.disks[0].sku"


def test_field_path_and_unit_of():
    assert field_path(["disks", 0, "sku"]) == "disks[0].sku"
    assert field_path([]) == ""
    assert unit_of(Member, "size") == "size"
    assert unit_of(Volume, "bandwidth") == "rate"
    assert unit_of(Volume, "latency") == "duration"
    assert unit_of(Doc, "iops") == "ops"
    assert unit_of(Member, "sku") is None
    assert unit_of(Member, "nothing") is None


def test_models_are_frozen():
    m = validate(Member, {"sku": "P30", "size": "1k"})
    with pytest.raises(Exception):
        m.size = 5  # type: ignore[misc]


def test_rate_accepts_bits_and_bare_numbers():
    class R(FrozenModel):
        r: Rate

    assert validate(R, {"r": "4000Mbit/s"}).r == 500e6
    assert validate(R, {"r": 1000}).r == 1000
