"""The page speaks both its languages alike, and the server's words agree with it.

``web/js/i18n/<lang>.js`` hold the page's text, one ``key: "text",`` a line;
a key missing in one language, or a placeholder spelled differently, would
show the key itself or an empty gap. ``transport/replay_words.py`` fills a
shared replay's preview with words the page also says: they must stay the
page's words (the daily race's opens the page's longer line; the final
board's label is the server's own, in both languages alike). Read as text:
no browser needed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from canfield_server.transport.replay_words import WORDS

I18N = Path(__file__).resolve().parents[2] / "client/canfield_client/web/js/i18n"
ENTRY = re.compile(r'^\s+(?:"([\w:]+)"|(\w+)): (".*"),$')
PLACEHOLDER = re.compile(r"\{(\w+)\}")

#: the server's word -> the page's key it mirrors
MIRRORED = {
    "wins": "wins",
    "tie_won": "tie_won",
    "nobody_won": "nobody_won",
    "win_all": "win_all",
    "lead_most": "lead_most",
    "tie_first": "tie_first",
    "names_and": "names_and",
    "names_more": "names_more",
    "players": "rp_players",
    "room": "rp_room",
    "replay": "replay",
    "challenge": "challenge",
    "ch_won": "ch_won",
    "ch_cards": "ch_cards",
    "ch_draw": "ch_draw",
    "ch_racers": "ch_racers",
    "ch_none": "ch_none",
}
#: the server's word -> the page's key that says it, then more (``rp_daily``: the
#: race, then its count of players, which a preview leaves to the players' line)
LEADING = {"daily": "rp_daily"}
#: the server's words the page never says: the preview image's label of the
#: featured racer's final board (the page shows the board itself, unlabelled)
SERVER_ONLY = {"final_of"}


def words(lang: str) -> dict[str, str]:
    """The ``key: "text"`` entries of ``i18n/<lang>.js``.

    Every other line is a comment, a blank or the object's braces."""
    entries: dict[str, str] = {}
    for line in (I18N / f"{lang}.js").read_text(encoding="utf-8").splitlines():
        found = ENTRY.match(line)
        if found is None:
            frame = line.strip() in {"", "export default {", "};"}
            assert frame or line.lstrip().startswith("//"), line
            continue
        key = found.group(1) or found.group(2)
        assert key not in entries, f"{lang}: {key} twice"
        entries[key] = json.loads(found.group(3))
    return entries


def by_key(entries: dict[str, str]) -> dict[str, set[str]]:
    """Each key (plural forms folded into it) and the placeholders its forms use."""
    keys: dict[str, set[str]] = {}
    for key, text in entries.items():
        keys.setdefault(key.split(":")[0], set()).update(PLACEHOLDER.findall(text))
    return keys


def test_the_languages_are_the_pages_and_the_servers() -> None:
    assert sorted(path.stem for path in I18N.glob("*.js")) == sorted(WORDS)


def test_both_languages_have_the_same_keys() -> None:
    en, hr = by_key(words("en")), by_key(words("hr"))
    assert sorted(set(en) - set(hr)) == []
    assert sorted(set(hr) - set(en)) == []


def test_both_languages_fill_the_same_placeholders() -> None:
    en, hr = by_key(words("en")), by_key(words("hr"))
    differ = {key: (en[key], hr[key]) for key in en if key in hr and en[key] != hr[key]}
    assert differ == {}


def test_the_servers_replay_words_are_the_pages() -> None:
    for lang, server in WORDS.items():
        page = words(lang)
        differ = {
            word: (server[word], page.get(key))
            for word, key in MIRRORED.items()
            if server[word] != page.get(key)
        }
        assert differ == {}, lang
        # the page's word opens with the server's, then says more after a comma
        differ = {
            word: (server[word], page.get(key))
            for word, key in LEADING.items()
            if not page.get(key, "").startswith(server[word] + ", ")
        }
        assert differ == {}, lang


def test_every_server_word_is_checked_and_speaks_both_languages_alike() -> None:
    """No word of the server's is left out of the checks above (one new is placed
    in one of them), and each fills the same placeholders in both languages."""
    checked = set(MIRRORED) | set(LEADING) | SERVER_ONLY
    for server in WORDS.values():
        assert sorted(set(server) - checked) == []
        assert sorted(checked - set(server)) == []
    en, hr = WORDS["en"], WORDS["hr"]
    differ = {
        word: (en[word], hr[word])
        for word in en
        if set(PLACEHOLDER.findall(en[word])) != set(PLACEHOLDER.findall(hr[word]))
    }
    assert differ == {}
