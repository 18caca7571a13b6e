// Tiny DOM helpers. Text always goes in through textContent, never innerHTML,
// so names and other user text can never become markup.

/** Create an element: h("button", {class: "x", text: "Go", onclick: fn}, child...). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") el.textContent = String(value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style") el.style.cssText = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

const SVG = "http://www.w3.org/2000/svg";

/** An SVG element with its attributes, and its text if given (a chart's parts). */
export function svgEl(tag, attrs = {}, text = null) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  if (text !== null) el.textContent = String(text);
  return el;
}

/** An inline SVG that shows a symbol defined in index.html (e.g. "#s-H"). */
export function icon(id, cls = "") {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", `icon ${cls}`.trim());
  svg.setAttribute("aria-hidden", "true");
  const use = document.createElementNS(SVG, "use");
  use.setAttribute("href", id);
  svg.append(use);
  return svg;
}

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

/** Set textContent only when it changed (keeps live rows calm). */
export function setText(el, value) {
  const text = String(value);
  if (el.textContent !== text) el.textContent = text;
}

/** mm:ss (or h:mm:ss) for a duration in milliseconds. */
export function clock(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const s = String(total % 60).padStart(2, "0");
  const m = Math.floor(total / 60) % 60;
  const hrs = Math.floor(total / 3600);
  return hrs ? `${hrs}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** Copy text to the clipboard; falls back to a hidden textarea when the API is missing. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h("textarea", { style: "position:fixed;opacity:0" });
    area.value = text;
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

/** How long a "Sure?" button waits for its second tap: long enough to read it
 * and reach for it again on a phone. */
export const CONFIRM_MS = 6000;

/** A button that acts only on a second click within CONFIRM_MS (the first one asks,
 * showing ``confirmText``); used where one slip would end a race. */
export function confirmTwice(button, text, confirmText, action) {
  let armed = null;
  button.addEventListener("click", () => {
    if (armed) {
      clearTimeout(armed);
      armed = null;
      button.textContent = text();
      action();
      return;
    }
    button.textContent = confirmText();
    armed = setTimeout(() => {
      armed = null;
      button.textContent = text();
    }, CONFIRM_MS);
  });
}

/**
 * Keep `parent`'s children one per row, in the rows' order, reusing each row's
 * element (keyed by `row.id` in `elements`): updated in place, so frequent
 * updates never flicker. `make()` builds a new element, `fill(el, row)` fills it.
 */
export function syncKeyed(parent, elements, rows, make, fill) {
  const seen = new Set();
  rows.forEach((row, index) => {
    seen.add(row.id);
    let el = elements.get(row.id);
    if (!el) {
      el = make();
      elements.set(row.id, el);
    }
    fill(el, row);
    if (parent.children[index] !== el) parent.insertBefore(el, parent.children[index] || null);
  });
  for (const [id, el] of elements) {
    if (!seen.has(id)) {
      el.remove();
      elements.delete(id);
    }
  }
}

