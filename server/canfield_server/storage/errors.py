"""What "storage unreachable" looks like from the Redis client.

The room logic catches these (wired in at start-up) and answers
``unavailable`` with nothing applied; it never imports Redis itself.
"""

from __future__ import annotations

from redis.exceptions import RedisError

__all__ = ["STORAGE_ERRORS"]

STORAGE_ERRORS: tuple[type[BaseException], ...] = (RedisError, OSError)
