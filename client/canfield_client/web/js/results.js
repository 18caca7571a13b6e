// After the race: who won and our own place, final standings, the series
// tally, the race chart (every player's cards home after each action, replayed
// from the deal code), each player's replay (step or play), and the host's
// rematch button.

import { $, clock, copyText, h } from "./dom.js";
import { t } from "./i18n.js";
import { BoardView } from "./board.js";
import { RaceChart } from "./chart.js";
import { Leaderboard } from "./leaderboard.js";
import { playerIds } from "./racewatch.js";
import { ReplayGame, ReplayPlayer } from "./replay.js";
import { seriesEl } from "./series.js";
import { replayPage } from "./shell.js";
import { state } from "./state.js";
import { placeText } from "./words.js";

export class Results {
  constructor(send, flash) {
    this.send = send;
    this.flash = flash;
    this.table = new Leaderboard($("#final-lb"));
    this.player = new ReplayPlayer($("#view-results .replay-controls"), new BoardView($("#replay-board")));
    this.finished = null;
    this.me = null;
    // the call-out under the title, the series tally, the race chart panel
    this.call = h("div", { id: "winner-call", class: "winner-call", role: "status" });
    $("#view-results h1").after(this.call);
    this.seriesSlot = h("div", { id: "results-series" });
    $("#final-lb").after(this.seriesSlot);
    this.chartTitle = h("h2", { text: t("race_chart") });
    const panel = h("div", { class: "card-panel chart-card", id: "results-chart" }, this.chartTitle);
    $("#view-results .results-grid").append(panel);
    this.chart = new RaceChart(panel, "actions");
    $("#copy-deal").addEventListener("click", async () => {
      if (await copyText($("#deal-code").textContent)) this.flash(t("copied"));
    });
    $("#rematch").addEventListener("click", () => this.send({ type: "rematch" }));
    $("#replay-player").addEventListener("change", (e) => this.load(e.target.value));
  }

  show(finished, me, isHost) {
    const first = this.finished !== finished;
    this.finished = finished;
    this.me = me;
    this.table.update({ rows: finished.standings, final: true }, me?.id);
    this.renderCall();
    this.renderSeries();
    if (first) this.lines = this.replayLines(finished);
    this.renderChart();
    $("#deal-code").textContent = finished.deal;
    const link = $("#replay-link"); // its own page, for anyone (the server keeps it)
    link.hidden = !finished.replay;
    if (finished.replay) link.href = replayPage(finished.replay);
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
    this.player.paint();
    if (!this.finished) return;
    this.renderCall();
    this.renderSeries();
    this.renderChart();
  }

  /** "Ana wins!", how, and our own place. */
  renderCall() {
    const rows = this.finished?.standings || [];
    const top = rows[0];
    if (!top) {
      this.call.replaceChildren();
      return;
    }
    const how = top.status === "won" ? t("win_all", { time: clock(top.time_ms) }) : t("win_most", { n: top.on_foundations });
    const mine = rows.find((r) => r.id === this.me?.id);
    this.call.classList.toggle("mine", top.id === this.me?.id);
    this.call.replaceChildren(
      h("p", { class: "winner" }, h("span", { class: "trophy", "aria-hidden": "true", text: "\u2605" }), t("wins", { name: top.name })),
      h("p", { class: "how", text: how }),
      ...(mine ? [h("p", { class: "your-place", text: t("your_place", { place: placeText(mine.rank, rows.length) }) })] : []),
    );
  }

  renderSeries() {
    this.seriesSlot.replaceChildren(seriesEl(state.roomState, this.me?.id) || "");
  }

  /** Each player's cards home after each action, replayed from the deal code. */
  replayLines(finished) {
    const lines = [];
    for (const row of finished.standings || []) {
      const moves = finished.replays?.[row.id] || [];
      try {
        const game = new ReplayGame(finished.deal);
        const points = [[0, game.view().on_foundations]];
        moves.forEach((move, i) => {
          game.apply(move);
          const cards = game.view().on_foundations;
          if (cards !== points[points.length - 1][1]) points.push([i + 1, cards]);
        });
        lines.push({ id: row.id, name: row.name, points, end: moves.length });
      } catch {
        // a deal this page cannot read: no line rather than a wrong one
      }
    }
    return lines;
  }

  renderChart() {
    this.chartTitle.textContent = t("race_chart");
    this.chart.reset();
    this.chart.order(playerIds());
    this.chart.render(this.lines || [], { me: this.me?.id, note: t("chart_replay_note") });
  }

  /** Step through one player's race, rebuilt from the deal code. */
  load(playerId) {
    const moves = this.finished?.replays?.[playerId] || [];
    if (!this.player.load(this.finished?.deal, moves)) this.flash(t("err_bad_deal_code"));
  }
}
