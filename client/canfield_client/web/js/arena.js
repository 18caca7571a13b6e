// The arena page (/a/<code>; /a alone makes one): the standing (rank, name,
// points, the streak's flame, heats, the last places as small digits), this
// racer's own row always in view, the heats running now (each one click from
// its spectator view), a countdown, the podium at the end, and "How arenas
// work". Racing: when the server seats this racer in a heat (`joined`), the
// page keeps the seat and opens the heat's race page, which comes back here
// once the racer's race is over (main.js, ?arena=). Protocol: docs/protocol.md
// "Arenas".

import { $, clock, confirmTwice, copyText, h, icon } from "./dom.js";
import { getLang, t } from "./i18n.js";
import { errorText } from "./errors.js";
import { attachIdentity } from "./identity.js";
import { Connection } from "./net.js";
import { flash, initShell, showNotices } from "./shell.js";
import { offlineBanner } from "./chrome.js";
import { getName, getPref, setName, setPref, setSeat } from "./store.js";
import { arenaName } from "./arena-words.js";

const CODE = /^\/a\/([23456789A-HJKMNP-Za-hjkmnp-z]{8})\/?$/.exec(location.pathname)?.[1]?.toUpperCase() || null;

const conn = new Connection();
showNotices(conn);
offlineBanner(conn);
const identity = attachIdentity(conn);

const S = {
  arena: null, // the last `arena` message
  racing: false, // this page asked to race here (arena_join)
  error: "",
};

// ------------------------------------------------------------ the server

conn.on("open", () => {
  if (!CODE) return;
  const oneClick = new URLSearchParams(location.search).has("join");
  if (S.racing || oneClick || getPref(`arena.${CODE}`, false)) join(getName());
  else conn.send({ type: "arena_watch", arena: CODE });
});
conn.on("arena", (msg) => {
  S.arena = msg;
  S.error = "";
  if (msg.me) S.racing = true;
  render();
});
conn.on("arena_left", (msg) => {
  S.racing = false;
  setPref(`arena.${msg.arena}`, false);
  if (msg.by === "host") S.error = t("arena_removed");
  render();
});
conn.on("joined", (msg) => {
  // a heat: keep the seat, tell the server about berserk first, then race it
  setSeat(msg.room, { token: msg.token, player_id: msg.player_id });
  const go = () => location.assign(`/r/${msg.room}?arena=${CODE}`);
  if ($("#arena-berserk").checked) {
    conn.send({ type: "arena_berserk" });
    setTimeout(go, 400);
  } else go();
});
conn.on("arena_berserk_on", () => flash(t("arena_berserk_on")));
conn.on("error", (msg) => {
  S.error = errorText(msg);
  render();
});

function join(name) {
  if (!name) return;
  S.racing = true;
  setPref(`arena.${CODE}`, true);
  conn.send({ type: "arena_join", arena: CODE, name });
}

// ------------------------------------------------------------ the page

function statusText(a, now) {
  if (a.status === "scheduled") return t("arena_starts_in", { time: clock(a.starts_at - now) });
  if (a.status === "running") return t("arena_ends_in", { time: clock(a.ends_at - now) });
  if (a.status === "closing") return t("arena_closing");
  return t("arena_over");
}

function lastPlaces(last) {
  return h(
    "span",
    { class: "last", "aria-label": t("arena_last", { places: last.split("").join(", ") }) },
    ...last.split("").map((ch) => h("span", { class: ch === "1" ? "p1" : ch === "-" ? "gone" : "", text: ch })),
  );
}

function flame(row) {
  if (row.streak < 2) return "";
  const words = t("arena_streak", { n: row.streak });
  return h("span", { class: "flame", role: "img", title: words, "aria-label": words }, icon("#i-flame"));
}

function rowOf(row, mine) {
  return h(
    "tr",
    { class: mine ? "mine" : "" },
    h("td", { class: "c-place", text: row.rank }),
    h("td", { class: "c-name" }, row.name, " ", flame(row), row.racing ? h("span", { class: "racing", text: t("arena_racing") }) : ""),
    h("td", { class: "c-points", text: row.points.toLocaleString(getLang()) }),
    h("td", { class: "c-heats", text: row.heats }),
    h("td", { class: "c-last" }, lastPlaces(row.last)),
  );
}

function render() {
  const msg = S.arena;
  $("#arena-create").hidden = Boolean(CODE);
  $("#arena-error").textContent = S.error;
  if (!CODE) {
    $("#arena-name").textContent = t("arena_title");
    $("#arena-status").textContent = "";
    document.title = `${t("arena_title")} - ${t("title")}`;
    return;
  }
  if (!msg) return;
  const a = msg.arena;
  const now = conn.serverNow();
  $("#arena-name").textContent = arenaName(a);
  document.title = `${arenaName(a)} - ${t("arena_title")}`;
  // a public arena's name says its draw mode already
  const facts = a.public ? [t("arena_minutes", { n: a.minutes }), t("arena_public_rated")] : [t(a.draw === 1 ? "daily_tab1" : "daily_tab3"), t("arena_minutes", { n: a.minutes })];
  $("#arena-status").textContent = facts.join(" · ");
  $("#arena-share").hidden = Boolean(a.public);
  $("#arena-clock").textContent = statusText(a, now);
  const over = a.status === "over";
  $("#arena-join").hidden = S.racing || over || Boolean(msg.me);
  $("#arena-racing").hidden = !msg.me || over;
  $("#arena-next").textContent = msg.in_arena ? t("arena_waiting", { n: msg.waiting }) : msg.me?.racing ? t("arena_in_heat") : "";
  $("#arena-end").hidden = !(identity.id && a.host === identity.id) || a.status === "closing";
  $("#arena-count").textContent = t("arena_racers", { n: msg.racers });
  const cols = [
    ["c-place", "arena_place_col"],
    ["c-name", "ladder_racer"],
    ["c-points", "arena_points"],
    ["c-heats", "arena_heats_col"],
    ["c-last", "arena_last_col"],
  ];
  $("#arena-table").tHead.replaceChildren(h("tr", {}, ...cols.map(([cls, key]) => h("th", { class: cls, text: t(key) }))));
  $("#arena-table").tBodies[0].replaceChildren(...msg.standing.map((row) => rowOf(row, row.id === msg.me?.id)));
  $("#arena-empty").hidden = msg.standing.length > 0;
  const mine = msg.me;
  $("#arena-me").hidden = !mine;
  if (mine) {
    $("#arena-me").replaceChildren(
      h("span", { class: "me-label", text: t("arena_you") }),
      h("b", { text: t("arena_place", { n: mine.rank }) }),
      h("span", { text: t("arena_points_n", { n: mine.points }) }),
      flame(mine),
      lastPlaces(mine.last),
    );
  }
  $("#arena-heats").replaceChildren(
    ...msg.heats.map((heat) =>
      h("li", {}, h("a", { href: `/r/${heat.room}?watch`, text: t("arena_watch_heat") }), " ", h("span", { text: heat.names.join(", ") })),
    ),
  );
  $("#arena-heats-none").hidden = msg.heats.length > 0;
  $("#arena-podium").hidden = !over;
  if (over) {
    $("#podium").replaceChildren(
      ...msg.standing.slice(0, 3).map((row) => h("li", { class: `step p${row.rank}` }, h("b", { text: row.name }), h("span", { text: t("arena_points_n", { n: row.points }) }))),
    );
  }
}

$("#arena-join-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = $("#join-name").value.trim();
  setName(name);
  join(name);
});
$("#arena-create-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const player = $("#create-player").value.trim();
  setName(player);
  conn.send({
    type: "arena_create",
    name: $("#create-name").value.trim(),
    player_name: player,
    draw: Number($("#create-draw").value),
    minutes: Number($("#create-minutes").value),
  });
});
conn.on("arena", (msg) => {
  // a new arena of ours: its own link, raced in from the next page
  if (!CODE && msg.me) {
    setPref(`arena.${msg.arena.code}`, true);
    location.assign(`/a/${msg.arena.code}`);
  }
});
$("#arena-share").addEventListener("click", async (event) => {
  event.preventDefault();
  await copyText(location.href);
  flash(t("arena_copied"));
});
confirmTwice($("#arena-end"), () => t("arena_end"), () => t("arena_end_sure"), () => conn.send({ type: "arena_end" }));

$("#join-name").value = getName();
$("#create-player").value = getName();
initShell(() => render());
setInterval(() => S.arena && render(), 1000);
conn.connect();
