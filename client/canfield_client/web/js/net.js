// The WebSocket to our own server: JSON messages in and out, reconnects by
// itself with backoff, keeps an estimate of the server clock (the race clock).

// A link that has been quiet this long gets a ping; a ping unanswered this
// long means the link is dead (a dropped network never closes the socket by
// itself, so without this the page would wait for the OS's TCP timeout).
const QUIET_MS = 2500;
const PONG_WAIT_MS = 3000;
const CHECK_EVERY_MS = 500;
// a listener that only hears (a spectator) still speaks now and then, so a
// server that closes silent connections never takes it for an idle one
const SPEAK_EVERY_MS = 30000;

export class Connection {
  constructor(url = defaultUrl()) {
    this.url = url;
    this.ws = null;
    this.handlers = new Map();
    this.offset = 0; // server time minus local time, in ms
    this.bestRtt = Infinity;
    this.backoff = 250;
    this.timer = null;
    this.lastHeard = 0;
    this.lastPing = 0;
    this.awaitingPong = 0; // when the unanswered ping went out (0: none)
    this.open = false;
    this.helloOut = false; // the hello with rtt_ping is not answered yet
    window.addEventListener("online", () => this.reconnectNow());
    // the browser knows the network is gone: say so at once
    window.addEventListener("offline", () => this.ws && this.dropped(this.ws));
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.reconnectNow();
    });
    setInterval(() => this.keepAlive(), CHECK_EVERY_MS);
  }

  /** Register fn for a message type; "open" and "close" report the link itself. */
  on(type, fn) {
    if (!this.handlers.has(type)) this.handlers.set(type, []);
    this.handlers.get(type).push(fn);
  }

  emit(type, msg) {
    for (const fn of this.handlers.get(type) || []) fn(msg);
    for (const fn of this.handlers.get("*") || []) fn(msg);
  }

  connect() {
    clearTimeout(this.timer);
    if (this.ws && this.ws.readyState <= WebSocket.OPEN) return;
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.open = true;
      this.awaitingPong = 0;
      this.backoff = 250;
      this.lastHeard = Date.now();
      // rtt_ping: the server may time this page's round trip (docs/protocol.md,
      // "Round trips"); an older server refuses the field: said again without it
      this.helloOut = true;
      this.send({ type: "hello", v: 1, rtt_ping: true });
      this.ping();
      this.emit("open", {});
    };
    ws.onmessage = (event) => {
      this.lastHeard = Date.now();
      this.awaitingPong = 0; // anything heard proves the link
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg.type === "rtt_ping") {
        // answered at once, before anything is drawn: the server times this
        ws.send(JSON.stringify({ type: "rtt_pong", n: msg.n }));
        return;
      }
      if (this.helloOut && (msg.type === "welcome" || msg.type === "error")) {
        this.helloOut = false; // the hello's answer: the first a server sends
        if (msg.type === "error") {
          this.send({ type: "hello", v: 1 });
          return;
        }
      }
      if (msg.type === "reconnect") {
        // the server is going away: come back on a fresh connection soon
        this.backoff = Math.max(50, Number(msg.retry_ms) || 500);
        this.dropped(ws);
        return;
      }
      if (msg.type === "pong") this.syncClock(msg);
      else if (typeof msg.server_time === "number" && this.bestRtt === Infinity) {
        this.offset = msg.server_time - Date.now();
      }
      this.emit(msg.type, msg);
    };
    ws.onclose = () => this.dropped(ws);
  }

  /** Forget a socket that closed (or went silent) and try again soon. */
  dropped(ws) {
    if (this.ws !== ws) return;
    this.ws = null;
    this.open = false;
    ws.onclose = ws.onmessage = null;
    if (ws.readyState <= WebSocket.OPEN) ws.close();
    this.emit("close", {});
    this.timer = setTimeout(() => this.connect(), this.backoff);
    this.backoff = Math.min(Math.max(this.backoff, 250) * 2, 4000);
  }

  reconnectNow() {
    if (!this.open) {
      this.backoff = 250;
      this.connect();
    }
  }

  /** Send a message when the link is up; returns false (and drops it) otherwise. */
  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  ping() {
    if (this.send({ type: "ping", t: performance.now() })) {
      this.lastPing = Date.now();
      if (!this.awaitingPong) this.awaitingPong = this.lastPing;
    }
  }

  /** NTP-style: the pong with the shortest round trip gives the best offset. */
  syncClock(msg) {
    const now = performance.now();
    const rtt = now - msg.t;
    if (!(rtt >= 0) || typeof msg.server_time !== "number") return;
    if (rtt <= this.bestRtt * 1.5) {
      this.bestRtt = Math.min(this.bestRtt, rtt);
      this.offset = msg.server_time + rtt / 2 - Date.now();
    }
  }

  /**
   * Ping when the link has been quiet; a ping unanswered for PONG_WAIT_MS
   * drops the link (the page says "Connection lost" and reconnects), so a
   * dead network shows within about QUIET_MS + PONG_WAIT_MS.
   */
  keepAlive() {
    if (!this.open) return;
    const now = Date.now();
    if (this.awaitingPong && now - this.awaitingPong > PONG_WAIT_MS) {
      this.dropped(this.ws);
      return;
    }
    if (!this.awaitingPong && (now - this.lastHeard > QUIET_MS || now - this.lastPing > SPEAK_EVERY_MS)) {
      this.ping();
    }
  }

  /** The server's clock now, in ms since the epoch. */
  serverNow() {
    return Date.now() + this.offset;
  }
}

function defaultUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}
