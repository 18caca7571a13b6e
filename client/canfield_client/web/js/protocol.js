// The wire protocol's words (docs/protocol.md) in one place: error codes, the
// limits they name and a racer's statuses, as shared/canfield_protocol spells
// them (tests/web/test_protocol_js.py checks they agree), and the sets the
// pages sort them into.

/** Every error code the server sends. */
export const ERR = Object.freeze({
  BAD_JSON: "bad-json",
  BAD_MESSAGE: "bad-message",
  TOO_LARGE: "too-large",
  BINARY: "binary",
  UNKNOWN_TYPE: "unknown-type",
  UNSUPPORTED_VERSION: "unsupported-version",
  NOT_IN_ROOM: "not-in-room",
  UNKNOWN_PLAYER: "unknown-player",
  ALREADY_IN_ROOM: "already-in-room",
  UNKNOWN_ROOM: "unknown-room",
  BAD_TOKEN: "bad-token",
  NOT_HOST: "not-host",
  NOT_PLAYER: "not-player",
  WRONG_PHASE: "wrong-phase",
  NOT_ALLOWED: "not-allowed",
  ROOM_FULL: "room-full",
  BAD_NAME: "bad-name",
  BAD_SETTINGS: "bad-settings",
  BAD_DEAL_CODE: "bad-deal-code",
  BAD_MOVE: "bad-move",
  BAD_CARD: "bad-card",
  ILLEGAL_MOVE: "illegal-move",
  NO_TARGET: "no-target",
  NOTHING_TO_UNDO: "nothing-to-undo",
  SEQ_GAP: "seq-gap",
  DONE: "done",
  RATE_LIMITED: "rate-limited",
  NOT_READY: "not-ready",
  UNAVAILABLE: "unavailable",
  INTERNAL: "internal",
  BAD_IDENTITY: "bad-identity",
  NO_IDENTITY: "no-identity",
  TOO_MANY_IDENTITIES: "too-many-identities",
  DAILY_PLAYED: "daily-played",
  BAD_DATE: "bad-date",
  UNKNOWN_REPLAY: "unknown-replay",
  UNKNOWN_CHALLENGE: "unknown-challenge",
});

/** Ghosts one race may have (`ghost_race`'s `racers`; MAX_GHOSTS on the server). */
export const MAX_GHOSTS = 3;

/** A racer's status in a leaderboard row. */
export const STATUS = Object.freeze({
  PLAYING: "playing",
  WON: "won",
  GAVE_UP: "gave_up",
  LEFT: "left",
  TIMED_OUT: "timed_out",
  STOPPED: "stopped",
  DISCONNECTED: "disconnected",
});

/** Which limit refused a request (`params.cap` of `room-full` and `rate-limited`). */
export const CAP = Object.freeze({
  BOTS: "bots",
  PLAYERS: "players",
  SPECTATORS: "spectators",
  OPEN_ROOMS: "open_rooms",
  NEW_ROOMS: "new_rooms",
});

/** Statuses of a racer whose race is over: their time stops. */
export const DONE_STATUSES = new Set([STATUS.WON, STATUS.GAVE_UP, STATUS.LEFT, STATUS.TIMED_OUT, STATUS.STOPPED]);

/** Errors that answer a numbered board action (move, tap, undo, give up). */
export const ACTION_ERRORS = new Set([
  ERR.ILLEGAL_MOVE, ERR.BAD_MOVE, ERR.BAD_CARD, ERR.NO_TARGET, ERR.NOTHING_TO_UNDO, ERR.SEQ_GAP,
  ERR.DONE, ERR.RATE_LIMITED, ERR.UNAVAILABLE, ERR.NOT_PLAYER, ERR.WRONG_PHASE,
]);

/** Errors worth trying the same thing again after a moment. */
export const TRANSIENT_ERRORS = new Set([ERR.UNAVAILABLE, ERR.RATE_LIMITED]);

/** The suits' symbols, by the letter the protocol writes them with. */
export const SUIT_CHAR = Object.freeze({ C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" });
