"""How the move script reaches Redis: the server's hottest call, one way.

``move_script(redis, url, body)`` gives the caller for a deployment:

* one Redis (``redis://``, ``rediss://``, ``unix://``): ``PipelinedScript``,
  a dedicated connection. Every call writes its command at once and
  queues a future; one reader task parses replies (hiredis) and resolves
  the futures in order, so any number of moves are in flight on one
  socket with no pool checkout, no per-call client machinery and no
  waiting for one another. Each call is still its own atomic EVALSHA. On
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
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        if not isinstance(part, bytes):
            part = str(part).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(part), part))
    return b"".join(out)


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


class PipelinedScript:
    """Calls one Lua script over a dedicated, pipelined connection."""

    def __init__(self, url: str, body: str, timeout_s: float = 5.0) -> None:
        self.url = url
        self.body = body.encode()
        self.sha = hashlib.sha1(self.body).hexdigest().encode()
        self.timeout_s = timeout_s
        self._writer: asyncio.StreamWriter | None = None
        self._reader_task: asyncio.Task[None] | None = None
        self._pending: deque[asyncio.Future[Any]] = deque()
        self._connecting: asyncio.Lock | None = None

    async def __call__(self, keys: list[str], args: list[Any]) -> Any:
        writer = self._writer
        if writer is None or writer.is_closing():
            writer = await self._connect()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.append(future)
        writer.write(_pack(b"EVALSHA", self.sha, len(keys), *keys, *args))
        try:
            async with asyncio.timeout(self.timeout_s):
                reply = await future
        except TimeoutError:
            self._fail(RedisTimeoutError("Redis did not answer in time"))
            raise RedisTimeoutError("Redis did not answer in time") from None
        if isinstance(reply, hiredis.ReplyError):
            if str(reply).startswith("NOSCRIPT"):  # Redis restarted: send the body once
                future = asyncio.get_running_loop().create_future()
                self._pending.append(future)
                writer.write(_pack(b"EVAL", self.body, len(keys), *keys, *args))
                async with asyncio.timeout(self.timeout_s):
                    reply = await future
            if isinstance(reply, hiredis.ReplyError):
                raise ResponseError(str(reply))
        return reply

    async def _connect(self) -> asyncio.StreamWriter:
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            if self._writer is not None and not self._writer.is_closing():
                return self._writer
            parts = urlsplit(self.url)
            query = parse_qs(parts.query)
            try:
                if parts.scheme == "unix":
                    async with asyncio.timeout(self.timeout_s):
                        reader, writer = await asyncio.open_unix_connection(unquote(parts.path))
                    db = query.get("db", ["0"])[0]
                else:
                    async with asyncio.timeout(self.timeout_s):
                        reader, writer = await asyncio.open_connection(
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
            self._writer = writer
            self._reader_task = asyncio.get_running_loop().create_task(self._read(reader, writer))
            for command in setup:
                future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
                self._pending.append(future)
                writer.write(command)
                async with asyncio.timeout(self.timeout_s):
                    reply = await future
                if isinstance(reply, hiredis.ReplyError):
                    self._fail(RedisConnectionError(str(reply)))
                    raise RedisConnectionError(str(reply))
            return writer

    async def _read(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        parser = hiredis.Reader()
        pending = self._pending
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    raise RedisConnectionError("Redis closed the connection")
                parser.feed(data)
                reply = parser.gets()
                while reply is not False:
                    future = pending.popleft()
                    if not future.done():
                        future.set_result(reply)
                    reply = parser.gets()
        except (OSError, RedisConnectionError, IndexError) as exc:
            if self._writer is writer:  # a newer connection is not this reader's to fail
                self._fail(RedisConnectionError(str(exc) or "Redis connection lost"))

    def _fail(self, exc: Exception) -> None:
        """Drop the connection; every call in flight gets ``exc``."""
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.close()
        while self._pending:
            future = self._pending.popleft()
            if not future.done():
                future.set_exception(exc)
        task, self._reader_task = self._reader_task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def close(self) -> None:
        self._fail(RedisConnectionError("closed"))
