"""A replay told in a few words, in English or Croatian, for what the server
renders itself: a shared link's preview (its title and description) and the
picture of the final position. The web page says the same in the browser
(``web/js/i18n/<lang>.js``, ``words.js`` ``headline``); these are the words of
the page that the server fills in before any script runs
(``tests/web/test_i18n.py`` keeps them the page's).

The result claims only what happened, as the results page does: a win names
the winner and the time, a tie is a tie, and a race nobody won names who
had the most cards home.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from canfield_protocol import ChallengeView

__all__ = [
    "LANGS",
    "PRODUCT",
    "Summary",
    "challenge_description",
    "challenge_title",
    "language",
    "result",
    "summarize",
]

PRODUCT = "Canfield Race"
#: names a line lists before it says "and N more"
NAMES_SHOWN = 4

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "wins": "{name} wins!",
        "tie_won": "A tie: {names} won in {time}",
        "nobody_won": "Nobody won",
        "win_all": "All 52 cards home in {time}",
        "lead_most": "Most cards home: {names}, {n} of 52",
        "tie_first": "A tie for first: {names}, {n} of 52 home each",
        "names_and": "{a} and {b}",
        "names_more": "{names} and {n} more",
        "players": "Players: {names}",
        "room": "Room {room}, draw {draw}",
        "daily": "Daily race of {date}, draw {draw}",
        "replay": "Replay",
        "final_of": "{name}: the final position",
        "challenge": "Challenge",
        "ch_won": "Beat {name}'s {time} on this deal",
        "ch_cards": "Beat {name}'s {n} of 52 cards home on this deal",
        "ch_draw": "Draw {draw}",
        "ch_racers": "Racers so far: {n}",
        "ch_none": "Nobody has raced it yet",
    },
    "hr": {
        "wins": "{name} pobjeđuje!",
        "tie_won": "Neriješeno: {names} pobjeđuju za {time}",
        "nobody_won": "Nitko nije pobijedio",
        "win_all": "Sve 52 karte na temeljima za {time}",
        "lead_most": "Najviše karata na temeljima: {names}, {n} od 52",
        "tie_first": "Neriješeno za prvo mjesto: {names}, svatko {n} od 52",
        "names_and": "{a} i {b}",
        "names_more": "{names} i još {n}",
        "players": "Igrači: {names}",
        "room": "Soba {room}, izvlačenje {draw}",
        "daily": "Dnevna utrka {date}, izvlačenje {draw}",
        "replay": "Snimka",
        "final_of": "{name}: završni položaj",
        "challenge": "Izazov",
        "ch_won": "{name} – {time} na ovom dijeljenju. Možeš li brže?",
        "ch_cards": ("{name} – {n} od 52 karte na temeljima na ovom dijeljenju. Možeš li bolje?"),
        "ch_draw": "Izvlačenje {draw}",
        "ch_racers": "Natjecatelji do sada: {n}",
        "ch_none": "Još se nitko nije utrkivao",
    },
}
LANGS = tuple(WORDS)


def language(asked: str | None, accept_language: str | None) -> str:
    """The language to speak: ``asked`` (``?lang=``) if this server speaks it, else
    the first of the browser's ``Accept-Language`` that it speaks, else English."""
    if asked in WORDS:
        return asked
    for part in (accept_language or "").split(","):
        base = part.split(";")[0].strip().lower().split("-")[0]
        if base in WORDS:
            return base
    return "en"


def clock(ms: int) -> str:
    """m:ss (h:mm:ss past an hour), as the page shows a race's time."""
    total = max(0, ms // 1000)
    hours, rest = divmod(total, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{seconds:02}" if hours else f"{minutes}:{seconds:02}"


@dataclass(frozen=True)
class Summary:
    """What a replay is, in words of one language."""

    lang: str
    #: the headline: who won, or that nobody did
    title: str
    #: how: the winner's time, or the most cards home
    how: str
    #: "Players: Ana, Bob and Cy"
    players: str
    #: "Room QX7P, draw 3" or "Daily race of 2031-03-14, draw 1"
    race: str
    #: the race's UTC day (a room race; a daily one names it in ``race``)
    date: str
    #: the racer whose final position the picture shows
    featured: str

    def word(self, key: str, **values: object) -> str:
        return WORDS[self.lang][key].format(**values)

    @property
    def description(self) -> str:
        parts = [self.how, self.players, ", ".join(p for p in (self.race, self.date) if p)]
        return ". ".join(p for p in parts if p) + "."


def summarize(replay: dict[str, Any], lang: str) -> Summary:
    """The words of a replay (``GET /replay/<id>``'s body) in ``lang``."""
    words = WORDS[lang]
    rows: list[dict[str, Any]] = replay.get("players") or []

    def names(found: list[str]) -> str:
        if len(found) > NAMES_SHOWN:
            listed = ", ".join(found[: NAMES_SHOWN - 1])
            return words["names_more"].format(names=listed, n=len(found) - NAMES_SHOWN + 1)
        if len(found) < 2:
            return "".join(found)
        return words["names_and"].format(a=", ".join(found[:-1]), b=found[-1])

    title, how = words["nobody_won"], ""
    if rows:
        top = rows[0]
        first = [r["name"] for r in rows if r.get("rank") == top.get("rank")]
        if top.get("status") == "won":
            time = clock(int(top.get("time_ms") or 0))
            title = (
                words["tie_won"].format(names=names(first), time=time)
                if len(first) > 1
                else words["wins"].format(name=top["name"])
            )
            how = words["win_all"].format(time=time)
        elif len(first) > 1:
            how = words["tie_first"].format(names=names(first), n=top.get("on_foundations", 0))
        else:
            how = words["lead_most"].format(names=top["name"], n=top.get("on_foundations", 0))
    draw = replay.get("draw", "")
    if replay.get("kind") == "daily":
        race, date = words["daily"].format(date=replay.get("date", ""), draw=draw), ""
    else:
        race = words["room"].format(room=replay.get("room", ""), draw=draw)
        at = replay.get("at")
        date = (
            datetime.datetime.fromtimestamp(at / 1000, datetime.UTC).date().isoformat()
            if isinstance(at, int)
            else ""
        )
    return Summary(
        lang=lang,
        title=title,
        how=how,
        players=words["players"].format(names=names([r["name"] for r in rows])) if rows else "",
        race=race,
        date=date,
        featured=rows[0]["name"] if rows else "",
    )


def result(won: bool, time_ms: int, cards: int) -> str:
    """A result in a standing's column: the time of a win, else cards home of 52."""
    return clock(time_ms) if won else f"{cards}/52"


def challenge_title(view: ChallengeView, lang: str) -> str:
    """ "Beat Ana's 3:12 on this deal" (the cards home when the racer did not win)."""
    words = WORDS[lang]
    if view.won:
        return words["ch_won"].format(name=view.name, time=clock(view.time_ms))
    return words["ch_cards"].format(name=view.name, n=view.cards)


def challenge_description(view: ChallengeView, lang: str) -> str:
    """The draw mode and how many raced it so far, or that nobody has."""
    words = WORDS[lang]
    count = len(view.standing)
    racers = words["ch_racers"].format(n=count) if count else words["ch_none"]
    return f"{words['ch_draw'].format(draw=view.draw)}. {racers}."
