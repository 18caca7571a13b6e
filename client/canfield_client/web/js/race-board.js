// The board a racer plays on, one for every race page (the room race in
// main.js, the daily race in daily.js): the board view (js/board.js), the
// numbered actions (js/state.js), what a drag, tap or key asks for, the
// server's ack, a refused action (said in a toast, the cards snapped back),
// and a dropped link (a drag in progress snaps back).

import { BoardView } from "./board.js";
import { errorText } from "./errors.js";
import { ACTION_ERRORS, ERR } from "./protocol.js";
import { flash } from "./shell.js";
import { Actions } from "./state.js";
import { getPref } from "./store.js";

export class RaceBoard {
  /**
   * root: the board's element; conn: the Connection (its `ack` and `close`
   * are heard here, before the page's own handlers if built first);
   * playing(): whether an action may go now; position(): the board an
   * action's refusal is worded against; onIllegal(): told of an illegal move
   * (a sound).
   */
  constructor(root, conn, { playing, position, onIllegal = () => {} }) {
    this.conn = conn;
    this.playing = playing;
    this.position = position;
    this.onIllegal = onIllegal;
    this.actions = new Actions((msg) => conn.send(msg));
    this.view = new BoardView(root, {
      onMove: (move) => this.act("move", { move }),
      onTap: (card) => this.act("tap", { card, double_click: getPref("double_click", true) }),
      onDraw: () => this.act("move", { move: "S" }),
    });
    conn.on("ack", (msg) => this.actions.ack(msg));
    conn.on("close", () => this.view.snapBack());
  }

  /** Ask for a board action (move, tap, undo, give up); a drop that cannot go snaps back. */
  act(type, fields = {}) {
    if (!this.playing()) return;
    if (!this.actions.push(type, fields)) this.view.snapBack();
  }

  /** An `error` for the action in flight: said, and the cards put back. False
   * when the error is not an action's (the page's to handle). */
  refused(msg) {
    if (!ACTION_ERRORS.has(msg.code) || !(this.actions.inflight || msg.seq)) return false;
    const failed = this.actions.fail(msg);
    if (!failed) return true; // a seq gap: the action goes again, once
    if (msg.code === ERR.ILLEGAL_MOVE) this.onIllegal();
    this.view.snapBack();
    flash(errorText(msg, { action: failed, board: this.position(), offset: this.conn.offset }));
    return true;
  }
}
