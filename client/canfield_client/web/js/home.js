// The home page: a remembered display name, "race now" (a public race),
// "new race", or join/watch a room by its code (prefilled when the page was
// opened from a share link).

import { $ } from "./dom.js";
import { t } from "./i18n.js";
import { initHowTo, rulesLink } from "./howto.js";
import { getName, setName } from "./store.js";

const CODE_RE = /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{6}$/;

/** The room code of a share link's path ("/r/<code>"), as typed; null for any other path. */
export function linkedCode(pathname) {
  const match = /^\/r\/([^/]+)\/?$/.exec(pathname);
  if (!match) return null;
  let code = match[1];
  try {
    code = decodeURIComponent(code);
  } catch {
    // a broken %-escape: show it as it stands
  }
  return code.trim().toUpperCase().slice(0, 24) || null;
}

/** A link off the home page (a live race to watch, a public arena to race in)
 * keeps the name typed so far: the page it opens takes its seat with it. */
export function keepTypedName() {
  const who = $("#name").value.trim();
  if (who) setName(who);
}

export class Home {
  /** request(msg): ask the server (sent as soon as the link is up); watchUnnamed(room):
   * watch a room under a name the page picks (watching needs no name typed). */
  constructor(request, watchUnnamed = () => {}) {
    this.request = request;
    this.watchUnnamed = watchUnnamed;
    this.linked = null;
    const name = $("#name");
    name.value = getName();
    initHowTo();
    $("#home-form").after(rulesLink());
    $("#create").addEventListener("click", () => {
      const who = this.name();
      if (who) this.request({ type: "create", name: who });
    });
    $("#home-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.join("player");
    });
    $("#watch").addEventListener("click", () => this.join("spectator"));
    // Enter in the name: join the room when there is a code to join, else on to
    // "Race now" (the page's first action), never an error about a code nobody typed
    $("#name").addEventListener("keydown", (e) => {
      if (e.key !== "Enter" || e.isComposing) return;
      e.preventDefault();
      if (this.linked || $("#room-code").value.trim()) this.join("player");
      else if (this.name()) $("#quick-3").focus();
    });
    // "Race now": a seat in the next public race of that draw mode
    for (const button of [$("#quick-3"), $("#quick-1")]) {
      button.addEventListener("click", () => {
        const who = this.name();
        if (who) this.request({ type: "quick", name: who, draw: Number(button.dataset.draw) });
      });
    }
    $("#room-code").addEventListener("input", (e) => {
      e.target.value = e.target.value.toUpperCase().replace(/\s/g, "");
    });
  }

  /** Show the page; linkedRoom (from /r/CODE) turns it into "join this room",
   * unless it cannot be a room code: then the page says so and offers both ways on. */
  show(linkedRoom = null, error = "") {
    const valid = Boolean(linkedRoom) && CODE_RE.test(linkedRoom);
    this.linked = valid ? linkedRoom : null;
    this.badLink = linkedRoom && !valid ? linkedRoom : null;
    $("#create-block").hidden = valid;
    $("#quick-block").hidden = valid;
    $("#code-field").hidden = valid;
    const title = $("#join-title");
    title.hidden = !valid;
    if (valid) {
      title.textContent = t("join_room", { code: linkedRoom });
      $("#room-code").value = linkedRoom;
    }
    this.error(this.badLink ? t("bad_room_code", { code: this.badLink }) : error);
  }

  relabel() {
    if (this.linked) $("#join-title").textContent = t("join_room", { code: this.linked });
    if (this.badLink) this.error(t("bad_room_code", { code: this.badLink }));
  }

  /** Focus what this screen is for: the name while there is none (not on a
   * touch screen, where it would open the keyboard unasked), else Join or New race. */
  focusMain() {
    const typing = matchMedia("(pointer: fine)").matches;
    let target = this.linked ? $("#join") : $("#create");
    if (!$("#name").value.trim() && typing) target = $("#name");
    else if (this.badLink) target = typing ? $("#room-code") : $("#create");
    target.focus({ preventScroll: true });
  }

  name() {
    const input = $("#name");
    const who = input.value.trim();
    if (!who) {
      this.error(t("name_needed"));
      input.focus();
      return "";
    }
    setName(who);
    this.error("");
    return who;
  }

  join(role) {
    const code = $("#room-code").value.trim().toUpperCase();
    if (!CODE_RE.test(code)) {
      this.error(t("code_needed"));
      $("#room-code").focus();
      return;
    }
    if (role === "spectator" && !$("#name").value.trim()) {
      this.error("");
      this.watchUnnamed(code);
      return;
    }
    const who = this.name();
    if (who) this.request({ type: "join", room: code, name: who, role });
  }

  error(text) {
    $("#home-error").textContent = text;
  }
}
