// The race view around the board: the score, the note under it (waiting, won,
// given up, no useful move), the race's clocks, and its controls (undo, a hint
// in a practice race, give up, the host's end of the race, the keys). The board
// itself is RaceBoard's; main.js hands the server's messages here.

import { raceKeys } from "./board.js";
import { fold } from "./chrome.js";
import { ask } from "./confirm.js";
import { $, clock, confirmTwice } from "./dom.js";
import { t } from "./i18n.js";
import { DONE_STATUSES, ERR } from "./protocol.js";
import { flash } from "./shell.js";

// what refuses a hint (it has no seq); "rate-limited" may answer a move too, so it is not here
const HINT_ERRORS = new Set([ERR.NOT_ALLOWED, ERR.WRONG_PHASE, ERR.NOT_PLAYER, ERR.UNAVAILABLE]);

export class RaceScreen {
  /** ``read``: the page's state; ``race``: the RaceBoard; ``isHost``: this page
   * hosts the room; ``errorText``: a refusal in the page's words. */
  constructor({ read, conn, race, isHost, errorText }) {
    this.read = read;
    this.conn = conn;
    this.race = race;
    this.isHost = isHost;
    this.errorText = errorText;
    // one hint at a time (the server refuses a second while the first is solved)
    this.hintAsked = 0;
    // on a phone, give up / end the race / leave wait behind one button (the row stays one row)
    this.foldActions = fold($("#race-more"), $("#race-more-panel"));
    const act = (type, fields) => race.act(type, fields);
    confirmTwice($("#give-up"), () => t("give_up"), () => t("sure_give_up"), () => act("give_up"));
    $("#undo").addEventListener("click", () => act("undo"));
    $("#end-race").addEventListener("click", async () => {
      if (!(await ask(t("sure_end_race"), t("end_race")))) return;
      const state = read();
      if (isHost() && state.roomState?.phase === "racing") conn.send({ type: "end_race" });
    });
    $("#hint").addEventListener("click", () => this.askHint());
    raceKeys(() => read().view === "race", act, { h: () => this.askHint() });
  }

  /** Our status on the leaderboard (the server's word, whichever tab played). */
  myStatus() {
    const state = this.read();
    return state.leaderboard?.rows.find((r) => r.id === state.me?.id)?.status;
  }

  /** Our race is over: won, or a finish the leaderboard has for us. */
  done() {
    return Boolean(this.read().board?.won) || DONE_STATUSES.has(this.myStatus());
  }

  /** We race on this page now: a player's board, on the race view, not done. */
  playing() {
    const state = this.read();
    return state.view === "race" && state.me?.role === "player" && state.board && !this.done();
  }

  practice() {
    return Boolean(this.read().roomState?.settings?.practice);
  }

  askHint() {
    if (!this.playing() || !this.practice() || Date.now() - this.hintAsked < 5000) return;
    if (this.conn.send({ type: "hint" })) this.hintAsked = Date.now();
  }

  /** The server's answer to a hint: shown on the board, or said why not. */
  hint(msg) {
    this.hintAsked = 0;
    if (this.read().view !== "race") return;
    if (msg.busy) flash(t("hint_busy")); // the solver had no time for it now: ask again
    else if (!msg.move || !this.race.view.showHint(msg.move)) flash(t("no_hint"));
  }

  /** An error: true when it refused the hint asked (said, and nothing else to do);
   * an error with no seq answers the hint anyway, so another may be asked. */
  hintRefused(msg) {
    if (this.hintAsked && !msg.seq && HINT_ERRORS.has(msg.code)) {
      this.hintAsked = 0; // the hint was refused: say why, never fail a move for it
      flash(this.errorText(msg));
      return true;
    }
    if (!msg.seq) this.hintAsked = 0;
    return false;
  }

  /** Our place, said by the board's live region when it changes. */
  rank(msg) {
    const state = this.read();
    if (state.view === "race" && state.me?.role === "player") {
      this.race.view.setRank(msg.rows.find((r) => r.id === state.me?.id)?.rank, msg.rows.length);
    }
  }

  render() {
    const state = this.read();
    const board = this.race.view;
    document.body.classList.toggle("spectator", state.me?.role !== "player");
    // our own actions show at once where the page can guess them (js/state.js)
    const shown = state.me?.role === "player" && state.board ? this.race.shown() : null;
    if (board.board !== shown) board.render(shown);
    const b = shown;
    const done = this.done();
    $("#score").textContent = b ? b.score : "0";
    $("#undo").disabled = !b?.can_undo || done;
    $("#hint").hidden = !this.practice() || state.me?.role !== "player";
    $("#hint").disabled = done;
    $("#give-up").disabled = done;
    if (done) this.foldActions(false);
    $("#end-race").hidden = !this.isHost() || state.roomState?.public || state.roomState?.phase !== "racing";
    const note = $("#race-note");
    let text = "";
    if (state.me?.waiting) text = t("waiting_note");
    else if (state.board?.won || this.myStatus() === "won") text = t("you_won"); // the server's word; from another tab too
    else if (done) text = t("you_gave_up");
    else if (state.board?.useful_move === false && b === state.board) text = t("no_useful");
    note.textContent = text;
    note.hidden = !text || (state.me?.role !== "player" && !state.me?.waiting);
  }

  /** A player's own clock stops at their finish: the time the leaderboard has
   * for their last action once their race is done (null while it runs on). */
  finishMs() {
    const state = this.read();
    if (state.me?.role !== "player") return null;
    const row = state.leaderboard?.rows.find((r) => r.id === state.me?.id);
    return row && DONE_STATUSES.has(row.status) && typeof row.time_ms === "number" ? row.time_ms : null;
  }

  /** The race's time and the time left (time passes without messages). */
  tick() {
    const state = this.read();
    if (state.view !== "race" || !state.startedAt) return;
    const now = this.conn.serverNow();
    $("#race-clock").textContent = clock(this.finishMs() ?? now - state.startedAt);
    $("#left-stat").hidden = !state.endsAt;
    if (state.endsAt) $("#race-left").textContent = clock(state.endsAt - now);
  }
}
