"""Display names: what a name may hold, and when two names pass for one another.

Names are Unicode on purpose (people write their own); they are compared by
their look, so nobody can take a seat named like another's: case, Unicode's
compatibility forms (full-width ``Ｈ`` is ``H``), letters of other scripts
that pass for Latin ones (Unicode's confusables list, UTS #39) and the
ASCII look-alikes ``l``/``I``/``1`` and ``0``/``O``.
"""

from __future__ import annotations

import functools
import unicodedata

from canfield_protocol import ErrorCode, ProtocolError
from confusable_homoglyphs.confusables import confusables_data

__all__ = ["NAME_MAX", "clean_name", "name_key"]

NAME_MAX = 24
#: a name longer than this is refused before NFKC and the folding of white space
_NAME_TEXT_MAX = 256
#: characters allowed in names besides letters and digits
_NAME_PUNCT = frozenset(" -_.'!?&+#@()")
#: ASCII characters that pass for one another in most fonts
_ASCII_ALIKE = str.maketrans({"l": "i", "1": "i", "|": "i", "0": "o"})
#: Unicode's confusables (UTS #39): a character -> characters it passes for
_CONFUSABLES: dict[str, list[dict[str, str]]] = confusables_data


def clean_name(name: str) -> str:
    """A display name: 1-24 letters, digits, spaces and a little punctuation,
    in Unicode's compatibility form (full-width ``Ｈ`` is ``H``). No error
    quotes an over-long name; one far too long is refused before NFKC."""
    if len(name) > _NAME_TEXT_MAX:
        raise ProtocolError(ErrorCode.BAD_NAME, f"a name has at most {NAME_MAX} characters")
    text = " ".join(unicodedata.normalize("NFKC", name).split())
    if not text:
        raise ProtocolError(ErrorCode.BAD_NAME, "a name needs at least one visible character")
    if len(text) > NAME_MAX:
        raise ProtocolError(ErrorCode.BAD_NAME, f"a name has at most {NAME_MAX} characters")
    bad = sorted({ch for ch in text if not (ch.isalnum() or ch in _NAME_PUNCT)})
    if bad:
        raise ProtocolError(
            ErrorCode.BAD_NAME, f"a name may not contain {''.join(bad)!r}: use letters and digits"
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


def name_key(text: str) -> str:
    """What a name looks like: two names with one key would pass for each other
    (``Host``, ``HOST``, full-width ``Ｈｏｓｔ``, Cyrillic ``Ноst``)."""
    shape = "".join(_look_alike(ch) for ch in unicodedata.normalize("NFKC", text))
    return "".join(_look_alike(ch) for ch in shape.casefold()).translate(_ASCII_ALIKE)
