// The browser's player identity: a token the server issued (no sign-up), kept in
// localStorage and sent with `identify` first thing on every connection, so
// races in rooms and the daily race land in this browser's history.
//
// attachIdentity(conn) hooks a Connection (js/net.js) without changing it: on
// every "open" it sends `identify` (with the stored token, or none to be issued
// one) before anything the page sends next, so the server always knows who
// creates, joins or resumes. A token the server no longer knows (`bad-identity`)
// is forgotten and a new one asked for; that refusal never reaches the page's
// own error handling.
//
// A new identity may be refused (`too-many-identities`: the network's budget of
// new identities is spent). That refusal does not reach the page's own error
// handling either: the identity's `refused` holds it, onRefused(fn) listeners
// say so where the page needs an identity (identityRefusal() for the words of a
// later `no-identity`), and identify is asked again by itself once the server
// said one is back. Rooms need no identity and go on as before.

import { ERR } from "./protocol.js";

const KEY = "cfr.identity";
/** the longest wait before asking again, whatever the server said (ms) */
const MOST_WAIT_MS = 3600_000;

let refusal = null; // the last `too-many-identities` error, while it holds

/** The `too-many-identities` error this page's identity is waiting out, or null. */
export const identityRefusal = () => refusal;

/** {token, id} as last stored, or null. */
export function storedIdentity() {
  try {
    const value = JSON.parse(localStorage.getItem(KEY) || "null");
    return value && typeof value.token === "string" ? value : null;
  } catch {
    return null;
  }
}

function store(value) {
  try {
    if (value) localStorage.setItem(KEY, JSON.stringify(value));
    else localStorage.removeItem(KEY);
  } catch {
    // private mode or full storage: a new identity on each visit
  }
}

/** The stored token (for the /history download's header), or "". */
export const identityToken = () => storedIdentity()?.token || "";

/**
 * Identify on every connection of conn. Returns {id, streak, ready, onReady(fn)}:
 * fn(identity) runs each time the server has answered `identify` on a new
 * connection (pages send what needs an identity from there).
 */
export function attachIdentity(conn) {
  const me = { id: storedIdentity()?.id || null, streak: 0, ready: false, listeners: [] };
  me.refused = null; // the `too-many-identities` error being waited out
  me.refusedListeners = [];
  let asked = false; // an identify is waiting for its answer
  let fresh = false; // ...and it asked for a new identity
  let again = 0; // the timer asking again after a refusal

  const ask = () => {
    const known = storedIdentity();
    fresh = !known;
    asked = conn.send(known ? { type: "identify", token: known.token } : { type: "identify" });
  };
  me.onReady = (fn) => {
    me.listeners.push(fn);
    if (me.ready) fn(me);
  };
  me.onRefused = (fn) => {
    me.refusedListeners.push(fn);
    if (me.refused) fn(me);
  };
  const refuse = (msg) => {
    refusal = me.refused = msg;
    const seconds = Number(msg.params?.retry_s);
    clearTimeout(again);
    if (seconds > 0) {
      // a little after the time named, so the identity is surely back
      const wait = Math.min(seconds * 1000 + 500 + Math.random() * 1500, MOST_WAIT_MS);
      again = setTimeout(() => {
        if (!me.ready && !asked) ask();
      }, wait);
    }
    for (const fn of me.refusedListeners) fn(me);
  };

  conn.on("open", () => {
    me.ready = false;
    ask();
  });
  conn.on("close", () => {
    me.ready = false;
    asked = false;
  });
  conn.on("identity", (msg) => {
    asked = false;
    const known = storedIdentity();
    if (msg.token) {
      if (fresh && known && known.token) {
        // another tab was issued one meanwhile: use that one, so all tabs are one player
        ask();
        return;
      }
      store({ token: msg.token, id: msg.id });
    } else if (known && known.id !== msg.id) {
      store({ ...known, id: msg.id });
    }
    clearTimeout(again);
    refusal = me.refused = null;
    me.id = msg.id;
    me.streak = msg.streak || 0;
    me.ready = true;
    for (const fn of me.listeners) fn(me);
  });

  // a refused token: forget it and ask for a new identity; the page never sees it
  const emit = conn.emit.bind(conn);
  conn.emit = (type, msg) => {
    if (type === "error" && msg?.code === ERR.BAD_IDENTITY && asked) {
      store(null);
      ask();
      return;
    }
    if (type === "error" && msg?.code === ERR.TOO_MANY_IDENTITIES && asked && fresh) {
      asked = false;
      refuse(msg);
      return;
    }
    emit(type, msg);
  };
  return me;
}
