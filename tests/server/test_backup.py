"""A backup of the Redis append-only file, taken and restored as
docs/operations.md ("Backups of the Redis AOF") says, brings back the rooms
and every player's history on a new redis-server and a new server process."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import redis
from canfield_bench.processes import ServerProcess
from canfield_server.storage.embedded_redis import EmbeddedRedis

from tests.conftest import ServerFactory
from tests.server.conftest import FAST_ENV, Connect
from tests.server.helpers import DEAL, get, race_once

#: Redis 7 keeps its AOF as a directory of files; Redis 6 as one file
AOF_DIR = "appendonlydir"


def back_up(data_dir: Path, store: redis.Redis, to: Path) -> None:
    """The documented backup: compact the AOF, hold off automatic rewrites while
    copying (a rewrite swaps the files), copy the AOF, allow rewrites again."""
    store.bgrewriteaof()
    deadline = time.monotonic() + 30
    while store.info("persistence")["aof_rewrite_in_progress"]:
        assert time.monotonic() < deadline, "the AOF rewrite never finished"
        time.sleep(0.05)  # Redis offers no event for a finished rewrite
    store.config_set("auto-aof-rewrite-percentage", 0)
    try:
        to.mkdir(parents=True)
        if (data_dir / AOF_DIR).is_dir():
            shutil.copytree(data_dir / AOF_DIR, to / AOF_DIR)
        else:
            name = str(store.config_get("appendfilename")["appendfilename"])
            shutil.copy2(data_dir / name, to / name)
    finally:
        store.config_set("auto-aof-rewrite-percentage", 100)


async def test_a_restored_aof_brings_back_rooms_and_histories(
    server_factory: ServerFactory, redis_server: EmbeddedRedis, connect: Connect, tmp_path: Path
) -> None:
    first = server_factory(env=FAST_ENV)
    ann = await connect(first.ws_url)
    token = (await ann.request("identity", type="identify"))["token"]
    finished = await race_once(ann, "Ann")  # a race in Ann's history, with its replay
    await ann.request("left", type="leave")
    bo = await connect(first.ws_url)
    lobby = (await bo.create("Bo"))["room"]  # and a room waiting in its lobby

    backup = tmp_path / "backup"
    back_up(redis_server.data_dir, redis.Redis.from_url(redis_server.url), backup)
    await ann.close()
    await bo.close()
    first.stop()
    redis_server.stop()  # the old data is gone for good

    restored = EmbeddedRedis(tmp_path / "restored")
    shutil.copytree(backup, restored.data_dir)
    restored.start()
    second = ServerProcess(restored.url, tmp_path / "after", env=FAST_ENV)
    try:
        second.start()
        again = await connect(second.ws_url)
        known = await again.request("identity", type="identify", token=token)
        assert known["new"] is False
        history = await again.request("history", type="history")
        (race,) = history["races"]
        assert race["deal"] == DEAL and race["replay"] == finished["replay"]
        status, replay = get(second.http_url + race["replay"])
        assert status == 200 and replay["players"][0]["moves_list"] == ["S", "G"]

        cy = await connect(second.ws_url)
        joined = await cy.join(lobby, "Cy")
        assert joined["type"] == "joined", joined
        assert [m["name"] for m in joined["state"]["members"]] == ["Bo", "Cy"]
    finally:
        second.stop()
        restored.cleanup()
