// The board a racer plays on, one for every race page (the room race in
// main.js, the daily race in daily.js): the board view (js/board.js), the
// numbered actions (js/state.js: sent as they are made, each shown at once
// where the page can guess its board, js/predict.js), what a drag, tap or key
// asks for, the server's ack, a refused action (said in a toast, the cards
// back where the server has them), and a dropped link (a drag in progress
// snaps back).

import { BoardView } from "./board.js";
import { errorText } from "./errors.js";
import { guess } from "./predict.js";
import { ACTION_ERRORS, ERR } from "./protocol.js";
import { flash } from "./shell.js";
import { Actions } from "./state.js";
import { getPref } from "./store.js";

export class RaceBoard {
  /**
   * root: the board's element; conn: the Connection (its `ack` and `close`
   * are heard here, before the page's own handlers if built first);
   * playing(): whether an action may go now; position(): the server's board
   * (an action's refusal is worded against it); onIllegal(): told of an
   * illegal move (a sound); changed(): the board to show changed without a
   * message from the server (an action guessed, or refused): render again;
   * onShown(before, after, move): an action of ours is on the board (guessed
   * at once, or answered) - a sound.
   */
  constructor(root, conn, { playing, position, onIllegal = () => {}, changed = () => {}, onShown = () => {} }) {
    this.conn = conn;
    this.playing = playing;
    this.position = position;
    this.onIllegal = onIllegal;
    this.changed = changed;
    this.onShown = onShown;
    this.actions = new Actions(
      (msg) => conn.send(msg),
      () => this.position(),
      (board, action) => guess(board, action, this.view.baseSuit),
    );
    this.view = new BoardView(root, {
      onMove: (move) => this.act("move", { move }),
      onTap: (card) => this.act("tap", { card, double_click: getPref("double_click", true) }),
      onDraw: () => this.act("move", { move: "S" }),
    });
    conn.on("ack", (msg) => {
      const guessed = this.actions.live().find((entry) => entry.msg.seq === msg.seq)?.board;
      if (!guessed) this.onShown(this.shown(), msg.board, msg.move);
      this.actions.ack(msg);
    });
    conn.on("close", () => this.view.snapBack());
  }

  /** The board to show: the last guess of an action in flight, else the server's. */
  shown() {
    return this.actions.shown();
  }

  /** Ask for a board action (move, tap, undo, give up); a drop that cannot go snaps back. */
  act(type, fields = {}) {
    if (!this.playing()) return;
    const before = this.shown();
    if (!this.actions.push(type, fields)) {
      this.view.snapBack();
      return;
    }
    const after = this.shown();
    if (after !== before) {
      this.changed();
      this.onShown(before, after, type === "move" ? fields.move : null);
    }
  }

  /** An `error` for an action in flight: said, and the cards put back where the
   * server has them. False when the error is not an action's (the page's to handle). */
  refused(msg) {
    if (!ACTION_ERRORS.has(msg.code) || !(this.actions.sent.length || msg.seq)) return false;
    const failed = this.actions.fail(msg);
    if (!failed) return true; // one sent after a refused one, or a seq gap sent again
    if (msg.code === ERR.ILLEGAL_MOVE) this.onIllegal();
    this.view.snapBack();
    this.changed();
    flash(errorText(msg, { action: failed, board: this.position(), offset: this.conn.offset }));
    return true;
  }
}
