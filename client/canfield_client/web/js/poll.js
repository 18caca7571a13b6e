// A home-page list the server is asked for now and again (the public races in
// progress, the public arenas): one loop, so both ask the same way.

export class Poll {
  constructor(url, everyMs) {
    this.url = url;
    this.everyMs = everyMs;
    this.timer = null;
  }

  /** Ask now and every ``everyMs`` while ``showing()`` holds: each answer's body
   * to ``take``, then ``render`` (offline too: the last answer stays shown).
   * Started again while it runs, it does nothing. */
  start(showing, take, render) {
    const ask = async () => {
      this.timer = null;
      if (!showing()) return;
      try {
        const reply = await fetch(this.url, { cache: "no-store" });
        if (reply.ok) take(await reply.json());
      } catch {
        // offline: keep the last answer
      }
      render();
      this.timer = setTimeout(ask, this.everyMs);
    };
    if (this.timer === null) ask();
  }
}
