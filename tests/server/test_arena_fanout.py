"""An arena page's message at scale: the part every page shares is encoded once a
tick (each page gets exactly the frame it would get alone), and the heats it lists
stay few however many run."""

from __future__ import annotations

from typing import Any

import msgspec
from canfield_protocol import ArenaHeat, ArenaInfo, ArenaMsg, ArenaRow, decode_server
from canfield_server.room import frames
from canfield_server.room.arena_page import HEATS_SHOWN, _shown
from canfield_server.room.ports import HeatRecord


def row(n: int, racing: bool = False) -> ArenaRow:
    return ArenaRow(
        rank=n, id=f"r{n}", name=f"Racer \"{n}\"", points=50 - n, streak=n % 3, heats=4,
        last="12-", racing=racing,
    )  # fmt: skip


def test_each_page_gets_the_frame_it_would_get_alone() -> None:
    info = ArenaInfo(
        code="ABCDEFGH", name="Friday", draw=3, minutes=30, starts_at=1, ends_at=2,
        status="running", public=False, host="h1",
    )  # fmt: skip
    common = ArenaMsg(
        arena=info,
        standing=[row(n) for n in range(1, 31)],
        racers=40,
        heats=[ArenaHeat(room="ROOM01", names=["Ann", "Bob"], started_at=5)],
        waiting=3,
        server_time=99,
    )
    own: list[dict[str, Any]] = [
        {"me": None, "in_arena": False},
        {"me": row(7, racing=True), "in_arena": False},
        {"me": row(35), "in_arena": True},
    ]
    sent = frames.shared_frames(common, own)
    assert len(sent) == 3
    for frame, mine in zip(sent, own, strict=True):
        alone = frames.text(msgspec.structs.replace(common, **mine))
        assert frame == alone
        assert decode_server(frame) == msgspec.structs.replace(common, **mine)


def test_a_page_lists_the_leaders_heats_then_the_newest_and_no_more() -> None:
    heats = [
        HeatRecord(room=f"H{n:03}", racers=[f"x{n}", f"y{n}"], deal="d", opened_ms=n, names=[])
        for n in range(200)
    ]
    heats[150].racers.append("leader")  # first in the standing
    heats[20].racers.append("third")
    ranks = {"leader": 1, "second": 2, "third": 3}
    shown = _shown(heats, ranks)
    assert len(shown) == HEATS_SHOWN
    assert [h.room for h in shown[:2]] == ["H150", "H020"]
    assert [h.room for h in shown[2:]] == [
        f"H{n:03}" for n in range(199, 199 - HEATS_SHOWN + 2, -1)
    ]
    assert _shown(heats[:3], {}) == sorted(heats[:3], key=lambda h: -h.opened_ms)
