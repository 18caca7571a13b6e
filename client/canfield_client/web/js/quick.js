// A public race before its start: the waiting screen ("Looking for racers",
// the time waited, how many search in this draw mode, how far the rating band
// reaches, Cancel) and what to do instead of waiting: a bot race, offered from
// the first second (leave, a room of our own, a bot, start), or the ghost of a
// real past public race near our rating (`ghost_offer`: leave, then
// `ghost_race`). Nobody hosts a public race, so nothing here speaks of a host.
// What it shows comes from the page's state (`searching`, `bot_offer`,
// `ghost_offer` folded in by race-state.js).

import { $, clock, h, setText } from "./dom.js";
import { getLang, t } from "./i18n.js";

/** The offers the screen can show, each with its element. */
const OFFERS = { bot: "#bot-offer", ghost: "#ghost-offer" };

export class WaitingScreen {
  /** send(msg): to the server now; request(msg): a create/join waiting for `joined`;
   * read(): the page's state; serverNow(): the server's clock; cancel(): leave the race. */
  constructor({ send, request, read, serverNow, cancel }) {
    this.send = send;
    this.request = request;
    this.read = read;
    this.serverNow = serverNow;
    this.botRace = null; // {name, draw, step}: the bot race asked for, step by step
    this.ghostRace = null; // {name, replay, racer}: the ghost race asked for (after leaving)
    $("#race-bot").addEventListener("click", () => this.raceBot());
    $("#race-ghost").addEventListener("click", () => this.raceGhost());
    $("#cancel-search").addEventListener("click", () => cancel());
  }

  /** Whether a room is shown here rather than in the lobby: a public race not yet dealt. */
  static shows(room) {
    return Boolean(room?.public) && (room.phase === "lobby" || room.phase === "countdown");
  }

  /** Everything on the screen, from the state. */
  render() {
    const { roomState: room, me, search } = this.read();
    if (!room) return;
    const players = room.members.filter((m) => m.role === "player");
    const found = players.length > 1;
    const draw = search?.draw ?? room.settings?.draw ?? 3;
    setText($("#search-title"), t(found ? "search_found" : "search_title"));
    setText($("#search-mode"), t(draw === 1 ? "daily_tab1" : "daily_tab3"));
    const known = !found && search && typeof search.searching === "number";
    setText($("#search-count"), known ? this.countText(search.searching) : found ? t("search_starting") : "");
    setText($("#search-band"), known ? this.bandText(search) : "");
    const list = $("#search-found");
    list.hidden = !found;
    if (found) {
      list.replaceChildren(
        ...players.map((m) =>
          h("li", {}, h("span", { class: "who", text: m.name }), m.id === me?.id ? h("span", { class: "badge you", text: t("you") }) : null),
        ),
      );
    }
    const offers = !found && me?.role === "player" && search?.room === room.room ? search.offers : [];
    for (const [offer, selector] of Object.entries(OFFERS)) $(selector).hidden = !offers.includes(offer);
    if (offers.includes("ghost")) this.renderGhost(search.ghost);
    this.tick();
  }

  /** Whose ghost is offered, and how their race went (a past public race near our rating). */
  renderGhost(ghost) {
    const how = ghost.status === "won" ? t("ghost_offer_won", { time: clock(ghost.timeMs) }) : t("ghost_offer_cards", { cards: ghost.cards });
    setText($("#ghost-offer-text"), t("ghost_offer", { name: ghost.name, how }));
    setText($("#race-ghost"), t("race_ghost", { name: ghost.name }));
  }

  /** "Race Ana's ghost": leave this race, then a ghost race against that racer. */
  raceGhost() {
    const { search, roomState: room, me } = this.read();
    const mine = room?.members.find((m) => m.id === me?.id);
    if (!mine || !search?.offers.includes("ghost")) return;
    this.ghostRace = { name: mine.name, replay: search.ghost.replay, racer: search.ghost.racer };
    $("#ghost-offer").hidden = true;
    this.send({ type: "leave" });
  }

  /** The time waited, from when the server says the wait began. */
  tick() {
    const { search, roomState: room } = this.read();
    const el = $("#search-clock");
    el.parentElement.hidden = !search?.queuedAt || room?.members.filter((m) => m.role === "player").length > 1;
    if (search?.queuedAt) setText(el, clock(this.serverNow() - search.queuedAt));
  }

  countText(n) {
    return n > 1 ? t("search_count", { n }) : t("search_alone");
  }

  bandText(search) {
    if (search.band == null) return t("search_band_any");
    const points = Number(search.band).toLocaleString(getLang());
    return t(search.band >= search.bandMost ? "search_band_most" : "search_band", { points });
  }

  /** "Race a bot": leave this race, then a room of our own with a bot, started. */
  raceBot() {
    const { search, roomState: room, me } = this.read();
    const mine = room?.members.find((m) => m.id === me?.id);
    if (!mine || !search?.offers.includes("bot")) return;
    this.botRace = { name: mine.name, draw: search.draw, step: "leave" };
    $("#bot-offer").hidden = true;
    this.send({ type: "leave" });
  }

  /** Our seat left a room: a bot race asked for goes on with a room of our own. */
  left() {
    const ghost = this.ghostRace;
    if (ghost) {
      this.ghostRace = null;
      this.request({ type: "ghost_race", name: ghost.name, replay: ghost.replay, racers: [ghost.racer] });
      return true;
    }
    if (this.botRace?.step !== "leave") return false;
    this.botRace.step = "create";
    this.request({ type: "create", name: this.botRace.name, settings: { draw: this.botRace.draw } });
    return true;
  }

  /** Every room message: the bot race's next step in the room of our own. */
  room(room, me) {
    const bot = this.botRace;
    if (!bot || room.public || room.phase !== "lobby" || room.host_id !== me?.id) return;
    if (bot.step === "create") {
      bot.step = "bot";
      this.send({ type: "add_bot" });
    } else if (bot.step === "bot" && room.members.some((m) => m.bot)) {
      this.botRace = null;
      this.send({ type: "start", force: true });
    }
  }
}
