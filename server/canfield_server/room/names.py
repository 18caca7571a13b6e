"""Display names: what a name may hold, and when two names pass for one another.

Names are Unicode on purpose (people write their own); they are compared by
their look, so nobody can take a seat named like another's: case, Unicode's
compatibility forms (full-width ``Ｈ`` is ``H``), letters of other scripts
that pass for Latin ones (Unicode's confusables list, UTS #39) and the
ASCII look-alikes ``l``/``I``/``1`` and ``0``/``O``.

A name never holds a character that draws as nothing: Unicode's
Default_Ignorable_Code_Point property (the Hangul fillers among them, which
Python counts as letters), format controls, and anything not a letter, a
digit or the listed punctuation. No error quotes the name it refuses.
"""

from __future__ import annotations

import functools
import unicodedata

from canfield_protocol import ErrorCode, ProtocolError
from confusable_homoglyphs.confusables import confusables_data

__all__ = ["NAME_MAX", "clean_name", "free_name", "is_invisible", "name_key"]

NAME_MAX = 24
#: a name longer than this is refused before NFKC and the folding of white space
_NAME_TEXT_MAX = 256
#: characters allowed in names besides letters and digits
_NAME_PUNCT = frozenset(" -_.'!?&+#@()")
#: ASCII characters that pass for one another in most fonts
_ASCII_ALIKE = str.maketrans({"l": "i", "1": "i", "|": "i", "0": "o"})
#: Unicode's confusables (UTS #39): a character -> characters it passes for
_CONFUSABLES: dict[str, list[dict[str, str]]] = confusables_data
#: Default_Ignorable_Code_Point = Other_Default_Ignorable_Code_Point, the format
#: controls (category Cf) and the variation selectors (Unicode's PropList.txt and
#: DerivedCoreProperties.txt); these are its code points outside category Cf
_IGNORABLE_RANGES = (
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x115F, 0x1160),  # Hangul choseong and jungseong fillers (letters to Python)
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180D),  # Mongolian free variation selectors
    (0x180F, 0x180F),
    (0x2065, 0x2065),
    (0x3164, 0x3164),  # Hangul filler (a letter to Python)
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFFA0, 0xFFA0),  # half-width Hangul filler (a letter to Python)
    (0xFFF0, 0xFFF8),
    (0xE0000, 0xE0FFF),  # tags, variation selectors supplement, reserved
)
_IGNORABLE = frozenset(
    chr(code) for low, high in _IGNORABLE_RANGES for code in range(low, high + 1)
)


def is_invisible(char: str) -> bool:
    """Does ``char`` draw as nothing (a default-ignorable code point, a control)?"""
    return char in _IGNORABLE or unicodedata.category(char) in ("Cf", "Cc", "Cn", "Co", "Cs")


def clean_name(name: str) -> str:
    """A display name: 1-24 letters, digits, spaces and a little punctuation,
    in Unicode's compatibility form (full-width ``Ｈ`` is ``H``). No error
    quotes an over-long name; one far too long is refused before NFKC."""
    if len(name) > _NAME_TEXT_MAX:
        raise ProtocolError(ErrorCode.BAD_NAME, f"a name has at most {NAME_MAX} characters")
    # before NFKC, which keeps most of them anyway; white space is folded below
    if any(is_invisible(ch) and not ch.isspace() for ch in name):
        raise ProtocolError(ErrorCode.BAD_NAME, "a name may not hold invisible characters")
    text = " ".join(unicodedata.normalize("NFKC", name).split())
    if not text:
        raise ProtocolError(ErrorCode.BAD_NAME, "a name needs at least one visible character")
    if len(text) > NAME_MAX:
        raise ProtocolError(ErrorCode.BAD_NAME, f"a name has at most {NAME_MAX} characters")
    if any(is_invisible(ch) or not (ch.isalnum() or ch in _NAME_PUNCT) for ch in text):
        raise ProtocolError(
            ErrorCode.BAD_NAME,
            "a name holds letters, digits, spaces and - _ . ' ! ? & + # @ ( ) only",
        )
    return text


@functools.lru_cache(maxsize=4096)
def _look_alike(char: str) -> str:
    """The ASCII character that ``char`` passes for (Cyrillic ``о`` is ``o``),
    or ``char`` itself: ASCII stays as it is."""
    if char.isascii():
        return char
    forms = [h["c"] for h in _CONFUSABLES.get(char, ()) if len(h["c"]) == 1 and h["c"].isascii()]
    letters = [c for c in forms if c.isalpha()]
    return min(letters or forms or [char])


@functools.lru_cache(maxsize=8192)  # every join compares with every member's name
def name_key(text: str) -> str:
    """What a name looks like: two names with one key would pass for each other
    (``Host``, ``HOST``, full-width ``Ｈｏｓｔ``, Cyrillic ``Ноst``)."""
    shape = "".join(_look_alike(ch) for ch in unicodedata.normalize("NFKC", text))
    return "".join(_look_alike(ch) for ch in shape.casefold()).translate(_ASCII_ALIKE)


def free_name(name: str, taken: set[str]) -> str:
    """``name`` cleaned, numbered (``Ana 2``) while its look is among ``taken``
    (``name_key``s): for seats nobody may refuse, a public race's or a ghost's."""
    base = clean_name(name)
    text, n = base, 1
    while name_key(text) in taken:
        n += 1
        text = clean_name(f"{base[: NAME_MAX - 4]} {n}")
    return text
