// The operator console (/admin): asks for the operator's token once a tab (kept in
// sessionStorage, never in a cookie or on disk), then polls the console's API
// (/admin/api/overview, every few seconds) and shows the whole server - rooms
// by phase, processes, Redis - with the actions: close a room, remove one of
// its members (admin_members.js) or drain a process (each after a
// confirmation), a notice to every page, a block of an address or a range for
// a time, and the new identities per network (admin_identities.js). Every word through i18n; the server's data through textContent only.

import { $, h } from "./dom.js";
import { renderFigures } from "./admin_figures.js";
import { renderIdentities } from "./admin_identities.js";
import { membersOf } from "./admin_members.js";
import { renderReviews } from "./admin_review.js";
import { ask } from "./confirm.js";
import { locale, t } from "./i18n.js";
import { flash, initShell } from "./shell.js";

const POLL_MS = 3000;
const TOKEN_KEY = "canfield_admin_token";
const PHASES = ["racing", "lobby", "finished"];

let data = null; // the last overview
let figures = null; // the last figures of every process (admin_figures.js)
let issuance = null; // new identities per network (admin_identities.js)
let reviews = null; // the review queue (admin_review.js)
let timer = null;

const token = () => sessionStorage.getItem(TOKEN_KEY) || "";

async function api(path, body) {
  const response = await fetch(`/admin/api/${path}`, {
    method: body ? "POST" : "GET",
    headers: { Authorization: `Bearer ${token()}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (response.status === 401) {
    signOut(t("adm_bad_token"));
    throw new Error(t("adm_bad_token"));
  }
  const reply = await response.json().catch(() => ({}));
  if (response.status === 429) throw new Error(t("adm_slow_down"));
  if (!response.ok) throw new Error(reply.error || `HTTP ${response.status}`);
  return reply;
}

function signOut(why = "") {
  sessionStorage.removeItem(TOKEN_KEY);
  clearTimeout(timer);
  data = figures = issuance = reviews = null;
  $("#adm-console").hidden = true;
  $("#adm-login").hidden = false;
  $("#adm-login-error").textContent = why;
}

async function poll() {
  clearTimeout(timer);
  try {
    [data, figures, issuance, reviews] = await Promise.all([
      api("overview"),
      api("figures"),
      api("identities"),
      api("reviews"),
    ]);
    $("#adm-login").hidden = true;
    $("#adm-console").hidden = false;
    render();
  } catch (err) {
    if (token()) $("#adm-updated").textContent = err.message;
  }
  if (token()) timer = setTimeout(poll, POLL_MS);
}

const number = (n) => new Intl.NumberFormat(locale()).format(n);

function duration(seconds) {
  if (seconds === null || seconds === undefined) return "-";
  if (seconds < 60) return t("adm_seconds", { n: seconds });
  if (seconds < 3600) return t("adm_minutes_n", { n: Math.floor(seconds / 60) });
  return t("adm_hours_n", { n: Math.floor(seconds / 3600) });
}

const clock = (ms) => new Date(ms).toLocaleTimeString(locale());

function megabytes(bytes) {
  return bytes ? t("adm_mb", { n: number(Math.round(bytes / 1048576)) }) : "-";
}

function table(el, head, rows, empty) {
  el.tHead.replaceChildren(h("tr", {}, head.map((key) => h("th", { scope: "col" }, key ? t(key) : ""))));
  const body = rows.length
    ? rows.map((cells) => h("tr", {}, cells.map((cell, i) => h("td", { "data-label": head[i] ? t(head[i]) : null }, cell))))
    : [h("tr", {}, h("td", { colspan: head.length, class: "hint" }, t(empty)))];
  el.tBodies[0].replaceChildren(...body);
}

function render() {
  document.title = `${t("adm_title")} - ${t("title")}`;
  if (!data) return;
  const { rooms, processes, blocks, notice, redis } = data;
  const counts = PHASES.map((phase) => t(`adm_phase_n_${phase}`, { n: rooms.filter((r) => r.phase === phase).length }));
  $("#adm-rooms-sum").textContent = `${t("adm_rooms_n", { n: rooms.length })}: ${counts.join(", ")}`;
  const ordered = [...rooms].sort((a, b) => PHASES.indexOf(a.phase) - PHASES.indexOf(b.phase));
  table(
    $("#adm-rooms"),
    ["adm_room", "adm_phase", "adm_racers", "adm_spectators", "adm_connections", "adm_age", "adm_owner", "adm_members", ""],
    ordered.map((r) => [
      h("a", { href: `/r/${r.code}`, class: "code", text: r.code }),
      t(`adm_phase_${r.phase}`),
      r.players.length ? `${r.players.length}: ${r.players.join(", ")}` : "0",
      String(r.spectators),
      String(r.connections),
      duration(r.age_s),
      r.owner || "-",
      membersOf(r, act),
      h("button", { type: "button", class: "quiet", onclick: () => closeRoom(r.code) }, t("adm_close")),
    ]),
    "adm_no_rooms",
  );
  table(
    $("#adm-procs"),
    ["adm_process", "adm_connections", "adm_rooms", "adm_state", ""],
    processes.map((p) => [
      p.name,
      String(p.conns),
      String(p.rooms),
      p.draining_until ? t("adm_draining", { time: clock(p.draining_until) }) : t("adm_serving"),
      p.draining_until ? "" : h("button", { type: "button", class: "quiet", onclick: () => drain(p.name) }, t("adm_drain")),
    ]),
    "adm_no_processes",
  );
  const facts = [
    ["adm_memory", megabytes(redis.used_memory)],
    ["adm_memory_peak", megabytes(redis.used_memory_peak)],
    ["adm_memory_max", redis.maxmemory ? megabytes(redis.maxmemory) : t("adm_no_limit")],
    ["adm_aof", redis.aof_enabled ? t("adm_aof_on", { status: redis.aof_last_write_status || "-" }) : t("adm_aof_off")],
    ["adm_aof_rewrite", redis.aof_rewrite_in_progress ? t("adm_rewriting") : redis.aof_last_bgrewrite_status || "-"],
  ];
  $("#adm-redis").replaceChildren(...facts.flatMap(([key, value]) => [h("dt", {}, t(key)), h("dd", {}, value)]));
  $("#adm-notice-now").textContent = notice ? t("adm_notice_now", { text: notice.text }) : t("adm_notice_none");
  table(
    $("#adm-blocks"),
    ["adm_address", "adm_left", ""],
    blocks.map((b) => [
      b.address,
      duration(b.left_s),
      h("button", { type: "button", class: "quiet", onclick: () => act("unblock", { address: b.address }, "adm_unblocked") }, t("adm_unblock")),
    ]),
    "adm_no_blocks",
  );
  renderFigures(figures, table);
  renderIdentities(issuance, table, duration);
  renderReviews(reviews, act);
  $("#adm-updated").textContent = t("adm_updated", { time: clock(Date.now()) });
}

async function act(path, body, done) {
  $("#adm-error").textContent = "";
  try {
    await api(path, body);
    flash(t(done));
    await poll();
  } catch (err) {
    $("#adm-error").textContent = err.message;
  }
}

async function closeRoom(code) {
  if (await ask(t("adm_close_sure", { code }), t("adm_close"))) act(`rooms/${code}/close`, {}, "adm_closed");
}

async function drain(name) {
  if (await ask(t("adm_drain_sure", { name }), t("adm_drain"))) {
    act(`processes/${encodeURIComponent(name)}/drain`, {}, "adm_drain_asked");
  }
}

const seconds = (input) => Math.round(Number(input.value) * 60);

$("#adm-login").addEventListener("submit", (e) => {
  e.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $("#adm-token").value.trim());
  $("#adm-token").value = "";
  poll();
});
$("#adm-notice-form").addEventListener("submit", (e) => {
  e.preventDefault();
  act("notice", { text: $("#adm-notice-text").value, seconds: seconds($("#adm-notice-min")) }, "adm_posted");
});
$("#adm-block-form").addEventListener("submit", (e) => {
  e.preventDefault();
  act("block", { address: $("#adm-block-addr").value.trim(), seconds: seconds($("#adm-block-min")) }, "adm_blocked");
});

initShell(() => render());
if (token()) poll();
else signOut();
