// The home page: a remembered display name, "new race", or join/watch a room
// by its code (prefilled when the page was opened from a share link).

import { $ } from "./dom.js";
import { t } from "./i18n.js";
import { initHowTo, rulesLink } from "./howto.js";
import { getName, setName } from "./store.js";

const CODE_RE = /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{6}$/;

export class Home {
  /** request(msg): ask the server (sent as soon as the link is up). */
  constructor(request) {
    this.request = request;
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
    $("#room-code").addEventListener("input", (e) => {
      e.target.value = e.target.value.toUpperCase().replace(/\s/g, "");
    });
  }

  /** Show the page; linkedRoom (from /r/CODE) turns it into "join this room". */
  show(linkedRoom = null, error = "") {
    this.linked = linkedRoom;
    $("#create-block").hidden = Boolean(linkedRoom);
    $("#code-field").hidden = Boolean(linkedRoom);
    const title = $("#join-title");
    title.hidden = !linkedRoom;
    if (linkedRoom) {
      title.textContent = t("join_room", { code: linkedRoom });
      $("#room-code").value = linkedRoom;
    }
    this.error(error);
  }

  relabel() {
    if (this.linked) $("#join-title").textContent = t("join_room", { code: this.linked });
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
    const who = this.name();
    if (who) this.request({ type: "join", room: code, name: who, role });
  }

  error(text) {
    $("#home-error").textContent = text;
  }
}
