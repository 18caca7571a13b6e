// The WebSocket to our own server: JSON messages in and out, reconnects by
// itself with backoff, keeps an estimate of the server clock (the race clock).

const PING_EVERY_MS = 10000;
const DEAD_AFTER_MS = 8000;
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
    this.open = false;
    window.addEventListener("online", () => this.reconnectNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.reconnectNow();
    });
    setInterval(() => this.keepAlive(), PING_EVERY_MS / 2);
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
      this.backoff = 250;
      this.lastHeard = Date.now();
      this.send({ type: "hello", v: 1 });
      this.ping();
      this.emit("open", {});
    };
    ws.onmessage = (event) => {
      this.lastHeard = Date.now();
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
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
    if (this.send({ type: "ping", t: performance.now() })) this.lastPing = Date.now();
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

  /** Ping now and then; a link that stays silent is treated as dropped. */
  keepAlive() {
    if (!this.open) return;
    if (Date.now() - this.lastHeard > PING_EVERY_MS + DEAD_AFTER_MS) {
      this.dropped(this.ws);
      return;
    }
    if (Date.now() - this.lastHeard > PING_EVERY_MS || Date.now() - this.lastPing > SPEAK_EVERY_MS) {
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
