// A finished race's replay for anyone with the link: /replay.html#<id> reads
// GET /replay/<id> (the deal, every player's row and list of actions) and
// steps through one player's race on a read-only board, rebuilt move by move
// from the deal code (js/replay.js). No connection and no identity needed.

import { $, clock, h } from "./dom.js";
import { t } from "./i18n.js";
import { BoardView } from "./board.js";
import { Leaderboard } from "./leaderboard.js";
import { ReplayPlayer } from "./replay.js";
import { initShell } from "./shell.js";
import { moveWords } from "./words.js";

const ID_OK = /^[A-Za-z0-9_-]{1,120}$/;

const view = {
  race: null, // the /replay/<id> body
  problem: "rp_loading", // the status text's key while nothing is shown
  player: null,
};
const players = new Leaderboard($("#rp-players"));
const stepper = new ReplayPlayer($(".replay-controls"), new BoardView($("#replay-board")), painted);

async function load() {
  const id = decodeURIComponent(location.hash.slice(1));
  stepper.stop();
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

/** Step through one player's race, rebuilt from the deal code. */
function choose(id) {
  const row = view.race?.players.find((p) => p.id === id);
  view.player = row || null;
  stepper.load(view.race?.deal, row?.moves_list || []);
  renderMoves();
  stepper.paint();
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
  stepper.paint();
}

/** Every action in words ("Draw", "10♠ to column 2"), each a button to its position. */
function renderMoves() {
  $("#rp-moves").replaceChildren(
    ...stepper.moves.map((move, i) =>
      h(
        "li",
        {},
        h("button", { type: "button", class: "link", dataset: { step: i + 1, move }, onclick: () => stepper.go(i + 1) },
          moveWords(stepper.frames[i], move)),
      ),
    ),
  );
}

/** What this page shows of each step beyond the board: the move list's place. */
function painted(player) {
  for (const button of document.querySelectorAll("#rp-moves button")) {
    const current = Number(button.dataset.step) === player.step;
    button.classList.toggle("current", current);
    if (current) button.setAttribute("aria-current", "step");
    else button.removeAttribute("aria-current");
  }
  if (view.player) $("#rp-step").title = `${view.player.name}: ${clock(view.player.time_ms)}`;
}

$("#replay-player").addEventListener("change", (e) => choose(e.target.value));
window.addEventListener("hashchange", load);

initShell(() => {
  players.relabel();
  render();
});
load();
