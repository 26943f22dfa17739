"""Units: parse of a printed value round-trips; every malformed string raises UnitError."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iolab.errors import InputError, UnitError
from iolab.units import (format_duration, format_rate, format_size, parse_duration, parse_ops_rate, parse_rate,
                         parse_size)


@pytest.mark.parametrize("text,value", [
    ("4096", 4096), ("4k", 4096), ("4K", 4096), ("4KiB", 4096), ("4KB", 4000), ("4kB", 4000),
    ("1m", 2**20), ("1MB", 10**6), ("1.5GiB", 3 * 2**29), ("30g", 30 * 2**30), ("8TiB", 8 * 2**40),
    ("8TB", 8 * 10**12), ("2 GiB", 2 * 2**30), (512, 512),
])
def test_sizes(text, value):
    assert parse_size(text) == value


@pytest.mark.parametrize("text,value", [
    ("200MB/s", 200e6), ("200MBps", 200e6), ("200MiB/s", 200 * 2**20), ("200MiBps", 200 * 2**20),
    ("4.5GiB/s", 4.5 * 2**30), ("12500Mbit/s", 12500e6 / 8), ("12500Mbps", 12500e6 / 8), ("1000", 1000.0),
])
def test_rates(text, value):
    assert parse_rate(text) == pytest.approx(value)


@pytest.mark.parametrize("text,value", [("5000", 5000), ("5000/s", 5000), ("5000iops", 5000), ("5k", 5000)])
def test_ops_rates(text, value):
    assert parse_ops_rate(text) == value


@pytest.mark.parametrize("text,value", [("30", 30), ("500ms", 0.5), ("250us", 250e-6), ("2m", 120), ("1h", 3600)])
def test_durations(text, value):
    assert parse_duration(text) == pytest.approx(value)


MALFORMED = ["", "abc", "4x", "4 k b", "-4k", "k", "4KiBB", "1e400", "nan", "inf", "4..5k", "4k/s/s", "0x10",
             "Mbit/s", "\x00\x01", "4 bananas", "--5", "1,000"]


@pytest.mark.parametrize("text", MALFORMED)
@pytest.mark.parametrize("parse", [parse_size, parse_rate, parse_duration, parse_ops_rate])
def test_malformed_strings_raise_unit_error(parse, text):
    with pytest.raises(UnitError) as e:
        parse(text)
    assert isinstance(e.value, InputError) and isinstance(e.value, ValueError)
    assert e.value.exit_code == 2


@pytest.mark.parametrize("value", [None, True, [], {}, object()])
def test_non_strings_raise_unit_error(value):
    with pytest.raises(UnitError):
        parse_size(value)


@settings(max_examples=300)
@given(st.integers(min_value=0, max_value=2**60))
def test_size_round_trip(n):
    # printed with thousands separators (1,000 MiB), which input does not take
    assert parse_size(format_size(n).replace(" ", "").replace(",", "")) == pytest.approx(n, rel=1e-3, abs=0.5)


@settings(max_examples=300)
@given(st.floats(min_value=0, max_value=1e13, allow_nan=False), st.booleans())
def test_rate_round_trip(bps, binary):
    assert parse_rate(format_rate(bps, binary=binary).replace(" ", "").replace(",", "")) == pytest.approx(
        bps, rel=1e-3, abs=1e-9)


@settings(max_examples=300)
@given(st.floats(min_value=1e-9, max_value=1e6, allow_nan=False))
def test_duration_round_trip(seconds):
    assert parse_duration(format_duration(seconds).replace(" ", "").replace(",", "")) == pytest.approx(seconds,
                                                                                                     rel=1e-3)


@given(st.text(alphabet=st.characters(blacklist_categories=("Nd",)), min_size=1, max_size=12))
def test_strings_without_digits_never_parse(text):
    with pytest.raises(UnitError):
        parse_size(text)
