// The lobby: who is here and ready, the host's race settings, the share link,
// and the start button. Everyone sees the same room; only the host edits.

import { ask } from "./confirm.js";
import { $, $$, copyText, h, setText } from "./dom.js";
import { t } from "./i18n.js";
import { rulesLink } from "./howto.js";
import { seriesEl } from "./series.js";

const LIMITS_MIN = [0, 1, 2, 3, 5, 10, 15, 20, 30, 60];
/** On/off settings, shown as checkboxes when the server's settings carry them. */
const CHECKS = ["winnable_only", "practice", "first_finish_ends", "spectator_boards"];
/** What a setting gives away, said under it (a watcher sees every racer's cards). */
const HINTS = { spectator_boards: "spectator_boards_hint" };
/** Races in a series (best of N), offered when the server's settings carry best_of. */
const BEST_OF = [1, 3, 5, 7];

/** Whole seconds from now (server ms) until `until` (server ms), never below 0. */
export const secondsLeft = (until, now) => Math.max(0, Math.ceil((until - now) / 1000));

/** What the lobby waits for, said plainly: once every racer is ready the host is
 * told to start (the others, that the host starts it). */
function waitText(room, isHost, players) {
  const allReady = room.phase === "lobby" && players.length > 0 && players.every((m) => m.ready);
  if (!isHost) return t(allReady && !room.public ? "wait_host_ready" : "wait_host");
  if (!players.length) return t("need_player");
  return allReady ? t("all_ready_start") : "";
}

export class Lobby {
  /** send(msg): to the server; flash(text): a short message; serverNow(): the server clock. */
  constructor(send, flash, serverNow) {
    this.send = send;
    this.flash = flash;
    this.serverNow = serverNow;
    this.room = null;
    this.me = null;
    this.form = $("#room-settings");
    this.seriesSlot = h("div", { id: "lobby-series" });
    $("#view-lobby .lobby-grid .card-panel").prepend(this.seriesSlot);
    $("#lobby-title").after(rulesLink());
    $("#copy-link").addEventListener("click", async () => {
      if (await copyText($("#share-link").value)) this.flash(t("copied"));
    });
    // a phone's own share sheet (the Web Share API) where the browser has one; Copy stays
    $("#share-room").hidden = typeof navigator.share !== "function";
    $("#share-room").addEventListener("click", () => this.share());
    $("#ready").addEventListener("click", () => {
      const mine = this.room?.members.find((m) => m.id === this.me?.id);
      this.send({ type: "ready", ready: !mine?.ready });
    });
    $("#start").addEventListener("click", () => this.send({ type: "start" }));
    setInterval(() => this.tickAway(), 250);
    $("#add-bot").addEventListener("click", () => this.send({ type: "add_bot" }));
    this.form.addEventListener("change", (e) => this.settingsChanged(e));
    // typing a deal code picks its choice (the code is sent on Enter or on leaving
    // the field); left empty, the choice goes back to what the room has
    this.form.addEventListener("focusin", (e) => {
      if (e.target.name === "deal_code") this.form.elements.deal_kind.value = "code";
    });
    this.form.addEventListener("focusout", (e) => {
      if (e.target.name !== "deal_code" || e.target.value.trim()) return;
      const random = (this.room?.settings?.deal ?? "random") === "random";
      this.form.elements.deal_kind.value = random ? "random" : "code";
    });
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.settingsChanged(e);
    });
  }

  render(room, me) {
    this.room = room;
    this.me = me;
    $("#lobby-title").textContent = t("lobby", { code: room.room });
    $("#share-link").value = `${location.origin}/r/${room.room}`;
    const isHost = room.host_id === me.id;
    const players = room.members.filter((m) => m.role === "player");
    $("#players").replaceChildren(...players.map((m) => this.memberEl(m, room)));
    const spectators = room.members.filter((m) => m.role !== "player");
    $("#spectators").replaceChildren(...spectators.map((m) => this.memberEl(m, room)));
    $("#spectators").previousElementSibling.hidden = !spectators.length;
    const mine = room.members.find((m) => m.id === me.id);
    const ready = $("#ready");
    ready.hidden = me.role !== "player";
    ready.setAttribute("aria-pressed", String(Boolean(mine?.ready)));
    ready.textContent = mine?.ready ? `\u2713 ${t("ready")}` : t("im_ready");
    $("#add-bot").hidden = !isHost || room.phase !== "lobby";
    const start = $("#start");
    start.hidden = !isHost;
    start.disabled = !players.length || room.phase !== "lobby";
    $("#lobby-wait").textContent = waitText(room, isHost, players);
    this.renderSettings(room.settings || {}, isHost);
    this.seriesSlot.replaceChildren(seriesEl(room, me.id) || "");
    // a typed-in deal is secret ("custom") until the end, but everyone should know it is not random
    $("#known-deal").hidden = (room.settings?.deal ?? "random") === "random";
    this.tickAway();
  }

  /** The room's link through the browser's share sheet (a cancelled share says nothing). */
  async share() {
    const url = $("#share-link").value;
    try {
      await navigator.share({ title: t("title"), text: t("share_text", { code: this.room?.room ?? "" }), url });
    } catch (err) {
      if (err?.name !== "AbortError" && (await copyText(url))) this.flash(t("copied"));
    }
  }

  /** Start was refused for players who are not ready: the host may start without waiting. */
  async notReady(names) {
    if (this.room?.phase !== "lobby" || this.room.host_id !== this.me?.id) return;
    const go = await ask(t("not_ready_start", { names: names.join(", ") }), t("start_anyway"));
    if (go && this.room?.phase === "lobby" && this.room.host_id === this.me?.id) {
      this.send({ type: "start", force: true });
    }
  }

  /** Members away count down the seconds they have left to come back. */
  tickAway() {
    const now = this.serverNow();
    for (const el of $$("#view-lobby .away-left[data-until]")) {
      setText(el, t("away_s", { s: secondsLeft(Number(el.dataset.until), now) }));
    }
  }

  memberEl(member, room) {
    const li = h("li", { class: member.connected === false ? "away" : "" });
    li.append(h("span", { class: "who", text: member.name }));
    if (member.id === room.host_id) li.append(h("span", { class: "badge", text: t("host") }));
    if (member.bot) li.append(h("span", { class: "badge", text: t("bot") }));
    if (member.waiting) li.append(h("span", { class: "badge waiting", text: t("waiting") }));
    if (member.connected === false) {
      const until = typeof member.away_until === "number" ? String(member.away_until) : null;
      li.append(h("span", { class: "badge away-left", dataset: until ? { until } : {}, text: t("st_disconnected") }));
    }
    if (member.id === this.me.id) li.append(h("span", { class: "badge you", text: t("you") }));
    if (room.host_id === this.me.id && member.id !== this.me.id && room.phase === "lobby") {
      li.append(this.removeButton(member));
    }
    if (member.role === "player") {
      li.append(
        h("span", {
          class: `ready-mark ${member.ready ? "on" : ""}`,
          text: member.ready ? `\u2713 ${t("ready")}` : t("not_ready"),
        }),
      );
    }
    return li;
  }

  /** The host's button that takes another member's seat away, once the host says so. */
  removeButton(member) {
    return h("button", {
      type: "button",
      class: "quiet kick",
      text: t("remove"),
      title: t("remove_who", { name: member.name }),
      "aria-label": t("remove_who", { name: member.name }),
      onclick: () => this.remove(member),
    });
  }

  /** Ask once; cancel or Escape changes nothing, nor does a room that moved on meanwhile. */
  async remove(member) {
    if (!(await ask(t("remove_ask", { name: member.name }), t("remove")))) return;
    const room = this.room;
    const still = room?.members.some((m) => m.id === member.id);
    if (still && room.phase === "lobby" && room.host_id === this.me?.id) {
      this.send({ type: "kick", player_id: member.id });
    }
  }

  /** Build the form once per language, then only refresh values (never while typing). */
  renderSettings(settings, isHost) {
    const form = this.form;
    const checks = CHECKS.filter((name) => name in settings);
    const series = "best_of" in settings;
    const key = `${document.documentElement.lang}:${checks.join(",")}:${series}`;
    if (form.dataset.built !== key) {
      form.replaceChildren(...this.settingsFields(checks, series));
      form.dataset.built = key;
    }
    for (const el of form.elements) el.disabled = !isHost;
    const draw = String(settings.draw ?? 3);
    for (const radio of form.elements.draw) radio.checked = radio.value === draw;
    // a typed-in code is broadcast as "custom" (secret until the end); the host keeps what they typed
    const deal = settings.deal ?? "random";
    const typed = deal !== "random";
    const code = form.elements.deal_code;
    if (document.activeElement !== code) {
      form.elements.deal_kind.value = typed ? "code" : "random";
      if (typed && deal !== "custom") code.value = deal;
      if (!isHost) code.value = "";
      code.placeholder = typed && !isHost ? t("custom_deal") : "CF1-D3-AAAAACL";
    }
    code.disabled = !isHost;
    form.elements.time_limit.value = String(Math.round((settings.time_limit_s || 0) / 60));
    if (!form.elements.time_limit.value) form.elements.time_limit.value = "0";
    for (const name of checks) form.elements[name].checked = Boolean(settings[name]);
    if (series) form.elements.best_of.value = String(settings.best_of || 1);
  }

  /** checks: the on/off settings this server knows (CHECKS, each labelled by its own name). */
  settingsFields(checks, series = false) {
    const radio = (name, value, label, extra) =>
      h("label", { class: "choice" }, h("input", { type: "radio", name, value }), h("span", { text: label }), extra);
    const fields = [
      h(
        "fieldset",
        {},
        h("legend", { text: t("draw_mode") }),
        radio("draw", "3", `${t("draw3")} / ${t("hard")}`),
        radio("draw", "1", `${t("draw1")} / ${t("easy")}`),
      ),
      h(
        "fieldset",
        {},
        h("legend", { text: t("deal") }),
        radio("deal_kind", "random", t("random_deal")),
        radio(
          "deal_kind",
          "code",
          t("typed_deal"),
          h("input", {
            name: "deal_code",
            placeholder: "CF1-D3-AAAAACL",
            maxlength: "48", // a grouped CF2 code (CF2-D3- and 26 characters in groups) fits
            spellcheck: "false",
            "aria-label": t("deal_code"),
          }),
        ),
      ),
      h(
        "label",
        { class: "field inline" },
        h("span", { text: t("time_limit") }),
        h(
          "select",
          { name: "time_limit" },
          LIMITS_MIN.map((n) => h("option", { value: String(n), text: n ? t("minutes", { n }) : t("no_limit") })),
        ),
      ),
    ];
    if (series) {
      fields.push(
        h(
          "label",
          { class: "field inline" },
          h("span", { text: t("best_of") }),
          h(
            "select",
            { name: "best_of" },
            BEST_OF.map((n) => h("option", { value: String(n), text: n === 1 ? t("single_race") : String(n) })),
          ),
        ),
      );
    }
    for (const name of checks) {
      const hint = HINTS[name] ? h("p", { class: "hint", id: `${name}-hint`, text: t(HINTS[name]) }) : null;
      const box = h("input", { type: "checkbox", name, "aria-describedby": hint ? hint.id : null });
      fields.push(h("label", { class: "check" }, box, h("span", { text: t(name) })));
      if (hint) fields.push(hint);
    }
    return fields;
  }

  /** Send only what changed: a settings message is a partial update. */
  settingsChanged(event) {
    const form = this.form;
    const name = event.target.name;
    const kind = form.elements.deal_kind.value;
    const code = form.elements.deal_code;
    let msg = null;
    if (name === "draw") msg = { draw: Number(event.target.value) };
    else if (name === "time_limit") {
      const minutes = Number(event.target.value);
      msg = { time_limit_s: minutes ? minutes * 60 : null };
    } else if (name === "best_of") msg = { best_of: Number(event.target.value) };
    else if (CHECKS.includes(name)) msg = { [name]: event.target.checked };
    else if (kind === "random") msg = { deal: "random" };
    else if (code.value.trim()) msg = { deal: code.value.trim() };
    else code.focus();
    if (!msg) return;
    $("#lobby-error").textContent = "";
    this.send({ type: "settings", ...msg });
  }
}
