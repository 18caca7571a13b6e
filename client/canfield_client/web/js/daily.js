// The daily race page (/daily): today's deal for each draw mode, played once
// against the clock on the race page's board (js/race-board.js: the same board,
// numbered actions and refusals as the room race); your result, the
// live standing of everyone who played today, yesterday's deal code and
// winners, and your streak. Protocol: docs/protocol.md "Identity, history and
// the daily race".

import { offlineBanner } from "./chrome.js";
import { $, clock, confirmTwice, h } from "./dom.js";
import { t } from "./i18n.js";
import { raceKeys } from "./board.js";
import { errorText, identitiesText } from "./errors.js";
import { attachIdentity } from "./identity.js";
import { Leaderboard } from "./leaderboard.js";
import { Connection } from "./net.js";
import { DONE_STATUSES as DONE, ERR } from "./protocol.js";
import { RaceBoard } from "./race-board.js";
import { dayBefore, flash, initShell, replayPage, showNotices } from "./shell.js";
import { verdictText, watchReviews } from "./review.js";
import { getName, getPref, setName, setPref } from "./store.js";
import { placeText } from "./words.js";

const POLL_MS = 5000;
/** a start unanswered this long says why (a new day's deal is being proven winnable) */
const WAIT_SAID_MS = 1000;

const conn = new Connection();
showNotices(conn);
const identity = attachIdentity(conn);

const S = {
  draw: getPref("daily_draw", 3) === 1 ? 1 : 3,
  today: null, // "YYYY-MM-DD" (the server's UTC day)
  standing: { 1: null, 3: null }, // today's daily_standing per draw
  yesterday: { 1: null, 3: null },
  finished: { 1: null, 3: null }, // daily_finished of this visit
  played: { 1: null, 3: null }, // a daily-played refusal's params
  race: null, // {draw, date, startedAt, board, name}
  starting: null, // the `daily` request waiting for its answer
  askedAt: 0, // when it was first sent (ms): a long wait is said
  streak: 0,
};

let saidRefused = false; // #daily-error says why there is no identity

const race = new RaceBoard($("#daily-board"), conn, {
  playing: () => Boolean(S.race && !S.race.done),
  position: () => S.race?.board,
  changed: () => showBoard(), // a guessed board (or a refused guess) renders now
});
const board = race.view;
const { actions } = race;
const act = (type, fields) => race.act(type, fields);
const standing = new Leaderboard($("#standing"));

// ------------------------------------------------------------ asking the server

function askStandings() {
  for (const draw of [3, 1]) conn.send({ type: "daily_standing", draw, limit: 20 });
}

function askYesterday() {
  if (!S.today) return;
  for (const draw of [3, 1]) {
    conn.send({ type: "daily_standing", draw, date: dayBefore(S.today), limit: 3 });
  }
}

function start() {
  const name = $("#daily-name").value.trim();
  if (!name) {
    $("#daily-name").focus();
    return;
  }
  setName(name);
  $("#daily-error").textContent = "";
  S.starting = { type: "daily", name, draw: S.draw };
  S.askedAt = Date.now();
  setTimeout(render, WAIT_SAID_MS); // a new day's deal is proven winnable first: say so
  if (identity.refused) {
    // no identity: its network's new identities are spent; the start goes once one is back
    saidRefused = true;
    render();
  } else if (!identity.ready || !conn.send(S.starting)) {
    $("#daily-error").textContent = t("reconnecting");
  }
}

// no identity to play with (its network had too many new ones): the standings
// still show, and the page says why Play waits and until when
identity.onRefused(() => {
  saidRefused = true;
  askStandings();
  askYesterday();
  render();
});

identity.onReady((me) => {
  if (saidRefused) $("#daily-error").textContent = "";
  saidRefused = false;
  S.streak = me.streak;
  askStandings();
  askYesterday();
  // back after a dropped link: `daily` again resumes the same board, and a start
  // whose answer the link lost (or that waited for the link) goes again: the
  // server gives the board it started, never a second race
  if (S.race && !S.race.done) conn.send({ type: "daily", name: S.race.name, draw: S.race.draw });
  else if (S.starting) conn.send(S.starting);
  render();
});

setInterval(() => {
  if ((identity.ready || identity.refused) && document.visibilityState === "visible") askStandings();
}, POLL_MS);

// ------------------------------------------------------------ the server's answers

offlineBanner(conn);

conn.on("daily_started", (msg) => {
  S.starting = null;
  S.streak = msg.streak ?? S.streak;
  const name = S.race?.name || $("#daily-name").value.trim();
  S.race = { draw: msg.draw, date: msg.date, startedAt: msg.started_at, board: msg.board, name, done: false };
  S.today = msg.date;
  if (!msg.resumed) actions.reset(0);
  actions.resumed(msg.last_seq || 0); // an action sent before a dropped link goes again, once
  board.render(msg.board);
  render();
  $("#daily-board .stock")?.focus({ preventScroll: true });
});

conn.on("ack", (msg) => {
  if (!S.race) return;
  S.race.board = msg.board;
  if (msg.move === "G" || msg.board.won) S.race.done = true;
  showBoard();
});

/** The board as shown: our actions at once where the page can guess them (js/state.js). */
function showBoard() {
  const shown = S.race ? race.shown() : null;
  if (shown && board.board !== shown) board.render(shown);
  render();
}

conn.on("daily_finished", (msg) => {
  S.finished[msg.draw] = msg;
  S.streak = msg.streak ?? S.streak;
  if (S.race && S.race.draw === msg.draw) S.race.done = true;
  askStandings();
  render();
});

conn.on("daily_standing", (msg) => {
  if (msg.over) S.yesterday[msg.draw] = msg;
  else {
    const firstDay = !S.today;
    S.today = msg.date;
    S.standing[msg.draw] = msg;
    if (firstDay) askYesterday();
  }
  render();
});

conn.on("error", (msg) => {
  if (S.starting && !msg.seq && [ERR.DAILY_PLAYED, ERR.NO_IDENTITY, ERR.UNAVAILABLE, ERR.BAD_NAME, ERR.ALREADY_IN_ROOM, ERR.RATE_LIMITED, ERR.BAD_MESSAGE, ERR.INTERNAL].includes(msg.code)) {
    const req = S.starting;
    S.starting = null;
    if (msg.code === ERR.DAILY_PLAYED) {
      S.played[req.draw] = msg.params || {};
      askStandings();
      render();
      return;
    }
    $("#daily-error").textContent = errorText(msg, { offset: conn.offset });
    return;
  }
  if (msg.code === ERR.BAD_DATE) return; // yesterday asked just before midnight: the next poll fixes it
  if (race.refused(msg)) return;
  flash(errorText(msg, { offset: conn.offset }));
});

// ------------------------------------------------------------ drawing the page

/** Our row in today's standing of a draw mode (null: not played). */
const myRow = (draw) => S.standing[draw]?.me || S.finished[draw]?.row || null;
const isPlayed = (draw) => Boolean(S.played[draw]) || DONE.has(myRow(draw)?.status) || Boolean(S.finished[draw]);

function render() {
  const racing = S.race && !S.race.done;
  if (saidRefused && identity.refused) {
    $("#daily-error").textContent = identitiesText(identity.refused.params || {}, conn.offset);
  }
  $("#daily-date").textContent = S.today ? t("daily_date", { date: S.today }) : "";
  $("#streak").textContent = S.streak ? t("daily_streak", { n: S.streak }) : t("daily_streak_none");
  $("#streak").classList.toggle("on", S.streak > 0);
  for (const tab of document.querySelectorAll("#draw-tabs .tab")) {
    const draw = Number(tab.dataset.draw);
    tab.setAttribute("aria-pressed", String(draw === S.draw));
    tab.disabled = Boolean(racing) && draw !== S.draw;
    tab.classList.toggle("done", isPlayed(draw));
  }
  renderStart(racing);
  renderRace(racing);
  renderResult();
  renderStanding();
  renderYesterday();
  document.title = [racing ? t("title_racing") : null, t("daily_title"), t("title")].filter(Boolean).join(" - ");
}

function renderStart(racing) {
  const played = isPlayed(S.draw);
  const mine = myRow(S.draw);
  $("#daily-start").hidden = Boolean(racing);
  $("#daily-form").hidden = played;
  $("#daily-played").hidden = !played;
  if (played) {
    $("#daily-played").textContent = t("daily_played", { draw: S.draw });
  }
  const resume = mine && mine.status === "playing";
  $("#daily-play").textContent = t(resume ? "daily_continue" : "daily_play");
  $("#daily-play").disabled = !identity.ready || Boolean(S.starting);
  $("#daily-wait").hidden = !S.starting || Date.now() - S.askedAt < WAIT_SAID_MS;
}

function renderRace(racing) {
  // once done, the result card and the standing say it all: the board goes
  const shown = racing && S.race.draw === S.draw ? S.race : null;
  $("#daily-race").hidden = !shown;
  document.body.classList.toggle("racing", Boolean(racing));
  if (!shown) return;
  const b = race.shown() || shown.board;
  $("#daily-score").textContent = b.score;
  $("#daily-cards").textContent = b.on_foundations;
  $("#daily-undo").disabled = !b.can_undo;
  const note = $("#daily-note");
  const text = b.useful_move === false ? t("no_useful") : "";
  note.textContent = text;
  note.hidden = !text;
}

function renderResult() {
  const fin = S.finished[S.draw];
  const row = fin?.row || (DONE.has(myRow(S.draw)?.status) ? myRow(S.draw) : null);
  $("#daily-result").hidden = !row;
  if (!row) return;
  // the standing moves on as others finish: show the rank it has now when known
  const now = S.standing[S.draw]?.me;
  const rank = now?.rank || row.rank;
  const players = Math.max(S.standing[S.draw]?.players || 0, fin?.players || 0, rank);
  const why = S.standing[S.draw]?.unranked_why?.[identity.id];
  $("#result-body").replaceChildren(
    // unranked (fair play): no place, and why; alone so far, a place claims
    // nothing: say what happened instead of a medal
    !rank && why
      ? h("p", { class: "place-text unranked", text: t("daily_unranked_you", { why: unrankedWhy(why) }) })
      : players > 1
        ? h("p", { class: "place-text", text: placeText(rank, players) })
        : h("p", { class: "place-text alone", text: t("daily_first_today") }),
    h("dl", { class: "facts" },
      h("dt", { text: t("status") }), h("dd", { text: t(`st_${row.status}`) }),
      h("dt", { text: t("daily_cards_home") }), h("dd", { text: `${row.on_foundations} / 52` }),
      h("dt", { text: t("time") }), h("dd", { text: clock(row.time_ms) }),
      h("dt", { text: t("moves") }), h("dd", { text: row.moves }),
    ),
    h("p", { class: "hint", text: t("daily_replay_later") }),
  );
}

function renderStanding() {
  const data = S.standing[S.draw];
  $("#standing-title").textContent = t("daily_standing_draw", { draw: S.draw });
  if (!data) {
    standing.clear();
    $("#standing-count").textContent = "";
    return;
  }
  const rows = [...data.rows];
  // a row set apart (under review, or a racer barred from ranked play) has rank 0
  if (data.me && data.me.rank > 0 && !rows.some((r) => r.id === data.me.id)) rows.push(data.me);
  $("#standing-count").textContent = data.players ? t("daily_players_n", { n: data.players }) : t("daily_nobody");
  standing.update({ rows, final: true }, identity.id);
  // unranked by fair play: its reason (``unranked_why``); one's own row too
  const held = data.unranked_why || {};
  const aside = [
    ...(data.under_review || []).map((r) => [r, t("rv_under_review")]),
    ...(data.unranked || []).map((r) => [r, held[r.id] ? t("daily_unranked_row", { why: unrankedWhy(held[r.id]) }) : t("rv_unranked")]),
  ];
  const me = data.me;
  if (me && !me.rank && held[me.id] && !aside.some(([r]) => r.id === me.id)) {
    aside.push([me, t("daily_unranked_row", { why: unrankedWhy(held[me.id]) })]);
  }
  $("#standing-aside").hidden = !aside.length;
  $("#standing-aside-list").replaceChildren(
    ...aside.map(([r, why]) =>
      h(
        "li",
        { class: r.id === identity.id ? "me" : null, dataset: { player: r.id } },
        h("b", { text: r.name }),
        " ",
        h("span", { class: "rv-tag", text: why }),
        h("span", { class: "hint", text: ` ${t("daily_cards_n", { n: r.on_foundations })}, ${clock(r.time_ms)}` }),
      ),
    ),
  );
}

/** Why a daily row is unranked (``daily_standing.unranked_why``), in words. */
function unrankedWhy(reason) {
  const key = `daily_why_${String(reason || "other").replaceAll("-", "_")}`;
  const said = t(key);
  return said === key ? t("daily_why_other") : said;
}

function renderYesterday() {
  const data = S.yesterday[S.draw];
  const date = S.today ? dayBefore(S.today) : "";
  $("#yesterday-title").textContent = t("daily_yesterday", { date, draw: S.draw });
  $("#yesterday").hidden = !S.today;
  const rows = data?.rows || [];
  $("#yesterday-deal").textContent = data?.deal || "-";
  $("#yesterday-none").hidden = !data || rows.length > 0;
  $("#yesterday-winners").replaceChildren(
    ...rows.slice(0, 3).map((row) => {
      const how = row.status === "won" ? t("win_all", { time: clock(row.time_ms) }) : t("daily_cards_n", { n: row.on_foundations });
      const link = data.replays?.[row.id];
      return h(
        "li",
        { class: row.id === identity.id ? "me" : null },
        h("span", { class: "rank", text: `${row.rank}.` }),
        h("b", { class: "who", text: row.name }),
        h("span", { class: "how", text: how }),
        link ? h("a", { href: replayPage(link), text: t("replay") }) : null,
        link ? h("span", { class: "verdict", text: reviewOf(link, row.id) }) : null,
      );
    }),
  );
}

/** The solver's verdict on a past day's racer (asked for once per replay link). */
const reviews = new Map();
function reviewOf(link, id) {
  if (!reviews.has(link)) {
    reviews.set(link, null);
    watchReviews(link, (body) => {
      reviews.set(link, body);
      renderYesterday();
    });
  }
  const racer = reviews.get(link)?.racers[0];
  return racer ? verdictText(racer, id === identity.id) : "";
}

function tick() {
  if (S.race && !S.race.done) $("#daily-clock").textContent = clock(conn.serverNow() - S.race.startedAt);
}
setInterval(tick, 250);

// ------------------------------------------------------------ controls

$("#daily-form").addEventListener("submit", (e) => {
  e.preventDefault();
  start();
});
for (const tab of document.querySelectorAll("#draw-tabs .tab")) {
  tab.addEventListener("click", () => {
    S.draw = Number(tab.dataset.draw);
    setPref("daily_draw", S.draw);
    $("#daily-error").textContent = "";
    render();
  });
}
$("#daily-undo").addEventListener("click", () => act("undo"));
confirmTwice($("#daily-give-up"), () => t("give_up"), () => t("sure_give_up"), () => act("give_up"));
raceKeys(() => Boolean(S.race && !S.race.done), act);

initShell(() => {
  standing.relabel();
  render();
  if (S.race) board.render(race.shown());
});
$("#daily-name").value = getName();
render();
conn.connect();
