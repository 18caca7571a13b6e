"""Redis: the store, its Lua scripts and keys, pub/sub, presence, the bundled redis-server."""
