// A ghost race's results in words: the live racer against each ghost (a
// recorded racer the server replayed, `members[].ghost`), by time when both
// won, else by cards home: "You beat Ana's 3:12 by 14 s", "Ana's 3:12 beat
// you by 4.2 s", "You beat Ana's ghost by 5 cards home (31 to 26)".

import { clock } from "./dom.js";
import { getLang, t } from "./i18n.js";
import { STATUS } from "./protocol.js";

/** A gap between two times: tenths under 10 s, whole seconds under a minute, else a clock. */
export function gapText(ms) {
  const s = Math.abs(ms) / 1000;
  if (s >= 60) return clock(Math.abs(ms));
  const digits = s < 10 ? 1 : 0;
  return `${s.toLocaleString(getLang(), { maximumFractionDigits: digits, minimumFractionDigits: digits })} s`;
}

/** One line per ghost: how the reader's result compares with theirs. */
export function ghostComparisons(standings, members, myId) {
  const ghosts = new Set((members || []).filter((m) => m.ghost).map((m) => m.id));
  const mine = (standings || []).find((r) => r.id === myId);
  if (!mine || !ghosts.size) return [];
  return standings.filter((r) => ghosts.has(r.id)).map((ghost) => compare(mine, ghost));
}

function compare(mine, ghost) {
  const name = ghost.name;
  const iWon = mine.status === STATUS.WON;
  const theyWon = ghost.status === STATUS.WON;
  if (iWon && theyWon) {
    const gap = ghost.time_ms - mine.time_ms;
    const fields = { name, time: clock(ghost.time_ms), gap: gapText(gap) };
    if (gap > 0) return { won: true, text: t("ghost_you_beat", fields) };
    if (gap < 0) return { won: false, text: t("ghost_beat_you", fields) };
    return { won: null, text: t("ghost_tied_time", fields) };
  }
  if (iWon) return { won: true, text: t("ghost_you_won", { name, cards: ghost.on_foundations }) };
  if (theyWon) return { won: false, text: t("ghost_they_won", { name, time: clock(ghost.time_ms), cards: mine.on_foundations }) };
  const fields = { name, mine: mine.on_foundations, theirs: ghost.on_foundations, n: Math.abs(mine.on_foundations - ghost.on_foundations) };
  if (mine.on_foundations > ghost.on_foundations) return { won: true, text: t("ghost_more_cards", fields) };
  if (mine.on_foundations < ghost.on_foundations) return { won: false, text: t("ghost_fewer_cards", fields) };
  return { won: null, text: t("ghost_same_cards", fields) };
}
