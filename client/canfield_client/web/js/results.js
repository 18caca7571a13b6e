// After the race: who won and our own place, final standings, the series
// tally, the race chart (every player's cards home after each action, replayed
// from the deal code), each player's replay (step or play), the solver's
// review of each racer's line (review.js: where the win slipped away, and its
// winning line from there), each racer's new rating after a public race
// (rating.js), and the host's rematch button.

import { $, copyText, h } from "./dom.js";
import { t } from "./i18n.js";
import { BoardView } from "./board.js";
import { ghostComparisons } from "./ghosts.js";
import { RaceChart } from "./chart.js";
import { FINAL_COLUMNS, Leaderboard } from "./leaderboard.js";
import { playerIds } from "./racewatch.js";
import { raceRatings } from "./rating.js";
import { ReplayGame, ReplayStepper } from "./replay.js";
import { ReviewBar, slipOf, verdictText, watchFlags, watchReviews, whyText } from "./review.js";
import { seriesEl } from "./series.js";
import { replayPage } from "./shell.js";
import { headline, names, placeText } from "./words.js";

export class Results {
  /** read(): the page's race state (js/state.js), for the room's members and series. */
  constructor(send, flash, read) {
    this.read = read;
    this.send = send;
    this.flash = flash;
    // with each racer's median round trip to the server; a ghost's row marked
    this.table = new Leaderboard($("#final-lb"), undefined, null, undefined, FINAL_COLUMNS, (row) => this.isGhost(row));
    this.player = new ReplayStepper($("#view-results .replay-controls"), new BoardView($("#replay-board")));
    this.reviewBar = new ReviewBar(this.player.hint, this.player);
    this.finished = null;
    this.me = null;
    // the solver's reviews of this race (asked for once it is over for everyone)
    this.reviews = null;
    this.stopReviews = () => {};
    // results the integrity review flagged (their replay read again meanwhile)
    this.flags = {};
    this.stopFlags = () => {};
    this.flagList = h("ul", { id: "results-flags", class: "note flags", role: "status", hidden: true });
    this.reviewTitle = h("h3", { id: "review-title", text: t("rv_title") });
    this.reviewList = h("ul", { id: "review-list", class: "review-list", "aria-labelledby": "review-title" });
    this.reviewPanel = h("div", { class: "review-panel", hidden: true }, this.reviewTitle, this.reviewList);
    $("#par").after(this.reviewPanel);
    // the call-out under the title, the series tally, the race chart panel
    this.call = h("div", { id: "winner-call", class: "winner-call", role: "status" });
    $("#view-results h1").after(this.call);
    this.call.after(this.flagList);
    this.flagList.after($("#ghost-compare")); // a ghost race: how we did against each ghost
    this.seriesSlot = h("div", { id: "results-series" });
    this.ratingsSlot = h("div", { id: "results-ratings" });
    $("#final-lb").after(this.seriesSlot, this.ratingsSlot);
    this.chartTitle = h("h2", { text: t("race_chart") });
    const panel = h("div", { class: "card-panel chart-card", id: "results-chart" }, this.chartTitle);
    $("#view-results .results-grid").append(panel);
    this.chart = new RaceChart(panel, "actions");
    $("#copy-deal").addEventListener("click", async () => {
      if (await copyText($("#deal-code").textContent)) this.flash(t("copied"));
    });
    $("#rematch").addEventListener("click", () => this.send({ type: "rematch" }));
    // "Challenge a friend": a link to this racer's run, for others to race as a ghost
    this.challenge = null; // {replay, link} made for the race shown
    $("#make-challenge").addEventListener("click", () => {
      const replay = String(this.finished?.replay || "").split("/").pop();
      if (replay && this.me) this.send({ type: "challenge", replay, player_id: this.me.id });
    });
    $("#copy-challenge").addEventListener("click", async () => {
      if (await copyText($("#challenge-link").href)) this.flash(t("copied"));
    });
    $("#race-again").addEventListener("click", () => this.send({ type: "race_again" }));
    $("#replay-player").addEventListener("change", (e) => this.load(e.target.value));
  }

  show(finished, me, isHost) {
    const first = this.finished !== finished;
    this.finished = finished;
    this.me = me;
    this.table.update({ rows: finished.standings, final: true }, me?.id);
    this.renderCall();
    this.renderGhosts();
    this.renderSeries();
    this.renderRatings();
    if (first) {
      this.lines = this.replayLines(finished);
      this.stopReviews();
      this.reviews = null;
      this.stopReviews = watchReviews(finished.replay, (body) => {
        if (this.finished !== finished) return; // a later race is shown
        this.reviews = body;
        this.renderReviews();
      });
      this.stopFlags();
      this.flags = {};
      this.stopFlags = watchFlags(finished.replay, (flags) => {
        if (this.finished !== finished) return;
        this.flags = flags;
        this.renderFlags();
      });
    }
    this.renderFlags();
    this.renderChart();
    $("#deal-code").textContent = finished.deal;
    const link = $("#replay-link"); // its own page, for anyone (the server keeps it)
    link.hidden = !finished.replay;
    if (finished.replay) link.href = replayPage(finished.replay);
    this.renderPar();
    this.renderChallenge();
    $("#rematch").hidden = !isHost || Boolean(this.read().roomState?.ghost_of); // a ghost race has no lobby
    this.renderAgain();
    const select = $("#replay-player");
    const current = select.value;
    select.replaceChildren(
      ...finished.standings.map((row) => h("option", { value: row.id, text: `${row.rank}. ${row.name}` })),
    );
    if (!first && current) select.value = current;
    else if (me && finished.replays?.[me.id]) select.value = me.id;
    if (first) this.load(select.value);
    this.renderReviews();
  }

  /** "Under review" (or removed after review) for each flagged result of the race. */
  renderFlags() {
    const rows = (this.finished?.standings || []).filter((r) => this.flags[r.id] === "open" || this.flags[r.id] === "confirmed");
    this.flagList.hidden = !rows.length;
    this.flagList.replaceChildren(
      ...rows.map((r) => h("li", { text: t(this.flags[r.id] === "open" ? "rv_under_review_name" : "rv_removed_name", { name: r.name }) })),
    );
  }

  /** Whether the deal could be won (the solver's line), or that it found none. */
  renderPar() {
    const par = this.finished?.par;
    $("#par").textContent = par ? t("par", { n: par }) : t("par_none");
  }

  /** Each racer's verdict, in the standings' order; the replay's bar for the one shown. */
  renderReviews() {
    const racers = new Map((this.reviews?.racers || []).map((r) => [r.id, r]));
    this.reviewTitle.textContent = t("rv_title");
    this.reviewPanel.hidden = !this.finished?.replay;
    this.reviewList.replaceChildren(
      ...(this.finished?.standings || []).map((row) => {
        const racer = racers.get(row.id);
        const slip = slipOf(racer);
        return h("li", { dataset: { racer: row.id }, class: racer?.state === "done" ? racer.verdict.outcome : "pending" },
          h("span", { class: "who", text: `${row.rank}. ${row.name}` }),
          h("span", { class: "what", text: racer ? verdictText(racer, row.id === this.me?.id) : t("rv_pending_start") }),
          slip != null
            ? h("button", { type: "button", class: "link", text: t("rv_show"), onclick: () => this.showSlip(row.id, slip) })
            : null,
          slip != null && racer.verdict.why ? h("span", { class: "why", text: whyText(racer.verdict) }) : null);
      }),
    );
    const shown = $("#replay-player").value;
    this.reviewBar.show(racers.get(shown) || null, shown === this.me?.id);
  }

  /** A racer's replay, at the move that lost the win. */
  showSlip(playerId, slip) {
    const select = $("#replay-player");
    if (select.value !== playerId) {
      select.value = playerId;
      this.load(playerId);
    }
    this.player.go(slip + 1);
    $("#replay-board").scrollIntoView({ block: "nearest", behavior: "smooth" });
  }

  /** The server made a challenge link (`challenge`) of our run in this race. */
  challengeMade(msg) {
    this.challenge = { replay: this.finished?.replay, link: new URL(msg.link, location.origin).href };
    this.renderChallenge();
  }

  /** "Challenge a friend" for a racer of a race with a replay; the link once made. */
  renderChallenge() {
    const replay = this.finished?.replay;
    const racer = (this.finished?.standings || []).some((r) => r.id === this.me?.id);
    const made = this.challenge && this.challenge.replay === replay ? this.challenge.link : "";
    $("#make-challenge").hidden = !replay || !racer || Boolean(made);
    $("#challenge-out").hidden = !made;
    const link = $("#challenge-link");
    link.href = made || "#";
    link.textContent = made;
    // a challenge race: back to its standing, where this result now is
    const taken = this.read().roomState?.challenge;
    const back = $("#challenge-standing");
    back.hidden = !taken;
    if (taken) back.href = `/c/${encodeURIComponent(taken)}`;
  }

  /** "Race again": one tap per racer; who the next race still waits for. */
  renderAgain() {
    const members = this.read().roomState?.members || [];
    const mine = members.find((m) => m.id === this.me?.id);
    const button = $("#race-again");
    button.hidden = mine?.role !== "player";
    button.disabled = Boolean(mine?.ready);
    button.textContent = t(mine?.ready ? "again_in" : "race_again");
    const waiting = members.filter((m) => m.role === "player" && !m.bot && m.connected && !m.ready);
    const asked = members.some((m) => m.role === "player" && !m.bot && m.ready);
    $("#again-wait").textContent = asked ? againText(waiting, this.me?.id) : "";
  }

  relabel() {
    this.renderAgain();
    this.table.relabel();
    this.player.paint();
    if (!this.finished) return;
    this.renderPar();
    this.renderReviews();
    this.renderCall();
    this.renderGhosts();
    this.renderFlags();
    this.renderSeries();
    this.renderRatings();
    this.renderChart();
  }

  /** A ghost race's recorded racer (a row of the standings), not a live one. */
  isGhost(row) {
    return Boolean(this.read().roomState?.members?.some((m) => m.id === row.id && m.ghost));
  }

  /** What happened, and no more: who won (or that nobody did), a tie as a
   * tie, the tie-break when it decided first place, and our own place. */
  renderCall() {
    const rows = this.finished?.standings || [];
    // a ghost is named as one: "Ana's ghost wins!", never Ana herself racing now
    const call = headline(rows.map((r) => (this.isGhost(r) ? { ...r, name: t("ghost_name", { name: r.name }) } : r)));
    if (!call) {
      this.call.replaceChildren();
      return;
    }
    const mine = rows.find((r) => r.id === this.me?.id);
    const tied = mine && rows.filter((r) => r.rank === mine.rank).length > 1;
    this.call.classList.toggle("mine", call.winners.some((r) => r.id === this.me?.id));
    this.call.classList.toggle("nobody", !call.winners.length);
    this.call.replaceChildren(
      h("p", { class: "winner" },
        ...(call.winners.length ? [h("span", { class: "trophy", "aria-hidden": "true", text: "\u2605" })] : []),
        call.title),
      h("p", { class: "how", text: call.how }),
      ...(call.decided ? [h("p", { class: "hint tie-break", text: call.decided })] : []),
      ...(mine ? [h("p", { class: "your-place", text: t(tied ? "your_place_tied" : "your_place", { place: placeText(mine.rank, rows.length) }) })] : []),
    );
  }

  /** A ghost race: our result against each ghost's, in words; "Race this" elsewhere
   * (a ghost race's own Race again races the same ghosts). */
  renderGhosts() {
    const room = this.read().roomState;
    const lines = ghostComparisons(this.finished?.standings, room?.members, this.me?.id);
    const list = $("#ghost-compare");
    list.hidden = !lines.length;
    list.replaceChildren(
      ...lines.map((line) => h("li", { class: line.won === true ? "won" : line.won === false ? "lost" : "even", text: line.text })),
    );
    const racer = room?.members.find((m) => m.id === this.me?.id)?.role === "player";
    $("#race-this").hidden = !this.finished?.replay || Boolean(room?.ghost_of) || !racer;
  }

  renderSeries() {
    this.seriesSlot.replaceChildren(seriesEl(this.read().roomState, this.me?.id) || "");
  }

  /** A public race's rated racers: each one's rating now and the race's change. */
  renderRatings() {
    this.ratingsSlot.replaceChildren(raceRatings(this.finished?.standings || [], this.me?.id) || "");
  }

  /** Each player's cards home after each action, replayed from the deal code: over
   * time when the server sent every racer's action times, else over actions. */
  replayLines(finished) {
    const lines = [];
    const times = finished.replay_times || {};
    const timeOf = (id) => {
      const at = times[id];
      return Array.isArray(at) && at.length === (finished.replays?.[id] || []).length ? at : null;
    };
    this.timed = (finished.standings || []).every((row) => timeOf(row.id));
    for (const row of finished.standings || []) {
      const moves = finished.replays?.[row.id] || [];
      const at = this.timed ? timeOf(row.id) : null;
      const x = (i) => (at ? at[i - 1] : i); // where action i (1-based) lies on the x axis
      try {
        const game = new ReplayGame(finished.deal);
        const points = [[0, game.view().on_foundations]];
        moves.forEach((move, i) => {
          game.apply(move);
          const cards = game.view().on_foundations;
          if (cards !== points[points.length - 1][1]) points.push([x(i + 1), cards]);
        });
        lines.push({ id: row.id, name: row.name, points, end: moves.length ? x(moves.length) : 0 });
      } catch {
        // a deal this page cannot read: no line rather than a wrong one
      }
    }
    return lines;
  }

  renderChart() {
    this.chartTitle.textContent = t("race_chart");
    this.chart.reset();
    this.chart.order(playerIds(this.read().roomState));
    this.chart.mode = this.timed ? "time" : "actions";
    const note = t(this.timed ? "chart_timed_note" : "chart_replay_note");
    this.chart.render(this.lines || [], { me: this.me?.id, note });
  }

  /** Step through one player's race, rebuilt from the deal code. */
  load(playerId) {
    const moves = this.finished?.replays?.[playerId] || [];
    if (!this.player.load(this.finished?.deal, moves)) this.flash(t("err_bad_deal_code"));
    const racer = this.reviews?.racers.find((r) => r.id === playerId) || null;
    this.reviewBar.show(racer, playerId === this.me?.id);
  }
}

/** Who the next race still waits for, the reader as "you" (never by their own name). */
function againText(waiting, myId) {
  const others = waiting.filter((m) => m.id !== myId);
  if (others.length === waiting.length) return waiting.length ? t("again_wait", { names: names(waiting) }) : t("again_all");
  return others.length ? t("again_wait_you", { names: names(others) }) : t("again_only_you");
}
