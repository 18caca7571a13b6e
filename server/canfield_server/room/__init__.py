"""Room and race logic over the engine: no Redis, no sockets (storage is an interface)."""
