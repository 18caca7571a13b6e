"""The Canfield Race wire protocol, shared by the server and every client.

Layers: ``canfield`` (the engine) <- ``canfield_protocol`` <- the server
and the clients, which never import each other. This package holds the
message types with their schema (``messages``), the error codes and the
enums both sides of the wire use (``enums``).
"""

from .arena_messages import *  # noqa: F403
from .arena_messages import __all__ as _arena_all
from .messages import *  # noqa: F403
from .messages import __all__ as _messages_all

__all__ = [*_messages_all, *_arena_all]
