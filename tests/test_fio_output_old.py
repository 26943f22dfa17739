"""fio outputs of older versions: without ``total_ios`` (fio 2.x) latencies are still
weighted by IOs; ``global options`` given as a list is read."""

from __future__ import annotations

import json

import pytest

from conftest import DATA
from iolab.fio import parse_output

FIO2 = DATA / "fio" / "fio-2.2.10-libaio-randwrite.json"


def _doc():
    text = FIO2.read_text()
    return json.loads(text[text.index("{"):])


def _strip_total_ios(node):
    if isinstance(node, dict):
        node.pop("total_ios", None)
        for v in node.values():
            _strip_total_ios(v)
    elif isinstance(node, list):
        for v in node:
            _strip_total_ios(v)


def test_without_total_ios_latency_is_weighted_by_ios():
    doc = _doc()
    fast = doc["jobs"][0]
    slow = json.loads(json.dumps(fast))
    slow["jobname"] = "slow"
    w_fast, w_slow = fast["write"], slow["write"]
    w_fast["iops"], w_fast["runtime"] = 3000.0, 1000  # 3000 IOs in 1 s
    w_slow["iops"], w_slow["runtime"] = 1000.0, 1000  # 1000 IOs in 1 s
    for block, mean in ((w_fast, 100.0), (w_slow, 900.0)):  # microseconds in fio 2.x
        for key in ("clat", "lat"):
            block[key].update(mean=mean, min=mean / 2, max=mean * 2)  # a mean within its min and max
            block[key].pop("N", None)
    doc["jobs"] = [fast, slow]
    _strip_total_ios(doc)
    result = parse_output(json.dumps(doc))
    assert [j.write.total_ios for j in result.jobs] == [3000, 1000]
    # IO-weighted: (3000 × 100 µs + 1000 × 900 µs) / 4000 = 300 µs (not the plain 500 µs)
    assert result.total().latency.mean == pytest.approx(300e-6)


def test_without_total_ios_the_latency_samples_count_the_ios():
    doc = _doc()
    _strip_total_ios(doc)
    write = doc["jobs"][0]["write"]
    write["clat"]["N"] = 12345
    assert parse_output(json.dumps(doc)).jobs[0].write.total_ios == 12345


@pytest.mark.parametrize("options,expect", [
    ([{"name": "ioengine", "value": "libaio"}, {"name": "direct", "value": "1"}], {"ioengine": "libaio", "direct": "1"}),
    ([{"ioengine": "libaio"}, {"bs": "4k"}], {"ioengine": "libaio", "bs": "4k"}),
    ({"ioengine": "libaio"}, {"ioengine": "libaio"}),
])
def test_global_options_as_a_list(options, expect):
    doc = _doc()
    doc["global options"] = options
    assert dict(parse_output(json.dumps(doc)).global_options) == expect


def test_global_options_of_another_type_is_a_clean_error():
    doc = _doc()
    doc["global options"] = "libaio"
    from iolab.errors import SchemaError

    with pytest.raises(SchemaError, match="global options"):
        parse_output(json.dumps(doc))
