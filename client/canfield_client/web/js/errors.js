// The server's refusals in the page's language. An `error` carries a `code`
// (docs/protocol.md "Error codes"), sometimes a `rule` (illegal moves) and
// `params` (the facts behind it: names, limit, retry_at); the page words each
// code itself from those and never shows the server's English `message`,
// except for a code this page does not know yet.

import { t } from "./i18n.js";
import { ERR } from "./protocol.js";
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

/** "14:05" on this machine's clock for a server time (offset: server minus local ms). */
export function localTime(serverMs, offset = 0) {
  const at = new Date(serverMs - offset);
  return `${String(at.getHours()).padStart(2, "0")}:${String(at.getMinutes()).padStart(2, "0")}`;
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
      if (typeof params.retry_at === "number") {
        return t("too_many_rooms", { time: localTime(params.retry_at, ctx.offset || 0) });
      }
      break;
    case ERR.ROOM_FULL:
      if (typeof params.limit === "number") return t("err_room_full_limit", { limit: params.limit });
      break;
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
