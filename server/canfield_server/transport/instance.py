"""Say which server process answered: an ``X-Canfield-Instance`` header.

Behind a proxy every process looks the same from outside; the header (on
HTTP responses and on the WebSocket handshake) lets an operator or a test
see where a connection landed. The value is ``Settings.instance``.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["HEADER", "InstanceHeader", "instance_header"]

HEADER = "x-canfield-instance"

_FIRST = {"http": "http.response.start", "websocket": "websocket.accept"}


def instance_header(instance: str) -> tuple[bytes, bytes]:
    """The header as an ASGI (name, value) pair."""
    return HEADER.encode(), instance.encode()


class InstanceHeader:
    """Pure ASGI middleware: adds the header to the first message of a reply only."""

    def __init__(self, app: ASGIApp, instance: str) -> None:
        self.app = app
        self.header = instance_header(instance)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        first = _FIRST.get(scope["type"])
        if first is None:
            await self.app(scope, receive, send)
            return
        sent = False

        async def send_with_header(message: Message) -> None:
            nonlocal sent
            if not sent and message["type"] == first:
                sent = True
                message = {**message, "headers": [*message.get("headers", []), self.header]}
            await send(message)

        await self.app(scope, receive, send_with_header)
