// What the page knows of its race, from the server's messages alone: the
// twin of the Python client's RaceView (client/canfield_client/race_view.py).
// applyServerMessage(state, msg) returns the next state (a new object; the old
// one is never changed) and touches nothing else: no DOM, no socket, no clock.
// Both reducers run the recorded sequences of tests/fixtures/race_messages.json
// (tests/client/test_race_messages.py, tests/web/test_race_state_in_browser.py).

/** The fields a race fills; cleared when the page changes seat or the seat goes. */
const NO_RACE = { board: null, leaderboard: null, finished: null, startedAt: null, endsAt: null, roomState: null, search: null, boards: null };

/** The page's state before any message: no seat, nothing on screen but home. */
export const EMPTY = Object.freeze({ view: "home", room: null, me: null, ...NO_RACE });

/** Our role comes from the member list: a late joiner watches, then races after the rematch. */
function seated(me, room) {
  const mine = me && room.members?.find((m) => m.id === me.id);
  return mine ? { ...me, role: mine.role, waiting: Boolean(mine.waiting) } : me;
}

/** A `room` body: the room's phase decides what of the last race is kept. */
function withRoom(state, room) {
  const next = { ...state, roomState: room, me: seated(state.me, room) };
  if (room.phase !== "lobby") next.search = null; // the wait is over
  const before = state.roomState?.phase;
  if (room.phase === "lobby" && before !== "lobby") {
    Object.assign(next, NO_RACE, { roomState: room });
  } else if (room.phase === "racing") {
    if (room.starts_at && !state.startedAt) next.startedAt = room.starts_at;
    if ("ends_at" in room) next.endsAt = room.ends_at;
  }
  return next;
}

/** What a public race's waiting screen shows (`searching`, `bot_offer`: said
 * to a racer waiting alone in its lobby), merged: {room, draw, searching, band,
 * bandMost, queuedAt, offers, ghost} (offers: "bot", "ghost": `ghost_offer`'s
 * racer {replay, racer, name, status, timeMs, cards}). */
function searched(state, msg, fields) {
  if (msg.room !== state.room || state.roomState?.phase !== "lobby") return state;
  const before = state.search?.room === msg.room ? state.search : { room: msg.room, searching: null, offers: [] };
  return { ...state, search: { ...before, draw: msg.draw, ...fields } };
}

/** The room's body with another phase (the server says so with its own message). */
const phased = (room, phase) => room && { ...room, phase };

/** Fold one server message in (any other message returns `state` itself). */
export function applyServerMessage(state, msg) {
  switch (msg.type) {
    case "joined": {
      // another seat (or room) than the one on screen: forget the old race
      const fresh = state.me?.id !== msg.player_id ? { ...state, ...NO_RACE } : state;
      // a waiting screen is told again after every `joined`
      return withRoom({ ...fresh, room: msg.room, me: { id: msg.player_id, role: msg.role }, search: null }, msg.state);
    }
    case "room":
      return withRoom(state, msg);
    case "countdown": {
      const room = state.roomState;
      if (!room) return state;
      const phase = room.phase === "lobby" ? "countdown" : room.phase;
      return { ...state, search: null, roomState: { ...room, starts_at: msg.starts_at, phase } };
    }
    case "started":
      return {
        ...state,
        board: msg.board,
        boards: null,
        startedAt: msg.started_at,
        endsAt: msg.ends_at ?? null,
        finished: null,
        search: null,
        roomState: phased(state.roomState, "racing"),
      };
    case "board":
    case "ack":
      return { ...state, board: msg.board };
    case "leaderboard":
      return { ...state, leaderboard: msg };
    case "boards": {
      // a spectator's view of the racers' boards (a room that shows them): the changed ones
      const boards = { ...(state.boards || {}) };
      for (const racer of Array.isArray(msg.boards) ? msg.boards : []) {
        if (typeof racer?.id === "string" && Array.isArray(racer.board?.tableau)) boards[racer.id] = racer.board;
      }
      return { ...state, boards };
    }
    case "searching":
      return searched(state, msg, {
        searching: msg.searching,
        band: msg.band ?? null,
        bandMost: msg.band_most ?? null,
        queuedAt: msg.queued_at,
      });
    case "bot_offer": {
      const offers = state.search?.room === msg.room ? state.search.offers : [];
      return searched(state, msg, { offers: offers.includes("bot") ? offers : [...offers, "bot"] });
    }
    case "ghost_offer": {
      // a real past public race near our rating, whose racer we may race as a ghost
      const offers = state.search?.room === msg.room ? state.search.offers : [];
      const ghost = { replay: msg.replay, racer: msg.racer, name: msg.name, status: msg.status, timeMs: msg.time_ms, cards: msg.cards };
      return searched(state, msg, { offers: offers.includes("ghost") ? offers : [...offers, "ghost"], ghost });
    }
    case "finished":
      return { ...state, finished: msg, roomState: phased(state.roomState, "finished") };
    case "left":
      return { ...state, ...NO_RACE, room: null, me: null };
    case "kicked":
      // a room closed after its race keeps the results on screen, with no way back in
      if (msg.closed && state.finished) return { ...state, room: null };
      return { ...state, ...NO_RACE, room: null, me: null };
    default:
      return state;
  }
}
