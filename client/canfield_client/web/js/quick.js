// A public race's lobby on the page: the bot offer (a racer alone for a while
// may race a bot instead: leave, a room of their own, a bot, start), and
// the lobby's controls a public race has none of (nobody hosts it).

import { $ } from "./dom.js";

export class PublicLobby {
  /** send(msg): to the server now; request(msg): a create/join waiting for `joined`. */
  constructor(send, request) {
    this.send = send;
    this.request = request;
    this.botRace = null; // {name, draw, step}: the bot race asked for, step by step
    $("#race-bot").addEventListener("click", () => this.raceBot());
  }

  /** The server's `bot_offer`: shown while we wait alone in that race. */
  offer(msg, room) {
    if (room?.room === msg.room && room.phase === "lobby") {
      this.offered = { room: msg.room, draw: msg.draw };
      $("#bot-offer").hidden = false;
    }
  }

  raceBot() {
    const room = this.offered;
    const me = room && this.me;
    if (!me) return;
    this.botRace = { name: me.name, draw: room.draw, step: "leave" };
    $("#bot-offer").hidden = true;
    this.send({ type: "leave" });
  }

  /** Our seat left a room: a bot race asked for goes on with a room of our own. */
  left() {
    if (this.botRace?.step !== "leave") return false;
    this.botRace.step = "create";
    this.request({ type: "create", name: this.botRace.name, settings: { draw: this.botRace.draw } });
    return true;
  }

  /** Every room message: the lobby's public look, and the bot race's next step. */
  room(room, me) {
    const isPublic = Boolean(room.public);
    const mine = room.members.find((m) => m.id === me?.id);
    this.me = mine || null;
    if (isPublic) $("#ready").hidden = true; // the lobby shows it to players of a room
    if (!isPublic || room.phase !== "lobby" || room.members.length > 1) $("#bot-offer").hidden = true;
    const bot = this.botRace;
    if (!bot || isPublic || room.phase !== "lobby" || room.host_id !== me?.id) return;
    if (bot.step === "create") {
      bot.step = "bot";
      this.send({ type: "add_bot" });
    } else if (bot.step === "bot" && room.members.some((m) => m.bot)) {
      this.botRace = null;
      this.send({ type: "start", force: true });
    }
  }
}
