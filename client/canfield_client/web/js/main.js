// Wires the page together: the connection, the views (home, lobby, a public
// race's waiting screen, race, results) and the server's messages. Each view
// lives in its own module.

import { dismissable, offlineBanner } from "./chrome.js";
import { $, CONFIRM_MS, h } from "./dom.js";
import { t } from "./i18n.js";
import { dismiss } from "./confirm.js";
import { errorText as wordError } from "./errors.js";
import { attachIdentity } from "./identity.js";
import { Home, linkedCode } from "./home.js";
import { Leaderboard } from "./leaderboard.js";
import { LiveRaces } from "./live.js";
import { ArenaAnnouncement } from "./public-arenas.js";
import { WaitingScreen } from "./quick.js";
import { Lanes } from "./lanes.js";
import { Lobby, secondsLeft } from "./lobby.js";
import { Connection } from "./net.js";
import { ERR, MAX_GHOSTS, TRANSIENT_ERRORS } from "./protocol.js";
import { RaceBoard } from "./race-board.js";
import { RaceScreen } from "./race-screen.js";
import { RaceWatch } from "./racewatch.js";
import { Results } from "./results.js";
import { flash, initShell, showBanner, showNotices } from "./shell.js";
import { Sounds } from "./sound.js";
import { dispatch, state, subscribe, update } from "./state.js";
import { clearSeat, getName, getPref, getSeat, scopeSeats, setPref, setSeat } from "./store.js";
import { TvMode, tvAsked } from "./tv.js";
import { WatchBoards } from "./watchboards.js";
import { WatchScreen } from "./watchscreen.js";

const conn = new Connection();
showNotices(conn);
attachIdentity(conn); // `identify` goes first on every connection: races land in this browser's history
let outbox = null; // a create/join/resume waiting for the link
let pending = null; // the create/join/resume waiting for `joined`
let pendingSince = 0;
// watching with no name typed (a TV, a live race's link): the name the page picked
// and how many taken names it has tried
let autoName = null;

/** Ask to enter a room (one request at a time: a double click must not create two). */
function request(msg) {
  if (pending && Date.now() - pendingSince < 5000 && msg.type !== "resume") return;
  pending = msg;
  pendingSince = Date.now();
  if (!conn.send(msg)) outbox = msg;
}

/** The server refused a create/join/resume: back to the home page, saying why. */
function refused(req, msg) {
  if ((req.type === "race_again" || req.type === "ghost_race") && state.room) {
    flash(errorText(msg)); // refused before leaving this race (too many asked): the results stay
    return;
  }
  if (req.type === "join" && autoName && msg.code === ERR.BAD_NAME && autoName.tries < AUTO_NAME_TRIES) {
    autoName.tries += 1;
    request({ ...req, name: `${autoName.base} ${autoName.tries + 1}` }); // "TV 2": that name is taken
    return;
  }
  if (req.type === "resume" && TRANSIENT_ERRORS.has(msg.code)) {
    setTimeout(() => request(req), 1000);
    return;
  }
  if (req.type === "resume") {
    const seat = getSeat(req.room);
    clearSeat(req.room);
    if (msg.code === ERR.BAD_TOKEN && seat?.rejoin && seat.name) {
      // a spectator's seat (or a late joiner's, still watching) goes with its last
      // connection: take a new one under the same name, without a word
      request({ type: "join", room: req.room, name: seat.name, role: seat.rejoin });
      return;
    }
  }
  const gone = msg.code === ERR.UNKNOWN_ROOM;
  const code = req.room?.toUpperCase() ?? null;
  goHome(req.type === "create" || gone ? null : code, gone ? t("room_gone", { code }) : errorText(msg, req));
  if (gone) home.focusMain();
}

/** A refusal in the page's language where the server gave the facts (params). */
function errorText(msg, req = null) {
  if (msg.code === ERR.BAD_NAME && req?.name) return nameProblem(req.name);
  return wordError(msg, { offset: conn.offset }); // every code worded here; the server's English never
}

const AUTO_NAME_TRIES = 9;
const CHALLENGE_OK = /^[A-Za-z0-9_-]{16}$/;

/** Watch `room` without asking for a name: this browser's name, or a name the
 * page picks ("TV" for a TV), numbered when someone in the room has it. */
function watchUnnamed(room, base) {
  autoName = { base, tries: 0 };
  request({ type: "join", room, name: base, role: "spectator" });
}

const NAME_MAX = 24;
const NAME_OK = /[\p{L}\p{N} \-_.'!?&+#@()]/u;
/** Characters that draw as nothing (the Hangul fillers are letters to \p{L}). */
const NAME_INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cc}\p{Co}\p{Cn}]/u;

/** Why the server refused a name: the same checks as the server's, else it is taken. */
function nameProblem(name) {
  if (NAME_INVISIBLE.test(name.replace(/\s/gu, ""))) return t("name_invisible");
  const text = name.normalize("NFKC").split(/\s+/).filter(Boolean).join(" ");
  if (!text) return t("name_needed");
  if ([...text].length > NAME_MAX) return t("name_long", { n: NAME_MAX });
  const bad = [...new Set([...text].filter((ch) => !NAME_OK.test(ch)))].sort().join("");
  if (bad) return t("name_chars", { chars: `'${bad}'` });
  return t("name_taken", { name: text });
}

// ------------------------------------------------------------------ views

function showView(name) {
  const fresh = document.body.dataset.view !== name;
  for (const view of document.querySelectorAll(".view")) view.hidden = view.id !== `view-${name}`;
  document.body.dataset.view = name;
  update({ view: name });
  if (fresh) focusView(name);
}

/** A new screen takes the focus to what it is for (never left on the page's body):
 * keyboard and screen reader users start where the screen's work is. */
function focusView(name) {
  if (name === "home") {
    home.focusMain();
    return;
  }
  const shown = (selector) => {
    const el = document.querySelector(selector);
    return el && !el.hidden && el.offsetParent !== null && !el.disabled ? el : null;
  };
  const mains = {
    lobby: ["#start", "#ready", "#leave-lobby"],
    search: [], // the screen itself: it says what is going on, and nothing is pressed by accident
    race: ["#board .stock", "#leave-race"],
    results: ["#race-again", "#rematch", "#leave-results"],
  }[name];
  const target = (mains || []).map(shown).find(Boolean) || document.querySelector(`#view-${name}`);
  target?.focus({ preventScroll: true });
}

const home = new Home(request, (room) => watchUnnamed(room, t("watcher_name")));
const liveRaces = new LiveRaces();
const arenaPromo = new ArenaAnnouncement();
const waiting = new WaitingScreen({
  send: (msg) => conn.send(msg),
  request,
  read: () => state,
  serverNow: () => conn.serverNow(),
  cancel: () => leaveNow(),
});
const lobby = new Lobby((msg) => conn.send(msg), flash, () => conn.serverNow());
const results = new Results((msg) => conn.send(msg), flash, () => state);
const sounds = new Sounds();
// the winner moment and the live race chart; every finish sounds
new RaceWatch(conn, () => state, (row, mine) => sounds.play(mine ? "finish" : "rival"));
new Lanes(conn, () => state); // every racer's progress, always in view
const tv = new TvMode(); // no site header, big type, the room's code and QR code in a corner
new WatchScreen(conn, tv); // a spectator's feed of finishes and the TV mode's button
const watchBoards = new WatchBoards($("#view-race .race-main")); // the racers' boards, where the host shows them
const leaderboard = new Leaderboard(
  $("#race-lb"),
  () => (state.startedAt && state.roomState?.phase === "racing" ? Math.max(0, conn.serverNow() - state.startedAt) : null),
  {
    // the host may remove a player who is gone (their board locks as given up)
    can: (row) => isHost() && row.status === "disconnected" && row.id !== state.me?.id,
    send: (row) => conn.send({ type: "kick", player_id: row.id }),
  },
  // an away racer's seconds left to come back (their member's away_until)
  (row) => {
    const until = state.roomState?.members.find((m) => m.id === row.id)?.away_until;
    return typeof until === "number" ? secondsLeft(until, conn.serverNow()) : null;
  },
  undefined,
  (row) => Boolean(state.roomState?.members?.find((m) => m.id === row.id)?.ghost), // a ghost's row marked
);
const race = new RaceBoard($("#board"), conn, {
  playing: () => raceScreen.playing(),
  position: () => state.board,
  onIllegal: () => sounds.play("illegal"),
  changed: () => update(), // a guessed board (or a refused guess) renders now
  onShown: (before, after, move) => sounds.action(before, after, move),
});
const board = race.view;
const { actions } = race;
const isHost = () => Boolean(state.me && state.roomState?.host_id === state.me.id);
// the score, the note, the clocks and the controls around the board
const raceScreen = new RaceScreen({ read: () => state, conn, race, isHost, errorText });
const isDone = () => raceScreen.done();

/** The header's room tag: the code, and whether this page watches. */
function tagRoom(code, role) {
  const tag = $("#room-tag");
  tag.replaceChildren(code);
  if (role !== "player") tag.append(" ", h("span", { class: "tag-role" }, t("spectating")));
  tag.hidden = false;
}

function goHome(linkedRoom = null, error = "") {
  if (state.room || state.me) update({ room: null, me: null });
  history.replaceState(null, "", linkedRoom ? roomPath(linkedRoom) : "/");
  $("#room-tag").hidden = true;
  home.show(linkedRoom, error);
  showView("home");
  liveRaces.start(() => state.view === "home");
  arenaPromo.start(() => state.view === "home");
}

// ------------------------------------------------------------------ title

/** The tab's title: the room and where we are in it ("Racing - 12 cards - ABC234 - Canfield Race"). */
function pageTitle() {
  const parts = [];
  if (state.room && !$("#offline").hidden) parts.push(t("title_offline"));
  if (state.view === "race" && state.me?.role === "player" && state.board) {
    const status = state.leaderboard?.rows.find((r) => r.id === state.me?.id)?.status;
    if (state.board.won) parts.push(t("title_won"));
    else if (status === "gave_up") parts.push(t("title_gave_up"));
    else if (isDone() && status) parts.push(t(`st_${status}`));
    else parts.push(t("title_racing"));
    parts.push(t("title_cards", { n: state.board.on_foundations }));
  } else if (state.view === "race") {
    parts.push(t("title_watching"));
  } else if (state.view === "lobby" && state.roomState?.phase === "countdown") {
    parts.push(t("title_starting"));
  } else if (state.view === "search") {
    parts.push(t("search_title"));
  } else if (state.view === "results") {
    parts.push(t("title_results"));
  }
  if (state.room && ["lobby", "search", "race", "results"].includes(state.view)) {
    parts.push(state.view === "lobby" ? t("title_room", { room: state.room }) : state.room);
  }
  parts.push(t("title"));
  return parts.join(" - ");
}

function showTitle() {
  const title = pageTitle();
  if (document.title !== title) document.title = title;
}

// what is on screen follows the state: every change through update() renders
subscribe(() => {
  if (state.view === "race") raceScreen.render();
  if (state.view === "search") waiting.render();
  tv.show(state.view, state.room);
  const watching = state.view === "race" && state.me?.role !== "player";
  watchBoards.render(watching ? state.boards : null, state.leaderboard?.rows);
  showTitle();
});

// an arena's heat (/r/<heat>?arena=<code>, opened by arena.js): once this racer's
// race is over, back to the arena, where the next heat comes within seconds
const arenaOf = new URLSearchParams(location.search).get("arena");
let arenaBack = false;
subscribe(() => {
  if (!arenaOf || arenaBack || !/^[0-9A-Za-z]{8}$/.test(arenaOf)) return;
  if (isDone() || state.roomState?.phase === "finished") {
    arenaBack = true;
    setTimeout(() => location.assign(`/a/${arenaOf}`), 1500);
  }
});

/** A room's own path, TV mode kept (a reload of a TV's page is a TV again). */
const roomPath = (code) => `/r/${code}${tv.on ? "?tv=1" : ""}`;

/** The clocks: the race's time, the time left, the countdown (time passes without messages). */
function tickClock() {
  if (state.view === "search") waiting.tick();
  raceScreen.tick();
  // the countdown shows until the start (and "Go!" briefly after), whatever the phase is called
  const room = state.roomState;
  const starts = room && ["countdown", "racing"].includes(room.phase) ? room.starts_at : null;
  const untilStart = starts ? starts - conn.serverNow() : -Infinity;
  $("#countdown").hidden = untilStart < -700;
  if (untilStart >= -700) {
    const shown = untilStart > 0 ? String(Math.ceil(untilStart / 1000)) : t("go");
    if (shown !== $("#countdown-n").textContent) sounds.play(untilStart > 0 ? "tick" : "go");
    $("#countdown-n").textContent = shown;
    $("#countdown p").hidden = untilStart <= 0; // "Go!" stands alone, not "Starting in Go!"
  }
}
setInterval(tickClock, 200);

// Leave for good: at once from the lobby and the results; a racer still playing clicks twice
let leaveArmed = null;
function leave(e) {
  const button = e.currentTarget;
  if (!state.room) {
    goHome(); // the room is gone (the operator closed it): its results stay until then
    return;
  }
  if (state.view === "race" && state.me?.role === "player" && !isDone() && !leaveArmed) {
    button.textContent = t("sure_leave");
    leaveArmed = setTimeout(() => {
      leaveArmed = null;
      button.textContent = t("leave");
    }, CONFIRM_MS);
    return;
  }
  clearTimeout(leaveArmed);
  leaveArmed = null;
  button.textContent = t("leave");
  leaveNow();
}

/** Leave the room now (Leave, or Cancel while waiting for a public race). */
function leaveNow() {
  if (!conn.send({ type: "leave" }) && state.room) {
    // no link: forget the seat here; the server shows it away until the host removes it
    clearSeat(state.room);
    goHome();
  }
}
for (const button of document.querySelectorAll("button.leave")) button.addEventListener("click", leave);

// ------------------------------------------------------------------ messages

/** Show a room body the store has just taken in (`before`: the phase shown until now). */
function showRoom(room, before) {
  if (room.phase !== before) dismiss(); // a question asked in another phase no longer applies
  seatFromMembers(room);
  if (WaitingScreen.shows(room)) {
    showView("search"); // renders it (the state's subscriber)
  } else if (room.phase === "lobby" || room.phase === "countdown") {
    lobby.render(room, state.me);
    showView("lobby");
  } else if (room.phase === "racing") {
    if (state.leaderboard) leaderboard.update(state.leaderboard, state.me?.id); // the host may have changed
    showView("race"); // renders the race (the state's subscriber)
  } else if (room.phase === "finished" && state.finished) {
    showResults();
  }
  waiting.room(room, state.me); // a bot race asked for takes its next step
  tickClock();
}

/** Our seat as the member list has it (the store took our role from it): the
 * header's tag, and how to take a seat again when this one is freed. */
function seatFromMembers(room) {
  const mine = state.me && room.members?.find((m) => m.id === state.me.id);
  if (!mine) return;
  tagRoom(room.room, mine.role);
  // spectators' seats go with the link
  const rejoin = mine.waiting ? "player" : mine.role === "spectator" ? "spectator" : null;
  const seat = getSeat(room.room);
  if (seat && (seat.rejoin !== rejoin || seat.name !== mine.name)) setSeat(room.room, { ...seat, name: mine.name, rejoin });
}

function showResults() {
  $("#waiting-note").hidden = !state.me?.waiting;
  results.show(state.finished, state.me, isHost());
  showView("results");
}

offlineBanner(conn, () => Boolean(state.room));
conn.on("open", () => {
  showTitle();
  const seat = state.room && getSeat(state.room);
  if (seat) request({ type: "resume", room: state.room, token: seat.token });
  else if (outbox) conn.send(outbox);
  outbox = null;
});

conn.on("close", () => {
  showTitle();
  if (pending && pending.type !== "resume") outbox = pending; // asked, never answered: ask again
});

conn.on("joined", (msg) => {
  pending = null;
  autoName = null;
  document.body.classList.remove("room-closed");
  // another seat (or room) than the one on screen: the store forgets the old race
  const before = state.me?.id === msg.player_id ? state.roomState?.phase : undefined;
  dispatch(msg);
  setSeat(msg.room, { token: msg.token, player_id: msg.player_id });
  history.replaceState(null, "", roomPath(msg.room));
  tagRoom(msg.room, msg.role);
  actions.resumed(msg.last_seq || 0);
  showRoom(msg.state, before);
});

conn.on("room", (msg) => {
  const before = state.roomState?.phase;
  dispatch(msg);
  showRoom(msg, before);
});

conn.on("countdown", (msg) => {
  dispatch(msg);
  tickClock();
});

conn.on("started", (msg) => {
  actions.reset(0);
  if (!state.leaderboard || state.leaderboard.server_time < msg.started_at) leaderboard.clear();
  dispatch(msg);
  showView("race");
  tickClock();
});

conn.on("board", (msg) => {
  if (typeof msg.last_seq === "number") actions.sync(msg.last_seq, msg.board);
  dispatch(msg);
});

conn.on("ack", (msg) => dispatch(msg)); // its sound played when it showed (RaceBoard's onShown)

conn.on("hint", (msg) => raceScreen.hint(msg));

conn.on("leaderboard", (msg) => {
  leaderboard.update(msg, state.me?.id);
  dispatch(msg);
});

conn.on("leaderboard", (msg) => raceScreen.rank(msg)); // our place, said when it changes

conn.on("boards", (msg) => dispatch(msg));

conn.on("finished", (msg) => {
  dispatch(msg);
  showResults();
});

/** Our seat is gone (we left, or the host removed us): forget it and go home. */
function seatGone(msg, text = "") {
  clearSeat(msg.room);
  pending = outbox = null;
  dispatch(msg); // the race and the seat forgotten
  actions.reset(0);
  leaderboard.clear();
  goHome(null, text);
}

// Race again after a public race: the server answers `left` (this race), then
// `joined` (the next one); the results stay on screen until then, never home between
// (a ghost race's Race again is a new ghost race against the same ghosts, the same way)
$("#race-again").addEventListener("click", () => {
  const room = state.roomState;
  if (!(room?.public || room?.ghost_of) || room.phase !== "finished") return;
  pending = { type: "race_again" };
  pendingSince = Date.now();
});

// "Race this": the race just finished, raced again against its racers as ghosts
// (the others, up to three; alone, one's own); the server leaves this room first
$("#race-this").addEventListener("click", () => {
  const finished = state.finished;
  const mine = state.roomState?.members.find((m) => m.id === state.me?.id);
  if (!finished?.replay || !mine) return;
  const others = finished.standings.filter((r) => r.id !== state.me?.id).map((r) => r.id);
  const racers = (others.length ? others : [state.me.id]).slice(0, MAX_GHOSTS);
  const replay = String(finished.replay).split("/").pop();
  request({ type: "ghost_race", name: mine.name, replay, racers });
});

conn.on("left", (msg) => {
  if (pending?.type === "race_again" || pending?.type === "ghost_race") {
    clearSeat(msg.room);
    dispatch(msg); // the race and the seat forgotten; `joined` shows the next race
    actions.reset(0);
    leaderboard.clear();
    return;
  }
  seatGone(msg);
  waiting.left();
});
conn.on("searching", dispatch);
conn.on("bot_offer", dispatch);
conn.on("ghost_offer", dispatch);
conn.on("kicked", (msg) => {
  if (msg.closed) roomClosed(msg);
  else seatGone(msg, t(msg.by === "operator" ? "removed_by_operator" : "kicked"));
});

/** The operator closed the room: the seat is gone, but results of a race cut
 * short stay on screen (with no way back into the room), and the page says why. */
function roomClosed(msg) {
  if (!state.finished) {
    seatGone(msg, t("room_closed"));
    return;
  }
  clearSeat(msg.room);
  pending = outbox = null;
  dispatch(msg); // the results stay; the room is gone
  document.body.classList.add("room-closed");
  showBanner("room_closed", "");
}
conn.on("bot_failed", (msg) => flash(t("bot_failed", { name: msg.name })));
conn.on("challenge", (msg) => results.challengeMade(msg));

conn.on("error", (msg) => {
  if (raceScreen.hintRefused(msg)) return;
  if (pending) {
    const req = pending;
    pending = null;
    refused(req, msg);
    return;
  }
  if (race.refused(msg)) return;
  if (msg.code === ERR.NOT_READY && state.view === "lobby") {
    lobby.notReady(Array.isArray(msg.params?.names) ? msg.params.names : []);
    return;
  }
  if (state.view === "lobby") $("#lobby-error").textContent = errorText(msg);
  else flash(errorText(msg));
});

// ------------------------------------------------------------------ settings and start

function initSettings() {
  const double = $("#pref-double");
  double.checked = getPref("double_click", true);
  double.addEventListener("change", () => setPref("double_click", double.checked));
  sounds.bind($("#pref-sound"));
  const four = $("#pref-four");
  four.checked = getPref("four_colour", false);
  document.body.classList.toggle("four-colour", four.checked);
  four.addEventListener("change", () => {
    setPref("four_colour", four.checked);
    document.body.classList.toggle("four-colour", four.checked);
  });
  // the settings menu closes on a click or tap outside it, and on Escape
  const menu = $("#settings");
  dismissable(
    [menu],
    () => menu.open,
    (byKey) => {
      menu.open = false;
      if (byKey) menu.querySelector("summary").focus();
    },
  );
}

/** The page's words again in the language just picked. */
function relabel() {
  for (const role of document.querySelectorAll("#room-tag .tag-role")) role.textContent = t("spectating");
  home.relabel();
  leaderboard.relabel();
  results.relabel();
  liveRaces.render();
  arenaPromo.render();
  if (state.view === "lobby" && state.roomState) lobby.render(state.roomState, state.me);
  update();
  if (state.board && state.view === "race") board.render(state.board);
}

/** "Race this" from a replay page or a history row (`/?ghost=<id>&racers=a,b`):
 * a ghost race at once, under this browser's name (a guest's when it has none). */
function raceReplay(replay, racers) {
  const ids = (racers || "").split(",").filter(Boolean).slice(0, MAX_GHOSTS);
  request({ type: "ghost_race", name: getName() || t("watcher_name"), replay, racers: ids });
}

function boot() {
  initShell(relabel);
  initSettings();
  const linked = linkedCode(location.pathname);
  const asTv = Boolean(linked) && tvAsked() === true;
  if (asTv) scopeSeats("tv"); // a TV's seat is its own: never the seat this browser races in
  if (linked && getSeat(linked)) {
    update({ room: linked }); // resumed as soon as the link is up
    $("#room-tag").textContent = linked;
    $("#room-tag").hidden = false;
  } else {
    // a TV's link, a live race's link: watch it at once, no name asked (a TV is
    // "TV"; a page from a live race's link takes the name this browser keeps)
    const query = new URLSearchParams(location.search);
    const watch = query.has("watch");
    const ghost = linked ? null : query.get("ghost");
    // a challenge link's "Race" (/c/<id>): take it under the name it asked for
    const challenge = linked ? null : query.get("challenge");
    goHome(linked);
    if (CHALLENGE_OK.test(challenge || "") && getName()) {
      request({ type: "take_challenge", challenge, name: getName() });
    }
    if (linked && asTv) watchUnnamed(linked, t("tv_name"));
    else if (linked && watch) watchUnnamed(linked, getName() || t("watcher_name"));
    else if (ghost) raceReplay(ghost, query.get("racers"));
  }
  conn.connect();
}

boot();
