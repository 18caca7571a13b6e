// Small pieces of wording shared by the results, the replay page, the
// leaderboard texts, the race chart and the error messages: cards as rank and
// suit symbol (10♠) or in words ("10 of spades"), places as ordinals ("1st of 4", "1. od 4"), replay moves
// in words, a race's headline (who won, or that nobody did).

import { getLang, t } from "./i18n.js";
import { clock } from "./dom.js";
import { STATUS, SUIT_CHAR } from "./protocol.js";


/** "TS" -> "10♠", "7H" -> "7♥"; anything else comes back as it was. */
export function cardLabel(card) {
  const text = String(card || "");
  if (!/^[A2-9TJQK][CDHS]$/i.test(text)) return text;
  const rank = text[0].toUpperCase() === "T" ? "10" : text[0].toUpperCase();
  return rank + SUIT_CHAR[text[1].toUpperCase()];
}

/** "5H" -> "5 of hearts" (English), "herc 5" (Croatian); "KS" -> "king of spades". */
export function cardWords(card) {
  const text = String(card || "").toUpperCase();
  if (!/^[A2-9TJQK][CDHS]$/.test(text)) return text;
  const rank = /[AJQK]/.test(text[0]) ? t(`rank_${text[0]}`) : text[0] === "T" ? "10" : text[0];
  return t("card_words", { rank, suit: t(`suit_${text[1]}`) });
}

/** 1 -> "1st" (English), "1." (Croatian). */
export function ordinal(n) {
  if (getLang() === "hr") return `${n}.`;
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${suffix}`;
}

/** "2nd of 4" / "2. od 4"; a shared place says so ("1st of 3 (tied)"). */
export const placeText = (rank, of, tied = false) => t(tied ? "place_of_tied" : "place_of", { place: ordinal(rank), n: of });

/** The card a move text picks up, read from the position before it (a player view). */
export function movedCard(view, move) {
  const text = String(move || "").toUpperCase();
  if (!view || !text.includes("-")) return null;
  const from = text.split("-")[0];
  const top = (pile) => (pile && pile.length ? pile[pile.length - 1] : null);
  if (from === "R") return view.reserve?.top || null;
  if (from === "W") return top(view.waste?.fan);
  if (from[0] === "F") return top(view.foundations?.[Number(from[1]) - 1]);
  const [col, count] = from.split(":");
  const column = view.tableau?.[Number(col) - 1];
  if (!column) return null;
  return column[column.length - Number(count || 1)] || null;
}

/** A replay action in words: "10♠ to column 2", "Draw", "Undo" (view: the position before). */
export function moveWords(view, move) {
  const text = String(move || "").toUpperCase();
  if (text === "S") return t("mv_draw");
  if (text === "U") return t("mv_undo");
  if (text === "G") return t("mv_give_up");
  const card = movedCard(view, text);
  const to = text.split("-")[1];
  if (!card || !to) return text;
  const where = to === "F" ? t("mv_to_foundation") : t("mv_to_column", { n: to });
  const count = Number(text.split("-")[0].split(":")[1] || 1);
  return count > 1 ? t("mv_run", { card: cardLabel(card), n: count, where }) : `${cardLabel(card)} ${where}`;
}

/** "Ana", "Ana and Mo", "Ana, Mo and Iva"; past `most` names, "Ana, Mo, Iva and 5 more". */
export function names(rows, most = Infinity) {
  const all = rows.map((r) => r.name);
  if (all.length > most) return t("names_more", { names: all.slice(0, most - 1).join(", "), n: all.length - most + 1 });
  return all.length < 2 ? all.join("") : t("names_and", { a: all.slice(0, -1).join(", "), b: all[all.length - 1] });
}

/** A race's headline (the results, the replay page) from the standings: {title, how, decided, winners}. */
export function headline(rows) {
  const top = rows[0];
  if (!top) return null;
  const first = rows.filter((r) => r.rank === top.rank);
  if (top.status === STATUS.WON) {
    const time = clock(top.time_ms);
    return first.length > 1
      ? { title: t("tie_won", { names: names(first), time }), how: t("win_all", { time }), decided: "", winners: first }
      : { title: t("wins", { name: top.name }), how: t("win_all", { time }), decided: "", winners: [top] };
  }
  const n = top.on_foundations;
  if (first.length > 1) return { title: t("nobody_won"), how: t("tie_first", { names: names(first), n }), decided: "", winners: [] };
  // first place alone on cards home: say so, and what decided it when the next had as many
  const next = rows[1];
  const decided = next && next.status !== STATUS.WON && next.on_foundations === n
    ? t("tie_broken", { name: top.name, other: next.name, n, t1: clock(top.reached_ms ?? 0), t2: clock(next.reached_ms ?? 0) })
    : "";
  return { title: t("nobody_won"), how: t("lead_most", { names: top.name, n }), decided, winners: [] };
}

