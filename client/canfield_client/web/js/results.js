// After the race: final standings, the deal code, each player's replay rebuilt
// from the deal code (step or play), and the host's rematch button.

import { $, copyText, h, icon } from "./dom.js";
import { t } from "./i18n.js";
import { BoardView } from "./board.js";
import { Leaderboard } from "./leaderboard.js";
import { ReplayGame } from "./replay.js";

const PLAY_STEP_MS = 450;

export class Results {
  constructor(send, flash) {
    this.send = send;
    this.flash = flash;
    this.table = new Leaderboard($("#final-lb"));
    this.board = new BoardView($("#replay-board"));
    this.finished = null;
    this.frames = [];
    this.moves = [];
    this.step = 0;
    this.timer = null;
    $("#copy-deal").addEventListener("click", async () => {
      if (await copyText($("#deal-code").textContent)) this.flash(t("copied"));
    });
    $("#rematch").addEventListener("click", () => this.send({ type: "rematch" }));
    $("#replay-player").addEventListener("change", (e) => this.load(e.target.value));
    $("#rp-first").addEventListener("click", () => this.go(0));
    $("#rp-back").addEventListener("click", () => this.go(this.step - 1));
    $("#rp-forward").addEventListener("click", () => this.go(this.step + 1));
    $("#rp-last").addEventListener("click", () => this.go(this.frames.length - 1));
    $("#rp-play").addEventListener("click", () => this.togglePlay());
  }

  show(finished, me, isHost) {
    const first = this.finished !== finished;
    this.finished = finished;
    this.table.update({ rows: finished.standings, final: true }, me?.id);
    $("#deal-code").textContent = finished.deal;
    $("#par").textContent = finished.par ? t("par", { n: finished.par }) : "";
    $("#rematch").hidden = !isHost;
    $("#rematch-wait").hidden = isHost;
    const select = $("#replay-player");
    const current = select.value;
    select.replaceChildren(
      ...finished.standings.map((row) => h("option", { value: row.id, text: `${row.rank}. ${row.name}` })),
    );
    if (!first && current) select.value = current;
    else if (me && finished.replays?.[me.id]) select.value = me.id;
    if (first) this.load(select.value);
  }

  relabel() {
    this.table.relabel();
    this.paint();
  }

  /** Rebuild every position of one player's race from the deal code. */
  load(playerId) {
    this.stop();
    this.moves = this.finished?.replays?.[playerId] || [];
    this.frames = [];
    try {
      const game = new ReplayGame(this.finished.deal);
      this.frames.push(game.view());
      for (const move of this.moves) {
        game.apply(move);
        this.frames.push(game.view());
      }
    } catch (err) {
      this.frames = [];
      this.flash(String(err.message || err));
    }
    this.step = 0;
    this.paint();
  }

  go(step) {
    if (!this.frames.length) return;
    this.step = Math.max(0, Math.min(step, this.frames.length - 1));
    this.paint();
    if (this.step === this.frames.length - 1) this.stop();
  }

  paint() {
    const n = this.moves.length;
    $("#rp-step").textContent = t("step", { i: this.step, n });
    $("#rp-move").textContent = this.step ? this.moves[this.step - 1] : "";
    const play = $("#rp-play");
    play.replaceChildren(icon(this.timer ? "#i-pause" : "#i-play"));
    play.title = t(this.timer ? "pause" : "play");
    play.setAttribute("aria-label", play.title);
    this.board.render(this.frames[this.step] || null);
  }

  togglePlay() {
    if (this.timer) {
      this.stop();
      return;
    }
    if (this.step >= this.frames.length - 1) this.step = 0;
    this.timer = setInterval(() => this.go(this.step + 1), PLAY_STEP_MS);
    this.paint();
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
    if (this.frames.length) this.paint();
  }
}
