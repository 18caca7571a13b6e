// A finished race's replay for anyone with the link: /replays/<id> (the server
// fills in the link's preview; /replay.html#<id> is the same page) reads
// GET /replay/<id> (the deal, every player's row and list of actions) and
// steps through one player's race on a read-only board, rebuilt move by move
// from the deal code (js/replay.js). No connection and no identity needed.
// The solver's review of each racer's line (js/review.js) marks the move that
// lost the win, and the move list can follow its winning line from there.
//
// The board comes first and is sized by the race board's rule (board.js fit);
// the race (result, players, date) heads the page; the move list scrolls
// inside itself. On a phone the stepper and a few rows of moves sit under the
// board, and the board leaves them room, so stepping never scrolls it away.

import { $, clock, h } from "./dom.js";
import { getLang, t } from "./i18n.js";
import { BoardView } from "./board.js";
import { Leaderboard } from "./leaderboard.js";
import { ReplayStepper } from "./replay.js";
import { ReviewBar, watchReviews } from "./review.js";
import { MAX_GHOSTS } from "./protocol.js";
import { initShell, raceThisPage, when } from "./shell.js";
import { headline, moveWords, names } from "./words.js";

const ID_OK = /^[A-Za-z0-9_-]{1,120}$/;
/** names the heading lists before "and N more" */
const NAMES_SHOWN = 4;

const view = {
  race: null, // the /replay/<id> body
  problem: "rp_loading", // the status text's key while nothing is shown
  player: null,
  reviews: null, // the /replay/<id>/review body, once asked
};
const players = new Leaderboard($("#rp-players"));
const board = new BoardView($("#replay-board"), {}, { fit: true, spaceBelow });
const stepper = new ReplayStepper($(".replay-controls"), board, painted);
const reviewBar = new ReviewBar(stepper.hint, stepper, renderMoves);
let stopReviews = () => {};

/** The replay's id: the page's path (/replays/<id>) or, on /replay.html, its hash. */
function replayId() {
  const path = location.pathname.match(/^\/replays\/([^/]+)$/);
  try {
    return decodeURIComponent(path ? path[1] : location.hash.slice(1));
  } catch {
    return "";
  }
}

/** What stays on screen under the board when the page stacks (a phone): the
 * stepper and the strip of moves; nothing when they sit beside it. */
function spaceBelow() {
  const boardBox = $("#replay-board").getBoundingClientRect();
  if ($(".rp-side").getBoundingClientRect().top < boardBox.bottom - 1) return 0;
  return $(".rp-moves").getBoundingClientRect().bottom - boardBox.bottom;
}

/** Beside the board, the side column ends at the window's bottom (its moves scroll). */
function fitSide() {
  const side = $(".rp-side");
  const top = side.getBoundingClientRect().top + window.scrollY;
  const main = parseFloat(getComputedStyle(side.closest("main")).paddingBottom) || 0;
  side.style.setProperty("--room", `${Math.max(window.innerHeight - top - main, 320)}px`);
}

async function load() {
  const id = replayId();
  stepper.stop();
  stopReviews();
  view.race = null;
  view.reviews = null;
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
    stopReviews = watchReviews(`/replay/${encodeURIComponent(id)}`, (body) => {
      view.reviews = body;
      showReview();
    });
  }
  render();
}

/** The review of the racer shown, under the stepper (and the slip in the move list). */
function showReview() {
  const id = view.player?.id;
  reviewBar.show(view.reviews?.racers.find((r) => r.id === id) || null);
}

/** Step through one player's race, rebuilt from the deal code. */
function choose(id) {
  const row = view.race?.players.find((p) => p.id === id);
  view.player = row || null;
  stepper.load(view.race?.deal, row?.moves_list || [], row?.times_ms);
  showReview();
  renderMoves();
  stepper.paint();
}

function render() {
  const race = view.race;
  $("#rp-status").hidden = !view.problem;
  $("#rp-status").textContent = view.problem ? t(view.problem) : "";
  $("#rp-body").hidden = !race;
  // results the integrity review flagged (under review) or removed (confirmed)
  const flagged = (race?.players || []).filter((p) => p.review === "open" || p.review === "confirmed");
  $("#rp-flags").hidden = !flagged.length;
  $("#rp-flags").replaceChildren(
    ...flagged.map((p) => h("li", { text: t(p.review === "open" ? "rv_under_review_name" : "rv_removed_name", { name: p.name }) })),
  );
  $("#replay-player").setAttribute("aria-label", t("player"));
  renderHead();
  if (!race) return;
  $("#rp-deal").textContent = race.deal;
  // race its racers (the first three) as ghosts, from your own "Go"
  const racers = race.players.filter((p) => Array.isArray(p.times_ms)).slice(0, MAX_GHOSTS);
  $("#rp-race-this").hidden = !racers.length;
  $("#rp-race-this").href = raceThisPage(race.id, racers.map((p) => p.id));
  players.update({ rows: race.players, final: true });
  renderMoves();
  stepper.paint();
}

/** The heading: who won (or that nobody did) and how; the players, the race, its day. */
function renderHead() {
  const race = view.race;
  const call = race ? headline(race.players) : null;
  const title = call?.title || t("replay");
  $("#rp-title").textContent = title;
  $("#rp-how").textContent = call ? [call.how, call.decided].filter(Boolean).join(" ") : "";
  document.title = `${title} - ${t("title")}`;
  if (!race) {
    $("#rp-what").textContent = "";
    return;
  }
  const what =
    race.kind === "daily"
      ? t("rp_daily", { date: race.date, draw: race.draw, n: race.daily_players ?? race.players.length })
      : t("rp_room", { room: race.room || "", draw: race.draw });
  $("#rp-what").textContent = [
    t("rp_players", { names: names(race.players, NAMES_SHOWN) }),
    what,
    race.kind === "daily" || !race.at ? "" : when(race.at, getLang()),
  ]
    .filter(Boolean)
    .join(" \u00b7 ");
}

/** Every action in words ("Draw", "10♠ to column 2"), each a button to its position;
 * the move that lost the win marked, the solver's winning line set apart. */
function renderMoves() {
  const slip = stepper.slip;
  const following = stepper.following();
  $("#rp-moves").replaceChildren(
    ...stepper.moves.flatMap((move, i) => {
      const line = following && i >= slip;
      const lost = !following && i === slip;
      const item = h(
        "li",
        { class: line ? "line" : lost ? "slip" : null },
        h("span", { class: "n", text: i + 1, "aria-hidden": "true" }), // the list numbers itself for readers
        h("button", { type: "button", class: "link", dataset: { step: i + 1, move }, onclick: () => stepper.go(i + 1) },
          moveWords(stepper.frames[i], move)),
        lost ? h("span", { class: "slip-tag", text: t("rv_lost_here") }) : null,
      );
      // the solver's line starts here: its heading, a row of its own
      return following && i === slip ? [h("li", { class: "line-head" }, h("span", { class: "line-tag", text: t("rv_line") })), item] : [item];
    }),
  );
}

/** What this page shows of each step beyond the board: the move list's place,
 * kept in view inside the list (never by scrolling the page). */
function painted(player) {
  fitSide();
  const list = $("#rp-moves");
  for (const button of list.querySelectorAll("button")) {
    const current = Number(button.dataset.step) === player.step;
    button.classList.toggle("current", current);
    if (current) {
      button.setAttribute("aria-current", "step");
      const item = button.parentElement.getBoundingClientRect();
      const box = list.getBoundingClientRect();
      list.scrollTop += item.top - box.top - (list.clientHeight - item.height) / 2;
      list.scrollLeft += item.left - box.left - (list.clientWidth - item.width) / 2; // the phone's strip
    } else {
      button.removeAttribute("aria-current");
    }
  }
  if (view.player) $("#rp-step").title = `${view.player.name}: ${clock(view.player.time_ms)}`;
}

$("#replay-player").addEventListener("change", (e) => choose(e.target.value));
window.addEventListener("hashchange", load);
window.addEventListener("resize", fitSide);

initShell(() => {
  players.relabel();
  render();
  reviewBar.render();
});
load();
