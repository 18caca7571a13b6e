// The server's refusals in the page's language. An `error` carries a `code`
// (docs/protocol.md "Error codes"), sometimes a `rule` (illegal moves) and
// `params` (the facts behind it: names, cap, limit, retry_at); the page words each
// code itself from those and never shows the server's English `message`,
// except for a code this page does not know yet.

import { getLang, t } from "./i18n.js";
import { identityRefusal } from "./identity.js";
import { CAP, ERR } from "./protocol.js";
import { cardLabel, movedCard } from "./words.js";

/** Every code of the protocol's table, each worded by an "err_<code>" string. */
export const CODES = Object.values(ERR);

/** Rules named by an illegal-move error, each worded by an "rule_<rule>" string. */
export const RULES = [
  "stock-empty", "reserve-no-build", "waste-no-build", "reserve-empty", "waste-empty",
  "column-too-short", "run-broken", "foundation-empty", "foundation-to-column",
  "foundation-build", "same-column", "column-build", "empty-column-reserved",
];

const key = (prefix, name) => `${prefix}_${String(name).replace(/-/g, "_")}`;

/**
 * A server time on the reader's own clock, in the page's language, with the
 * time zone's name and, unless it is today there, the date: "2:05 PM CET",
 * "5. prosinca u 14:05 CET". offset: server minus local ms.
 */
export function localTime(serverMs, offset = 0) {
  const at = new Date(serverMs - offset);
  const today = at.toDateString() === new Date().toDateString();
  const when = { hour: "numeric", minute: "2-digit", timeZoneName: "short" };
  if (!today) Object.assign(when, { day: "numeric", month: "long" });
  return new Intl.DateTimeFormat(getLang(), when).format(at);
}

/** Which limit refused (params.cap, params.limit): what it caps, and its number. */
const CAPPED = {
  [CAP.BOTS]: "err_cap_bots",
  [CAP.PLAYERS]: "err_cap_players",
  [CAP.SPECTATORS]: "err_cap_spectators",
  [CAP.OPEN_ROOMS]: "err_cap_open_rooms",
  [CAP.NEW_ROOMS]: "err_cap_new_rooms",
};

/** A limit's refusal in words, or null when the params do not name one. */
function capText(params, offset) {
  const key = CAPPED[params.cap];
  if (!key || typeof params.limit !== "number") return null;
  const time = typeof params.retry_at === "number" ? localTime(params.retry_at, offset) : "";
  return t(key, { n: params.limit, time });
}

/** Why this browser has no identity yet (its network's new identities are spent), and when. */
export function identitiesText(params, offset = 0) {
  if (typeof params.retry_at !== "number") return t("err_too_many_identities_never");
  return t("err_too_many_identities", { time: localTime(params.retry_at, offset) });
}

/**
 * The words for an `error` message.
 * ctx: {offset} (server clock minus ours), {action, board} for a refused board
 * action (the move or tap sent and the position it was sent from).
 */
export function errorText(msg, ctx = {}) {
  const code = String(msg?.code || "");
  const params = msg?.params && typeof msg.params === "object" ? msg.params : {};
  if (!CODES.includes(code)) return msg?.message || t("err_internal");
  switch (code) {
    case ERR.NOT_READY:
      if (Array.isArray(params.names) && params.names.length) {
        return t("err_not_ready_names", { names: params.names.join(", ") });
      }
      break;
    case ERR.RATE_LIMITED:
    case ERR.ROOM_FULL:
      return capText(params, ctx.offset || 0) ?? t(key("err", code));
    case ERR.TOO_MANY_IDENTITIES:
      return identitiesText(params, ctx.offset || 0);
    case ERR.NO_IDENTITY: {
      // this browser was refused a new identity: that is why, and when it is back
      const refused = identityRefusal();
      if (refused) return identitiesText(refused.params || {}, ctx.offset || 0);
      break;
    }
    case ERR.DAILY_PLAYED:
      if (params.date) return t("err_daily_played_on", { date: params.date, draw: params.draw ?? 3 });
      break;
    case ERR.ILLEGAL_MOVE:
      return illegalMove(msg, ctx);
    case ERR.NO_TARGET: {
      const card = ctx.action?.card;
      if (card) return t("err_no_target_card", { card: cardLabel(card) });
      break;
    }
    default:
      break;
  }
  return t(key("err", code));
}

/** An illegal move by its rule, naming the cards when the page knows them. */
function illegalMove(msg, ctx) {
  const rule = String(msg.rule || "");
  const move = ctx.action?.move || "";
  const board = ctx.board;
  const card = ctx.action?.card || movedCard(board, move);
  if (rule === "column-build" && card) {
    const to = Number(String(move).split("-")[1]);
    const column = board?.tableau?.[to - 1];
    const onto = column && column.length ? column[column.length - 1] : null;
    if (onto) return t("rule_column_build_cards", { card: cardLabel(card), onto: cardLabel(onto) });
  }
  if (rule === "foundation-build" && card) return t("rule_foundation_build_card", { card: cardLabel(card) });
  if (RULES.includes(rule)) return t(key("rule", rule));
  return t("err_illegal_move");
}
