"""A TCP proxy on loopback that adds a round trip: distance, on one machine.

``python -m canfield_bench.delay_proxy --target PORT --rtt-ms 200`` listens on
127.0.0.1 (``--port``, default a free one), prints ``listening on PORT`` once
ready, and relays every connection to 127.0.0.1:TARGET, each byte held half
the round trip on its way in and half on its way out, in order (bytes are
held, never reordered or throttled: a link far away, not a slow one). It
binds loopback only. ``DelayProxy`` in ``processes.py`` starts it as a
process of its own, as the distance benchmark and its test do.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections import deque

__all__ = ["main", "relay"]

CHUNK = 65536


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float) -> None:
    """Read what comes and write each chunk ``delay`` seconds after it came."""
    loop = asyncio.get_running_loop()
    held: deque[tuple[float, bytes]] = deque()
    arrived = asyncio.Event()
    done = False

    async def read() -> None:
        nonlocal done
        while chunk := await reader.read(CHUNK):
            held.append((loop.time() + delay, chunk))
            arrived.set()
        done = True
        arrived.set()

    reading = asyncio.create_task(read())
    try:
        while True:
            if not held:
                if done:
                    break
                arrived.clear()
                await arrived.wait()
                continue
            due, chunk = held[0]
            if (wait := due - loop.time()) > 0:
                await asyncio.sleep(wait)  # the delay is the point: a far link holds bytes
            held.popleft()
            writer.write(chunk)
            await writer.drain()
    finally:
        reading.cancel()
        with contextlib.suppress(OSError):
            writer.close()


async def relay(target: int, rtt_s: float, port: int = 0) -> asyncio.Server:
    """Start relaying 127.0.0.1:``port`` to 127.0.0.1:``target`` with ``rtt_s`` added."""

    async def serve(down_r: asyncio.StreamReader, down_w: asyncio.StreamWriter) -> None:
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", target)
        except OSError:
            down_w.close()
            return
        half = rtt_s / 2
        await asyncio.gather(
            _pipe(down_r, up_w, half), _pipe(up_r, down_w, half), return_exceptions=True
        )

    return await asyncio.start_server(serve, "127.0.0.1", port)


async def _run(target: int, rtt_s: float, port: int) -> None:
    server = await relay(target, rtt_s, port)
    print(f"listening on {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=int, required=True, help="port on 127.0.0.1 to relay to")
    parser.add_argument("--rtt-ms", type=float, default=200.0, help="round trip added (ms)")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0: any free)")
    args = parser.parse_args(argv)
    try:
        asyncio.run(_run(args.target, args.rtt_ms / 1000, args.port))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
