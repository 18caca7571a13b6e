// The page for a link that leads nowhere (the server sends it with a 404):
// say so in the reader's language and offer the ways on.

import { $ } from "./dom.js";
import { t } from "./i18n.js";
import { initShell } from "./shell.js";

function relabel() {
  const path = decodeURI(location.pathname);
  $("#missing-text").textContent = t(path.startsWith("/c/") ? "not_found_challenge" : "not_found_text", { path });
}

initShell(relabel);
relabel();
$("#missing-home").focus({ preventScroll: true });
