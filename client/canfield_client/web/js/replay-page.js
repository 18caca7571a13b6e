// A finished race's replay for anyone with the link: /replay.html#<id> reads
// GET /replay/<id> (the deal, every player's row and list of actions) and
// steps through one player's race on a read-only board, rebuilt move by move
// from the deal code (js/replay.js). No connection and no identity needed.

import { $, clock, h, icon } from "./dom.js";
import { t } from "./i18n.js";
import { BoardView } from "./board.js";
import { Leaderboard } from "./leaderboard.js";
import { ReplayGame } from "./replay.js";
import { initShell } from "./shell.js";
import { moveWords } from "./words.js";

const PLAY_STEP_MS = 450;
const ID_OK = /^[A-Za-z0-9_-]{1,120}$/;

const view = {
  race: null, // the /replay/<id> body
  problem: "rp_loading", // the status text's key while nothing is shown
  player: null,
  moves: [],
  frames: [],
  step: 0,
  timer: null,
};
const board = new BoardView($("#replay-board"));
const players = new Leaderboard($("#rp-players"));

async function load() {
  const id = decodeURIComponent(location.hash.slice(1));
  stop();
  view.race = null;
  view.problem = "rp_loading";
  render();
  if (!ID_OK.test(id)) {
    view.problem = "rp_not_found";
    render();
    return;
  }
  try {
    const response = await fetch(`/replay/${encodeURIComponent(id)}`, { cache: "no-store" });
    if (response.ok) {
      view.race = await response.json();
      view.problem = null;
    } else {
      view.problem = { 403: "rp_not_yet", 404: "rp_not_found" }[response.status] || "rp_failed";
    }
  } catch {
    view.problem = "rp_failed";
  }
  if (view.race) {
    const select = $("#replay-player");
    select.replaceChildren(
      ...view.race.players.map((row) => h("option", { value: row.id, text: `${row.rank}. ${row.name}` })),
    );
    choose(view.race.players[0]?.id);
  }
  render();
}

/** Rebuild every position of one player's race from the deal code. */
function choose(id) {
  stop();
  const row = view.race?.players.find((p) => p.id === id);
  view.player = row || null;
  view.moves = row?.moves_list || [];
  view.frames = [];
  try {
    const game = new ReplayGame(view.race.deal);
    view.frames.push(game.view());
    for (const move of view.moves) {
      game.apply(move);
      view.frames.push(game.view());
    }
  } catch {
    view.frames = [];
  }
  view.step = 0;
  renderMoves();
  paint();
}

function go(step) {
  if (!view.frames.length) return;
  view.step = Math.max(0, Math.min(step, view.frames.length - 1));
  paint();
  if (view.step === view.frames.length - 1) stop();
}

function togglePlay() {
  if (view.timer) {
    stop();
    return;
  }
  if (view.step >= view.frames.length - 1) view.step = 0;
  view.timer = setInterval(() => go(view.step + 1), PLAY_STEP_MS);
  paint();
}

function stop() {
  clearInterval(view.timer);
  view.timer = null;
  if (view.frames.length) paint();
}

function render() {
  const race = view.race;
  $("#rp-status").hidden = !view.problem;
  $("#rp-status").textContent = view.problem ? t(view.problem) : "";
  $("#rp-body").hidden = !race;
  $("#rp-what").textContent = "";
  $("#replay-player").setAttribute("aria-label", t("player"));
  document.title = `${t("replay")} - ${t("title")}`;
  if (!race) return;
  $("#rp-what").textContent =
    race.kind === "daily"
      ? t("rp_daily", { date: race.date, draw: race.draw, n: race.daily_players ?? race.players.length })
      : t("rp_room", { room: race.room || "", draw: race.draw, n: race.players.length });
  $("#rp-deal").textContent = race.deal;
  players.update({ rows: race.players, final: true });
  renderMoves();
  paint();
}

/** Every action in words ("Draw", "10♠ to column 2"), each a button to its position. */
function renderMoves() {
  $("#rp-moves").replaceChildren(
    ...view.moves.map((move, i) =>
      h(
        "li",
        {},
        h("button", { type: "button", class: "link", dataset: { step: i + 1, move }, onclick: () => go(i + 1) },
          moveWords(view.frames[i], move)),
      ),
    ),
  );
}

function paint() {
  const n = view.moves.length;
  $("#rp-step").textContent = t("step", { i: view.step, n });
  $("#rp-move").textContent = view.step ? view.moves[view.step - 1] : "";
  $("#rp-words").textContent = view.step ? moveWords(view.frames[view.step - 1], view.moves[view.step - 1]) : "";
  const play = $("#rp-play");
  play.replaceChildren(icon(view.timer ? "#i-pause" : "#i-play"));
  play.title = t(view.timer ? "pause" : "play");
  play.setAttribute("aria-label", play.title);
  for (const button of document.querySelectorAll("#rp-moves button")) {
    const current = Number(button.dataset.step) === view.step;
    button.classList.toggle("current", current);
    if (current) button.setAttribute("aria-current", "step");
    else button.removeAttribute("aria-current");
  }
  board.render(view.frames[view.step] || null);
  if (view.player) $("#rp-step").title = `${view.player.name}: ${clock(view.player.time_ms)}`;
}

$("#replay-player").addEventListener("change", (e) => choose(e.target.value));
$("#rp-first").addEventListener("click", () => go(0));
$("#rp-back").addEventListener("click", () => go(view.step - 1));
$("#rp-forward").addEventListener("click", () => go(view.step + 1));
$("#rp-last").addEventListener("click", () => go(view.frames.length - 1));
$("#rp-play").addEventListener("click", togglePlay);
window.addEventListener("hashchange", load);

initShell(() => {
  players.relabel();
  render();
});
load();
