"""Reading input files into typed models, with errors that name the file and the field.

Every loader of user files (catalog, scenario, requirements) goes through the same three
steps, all of them here and none of them specific to one file format:

1. :func:`load_yaml` (or :func:`parse_yaml` for text already in memory) reads YAML and
   raises :class:`~iolab.errors.SchemaError` naming the file for anything that is not a
   YAML document: a missing or unreadable file, binary or non-UTF-8 content, an empty
   file, a syntax error (with its line and column) or a key given twice in one mapping.
2. :func:`validate` turns plain data into a pydantic model. A pydantic ``ValidationError``
   becomes one :class:`~iolab.errors.SchemaError` located by ``file=`` and a dotted field
   path (``volumes.data.disks[0].sku``), prefixed by ``root_field`` when the data is
   part of a larger document. An unknown field names the nearest valid field
   (``unknown field 'uncached_iop'; did you mean 'uncached_iops'?``). Any other
   :class:`~iolab.errors.InputError` raised by a model's own validator (a
   :class:`~iolab.errors.RuleViolation`, say) is located the same way.
3. Field types with units parse unit strings once, at validation: :data:`Size` (bytes),
   :data:`Rate` (bytes/s), :data:`Ops` (ops/s), :data:`Duration` (seconds), each with a
   ``Positive`` variant that refuses zero, plus :data:`Fraction` (0..1). Numbers are
   accepted as base units. :func:`unit_of` tells which unit a model field carries, so
   that output code can print it back (``format_size`` and friends).

:class:`FrozenModel` is the base for input models: immutable, unknown fields refused.

Example::

    class Disk(FrozenModel):
        size: PositiveSize
        iops: PositiveOps

    data = load_yaml("disks.yaml")                      # SchemaError: "disks.yaml: ..."
    disk = validate(Disk, data["P30"], file="disks.yaml", root_field="disks.P30")
    # SchemaError "disks.yaml: disks.P30.iops: must be greater than 0 (got 0)"
"""


import re
import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, Union

import yaml
from annotated_types import Ge, Gt, Le
from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, ValidationInfo, field_validator

from .errors import InputError, SchemaError, nearest
from .inputs import SAFE_LOADER, check_yaml, read_bytes
from .units import parse_duration, parse_ops_rate, parse_rate, parse_size

__all__ = [
    "FrozenModel",
    "load_yaml",
    "parse_yaml",
    "validate",
    "schema_error",
    "field_path",
    "UnitKind",
    "unit_of",
    "Size",
    "PositiveSize",
    "Rate",
    "PositiveRate",
    "Ops",
    "PositiveOps",
    "Duration",
    "PositiveDuration",
    "Fraction",
    "top_level",
    "relative_files",
    "name_text",
    "new_list",
    "new_dict",
]

M = TypeVar("M", bound=BaseModel)


# A field's default factory, as Python functions: pydantic reads a factory's signature, and
# reading a builtin's (``list``, ``dict``) starts Python's tokenizer, ~20 ms in every command.
def new_list() -> list:
    """An empty list (a default factory)."""
    return []


def new_dict() -> dict:
    """An empty dict (a default factory)."""
    return {}


class FrozenModel(BaseModel):
    """Base of input models: immutable, an unknown field is an error, and a value is never
    coerced across kinds (see :func:`plain_value`): ``count: true`` or ``tls: 'yes'`` is refused."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    @field_validator("*", mode="before")
    @classmethod
    def _plain(cls, value: Any, info: ValidationInfo) -> Any:
        return plain_value(cls, info.field_name, value)


def _plain_kinds(model_cls: type[BaseModel], name: str | None) -> frozenset[type]:
    """The plain scalar types (bool, int, float, str) a field takes, or none when it parses
    its own input (a unit field, a custom validator) or takes anything else as well."""
    info = model_cls.model_fields.get(name or "")
    if info is None or any(isinstance(m, (UnitKind, BeforeValidator)) for m in info.metadata):
        return frozenset()
    kinds: set[type] = set()
    for member in _flatten(info.annotation):
        if typing.get_origin(member) is Annotated:
            if any(isinstance(m, (UnitKind, BeforeValidator)) for m in typing.get_args(member)[1:]):
                return frozenset()
            continue
        if member is type(None):
            continue
        if member not in (bool, int, float, str):
            return frozenset()
        kinds.add(member)
    return frozenset(kinds)


def plain_value(model_cls: type[BaseModel], name: str | None, value: Any) -> Any:
    """`value` unchanged unless pydantic would coerce it across kinds; then ValueError (a
    located SchemaError once validated): a boolean for a number (``count: true``), a number
    or a word for a boolean (``tls: 1``, ``large: 'yes'``), a quoted number for a number
    (``count: "2"``). Values pydantic refuses anyway keep its own message."""
    kinds = _plain_kinds(model_cls, name)
    if not kinds or value is None:
        return value
    if isinstance(value, bool):
        if bool not in kinds:
            raise ValueError(f"expected {_kind_words(kinds)}, got the boolean {str(value).lower()}")
    elif isinstance(value, (int, float)):
        if bool in kinds and not kinds & {int, float}:
            raise ValueError(f"expected true or false, got the number {value!r}")
    elif isinstance(value, str) and str not in kinds:
        if kinds & {int, float} and _NUMBER_TEXT.match(value):
            raise ValueError(f"expected {_kind_words(kinds)}, got the text {value!r} (write it without quotes)")
        if bool in kinds and value.strip().lower() in _BOOL_WORDS:
            raise ValueError(f"expected true or false, got the text {value!r} (write true or false without quotes)")
    return value


#: the texts pydantic would read as booleans
_BOOL_WORDS = frozenset({"0", "1", "off", "on", "f", "t", "false", "true", "n", "y", "no", "yes"})
_NUMBER_TEXT = re.compile(r"^\s*[+-]?(\d[\d_]*\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$")


def _kind_words(kinds: frozenset[type]) -> str:
    words = {bool: "true or false", int: "a whole number", float: "a number", str: "text"}
    if float in kinds:
        kinds = kinds - {int}
    return " or ".join(words[k] for k in (bool, int, float, str) if k in kinds)


# --------------------------------------------------------------------------- units


class UnitKind:
    """Marks a field type with its unit: ``"size"``, ``"rate"``, ``"ops"`` or ``"duration"``."""

    __slots__ = ("kind",)

    def __init__(self, kind: Literal["size", "rate", "ops", "duration"]):
        self.kind = kind

    def __repr__(self) -> str:
        return f"UnitKind({self.kind!r})"


# Ranges: no real storage path comes near these bounds, and values past them only make the
# model's arithmetic overflow or its simulation run forever.
#: the largest size (1 ZiB), rate (1 PB/s), operation rate (10^12/s) and duration (a year).
MAX_SIZE, MAX_RATE, MAX_OPS, MAX_DURATION = 2**70, 1e15, 1e12, 366 * 86400.0
#: the smallest positive rate (1 byte/s), operation rate (one per 1000 s) and duration (1 ns).
MIN_RATE, MIN_OPS, MIN_DURATION = 1.0, 1e-3, 1e-9

Size = Annotated[int, BeforeValidator(parse_size), UnitKind("size"), Le(MAX_SIZE)]
"""Bytes, from ``4096``, ``4k``, ``4KiB``, ``4KB``, ``288GiB``; negative refused."""
PositiveSize = Annotated[Size, Gt(0)]
Rate = Annotated[float, BeforeValidator(parse_rate), UnitKind("rate"), Le(MAX_RATE)]
"""Bytes/s, from ``200MB/s``, ``128MiB/s``, ``4000Mbit/s`` or a number of bytes/s."""
PositiveRate = Annotated[Rate, Gt(0), Ge(MIN_RATE)]
Ops = Annotated[float, BeforeValidator(parse_ops_rate), UnitKind("ops"), Le(MAX_OPS)]
"""Operations/s, from ``5000``, ``5000/s``, ``5k``."""
PositiveOps = Annotated[Ops, Gt(0), Ge(MIN_OPS)]
Duration = Annotated[float, BeforeValidator(parse_duration), UnitKind("duration"), Le(MAX_DURATION)]
"""Seconds, from ``30``, ``500ms``, ``250us``, ``2m``."""
PositiveDuration = Annotated[Duration, Gt(0), Ge(MIN_DURATION)]
Fraction = Annotated[float, Ge(0), Le(1)]
"""A share between 0 and 1 inclusive."""


def unit_of(model_cls: type[BaseModel], field: str) -> str | None:
    """The unit kind (``"size"``, ``"rate"``, ``"ops"``, ``"duration"``) of a model field, or None."""
    info = model_cls.model_fields.get(field)
    if info is None:
        return None
    for meta in info.metadata:
        if isinstance(meta, UnitKind):
            return meta.kind
    for arg in _flatten(info.annotation):
        for meta in getattr(arg, "__metadata__", ()):
            if isinstance(meta, UnitKind):
                return meta.kind
    return None


# --------------------------------------------------------------------------- YAML


class _Loader(SAFE_LOADER):  # type: ignore[misc,valid-type]
    """Safe YAML loader that refuses a key given twice in one mapping."""


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    loader.flatten_mapping(node)
    seen: dict[Any, yaml.Node] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, "a mapping key must be a plain value", key_node.start_mark) from None
        if key in seen:
            raise yaml.constructor.ConstructorError(
                f"key {key!r} first given at line {seen[key].start_mark.line + 1}", None,
                f"duplicate key {key!r}", key_node.start_mark)
        seen[key] = key_node
    return loader.construct_mapping(node, deep=deep)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_yaml(path: str | Path) -> Any:
    """Read one YAML document from ``path`` and return its plain data.

    Errors (all :class:`SchemaError` with ``file`` set to ``path`` as given): the file is
    missing, not a regular file (a directory, ``/dev/zero``, a FIFO), too large or
    unreadable (:mod:`iolab.inputs`); it nests too deeply, its aliases expand too far or it
    holds an over-long integer; its content is binary or not UTF-8; it is empty
    (or only comments); it has a syntax error (the message gives line and column) or a
    mapping with a duplicate key.
    """
    name = str(path)
    try:
        data = read_bytes(path)
    except InputError as e:
        raise SchemaError(e.message, file=e.file) from None
    return parse_yaml(data, file=name)


def parse_yaml(content: str | bytes, *, file: str | None = None) -> Any:
    """Parse YAML text (or bytes, decoded as UTF-8) into plain data; errors as :func:`load_yaml`."""
    if isinstance(content, bytes):
        if b"\x00" in content:
            raise SchemaError("binary content, not a YAML text file", file=file)
        try:
            text = content.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise SchemaError(
                f"not UTF-8 text (byte 0x{content[e.start]:02x} at offset {e.start}); expected a YAML text file",
                file=file) from None
    else:
        text = content
    try:
        check_yaml(text, file=file)
    except InputError as e:
        raise SchemaError(e.message, file=file) from None
    try:
        data = yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader
    except yaml.MarkedYAMLError as e:
        raise SchemaError(_yaml_message(e), file=file) from None
    except yaml.reader.ReaderError as e:  # a character YAML does not allow
        line = text.count("\n", 0, e.position) + 1
        char = ord(e.character) if isinstance(e.character, str) else int(e.character)
        raise SchemaError(f"not a YAML text file: {e.reason} (#x{char:04x} at line {line})", file=file) from None
    except yaml.YAMLError as e:
        raise SchemaError(f"not a YAML text file ({e})", file=file) from None
    if data is None:
        raise SchemaError("the file is empty; expected a YAML mapping", file=file)
    return data


def _yaml_message(e: yaml.MarkedYAMLError) -> str:
    mark = e.problem_mark or e.context_mark
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    problem = e.problem or "invalid YAML"
    context = f" ({e.context})" if e.context else ""
    return f"YAML syntax error{where}: {problem}{context}"


# --------------------------------------------------------------------------- validation


def validate(model_cls: type[M], data: Any, *, file: str | None = None, root_field: str | None = None) -> M:
    """Validate ``data`` into ``model_cls``; raise a located :class:`SchemaError` if it does not fit.

    ``file`` names the input file (as the user gave it); ``root_field`` is the dotted path
    of ``data`` inside that file (``"vms.Standard_DS13"``), prefixed to every field path.
    The first problem is reported (an unknown field before anything else, since a typo
    also makes a required field look missing), followed by how many more there are.
    A validator of the model should raise ``ValueError`` (pydantic then knows the field)
    or an :class:`InputError` whose ``field`` is relative to ``data``; the latter passes
    through pydantic untouched and is located under ``root_field`` and ``file`` here.
    """
    try:
        return model_cls.model_validate(data)
    except ValidationError as e:
        raise schema_error(e, model_cls, file=file, root_field=root_field) from None
    except InputError as e:
        raise e.located(file=file, field=root_field) from None


def schema_error(error: ValidationError, model_cls: type[BaseModel] | None = None, *,
                 file: str | None = None, root_field: str | None = None) -> SchemaError:
    """Convert a pydantic ``ValidationError`` into one located :class:`SchemaError`.

    ``model_cls`` (the validated class) lets an unknown field be matched against the
    valid names at its place in the document; without it no suggestion is made.
    """
    errors = error.errors(include_url=False)
    errors.sort(key=lambda err: err["type"] != "extra_forbidden")  # stable: keeps order otherwise
    first = errors[0]
    loc = _clean_loc(first["loc"])
    message = _message(first, loc, model_cls)
    if len(errors) > 1:
        more = len(errors) - 1
        message += f" (and {more} more problem{'s' if more > 1 else ''})"
    path = field_path(loc)
    if root_field:
        path = f"{root_field}{path}" if path.startswith("[") else ".".join(p for p in (root_field, path) if p)
    return SchemaError(message, file=file, field=path or None)


def field_path(loc: Sequence[str | int]) -> str:
    """Render a location as a field path: ``("disks", 0, "sku")`` → ``"disks[0].sku"``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


_TAG = re.compile(r"^[\w-]+\[.*\]$|^(int|float|str|bool|dict|list|tuple|none|null)$")


def _clean_loc(loc: Sequence[str | int]) -> list[str | int]:
    """Drop the union-member tags pydantic inserts (``function-after[...]``, ``int``)."""
    return [p for p in loc if isinstance(p, int) or not _TAG.match(p)]


def _message(err: dict[str, Any], loc: list[str | int], model_cls: type[BaseModel] | None) -> str:
    kind, ctx, value = err["type"], err.get("ctx") or {}, err.get("input")
    if kind == "extra_forbidden":
        name = str(loc[-1]) if loc else "?"
        known = _fields_at(model_cls, loc[:-1]) if model_cls else []
        hint = nearest(name, known, n=1)
        if hint:
            return f"unknown field {name!r}; did you mean {hint[0]!r}?"
        return f"unknown field {name!r} (valid fields: {', '.join(known)})" if known else f"unknown field {name!r}"
    if kind == "missing":
        return "missing required field"
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return f"expected a mapping of fields, got {_show(value)}"
    if kind == "value_error" and "error" in ctx:
        return str(ctx["error"])
    if kind == "assertion_error" and "error" in ctx:
        return str(ctx["error"])
    if kind in ("too_short", "too_long"):  # pydantic's "List should have at least 1 item after validation"
        bound = ctx.get("min_length") if kind == "too_short" else ctx.get("max_length")
        return (f"expected at {'least' if kind == 'too_short' else 'most'} {bound} "
                f"item{'' if bound == 1 else 's'} (got {_show(value)})")
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        word = {"greater_than": "greater than", "greater_than_equal": "at least",
                "less_than": "less than", "less_than_equal": "at most"}[kind]
        bound = next(iter(ctx.values()), "?")
        if isinstance(bound, (int, float)) and not isinstance(bound, bool) and float(bound).is_integer():
            bound = f"{int(bound):,}"  # 1,000,000,000,000, not 1000000000000.0
        return f"must be {word} {bound} (got {_show(value)})"
    msg = err["msg"]
    msg = msg.replace("Input should be", "expected", 1)
    return f"{msg} (got {_show(value)})"


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# ---- walking a model's type to find the valid field names at a location


def _flatten(annotation: Any) -> list[Any]:
    """The member types of a (possibly Optional/Annotated) annotation."""
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        return _flatten(typing.get_args(annotation)[0]) + [annotation]
    if origin is Union or (hasattr(types, "UnionType") and isinstance(annotation, types.UnionType)):
        return [m for a in typing.get_args(annotation) for m in _flatten(a)]
    return [annotation]


def _step(annotation: Any, part: str | int) -> Any:
    """The type found one step into ``annotation`` along ``part``, or None."""
    for member in _flatten(annotation):
        if isinstance(member, type) and issubclass(member, BaseModel) and isinstance(part, str):
            for name, info in member.model_fields.items():
                if part in (name, info.alias):
                    return info.annotation
        if _is_namedtuple(member):
            hints = typing.get_type_hints(member, include_extras=True)
            if isinstance(part, str) and part in hints:
                return hints[part]
            if isinstance(part, int) and part < len(member._fields):
                return hints[member._fields[part]]
        origin = typing.get_origin(member)
        args = typing.get_args(member)
        if origin in (dict, Mapping) or (isinstance(origin, type) and origin is not None
                                         and issubclass(origin, Mapping)):
            if len(args) == 2:
                return args[1]
        if origin in (list, tuple, Sequence) and isinstance(part, int) and args:
            if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
                return args[part] if part < len(args) else None
            return args[0]
    return None


def _fields_at(model_cls: type[BaseModel], loc: Sequence[str | int]) -> list[str]:
    """The valid field names of the model found at ``loc`` inside ``model_cls``."""
    annotation: Any = model_cls
    for part in loc:
        annotation = _step(annotation, part)
        if annotation is None:
            return []
    for member in _flatten(annotation):
        if isinstance(member, type) and issubclass(member, BaseModel):
            return [info.alias or name for name, info in member.model_fields.items()]
        if _is_namedtuple(member):
            return list(member._fields)
    return []


def _is_namedtuple(member: Any) -> bool:
    return isinstance(member, type) and issubclass(member, tuple) and hasattr(member, "_fields")


def top_level(data: Any, *, file: str, allowed: Sequence[str], what: str, expect: str | None = None) -> dict:
    """Check a document's top level: a mapping whose keys are all in ``allowed`` (an unknown
    one names the nearest allowed key) and whose ``version`` (default 1) is 1. ``expect`` says
    in words what the mapping holds (default: the allowed keys)."""
    if not isinstance(data, dict):
        raise SchemaError(f"a {what} file must be a mapping with {expect or ', '.join(allowed)}", file=file)
    for key in data:
        if key not in allowed:
            hint = nearest(str(key), allowed, n=1)
            raise SchemaError(f"unknown field {str(key)!r}" + (f"; did you mean {hint[0]!r}?" if hint else "")
                              + f" (allowed: {', '.join(allowed)})", file=file, field=str(key))
    version = data.get("version", 1)
    if version != 1 or isinstance(version, bool):
        raise SchemaError(f"unsupported version {version!r}: this iolab reads version 1", file=file,
                          field="version")
    return data


def name_text(value: Any, *, file: str | None, field: str, what: str = "name") -> str:
    """A name given in a file (a volume's key, a job's ``name``, a catalog id) as written;
    SchemaError when YAML read it as something other than text: ``on:`` is the boolean
    true, ``1:`` a number, ``name: [a, b]`` a list."""
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, str):
        raise SchemaError(f"a {what} cannot be empty", file=file, field=field)
    if isinstance(value, (list, tuple, dict)):
        raise SchemaError(f"a {what} is text, not a {'list' if isinstance(value, (list, tuple)) else 'mapping'}",
                          file=file, field=field)
    kind = ("a boolean (YAML reads on, off, yes, no, true and false so)" if isinstance(value, bool) else
            "null" if value is None else f"the number {value!r}")
    raise SchemaError(f"a {what} is text, not {kind}; quote it", file=file, field=field)


def relative_files(value: Any, *, file: str, base: Path, field: str = "catalog") -> list[Path]:
    """A path or list of paths given in a file (``catalog: [prices.yaml]``), resolved relative
    to ``base`` (the file's directory); each must name an existing file."""
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    out = []
    for i, item in enumerate(items):
        where = f"{field}[{i}]" if isinstance(value, list) else field
        if not isinstance(item, str) or not item:
            raise SchemaError(f"expected a file path, got {item!r}", file=file, field=where)
        path = base / item
        if not path.is_file():
            raise SchemaError(f"file {str(path)!r} not found (paths are relative to this file)", file=file,
                              field=where)
        out.append(path)
    return out
