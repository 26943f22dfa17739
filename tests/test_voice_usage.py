"""One error format: usage errors are one `error: ...` line (exit 2), `-h` is `--help`, a
command group alone prints its help (exit 0), bounds in a person's words, nearest SKUs."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES


@pytest.mark.parametrize("command, field", [
    ("catalog list vm", "SECTION"),
    ("results show abc", "ID"),
    ("plan --top 0 x.yaml", "--top"),
    ("predict", "SCENARIO"),
    ("predict --no-such-option x.yaml", "--no-such-option"),
    ("results show 1 2", None),
    ("nosuchcommand", None),
])
def test_usage_errors_are_one_line_and_exit_2(iolab, command, field):
    r = iolab(command)
    assert r.code == 2
    assert r.out == ""
    assert r.err.startswith("error: ") and r.err.count("\n") == 1, r.err
    assert "Usage:" not in r.err and "Try '" not in r.err and "╭" not in r.err
    assert "--help" in r.err  # where to look next
    if field:
        assert field in r.err


def test_catalog_section_error_names_the_sections(iolab):
    r = iolab("catalog list vm")
    assert "vms" in r.err and "Value error" not in r.err


def test_non_integer_id_says_whole_number(iolab):
    assert "whole number" in iolab("results show abc").err


@pytest.mark.parametrize("argv", ["-h", "predict -h", "results export -h", "bench run -h"])
def test_dash_h_is_help(iolab, argv):
    long = iolab(argv.replace("-h", "--help"))
    short = iolab(argv)
    assert short.code == 0 == long.code
    assert short.out == long.out and short.out.startswith("Usage: iolab")


@pytest.mark.parametrize("group", ["", "catalog", "results", "bench"])
def test_a_group_alone_prints_its_help_and_exits_0(iolab, group):
    r = iolab(*group.split())
    assert r.code == 0, r.err
    assert r.out.startswith(f"Usage: iolab {group}".rstrip()) and "Commands:" in r.out
    assert r.err == ""


@pytest.mark.parametrize("option, words", [
    ("--ios 0", "--ios: must be at least 1"),
    ("--ios 99999999999999999999999", "--ios: must be at most 1,000,000,000,000"),
    ("--interval 0", "--interval: must be longer than 0 s"),
    ("--duration 0", "--duration: must be longer than 0 s"),
    ("--replications 0", "--replications: must be at least 1"),
    ("--seed 99999999999999999999999", "--seed: must be at most"),
])
def test_simulate_bounds_in_a_persons_words(iolab, option, words):
    r = iolab(f"simulate {EXAMPLES / 'oltp-ds13-p30.yaml'} {option}")
    assert r.code == 2
    assert r.err.startswith(f"error: {words}"), r.err
    assert r.err.count("\n") == 1
    assert "9223372036854775807" not in r.err and "18446744073709551615" not in r.err


def test_a_plan_with_an_unknown_sku_suggests_the_nearest(iolab, tmp_path):
    text = (EXAMPLES / "oltp-requirements.yaml").read_text()
    req = tmp_path / "req.yaml"
    req.write_text(text.replace("skus: [P10, P20, P30]", "skus: [P99]"))
    scen = tmp_path / "scenario.yaml"
    scen.write_text((EXAMPLES / "oltp-ds13-p30.yaml").read_text().replace("sku: P30", "sku: P99"))
    for r in (iolab("plan", str(req)), iolab("predict", str(scen))):
        assert r.code == 2
        assert "unknown disk SKU 'P99'; nearest: P80" in r.err, r.err


def test_nearest_works_within_a_family_by_number():
    from iolab.errors import nearest

    assert nearest("P99", ["P10", "P80", "P70", "E80"]) == ["P80", "P70", "P10"]
    assert nearest("Standard_D3s_v5", ["Standard_D2s_v5", "Standard_D4s_v5", "Standard_D64s_v5"])[:2] == \
        ["Standard_D2s_v5", "Standard_D4s_v5"]
    assert nearest("premium", ["anf-premium", "anf-ultra"]) == ["anf-premium"]


def test_a_misspelt_option_or_command_names_the_right_one(iolab):
    assert iolab("predict x.yaml --jsn").err == \
        "error: no such option: --jsn; did you mean --json? (see 'iolab predict --help')\n"
    r = iolab("predcit x.yaml")
    assert r.code == 2 and "did you mean 'predict'?" in r.err and r.err.count("\n") == 1


def test_a_command_declared_without_the_command_class_is_named_at_build():
    """Usage lines, refusals of repeats and -h come from iolab's command classes: a command
    declared without them is refused when the command line is built, by name."""
    import typer

    from iolab.cli.command_line import CONTEXT, Command, Group, build

    app = typer.Typer(cls=Group, context_settings=CONTEXT)
    app.command("good", cls=Command)(lambda: None)
    app.command("plain")(lambda: None)
    with pytest.raises(TypeError, match="command 'plain' is a TyperCommand: declare it with cls=Command"):
        build(app)
