// The page's memory of the race - one small store: the server's messages go
// in through dispatch() (js/race-state.js folds them in), the page's own
// changes (which view is on screen) through update(), and what subscribe()d
// renders it again - and the numbered board actions (move, tap, undo, give
// up): sent as they are made, their boards guessed where the page can know
// them; seq numbers follow the protocol so a retry after a dropped link is
// never applied twice.

import { ERR } from "./protocol.js";
import { sameBoard } from "./predict.js";
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

/** Actions that may wait unsent behind one whose board the page cannot guess. */
const MAX_QUEUED = 4;

/**
 * The numbered board actions (move, tap, undo, give up), sent as they are made:
 * several may be in flight, numbered by `seq`, and the server answers them in
 * order. Each action's board is guessed at once when the page can know it (no
 * hidden card turns up: `guess(board, action)`, js/predict.js) and shown; an
 * action the page cannot guess (a draw, a card turned up, undo, give up) is
 * sent too, and what comes after it waits unsent until its answer is in. Each
 * answer is the server's word: an ack's board replaces the guess (the later
 * guesses are made again from it when it differs), and a refusal drops the
 * guesses (the board goes back to the server's); the actions sent after a
 * refused one are refused too (a seq gap), silently.
 */
export class Actions {
  /** send(msg) -> bool: false when the link is down; confirmed(): the server's
   * board; guess(board, action) -> {board} or null. */
  constructor(send, confirmed = () => null, guess = () => null) {
    this.send = send;
    this.confirmed = confirmed;
    this.guess = guess;
    this.reset(0);
  }

  reset(lastSeq = 0) {
    /** the last seq the server applied, as far as this page knows */
    this.lastSeq = lastSeq;
    /** sent, not answered yet, oldest first: {msg, board (the guess, or null), doomed} */
    this.sent = [];
    /** made, not sent yet (behind an action without a guess) */
    this.queue = [];
  }

  /** The actions still in flight that count (not refused already). */
  live() {
    return this.sent.filter((entry) => !entry.doomed);
  }

  /** The board to show: the last guess in flight, else the server's board. */
  shown() {
    const guessed = this.live().filter((entry) => entry.board);
    return guessed.length ? guessed[guessed.length - 1].board : this.confirmed();
  }

  /** An action in flight without a guess: what comes next waits for its answer. */
  blocked() {
    return this.live().some((entry) => !entry.board);
  }

  /** Queue a board action; returns false when it could not be sent. */
  push(type, fields = {}) {
    if (this.queue.length >= MAX_QUEUED) return false;
    this.queue.push({ type, ...fields });
    return this.pump();
  }

  /** Send what is queued, up to the first action without a guess. */
  pump() {
    while (this.queue.length && !this.blocked()) {
      const action = this.queue.shift();
      const msg = { ...action, seq: this.lastSeq + this.live().length + 1 };
      delete msg.retried;
      const made = this.guess(this.shown(), action);
      if (!this.send(msg)) {
        this.queue = [];
        return false;
      }
      this.sent.push({ action, msg, board: made?.board || null, doomed: false });
    }
    return true;
  }

  /** The server's ack of the oldest action in flight: its board replaces the guess. */
  ack(msg) {
    const index = this.sent.findIndex((entry) => !entry.doomed && entry.msg.seq === msg.seq);
    if (msg.seq > this.lastSeq) this.lastSeq = msg.seq;
    if (index < 0) {
      this.pump();
      return;
    }
    const [entry] = this.sent.splice(0, index + 1).slice(-1);
    if (!entry.board || !sameBoard(entry.board, msg.board)) this.guessAgain(msg.board);
    this.pump();
  }

  /** Guess the boards of the actions still in flight again, from `board`. */
  guessAgain(board) {
    let base = board;
    for (const entry of this.live()) {
      const made = base ? this.guess(base, entry.action) : null;
      entry.board = made?.board || null;
      base = entry.board;
    }
  }

  /** The server refused an action (`msg`: its error): the failed action, or null
   * when it was one sent after a refused one (or a seq gap, sent again once). */
  fail(msg) {
    const index = typeof msg.seq === "number" ? this.sent.findIndex((entry) => entry.msg.seq === msg.seq) : 0;
    const head = index >= 0 ? this.sent.splice(0, index + 1).pop() : null;
    if (!head || head.doomed) return null;
    for (const entry of this.sent) entry.doomed = true; // refused in turn: a gap
    if (typeof msg.last_seq === "number") this.lastSeq = msg.last_seq;
    if (msg.code === ERR.SEQ_GAP && !head.action.retried) {
      this.queue = [{ ...head.action, retried: true }];
      this.pump();
      return null;
    }
    this.queue = [];
    return head.msg;
  }

  /** The server reports how far it got and its board (a `board` message): forget
   * actions it has applied, and guess the others again from that board. */
  sync(lastSeq, board) {
    if (lastSeq > this.lastSeq) this.lastSeq = lastSeq;
    this.sent = this.sent.filter((entry) => !entry.doomed && entry.msg.seq > lastSeq);
    this.guessAgain(board);
    this.pump();
  }

  /** After a resume: actions the server applied are done; the others go again, in order. */
  resumed(lastSeq) {
    this.lastSeq = lastSeq;
    const again = this.live().filter((entry) => entry.msg.seq > lastSeq).map((entry) => entry.action);
    this.sent = [];
    this.queue = [...again, ...this.queue];
    this.pump();
  }
}
