// The page's memory of the race - one small store: the server's messages go
// in through dispatch() (js/race-state.js folds them in), the page's own
// changes (which view is on screen) through update(), and what subscribe()d
// renders it again - and the numbered board actions (move, tap, undo, give
// up). One action is in flight at a time; seq numbers follow the protocol so a
// retry after a dropped link is never applied twice.

import { ERR } from "./protocol.js";
import { EMPTY, applyServerMessage } from "./race-state.js";

/** The race's state: a new object after every change, never changed in place.
 * Only the page's controller (main.js) reads it; views are handed what they show. */
export let state = EMPTY;

const watchers = new Set();

/** Call `fn(state)` after every change: renders follow state. */
export function subscribe(fn) {
  watchers.add(fn);
  return () => watchers.delete(fn);
}

function changed(next) {
  state = next;
  for (const fn of watchers) fn(state);
}

/** The page's own change (`changes`: the fields that change). */
export function update(changes = {}) {
  changed({ ...state, ...changes });
}

/** A server message, folded into the state (the one way the race's state changes). */
export function dispatch(msg) {
  const next = applyServerMessage(state, msg);
  if (next !== state) changed(next);
}

const MAX_QUEUED = 4;

export class Actions {
  /** send(msg) -> bool: false when the link is down. */
  constructor(send) {
    this.send = send;
    this.lastSeq = 0;
    this.inflight = null;
    this.queue = [];
  }

  reset(lastSeq = 0) {
    this.lastSeq = lastSeq;
    this.inflight = null;
    this.queue = [];
  }

  /** Queue a board action; returns false when it could not be sent. */
  push(type, fields = {}) {
    if (this.queue.length >= MAX_QUEUED) return false;
    this.queue.push({ type, ...fields });
    return this.pump();
  }

  pump() {
    if (this.inflight || !this.queue.length) return true;
    const msg = { ...this.queue.shift(), seq: this.lastSeq + 1 };
    if (!this.send(msg)) {
      this.queue = [];
      return false;
    }
    this.inflight = msg;
    return true;
  }

  ack(msg) {
    if (msg.seq > this.lastSeq) this.lastSeq = msg.seq;
    if (this.inflight && msg.seq >= this.inflight.seq) this.inflight = null;
    this.pump();
  }

  /** The server refused the action in flight: forget what was queued after it. */
  fail(msg) {
    const failed = this.inflight;
    this.inflight = null;
    this.queue = [];
    if (typeof msg.last_seq === "number") this.lastSeq = msg.last_seq;
    if (msg.code === ERR.SEQ_GAP && failed && !failed.retried) {
      this.queue.push({ ...failed, retried: true });
      this.pump();
      return null;
    }
    return failed;
  }

  /** The server reports how far it got (a `board` message): forget actions it has applied. */
  sync(lastSeq) {
    if (lastSeq > this.lastSeq) this.lastSeq = lastSeq;
    if (this.inflight && this.inflight.seq <= lastSeq) this.inflight = null;
    this.pump();
  }

  /** After a resume: an action the server already applied is done; otherwise send it again. */
  resumed(lastSeq) {
    this.lastSeq = lastSeq;
    const pending = this.inflight;
    this.inflight = null;
    if (pending && pending.seq > lastSeq) this.queue.unshift(pending);
    this.pump();
  }
}
