"""``${VAR}`` in a fio option: iolab never reads the environment. Where iolab reads the value
(the model's options, the job's files) it is an error naming the option; elsewhere (an
engine's credentials, a host name) it is kept as written, so the job still predicts. A
benchmark refuses any such value without --destructive (exit 3, nothing touched): fio would
expand it when it runs, and iolab cannot tell what it becomes."""

from __future__ import annotations

import pytest

from conftest import DATA
from iolab.errors import SchemaError
from iolab.fio import parse_cmdline, parse_jobfile


def test_a_variable_in_an_option_iolab_does_not_read_is_kept():
    (job,) = parse_jobfile("[j]\nrw=write\nioengine=http\nhttp_s3_key=${S3_KEY}\n", source="s3.fio")
    assert job.options["http_s3_key"] == "${S3_KEY}" and "http_s3_key" in job.ignored
    (job,) = parse_cmdline("fio --name=j --rw=read --ioengine=nbd --uri=${uri}")
    assert job.options["uri"] == "${uri}"


@pytest.mark.parametrize("text, field", [("[j]\nbs=${FIO_BS}\n", "[j].bs"),
                                         ("[j]\nrw=${FIO_RW}\n", "[j].rw"),
                                         ("[j]\ndirectory=${FIO_DIR}\n", "[j].directory"),
                                         ("[j]\nfilename=$DEV\n", "[j].filename")])
def test_a_variable_where_iolab_reads_the_value_is_refused(text, field):
    with pytest.raises(SchemaError) as e:
        parse_jobfile(text, source="env.fio")
    assert e.value.field == field and "from its environment; iolab does not read the environment" in str(e.value)


def test_fios_example_with_credentials_predicts(iolab, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("version: 1\nvolumes: {d: {device: {iops: 1000, read_latency: 1ms}}}\n"
                    f"jobs: [{{fio_file: {DATA / 'fio-examples' / 'http-s3.fio'}, volume: d}}]\n")
    r = iolab("predict", str(path), "--json")
    assert r.code == 0, r.err
    assert r.json()["iops"] > 0


@pytest.mark.parametrize("option", ["filename_format=${WHERE}/f", "description=${WHO}"])
def test_bench_refuses_what_fio_would_expand(iolab, tmp_path, option):
    target = tmp_path / "target"
    target.mkdir()
    jobfile = tmp_path / "env.fio"
    jobfile.write_text(f"[j]\nrw=read\nsize=1m\nioengine=psync\n{option}\n")
    r = iolab("bench", "run", str(jobfile), "--target", str(target), "--runtime", "1s", "--db", str(tmp_path / "r.db"))
    assert r.code == 3, r.err
    assert "which fio would expand from its environment when it runs: iolab cannot tell what it becomes" in r.err
    assert list(target.iterdir()) == []
