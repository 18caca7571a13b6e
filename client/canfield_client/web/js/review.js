// Where the win slipped away: a finished race's reviews (GET /replay/<id>/review,
// docs/protocol.md), each racer's verdict in words with what the slip gave up,
// and the bar under a replay that marks the slip and steps through the solver's
// (short) winning line from there, saying how long it is.
//
// The server reviews a line only once its race is over for everyone, so a page
// asks only for a race it was shown as finished. Pending reviews are asked
// again with a backoff (the server's retry_ms, then half as long again each
// time, at most MAX_DELAY_MS, at most MAX_ASKS times): a review takes seconds,
// and every answer is one Redis read.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { cardWords } from "./words.js";

const MAX_DELAY_MS = 10_000;
const MAX_ASKS = 40;

/** Ask for the reviews of the race at `link` ("/replay/<id>") until none is
 * pending; `onReview(body)` after every answer. Returns a function that stops asking. */
export function watchReviews(link, onReview) {
  let stopped = false;
  let timer = null;
  let delay = 0;
  let asks = 0;
  async function ask() {
    asks += 1;
    let body = null;
    try {
      const response = await fetch(`${link}/review`, { cache: "no-store" });
      if (response.ok) body = await response.json();
      else if (response.status < 500) stopped = true; // unknown, or not over: asking again changes nothing
    } catch {
      // offline for a moment: ask again later
    }
    if (stopped) return;
    if (body) onReview(body);
    if ((!body || body.retry_ms != null) && asks < MAX_ASKS) {
      delay = Math.min(MAX_DELAY_MS, delay ? delay * 1.5 : body?.retry_ms || 1000);
      timer = setTimeout(ask, delay);
    }
  }
  if (link) ask();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** Waits between reads of a race's replay for the integrity review's flags (about
 * two minutes in all: a racer's signals are computed after the race, off the move path). */
const FLAG_WAITS_MS = [2000, 3000, 5000, 10000, 15000, 30000, 60000];

/** Read the replay at `link` a few times while its results show; `onFlags` gets
 * member id -> review ("open": under review, "confirmed": removed) each time. */
export function watchFlags(link, onFlags) {
  let stopped = false;
  let timer = null;
  let n = 0;
  async function ask() {
    try {
      const response = await fetch(link, { cache: "no-store" });
      if (response.ok && !stopped) {
        const flags = {};
        for (const p of (await response.json()).players || []) if (p.review) flags[p.id] = p.review;
        onFlags(flags);
      }
    } catch {
      // offline for a moment: the next read will tell
    }
    if (!stopped && n < FLAG_WAITS_MS.length) timer = setTimeout(ask, FLAG_WAITS_MS[n++]);
  }
  if (link) timer = setTimeout(ask, FLAG_WAITS_MS[n++]);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** One racer's review (`racers[i]` of the answer) in words; `mine`: the reader's own. */
export function verdictText(racer, mine = false) {
  if (!racer) return "";
  if (racer.state === "pending") return t("rv_pending", { i: racer.answered, n: racer.questions });
  if (racer.state !== "done" || !racer.verdict) return t("rv_failed");
  const { outcome, slip } = racer.verdict;
  if (outcome === "winnable" && !mine) return t("rv_winnable_other");
  return t(`rv_${outcome}`, { n: (slip ?? 0) + 1 });
}

/** What the move that lost the win gave up, in a sentence ("This draw buried the 5 of
 * hearts that the 4 of spades needed."), from the verdict's `why` (the cards the
 * server read off the solver's winning line); "" without one. */
export function whyText(verdict) {
  const why = verdict?.why;
  if (!why) return "";
  const to = why.to === "foundation" || why.to === "column" ? why.to : why.to ? "onto" : null;
  const into = to === "onto" ? { to: cardWords(why.to) } : {};
  // what the line did with the card: the card it built on it, else where it sent it
  const purpose = why.need ? t("rv_for_need", { need: cardWords(why.need) })
    : to ? t({ foundation: "rv_for_home", column: "rv_for_column", onto: "rv_for_onto" }[to], into) : "";
  const where = to ? t({ foundation: "rv_where_home", column: "rv_where_column", onto: "rv_where_onto" }[to], into) : "";
  return t(`rv_why_${why.kind}`, {
    card: cardWords(why.card),
    moved: cardWords(why.moved),
    need: cardWords(why.need),
    for: purpose,
    where,
  });
}

/** How long the winning line shown is, and whether a shorter one may exist ("" when
 * the verdict was not taught: its line is the solver's first). */
export function lineText(verdict) {
  if (verdict?.line_first == null || !verdict.continuation) return "";
  return t(verdict.shortest ? "rv_line_shortest" : "rv_line_len", { n: verdict.continuation.length });
}

/** The move that lost the win (its index in the racer's actions), or null. */
export function slipOf(racer) {
  return racer?.state === "done" && racer.verdict?.outcome === "slip" ? racer.verdict.slip : null;
}

/**
 * Under a ReplayStepper: the shown racer's verdict, and from a slip "Go to move N"
 * and "The winning line from here" (then "Back to the moves played").
 * `onChange()` after the player switched between the two lines.
 */
export class ReviewBar {
  constructor(after, player, onChange = () => {}) {
    this.player = player;
    this.onChange = onChange;
    this.racer = null;
    this.mine = false;
    this.el = h("div", { class: "review-bar", hidden: true });
    after.after(this.el);
  }

  /** The review of the racer whose moves the player shows (null: none yet). */
  show(racer, mine = false) {
    const slip = slipOf(racer);
    this.racer = racer;
    this.mine = mine;
    if (this.player.slip !== slip) {
      this.player.mark(slip);
      this.onChange();
      this.player.paint();
    }
    this.render();
  }

  render() {
    const racer = this.racer;
    this.el.hidden = !racer;
    if (!racer) return;
    const slip = this.player.slip;
    const following = this.player.following();
    const outcome = racer.state === "done" ? racer.verdict?.outcome : racer.state;
    const verdict = h("p", { class: `verdict ${outcome || ""}` },
      h("span", { class: "label", text: t("rv_title") }), " ",
      h("b", { text: verdictText(racer, this.mine) }));
    const why = slip != null ? whyText(racer.verdict) : "";
    const said = [verdict];
    if (why) said.push(h("p", { class: "why", id: "rv-why", text: why }));
    const buttons = [];
    if (following) {
      const size = lineText(racer.verdict);
      buttons.push(
        h("span", { class: "line-tag", text: t("rv_line") }),
        ...(size ? [h("span", { class: "line-len", id: "rv-line-len", text: size })] : []),
        h("button", { type: "button", class: "quiet", id: "rv-back", text: t("rv_back"),
          onclick: () => this.switchTo(false) }),
      );
    } else if (slip != null) {
      buttons.push(
        h("button", { type: "button", class: "quiet", id: "rv-slip", text: t("rv_go_slip", { n: slip + 1 }),
          onclick: () => this.player.go(slip + 1) }),
        h("button", { type: "button", class: "primary", id: "rv-line", text: t("rv_line"),
          onclick: () => this.switchTo(true) }),
      );
    }
    this.el.replaceChildren(...said, ...(buttons.length ? [h("div", { class: "row" }, ...buttons)] : []));
  }

  switchTo(line) {
    if (line) this.player.follow(this.racer.verdict.continuation || []);
    else this.player.back();
    this.onChange();
    this.player.paint();
    this.render();
    this.el.querySelector("button")?.focus();
  }
}
