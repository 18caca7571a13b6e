"""Names that draw as nothing, checked against Unicode's own property.

Promise: no name holds a character that renders as nothing, so nobody can
take a seat that looks like another's (``"Ann\\u3164"`` beside ``Ann``) or
join with an empty-looking name. The oracle is the ``regex`` module's
``\\p{Default_Ignorable_Code_Point}`` (its Unicode tables, not the server's
list): every code point of the property is tried, alone and inside a name,
and Hypothesis splices them into names that are otherwise fine.
"""

from __future__ import annotations

import unicodedata

import pytest
import regex
from canfield_protocol import ErrorCode, ProtocolError, Role
from canfield_server.room import rules
from canfield_server.room.names import clean_name, name_key
from hypothesis import given, settings
from hypothesis import strategies as st

IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}")
#: every default-ignorable code point (about 4,200), from the oracle
DEFAULT_IGNORABLE = [chr(c) for c in range(0x110000) if IGNORABLE.match(chr(c))]


def refused(name: str) -> bool:
    try:
        clean_name(name)
    except ProtocolError as exc:
        assert exc.code == ErrorCode.BAD_NAME
        assert name not in exc.message or len(name) <= 1  # the name is never quoted
        return True
    return False


def test_the_oracle_holds_the_whole_property() -> None:
    # the Hangul fillers (letters to Python), joiners, variation selectors, tags
    for char in "\u3164\u115f\u1160\uffa0\u200b\u200d\u2060\ufe0f\U000e0041\u034f\u180e":
        assert char in DEFAULT_IGNORABLE
    assert len(DEFAULT_IGNORABLE) > 4000


def test_every_default_ignorable_code_point_is_refused_alone_and_inside_a_name() -> None:
    accepted = [
        f"U+{ord(char):04X}"
        for char in DEFAULT_IGNORABLE
        for name in (char, f"Ann{char}", f"A{char}nn", f"{char}Ann", f"Ann {char}")
        if not refused(name)
    ]
    assert accepted == []


@pytest.mark.parametrize("name", ["Ann\u3164", "A\u3164nn", "Ann\u115f", "\u3164", "\uffa0Ann"])
def test_the_reported_invisible_names_cannot_join_beside_ann(name: str) -> None:
    state = rules.create_room("ROOM42", "host", "Ann")
    with pytest.raises(ProtocolError) as refusal:
        rules.add_member(state, "guest", name, Role.PLAYER)
    assert refusal.value.code == ErrorCode.BAD_NAME
    assert "Ann" not in refusal.value.message


#: names a person could type: letters, digits, spaces, the allowed punctuation
VISIBLE = st.text(
    st.characters(categories=["Lu", "Ll", "Lo", "Nd"]) | st.sampled_from(" -_.'!?&+#@()"),
    min_size=1,
    max_size=20,
)


@settings(max_examples=2000, deadline=None, database=None)
@given(VISIBLE, st.sampled_from(DEFAULT_IGNORABLE), st.integers(0, 20))
def test_a_default_ignorable_spliced_anywhere_is_refused(name: str, char: str, where: int) -> None:
    where = min(where, len(name))
    assert refused(name[:where] + char + name[where:])


@settings(max_examples=3000, deadline=None, database=None)
@given(st.text(max_size=30))
def test_an_accepted_name_is_visible_and_holds_no_default_ignorable(name: str) -> None:
    try:
        text = clean_name(name)
    except ProtocolError:
        return
    assert not IGNORABLE.search(text)
    assert not IGNORABLE.search(name)
    # something draws: at least one letter or digit, every character a letter,
    # a digit, a plain space or the allowed punctuation
    assert any(unicodedata.category(ch)[0] in "LN" for ch in text) or text.strip(" ")
    assert all(unicodedata.category(ch)[0] in "LNP" or ch in " +@#" for ch in text)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Ann", "ANN"),
        ("Ann", "\u0410nn"),  # Cyrillic A
        ("Host", "\uff28ost"),  # full-width H
        ("Bill", "BiII"),  # capital I for small l
        ("Bob0", "BobO"),
        ("Ann Lee", "Ann  Lee"),
    ],
)
def test_look_alike_names_take_one_seat(one: str, other: str) -> None:
    assert name_key(clean_name(one)) == name_key(clean_name(other))
    state = rules.create_room("ROOM42", "host", one)
    with pytest.raises(ProtocolError) as refusal:
        rules.add_member(state, "guest", other, Role.PLAYER)
    assert refusal.value.code == ErrorCode.BAD_NAME
    assert one not in refusal.value.message and other not in refusal.value.message
