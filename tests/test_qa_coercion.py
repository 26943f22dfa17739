"""A value of the wrong kind is refused, never coerced: a list, a number or a boolean where a
name is text; a boolean or a quoted number where a number goes; a number or a word where a
boolean goes. Each refusal is one line naming the file and the field, exit 2."""

from __future__ import annotations

import pytest

DEVICE = "{x: {device: {iops: 1000, read_latency: 1ms}}}"


def _scenario(clients: str = "{}", volumes: str = DEVICE, job: str = "{rw: randread}", version: str = "1") -> str:
    return f"version: {version}\nclients: {clients}\nvolumes: {volumes}\njobs: [{job}]\n"


CASES = {
    "job name a list": (_scenario(job="{name: [a, b], rw: read}"), "jobs[0].name", "a job name is text, not a list"),
    "job name a mapping": (_scenario(job="{name: {a: 1}, rw: read}"), "jobs[0].name", "is text, not a mapping"),
    "job name a number": (_scenario(job="{name: 7, rw: read}"), "jobs[0].name", "not the number 7; quote it"),
    "job name a boolean": (_scenario(job="{name: yes, rw: read}"), "jobs[0].name", "not a boolean"),
    "job name null": (_scenario(job="{name: null, rw: read}"), "jobs[0].name", "not null"),
    "job name empty": (_scenario(job="{name: '', rw: read}"), "jobs[0].name", "cannot be empty"),
    "volume named on": (_scenario(volumes="{on: {device: {iops: 1000, read_latency: 1ms}}}"), "volumes.True",
                        "a volume name is text, not a boolean"),
    "volume named 1": (_scenario(volumes="{1: {device: {iops: 1000, read_latency: 1ms}}}"), "volumes.1",
                       "not the number 1; quote it"),
    "count true": (_scenario(clients="{count: true}"), "clients.count", "expected a whole number, got the boolean true"),
    "count quoted": (_scenario(clients="{count: '2'}"), "clients.count", "got the text '2' (write it without quotes)"),
    "cpus true": (_scenario(clients="{cpus: true}"), "clients.cpus", "got the boolean true"),
    "vm a number": (_scenario(clients="{vm: 13}"), "clients.vm", "expected a valid string"),
    "large 1": (_scenario(volumes="{s: {service: anf, level: ultra, size: 60TiB, large: 1}}"), "volumes.s.large",
                "expected true or false, got the number 1"),
    "tls yes quoted": (_scenario(volumes="{s: {service: anf, level: ultra, size: 4TiB, tls: 'yes'}}"),
                       "volumes.s.tls", "expected true or false, got the text 'yes'"),
    "nconnect true": (_scenario(volumes="{s: {service: anf, level: ultra, size: 4TiB, nconnect: true}}"),
                      "volumes.s.nconnect", "got the boolean true"),
    "version true": (_scenario(version="true"), "version", "unsupported version True"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_value_of_the_wrong_kind_is_refused(iolab, tmp_path, name):
    text, field, words = CASES[name]
    path = tmp_path / "s.yaml"
    path.write_text(text)
    for command in ("check", "predict"):
        r = iolab(command, str(path))
        assert r.code == 2, (command, r.err)
        assert r.out == ""
        assert r.err.startswith(f"error: {path}: {field}: "), r.err
        assert words in r.err, r.err
        assert r.err.count("\n") == 1 and "Traceback" not in r.err


def test_the_right_kinds_still_load(iolab, tmp_path):
    """Integral floats, quoted names and real booleans are what they say."""
    path = tmp_path / "s.yaml"
    path.write_text(_scenario(clients="{count: 2.0}", job="{name: '7', rw: read, direct: true}",
                              volumes="{'on': {device: {iops: 1000, read_latency: 1ms}}}"))
    r = iolab("check", str(path), "--json")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["clients"]["count"] == 2
    assert [j["name"] for j in doc["jobs"]] == ["7"] and doc["jobs"][0]["volume"] == "on"


def test_a_catalog_id_is_text(iolab, tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("disks:\n  1: {tier: premium, size: 1TiB, iops: 100, bandwidth: 10MB/s, source: x}\n")
    r = iolab("catalog", "list", "disks", "--catalog", str(path))
    assert r.code == 2
    assert r.err == f"error: {path}: disks.1: a catalog id is text, not the number 1; quote it\n"


def test_a_catalog_boolean_is_not_a_number(iolab, tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("vms:\n  Standard_DS13: {premium_storage: 1}\n")
    r = iolab("catalog", "show", "Standard_DS13", "--catalog", str(path))
    assert r.code == 2
    assert r.err.startswith(f"error: {path}: vms.Standard_DS13.premium_storage: expected true or false, got the number 1")


def test_an_empty_list_reads_as_a_person_writes(iolab, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(_scenario(volumes="{x: {disks: []}}"))
    r = iolab("check", str(path))
    assert r.code == 2
    assert r.err == f"error: {path}: volumes.x.disks: expected at least 1 item (got [])\n"
