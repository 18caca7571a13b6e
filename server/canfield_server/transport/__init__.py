"""The network edge: the ASGI app, the WebSocket endpoint, rate limits."""
