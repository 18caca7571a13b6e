// One in-page confirmation box (a modal <dialog>): a question, "yes" and
// "cancel". Used where a click affects everyone (start without the players
// who are not ready, end the race for all) or someone else (remove a member).

import { $ } from "./dom.js";
import { t } from "./i18n.js";

let settle = null;

/** Ask; resolves true on "yes", false on cancel, Escape or a newer question. */
export function ask(text, yesLabel) {
  const box = $("#confirm");
  if (settle) settle(false);
  $("#confirm-text").textContent = text;
  $("#confirm-yes").textContent = yesLabel;
  $("#confirm-no").textContent = t("cancel");
  return new Promise((resolve) => {
    settle = (answer) => {
      settle = null;
      if (box.open) box.close();
      resolve(answer);
    };
    if (!box.open) box.showModal();
    $("#confirm-yes").focus();
  });
}

/** Close an open question as cancelled (the room moved on: it no longer applies). */
export function dismiss() {
  if (settle) settle(false);
}

/** Wire the box's buttons (chrome.js, once it has written the box). */
export function initConfirm() {
  $("#confirm-yes").addEventListener("click", () => settle && settle(true));
  $("#confirm-no").addEventListener("click", () => settle && settle(false));
  $("#confirm").addEventListener("close", () => settle && settle(false));
}
