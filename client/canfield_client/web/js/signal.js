// A racer's round trip to the server as a small signal icon: four bars, fewer
// the longer the trip, its ms on hover (title) and in its label. The server
// measures it (docs/protocol.md, "Round trips") and sends each racer's median
// in their leaderboard row (`rtt_ms`, null until measured: no icon then).

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** A round trip (ms) under each of these shows 4, 3 or 2 bars; a longer one, 1. */
export const SIGNAL_MS = [100, 200, 400];

/** The bars a round trip shows (1-4), or 0 when it is not measured. */
export function signalBars(ms) {
  if (!Number.isInteger(ms)) return 0;
  const under = SIGNAL_MS.findIndex((limit) => ms < limit);
  return under === -1 ? 1 : 4 - under;
}

/** A round trip in words ("Round trip 120 ms"), or "" when not measured. */
export function rttText(ms) {
  return Number.isInteger(ms) ? t("rtt_title", { ms }) : "";
}

/** An empty icon (hidden until it has a round trip to show). */
export function signalIcon() {
  const bars = [1, 2, 3, 4].map((n) => h("i", { class: `sig s${n}` }));
  return h("span", { class: "signal", role: "img", hidden: true }, ...bars);
}

/** Show `ms` on an icon from `signalIcon`: its bars, title and label. */
export function setSignal(icon, ms) {
  const bars = signalBars(ms);
  icon.hidden = !bars;
  if (!bars) {
    icon.removeAttribute("title");
    icon.removeAttribute("aria-label");
    return;
  }
  const text = rttText(ms);
  if (icon.dataset.bars !== String(bars)) icon.dataset.bars = String(bars);
  if (icon.title !== text) {
    icon.title = text;
    icon.setAttribute("aria-label", text);
  }
}
