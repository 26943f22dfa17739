"""The exception tree of iolab.

Library code raises only these; the CLI alone turns them into exit codes::

    IolabError                 exit 1  anything that went wrong at run time
    ├── InputError             exit 2  the user's input is wrong
    │   ├── UnitError                  a unit string cannot be parsed
    │   ├── SchemaError                a file's field is missing, unknown or of the wrong type
    │   ├── UnknownIdError             a catalog id does not exist (nearest ids suggested)
    │   └── RuleViolation              a documented rule is broken (the rule is named)
    ├── SafetyError            exit 3  refused because it could destroy data
    └── RunError               exit 1  an external program or the machine failed
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "IolabError",
    "InputError",
    "UnitError",
    "SchemaError",
    "UnknownIdError",
    "RuleViolation",
    "SafetyError",
    "RunError",
    "nearest",
]


class IolabError(Exception):
    """Base of every error iolab raises on purpose."""

    exit_code = 1


class InputError(IolabError):
    """The user's input (a file, an option, a unit) is wrong; exit code 2."""

    exit_code = 2

    def __init__(self, message: str, *, file: str | None = None, field: str | None = None):
        self.message = message
        self.file = file
        self.field = field
        super().__init__(self._render())

    def _render(self) -> str:
        where = ": ".join(p for p in (self.file, self.field) if p)
        return f"{where}: {self.message}" if where else self.message

    def located(self, *, file: str | None = None, field: str | None = None) -> "InputError":
        """Return the same error with the file and/or field path filled in (when unset).

        A field given here is prefixed to a field already set: errors raised deep inside a
        nested object learn their full path as they travel up.
        """
        new = Exception.__new__(type(self))
        new.__dict__.update(self.__dict__)
        if file and not new.file:
            new.file = file
        if field:
            new.field = f"{field}.{new.field}" if new.field and not new.field.startswith("[") else (
                f"{field}{new.field}" if new.field else field
            )
        Exception.__init__(new, new._render())
        return new


class UnitError(InputError, ValueError):
    """A size, rate or duration string cannot be parsed."""


class SchemaError(InputError):
    """A field is missing, unknown, of the wrong type or out of range."""


class UnknownIdError(InputError):
    """A catalog id is unknown; `nearest` holds the closest known ids."""

    def __init__(self, kind: str, ident: str, known: Iterable[str], **where: str | None):
        self.kind = kind
        self.ident = ident
        known = list(known)
        self.nearest = nearest(ident, known)
        known = sorted(known) if not isinstance(known, (list, tuple)) else list(known)
        if self.nearest:
            hint = f"; nearest: {', '.join(self.nearest)}"
        elif 0 < len(known) <= 12:
            hint = f"; known: {', '.join(known)}"
        else:
            hint = ""
        super().__init__(f"unknown {kind} {ident!r}{hint}", **where)


class RuleViolation(InputError):
    """A configuration breaks a documented rule; `rule` names it."""

    def __init__(self, rule: str, message: str, **where: str | None):
        self.rule = rule
        super().__init__(f"{message} (rule: {rule})", **where)


class SafetyError(IolabError):
    """Refused because it could destroy data (exit code 3); the path is left untouched."""

    exit_code = 3


class RunError(IolabError):
    """An external program (fio), a host or the machine failed at run time (exit code 1)."""

    exit_code = 1


def nearest(word: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The up to `n` known words closest to `word` (case-insensitive), best first.

    An id with a number in it is first matched within its family, by the number: ``P99``
    suggests ``P80`` (the largest premium disk), ``Standard_D3s_v5`` the D2s and D4s sizes.
    """
    known = list(known)
    lower = {k.lower(): k for k in known}
    family = _by_number(word.lower(), list(lower))
    if family:
        return [lower[h] for h in family[:n]]
    import difflib  # only when a word is unknown: importing it costs every command ~10 ms

    hits = difflib.get_close_matches(word.lower(), list(lower), n=n, cutoff=0.5)
    if not hits:
        hits = [k for k in lower if word.lower() in k or k in word.lower()][:n]
    return [lower[h] for h in hits]


_NUMBER = re.compile(r"\d+")


def _by_number(word: str, known: list[str]) -> list[str]:
    """Known words that differ from `word` only in its first number, numerically nearest first."""
    m = _NUMBER.search(word)
    if not m:
        return []
    value = int(m.group())
    pattern = re.compile(re.escape(word[:m.start()]) + r"(\d+)" + re.escape(word[m.end():]) + "$")
    same = [(abs(int(k_m.group(1)) - value), int(k_m.group(1)), k) for k in known if (k_m := pattern.match(k))]
    return [k for _, _, k in sorted(same)]
