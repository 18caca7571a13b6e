"""How the move script reaches Redis: the server's hottest call, one way.

``move_script(redis, url, body)`` gives the caller for a deployment:

* one Redis (``redis://``, ``rediss://``, ``unix://``): ``PipelinedScript``,
  a dedicated connection. Every call writes its command at once and
  queues a future; the connection's protocol parses replies (hiredis) as
  they arrive and resolves the futures in order, so any number of moves are in flight on one
  socket with no pool checkout, no per-call client machinery and no
  waiting for one another. The commands of one turn of the event loop go
  out in one write (one system call, and one read for Redis, instead of
  one each), still each its own atomic EVALSHA with its own reply. On
  any connection error every pending call fails (the caller answers
  ``unavailable``) and the next call reconnects.
* a Redis Cluster: redis-py's cluster client, which sends each call to
  the node of its room's slot (EVALSHA is refused in cluster pipelines).
"""

from __future__ import annotations

import asyncio
import hashlib
import ssl
from collections import deque
from typing import Any, Protocol
from urllib.parse import parse_qs, unquote, urlsplit

import hiredis
from redis.asyncio import Redis, RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

__all__ = ["MoveScript", "PipelinedScript", "move_script"]


class MoveScript(Protocol):
    async def __call__(self, keys: list[str], args: list[Any]) -> Any: ...

    async def close(self) -> None: ...


class _ClusterScript:
    """A script through redis-py's cluster client (it reloads after NOSCRIPT)."""

    def __init__(self, redis: RedisCluster, body: str) -> None:
        self.script = redis.register_script(body)

    async def __call__(self, keys: list[str], args: list[Any]) -> Any:
        return await self.script(keys=keys, args=args)

    async def close(self) -> None:
        pass


def move_script(redis: Redis | RedisCluster, url: str, body: str) -> MoveScript:
    """The caller of the script ``body`` for the Redis at ``url`` (``redis``'s)."""
    if isinstance(redis, RedisCluster):
        return _ClusterScript(redis, body)
    return PipelinedScript(url, body)


def _pack(*parts: Any) -> bytes:
    """One command in Redis's protocol (RESP), packed by hiredis in C: the same
    bytes as writing each part's text out in Python, at a third of the cost."""
    return hiredis.pack_command(parts)


def _tls(scheme: str, query: dict[str, list[str]]) -> ssl.SSLContext | None:
    """``rediss://`` is TLS; ``ssl_cert_reqs=none`` (as redis-py reads it) skips
    the certificate check, for a self-signed test deployment."""
    if scheme != "rediss":
        return None
    context = ssl.create_default_context()
    if query.get("ssl_cert_reqs", [""])[0].lower() == "none":
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


class _Replies(asyncio.Protocol):
    """The connection's replies, parsed as they arrive (hiredis) and handed to
    the calls in the order they were sent: no reader task, no stream buffers."""

    def __init__(self, owner: PipelinedScript) -> None:
        self.owner = owner
        self.parser = hiredis.Reader()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        parser, pending = self.parser, self.owner._pending
        parser.feed(data)
        reply = parser.gets()
        while reply is not False:
            if not pending:  # a reply nobody asked for: the stream is out of step
                self.owner._fail(RedisConnectionError("Redis sent an unexpected reply"), self)
                return
            future = pending.popleft()[0]
            if not future.done():
                future.set_result(reply)
            reply = parser.gets()

    def connection_lost(self, exc: Exception | None) -> None:
        self.owner._fail(RedisConnectionError(str(exc or "Redis closed the connection")), self)


class PipelinedScript:
    """Calls one Lua script over a dedicated, pipelined connection.

    A call costs a future and its command in the connection's outgoing batch,
    written once per turn of the event loop (``_write``): no timer of its own. One watchdog
    timer per connection, armed while calls are in flight, fails them all when
    the oldest has waited ``timeout_s`` (as a per-call timeout would, since a
    reply that late means the connection is stuck for every call behind it).
    """

    def __init__(self, url: str, body: str, timeout_s: float = 5.0) -> None:
        self.url = url
        self.body = body.encode()
        self.sha = hashlib.sha1(self.body).hexdigest().encode()
        self.timeout_s = timeout_s
        self._conn: _Replies | None = None
        #: calls in flight, in the order sent: (future, loop time sent)
        self._pending: deque[tuple[asyncio.Future[Any], float]] = deque()
        #: commands not yet written, in the order sent (written together by ``_write``)
        self._out: list[bytes] = []
        self._connecting: asyncio.Lock | None = None
        self._watchdog: asyncio.TimerHandle | None = None

    async def __call__(self, keys: list[str], args: list[Any]) -> Any:
        conn = self._conn
        if conn is None or conn.transport is None or conn.transport.is_closing():
            conn = await self._connect()
        reply = await self._send(conn, _pack(b"EVALSHA", self.sha, len(keys), *keys, *args))
        if isinstance(reply, hiredis.ReplyError):
            if str(reply).startswith("NOSCRIPT"):  # Redis restarted: send the body once
                reply = await self._send(conn, _pack(b"EVAL", self.body, len(keys), *keys, *args))
            if isinstance(reply, hiredis.ReplyError):
                raise ResponseError(str(reply))
        return reply

    def _send(self, conn: _Replies, command: bytes) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._pending.append((future, loop.time()))
        if not self._out:  # the first of this turn: the batch goes once the turn's calls are in
            loop.call_soon(self._write, conn)
        self._out.append(command)
        if self._watchdog is None:
            self._watchdog = loop.call_later(self.timeout_s, self._check)
        return future

    def _write(self, conn: _Replies) -> None:
        """The batch of commands to Redis in one write, on the connection they
        were sent on. That one failed since: their calls failed with it, and
        the batch now waiting is a newer connection's, written by its own turn."""
        if conn is not self._conn:
            return
        out, self._out = self._out, []
        transport = conn.transport
        if out and transport is not None and not transport.is_closing():
            transport.write(out[0] if len(out) == 1 else b"".join(out))

    def _check(self) -> None:
        """The watchdog: the oldest call in flight answered in time, or all fail."""
        self._watchdog = None
        if not self._pending:
            return
        loop = asyncio.get_running_loop()
        due = self._pending[0][1] + self.timeout_s
        if loop.time() >= due:
            self._fail(RedisTimeoutError("Redis did not answer in time"))
        else:
            self._watchdog = loop.call_later(due - loop.time(), self._check)

    async def _connect(self) -> _Replies:
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            conn = self._conn
            if conn is not None and conn.transport is not None and not conn.transport.is_closing():
                return conn
            loop = asyncio.get_running_loop()
            parts = urlsplit(self.url)
            query = parse_qs(parts.query)
            conn = _Replies(self)
            try:
                async with asyncio.timeout(self.timeout_s):
                    if parts.scheme == "unix":
                        await loop.create_unix_connection(lambda: conn, unquote(parts.path))
                        db = query.get("db", ["0"])[0]
                    else:
                        await loop.create_connection(
                            lambda: conn,
                            parts.hostname or "127.0.0.1",
                            parts.port or 6379,
                            ssl=_tls(parts.scheme, query),
                        )
                        db = (parts.path or "/0").lstrip("/") or query.get("db", ["0"])[0]
            except (TimeoutError, OSError) as exc:
                raise RedisConnectionError(f"cannot reach Redis: {exc}") from None
            setup = []
            if parts.password:
                auth = [unquote(parts.password)]
                if parts.username:
                    auth.insert(0, unquote(parts.username))
                setup.append(_pack(b"AUTH", *auth))
            if db and db != "0":
                setup.append(_pack(b"SELECT", db))
            self._pending.clear()
            self._out = []
            self._conn = conn
            for command in setup:
                reply = await self._send(conn, command)
                if isinstance(reply, hiredis.ReplyError):
                    self._fail(RedisConnectionError(str(reply)))
                    raise RedisConnectionError(str(reply))
            return conn

    def _fail(self, exc: Exception, conn: _Replies | None = None) -> None:
        """Drop the connection (``conn``: only if it is still this one); every
        call in flight gets ``exc``."""
        if conn is not None and conn is not self._conn:
            return  # an older connection closing: not the current calls' business
        conn, self._conn = self._conn, None
        if conn is not None and conn.transport is not None:
            conn.transport.close()
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        self._out = []
        while self._pending:
            future = self._pending.popleft()[0]
            if not future.done():
                future.set_exception(exc)

    async def close(self) -> None:
        self._fail(RedisConnectionError("closed"))
