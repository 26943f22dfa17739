"""Explanations that hold: the rate limit named as the bottleneck, articles, replications
counted as a person counts them."""

from __future__ import annotations

import pytest

from conftest import DATA, EXAMPLES

RATE = DATA / "scenarios" / "rate-limited.yaml"


@pytest.mark.parametrize("command", ["predict", "simulate --ios 20000"])
def test_with_rate_iops_the_bottleneck_is_the_rate(iolab, command):
    name, *rest = command.split()
    out = iolab(name, str(RATE), *rest).out
    line = next(ln for ln in out.splitlines() if ln.startswith("Bottleneck:"))
    assert "rate limit (fio's rate_iops or rate)" in line and "job oltp at 4,000 IOPS" in line  # 4 jobs × 1,000
    assert "too few IOs" not in line


def test_rate_limited_prediction_is_the_rate(iolab):
    doc = iolab(f"predict {RATE} --json").json()
    assert doc["iops"] == pytest.approx(4000, rel=0.001)
    out = iolab(f"predict {RATE}").out
    assert "Knee: without the rate limit" in out


def test_without_a_rate_limit_too_few_ios_is_still_said(iolab, tmp_path):
    free = tmp_path / "free.yaml"
    free.write_text(RATE.read_text().replace(", rate_iops: 1000", ""))
    line = next(ln for ln in iolab(f"predict {free}").out.splitlines() if ln.startswith("Bottleneck:"))
    assert "too few IOs in flight (32)" in line


@pytest.mark.parametrize("noun, expected", [
    ("anf-ultra volume", "an anf-ultra volume"), ("P30", "a P30"), ("E10", "an E10"), ("S4", "an S4"),
    ("8 TiB", "an 8 TiB"), ("11 TiB", "an 11 TiB"), ("4 TiB", "a 4 TiB"), ("ultra", "an ultra"),
    ("premium-v2", "a premium-v2"), ("unified", "a unified"), ("NFS", "an NFS"), ("100 TiB", "a 100 TiB"),
])
def test_articles(noun, expected):
    from iolab.articles import a

    assert a(noun) == expected


def test_a_rule_message_uses_the_right_article(iolab, tmp_path):
    small = tmp_path / "small.yaml"
    small.write_text((EXAMPLES / "oracle-anf-knfs.yaml").read_text().replace("size: 16TiB", "size: 10GiB"))
    r = iolab("predict", str(small))
    assert r.code == 2
    assert "an anf-ultra volume is 50 GiB to 100 TiB" in r.err and "a anf" not in r.err


def test_replications_are_counted_as_a_person_counts_them(iolab):
    out = iolab(f"simulate {EXAMPLES / 'oltp-ds13-p30.yaml'} --ios 20000 --replications 4").out
    head = " ".join(out.split("┏")[0].split())  # the heading, however the terminal wrapped it
    assert "4 replications of 20,000 IOs (80,000 in all)" in head and "seed 1" in head
    single = " ".join(iolab(f"simulate {EXAMPLES / 'oltp-ds13-p30.yaml'} --ios 20000").out.split("┏")[0].split())
    assert "20,000 IOs over" in single and "replications" not in single


def test_check_prints_device_iops_in_a_persons_units(iolab):
    out = iolab(f"check {EXAMPLES / 'local-nvme.yaml'}").out
    line = next(ln for ln in out.splitlines() if ln.startswith("volume "))
    assert "IOPS" in line and ".0 IOPS" not in line and "," in line.split("IOPS")[0]
