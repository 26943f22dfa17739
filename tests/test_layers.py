"""The layers a check enforces: every import in the package (at module level or inside a
function; those under ``if TYPE_CHECKING:`` do not run and are left out) goes down the
floors or stays on its own floor, the packages import one another without cycles, and no
private name (``_name``) is imported from another package.

Floors, highest first (docs/architecture.md):

1. interfaces: ``cli``, ``report``, ``web``
2. the application layer: ``service``
3. jobs: ``plan``, ``bench``, ``telemetry``, ``calibrate``, ``doctor``
4. the spine: ``compile``, ``prediction``, ``phases``, ``bottleneck``, ``sim_reading``, ``input_warnings``
5. inputs: ``scenario``, ``catalog``, ``fio``
6. engines: ``analytic``, ``sim`` (and its compiled core ``_sim``)
7. foundations: ``network``, ``units``, ``errors``, ``schema``, ``inputs``, ``outputs``,
   ``filekind``, ``plot``, ``articles``, and the package's own ``__init__``
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "iolab"

FLOORS: dict[str, int] = {
    **dict.fromkeys(("cli", "report", "web", "__main__"), 1),
    "service": 2,
    **dict.fromkeys(("plan", "bench", "telemetry", "calibrate", "doctor"), 3),
    **dict.fromkeys(("compile", "prediction", "phases", "bottleneck", "sim_reading", "input_warnings"), 4),
    **dict.fromkeys(("scenario", "catalog", "fio"), 5),
    **dict.fromkeys(("analytic", "sim", "_sim"), 6),
    **dict.fromkeys(("network", "units", "errors", "schema", "inputs", "outputs", "filekind", "plot", "articles",
                     "iolab"), 7),
}


def _units() -> list[str]:
    """The package's top-level modules and subpackages (``cli``, ``units``, ...)."""
    out = []
    for p in PACKAGE.iterdir():
        if p.is_dir() and (p / "__init__.py").exists():
            out.append(p.name)
        elif p.suffix == ".py" and p.name != "__init__.py":
            out.append(p.stem)
        elif p.name.startswith("_sim.") and p.suffix in (".so", ".pyd", ".pyi"):
            out.append("_sim")
    return sorted(set(out))


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "iolab"


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST):
    """Every import node that runs (not under ``if TYPE_CHECKING:``)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _type_checking(node):
            yield from (n for branch in node.orelse for n in _imports(branch))
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        yield from _imports(node)


def _edges() -> list[tuple[str, str, str, int, list[str]]]:
    """(importing module, imported module, file, line, names) for every iolab import."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        module = ".".join(parts)
        package = parts if is_pkg else parts[:-1]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package[:len(package) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module or ""
                names = [a.name for a in node.names]
                if target == "iolab" and names and all((PACKAGE / n).exists() or n == "_sim" or
                                                      (PACKAGE / f"{n}.py").exists() for n in names):
                    for n in names:  # `from . import _sim`: a module, not a name
                        out.append((module, f"iolab.{n}", str(path.relative_to(PACKAGE.parent)), node.lineno, []))
                    continue
                if target.startswith("iolab"):
                    out.append((module, target, str(path.relative_to(PACKAGE.parent)), node.lineno, names))
            else:
                out += [(module, a.name, str(path.relative_to(PACKAGE.parent)), node.lineno, [])
                        for a in node.names if a.name.startswith("iolab")]
    return out


EDGES = _edges()


def test_every_unit_has_a_floor():
    missing = [u for u in _units() if u not in FLOORS]
    assert not missing, f"give these a floor in FLOORS and docs/architecture.md: {missing}"


def test_imports_go_down_the_floors():
    up = [f"{file}:{line}: {_unit(src)} (floor {FLOORS[_unit(src)]}) imports {dst} (floor {FLOORS[_unit(dst)]})"
          for src, dst, file, line, _ in EDGES
          if _unit(src) in FLOORS and _unit(dst) in FLOORS and FLOORS[_unit(dst)] < FLOORS[_unit(src)]]
    assert not up, "\n".join(up)


def test_no_cycles_between_units():
    graph: dict[str, set[str]] = defaultdict(set)
    for src, dst, *_ in EDGES:
        if _unit(src) != _unit(dst):
            graph[_unit(src)].add(_unit(dst))
    cycles = []

    def visit(node: str, path: list[str], on: set[str], done: set[str]) -> None:
        for nxt in sorted(graph[node]):
            if nxt in on:
                cycles.append(" → ".join(path[path.index(nxt):] + [nxt]))
            elif nxt not in done:
                on.add(nxt)
                visit(nxt, path + [nxt], on, done)
                on.discard(nxt)
                done.add(nxt)

    done: set[str] = set()
    for start in sorted(graph):
        if start not in done:
            visit(start, [start], {start}, done)
            done.add(start)
    assert not cycles, "\n".join(cycles)


def test_no_private_name_crosses_units():
    crossing = [f"{file}:{line}: {', '.join(n for n in names if n.startswith('_') and not n.startswith('__'))} "
                f"from {dst}"
                for src, dst, file, line, names in EDGES
                if _unit(src) != _unit(dst) and any(n.startswith("_") and not n.startswith("__") for n in names)]
    assert not crossing, "\n".join(crossing)


@pytest.mark.parametrize("broken, found", [
    ("from .cli.common import console\n", "imports iolab.cli.common"),
])
def test_the_check_finds_an_import_up_a_floor(tmp_path, monkeypatch, broken, found):
    """The check itself: a units module importing the CLI is reported."""
    copy = tmp_path / "iolab"
    (copy / "cli").mkdir(parents=True)
    (copy / "__init__.py").write_text("")
    (copy / "cli" / "__init__.py").write_text("")
    (copy / "cli" / "common.py").write_text("console = None\n")
    (copy / "units.py").write_text(broken)
    monkeypatch.setattr(__import__(__name__), "PACKAGE", copy)
    edges = _edges()
    up = [(s, d) for s, d, *_ in edges if FLOORS[_unit(d)] < FLOORS[_unit(s)]]
    assert up and found.split()[-1] in up[0][1]


# -- the simulator crate -------------------------------------------------------------------------

CRATE = PACKAGE.parent.parent / "rust" / "src"

#: the crate's modules, lowest first: a module uses only modules before it (the crate root,
#: lib.rs, and the Python bindings sit on top)
RUST_ORDER = ("error", "time", "index", "rng", "histogram", "input", "defs", "route", "program", "control",
              "cap", "cache", "slots", "load", "series", "queue", "engine", "report", "bindings", "lib")

_RUST_USE = re.compile(r"\bcrate::(?:\{([^}]*)\}|([a-z_]+))")


def _rust_code(text: str) -> str:
    """The crate file's code: comments, doc comments and the `#[cfg(test)] mod tests` block left out."""
    text = re.sub(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", "", text, flags=re.S)
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


def test_every_crate_module_has_a_place():
    modules = sorted(p.stem for p in CRATE.glob("*.rs"))
    assert sorted(RUST_ORDER) == modules


def _rust_wrong(crate: Path) -> list[str]:
    rank = {m: i for i, m in enumerate(RUST_ORDER)}
    wrong = []
    for path in sorted(crate.glob("*.rs")):
        me = path.stem
        for m in _RUST_USE.finditer(_rust_code(path.read_text(encoding="utf-8"))):
            names = [n.strip().split("::")[0] for n in (m.group(1) or m.group(2)).split(",") if n.strip()]
            for name in names:
                if name in rank and me in rank and rank[name] >= rank[me] and me != "lib":
                    wrong.append(f"rust/src/{path.name}: {me} uses {name}")
    return wrong


def test_the_crate_modules_use_one_another_in_one_direction():
    wrong = _rust_wrong(CRATE)
    assert not wrong, "\n".join(wrong)


def test_the_crate_check_finds_a_use_up_the_chain(tmp_path):
    (tmp_path / "cap.rs").write_text("use crate::defs::CapDef;\n// crate::engine in a comment\n"
                                     "fn f() -> u64 { crate::engine::nearest(1.0) }\n")
    assert _rust_wrong(tmp_path) == ["rust/src/cap.rs: cap uses engine"]


# -- the code map ---------------------------------------------------------------------------------

MAP = PACKAGE.parent.parent / "docs" / "architecture.md"


def _mapped() -> dict[str, int]:
    """Each package docs/architecture.md names, with its floor."""
    out = {}
    for line in MAP.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\| (\d) [a-z]+ \| `([^`]+)` \|", line)
        if m:
            name = m.group(2).removesuffix("/").removesuffix(".py")
            out[name] = int(m.group(1))
    return out


def test_the_code_map_names_every_package_and_only_those():
    mapped = _mapped()
    units = [u for u in _units() if u != "iolab"]
    assert sorted(mapped) == sorted(units), (sorted(set(units) - set(mapped)), sorted(set(mapped) - set(units)))


def test_the_code_map_gives_each_package_its_floor():
    assert {name: floor for name, floor in _mapped().items()} == {name: FLOORS[name] for name in _mapped()}
