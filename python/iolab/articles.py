"""Indefinite articles as a person writes them: ``an NFS``, ``a P30``, ``an 8 TiB``."""

from __future__ import annotations

import re

__all__ = ["a"]

_LETTER_VOWEL_SOUND = set("AEFHILMNORSX")  # letters whose names start with a vowel sound: "an S4", "an NFS"
_U_CONSONANT = re.compile(r"^u(ni|se|su|ti|ro|ku)", re.IGNORECASE)  # "a unit", "a user"


def a(noun: object) -> str:
    """`noun` with its indefinite article: ``an anf-ultra``, ``a P30``, ``an E10``, ``an 8 TiB``,
    ``an 11 TiB``, ``a 4 TiB``, ``an NFS``, ``a unified``."""
    text = str(noun)
    if not text:
        return text
    first = text[0]
    if first.isdigit():
        number = re.match(r"\d+", text).group()  # type: ignore[union-attr]
        vowel = first == "8" or (len(number) in (2, 5, 6) and number.startswith("18")) or \
            (len(number) in (2, 5) and number.startswith("11"))
    elif first.isupper() and (len(text) == 1 or not text[1].islower()):  # an acronym or an id: P30, NFS
        vowel = first in _LETTER_VOWEL_SOUND
    else:
        vowel = first.lower() in "aeio" or (first.lower() == "u" and not _U_CONSONANT.match(text))
    return f"{'an' if vowel else 'a'} {text}"
