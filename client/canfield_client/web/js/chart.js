// The race chart: cards home (y) over time or over actions (x), one step line
// per player, drawn as inline SVG with axes, a name at the end of each line and
// a legend. It draws what it is given; js/racewatch.js feeds it live
// leaderboard rows, js/results.js the replays (over time when the results carry
// every racer's action times, `mode` "time"; else over actions).

import { clock, h } from "./dom.js";
import { t } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";
/** Okabe-Ito colours (readable for colour-blind eyes) and a few more; then dashes. */
// Okabe-Ito's colour-blind-safe hues, darkened where needed so that a racer's name
// written in its line's colour reads at 4.5:1 or better on the light panel
export const PALETTE = ["#0072B2", "#B24E00", "#007E5B", "#96597B", "#936400", "#31739A", "#222222", "#7A4FA3", "#8C564B", "#007883"];
const DASHES = ["", "7 4", "2 3"];
/** The chart's height for its width: wide screens get a taller chart and larger text. */
const heightFor = (width) => Math.max(240, Math.min(520, Math.round(width * 0.45)));

function svg(tag, attrs = {}, text = null) {
  const el = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) el.setAttribute(key, String(value));
  }
  if (text !== null) el.textContent = String(text);
  return el;
}

/** Round tick steps for an axis that reaches max (about `count` ticks). */
function niceStep(max, count, steps) {
  return steps.find((step) => max / step <= count) || steps[steps.length - 1];
}

const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600].map((s) => s * 1000);
const COUNT_STEPS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000];

export class RaceChart {
  /** mode: "time" (x in ms) or "actions" (x counts actions); fit: () => true when
   * the chart fills the height its page gives it (else its height follows its width). */
  constructor(root, mode = "time", { fit = () => false } = {}) {
    this.root = root;
    this.mode = mode;
    this.fit = fit;
    this.colours = new Map(); // player id -> index, kept for the whole race
    this.lines = [];
    this.me = null;
    this.xEnd = 0;
    this.figure = h("figure", { class: "race-chart" });
    // the drawing's own box: its size comes from the page, never from the drawing
    this.box = h("div", { class: "chart-box" });
    this.caption = h("figcaption", { class: "hint" });
    this.legend = h("ul", { class: "chart-legend" });
    this.figure.append(this.box, this.legend, this.caption);
    root.append(this.figure);
    this.size = [0, 0];
    if (typeof ResizeObserver === "function") {
      new ResizeObserver(() => {
        const [width, height] = this.size;
        const heightMoved = this.figure.classList.contains("fit") && Math.abs(this.box.clientHeight - height) > 4;
        if (Math.abs(this.box.clientWidth - width) > 4 || heightMoved) this.draw();
      }).observe(this.box);
    }
  }

  /** Forget the colours (a new race). */
  reset() {
    this.colours.clear();
    this.lines = [];
    this.draw();
  }

  /** Give colours in this order first (the room's players as they joined), so a
   * player keeps one colour in the live chart and the results. */
  order(ids) {
    for (const id of ids) this.colourIndex(id);
  }

  colourIndex(id) {
    if (!this.colours.has(id)) this.colours.set(id, this.colours.size);
    return this.colours.get(id);
  }

  /**
   * lines: [{id, name, points: [[x, y], ...], end}] in the order to list them
   * (the standings); `end` is where a finished line stops (else it runs to xEnd).
   * me: our player id (drawn thicker); xEnd: the x the chart runs to (now).
   */
  render(lines, { me = null, xEnd = 0, note = "" } = {}) {
    this.lines = lines;
    this.me = me;
    this.xEnd = xEnd;
    this.caption.textContent = note;
    this.draw();
  }

  draw() {
    const fit = Boolean(this.fit());
    this.figure.classList.toggle("fit", fit);
    // the box's content width: the drawing is never scaled down, so its text keeps its size
    const width = Math.max(240, Math.floor(this.box.clientWidth || this.root.clientWidth || 600));
    const HEIGHT = fit ? Math.max(180, Math.floor(this.box.clientHeight)) : heightFor(width);
    this.size = [this.box.clientWidth, this.box.clientHeight];
    // the page's type size sets the text's (larger on a big screen), never under 12 px
    const rem = parseFloat(getComputedStyle(this.root).fontSize) || 16;
    const fontPx = Math.round(Math.max(12, Math.min(rem * 1.1, width / 40)));
    const MARGIN = { top: Math.ceil(fontPx * 0.8), right: 7 * fontPx + 12, bottom: 2 * fontPx + 16, left: 3 * fontPx + 8 };
    const lines = this.lines;
    for (const line of lines) this.colourIndex(line.id);
    const timeMode = this.mode === "time";
    const lastX = Math.max(0, ...lines.flatMap((l) => [l.end ?? 0, ...l.points.map((p) => p[0])]));
    const xMax = Math.max(timeMode ? 10_000 : 5, this.xEnd, lastX);
    const topY = Math.max(1, ...lines.flatMap((l) => l.points.map((p) => p[1])));
    const yMax = [10, 20, 30, 40].find((v) => v >= topY) || 52;
    const plotW = width - MARGIN.left - MARGIN.right;
    const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
    const sx = (x) => MARGIN.left + (Math.min(x, xMax) / xMax) * plotW;
    const sy = (y) => MARGIN.top + plotH - (y / yMax) * plotH;
    const titleId = `chart-title-${this.mode}`;
    const summary = lines.map((l) => `${l.name} ${last(l)}`).join(", ");
    const root = svg("svg", {
      class: "chart-svg",
      viewBox: `0 0 ${width} ${HEIGHT}`,
      width,
      height: HEIGHT,
      role: "img",
      "aria-labelledby": titleId,
      style: `font-size:${fontPx}px`,
    });
    root.append(svg("title", { id: titleId }, `${t("race_chart")}. ${t("chart_summary", { list: summary })}`));

    // grid and axes: a line at every tick, a label only where it has room
    const grid = svg("g", { class: "chart-grid", "aria-hidden": "true" });
    const yStep = yMax <= 20 ? 5 : 10;
    const yTicks = [];
    for (let y = 0; y <= yMax; y += yStep) yTicks.push(y);
    if (yMax === 52) yTicks.push(52);
    const yLabelled = spaced(yTicks, sy, fontPx * 1.5);
    for (const y of yTicks) {
      grid.append(svg("line", { x1: MARGIN.left, x2: MARGIN.left + plotW, y1: sy(y), y2: sy(y), class: y ? "tick" : "axis" }));
      if (yLabelled.has(y)) grid.append(svg("text", { x: MARGIN.left - 6, y: sy(y) + fontPx / 3, "text-anchor": "end", class: "tick-label" }, y));
    }
    // as many x ticks as their labels have room for (a label is about 0.6 em a character)
    const xLabel = (x) => (timeMode ? clock(x) : String(x));
    const labelPx = (xLabel(xMax).length * 0.62 + 1.2) * fontPx;
    const xCount = Math.max(1, Math.floor(plotW / labelPx));
    const xStep = timeMode ? niceStep(xMax, xCount, TIME_STEPS) : niceStep(xMax, xCount, COUNT_STEPS);
    const xTicks = [];
    for (let x = 0; x <= xMax + 1e-9; x += xStep) xTicks.push(x);
    // the first label starts at the axis (centred there it would run into the y axis's 0);
    // one near the right edge ends there (past it, it would run into the names)
    const halfLabel = (x) => xLabel(x).length * 0.31 * fontPx;
    const anchorOf = (x) => (!x ? "start" : sx(x) + halfLabel(x) > MARGIN.left + plotW ? "end" : "middle");
    const shift = { start: 1, middle: 0, end: -1 };
    const xMid = (x) => sx(x) + shift[anchorOf(x)] * halfLabel(x);
    const xLabelled = spaced(xTicks, xMid, labelPx);
    for (const x of xTicks) {
      grid.append(svg("line", { x1: sx(x), x2: sx(x), y1: MARGIN.top, y2: MARGIN.top + plotH, class: x ? "tick" : "axis" }));
      if (xLabelled.has(x)) {
        const anchor = anchorOf(x);
        grid.append(svg("text", { x: sx(x), y: MARGIN.top + plotH + fontPx + 4, "text-anchor": anchor, class: "tick-label" }, xLabel(x)));
      }
    }
    grid.append(
      svg("text", { x: MARGIN.left + plotW / 2, y: HEIGHT - 4, "text-anchor": "middle", class: "axis-label" },
        t(timeMode ? "chart_time" : "chart_actions")),
      svg("text", { x: fontPx, y: MARGIN.top + plotH / 2, "text-anchor": "middle", class: "axis-label",
        transform: `rotate(-90 ${fontPx} ${MARGIN.top + plotH / 2})` }, t("chart_cards")),
    );
    root.append(grid);

    // one step line per player, ours last so it lies on top
    const ordered = [...lines].sort((a, b) => (a.id === this.me) - (b.id === this.me));
    const ends = [];
    // lines on the same count would hide one another: each sits a little apart
    const nudge = (id) => (lines.findIndex((l) => l.id === id) - (lines.length - 1) / 2) * Math.min(2.5, 8 / lines.length);
    for (const line of ordered) {
      const index = this.colourIndex(line.id);
      const dy = nudge(line.id);
      const colour = PALETTE[index % PALETTE.length];
      const dash = DASHES[Math.floor(index / PALETTE.length) % DASHES.length];
      // a line still racing runs to now, not to the axis's end (which a short race's
      // first seconds leave ahead of now: the axis spans at least 10 s)
      const stop = line.end ?? (this.xEnd || xMax);
      let d = "";
      line.points.forEach(([x, y], i) => {
        const py = (sy(y) + dy).toFixed(1);
        d += i ? ` H${sx(x).toFixed(1)} V${py}` : `M${sx(x).toFixed(1)} ${py}`;
      });
      if (line.points.length) d += ` H${sx(Math.max(stop, line.points[line.points.length - 1][0])).toFixed(1)}`;
      const mine = line.id === this.me;
      root.append(
        svg("path", {
          d,
          class: `line${mine ? " me" : ""}`,
          stroke: colour,
          "stroke-dasharray": dash || null,
          "data-id": line.id,
          "data-name": line.name,
          "data-last": last(line),
          "data-points": line.points.length,
          "data-from": line.points.length ? line.points[0][0] : null,
        }),
      );
      const endX = sx(Math.max(stop, line.points.length ? line.points[line.points.length - 1][0] : 0));
      const endY = sy(last(line)) + dy;
      root.append(svg("circle", { cx: endX, cy: endY, r: mine ? 5 : 4, fill: colour, class: "end" }));
      ends.push({ y: endY, x: endX, colour, name: line.name, mine });
    }
    // names at the line ends, pushed apart so they never overlap
    ends.sort((a, b) => a.y - b.y);
    // a line of text is taller than its font size: a name every 1.3 em
    for (let i = 1; i < ends.length; i += 1) ends[i].y = Math.max(ends[i].y, ends[i - 1].y + Math.ceil(fontPx * 1.3));
    const overflow = ends.length ? ends[ends.length - 1].y - (MARGIN.top + plotH + 4) : 0;
    for (const end of ends) {
      const y = overflow > 0 ? end.y - overflow : end.y;
      root.append(
        svg("text", { x: MARGIN.left + plotW + 8, y: y + fontPx / 3, class: `end-label${end.mine ? " me" : ""}`, fill: end.colour },
          shorten(end.name)),
      );
    }
    this.box.replaceChildren(root);

    // the legend, in the order given (the standings)
    this.legend.replaceChildren(
      ...lines.map((line) => {
        const index = this.colourIndex(line.id);
        const swatch = h("span", { class: "swatch", "aria-hidden": "true" });
        swatch.style.background = PALETTE[index % PALETTE.length];
        if (Math.floor(index / PALETTE.length) % DASHES.length) swatch.classList.add("dashed");
        return h(
          "li",
          { class: line.id === this.me ? "me" : "", dataset: { id: line.id } },
          swatch,
          h("span", { class: "who", text: line.name }),
          h("b", { text: String(last(line)) }),
        );
      }),
    );
  }
}

/** The ticks whose labels stand at least `gap` apart (pos: a tick's place along
 * the axis); the last tick (52 cards, the time now) keeps its label first. */
function spaced(ticks, pos, gap) {
  const kept = new Set();
  let at = Infinity;
  for (const tick of [...ticks].reverse()) {
    if (Math.abs(at - pos(tick)) >= gap) {
      kept.add(tick);
      at = pos(tick);
    }
  }
  return kept;
}

const last = (line) => (line.points.length ? line.points[line.points.length - 1][1] : 0);
const shorten = (name) => ([...name].length > 12 ? `${[...name].slice(0, 11).join("")}\u2026` : name);
