"""The per-connection stand-ins for asyncio's Event and Queue (transport/lean.py)
behave as the asyncio ones do where uvicorn and the endpoint use them."""

from __future__ import annotations

import asyncio

from canfield_server.transport.lean import Flag, Inbox

TIMEOUT = 10.0


async def test_a_flag_wakes_every_waiter_and_stays_set_until_cleared() -> None:
    flag = Flag()
    waiters = [asyncio.ensure_future(flag.wait()) for _ in range(3)]
    await asyncio.sleep(0)  # the subject: they are waiting before it is set
    assert not any(w.done() for w in waiters)
    flag.set()
    async with asyncio.timeout(TIMEOUT):
        await asyncio.gather(*waiters)
    assert flag.is_set()
    await flag.wait()  # set: returns at once
    flag.clear()
    assert not flag.is_set()
    assert Flag(True).is_set()


async def test_a_cancelled_wait_leaves_the_flag_for_the_others() -> None:
    flag = Flag()
    gone = asyncio.ensure_future(flag.wait())
    stays = asyncio.ensure_future(flag.wait())
    await asyncio.sleep(0)
    gone.cancel()
    await asyncio.gather(gone, return_exceptions=True)
    flag.set()
    async with asyncio.timeout(TIMEOUT):
        await stays
    assert gone.cancelled()


async def test_an_inbox_hands_items_over_in_order_to_its_reader() -> None:
    inbox: Inbox[int] = Inbox()
    assert inbox.empty()
    reader = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)  # the reader waits on an empty inbox
    inbox.put_nowait(1)
    inbox.put_nowait(2)
    inbox.put_nowait(3)
    async with asyncio.timeout(TIMEOUT):
        assert await reader == 1
        assert [await inbox.get(), await inbox.get()] == [2, 3]
    assert inbox.empty() and inbox.qsize() == 0


async def test_a_cancelled_get_loses_nothing() -> None:
    inbox: Inbox[str] = Inbox()
    reader = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)
    reader.cancel()
    await asyncio.gather(reader, return_exceptions=True)
    inbox.put_nowait("kept")
    async with asyncio.timeout(TIMEOUT):
        assert await inbox.get() == "kept"
