// The operator console's new-identities panel: every network (IPv4 /24, IPv6 /64)
// that asked for a new player identity in the last day, the most issued first -
// issued and refused in the last hour and day, and its budget now (identities
// left, when the next one is back) - from /admin/api/identities.

import { $ } from "./dom.js";
import { locale, t } from "./i18n.js";

const decimal = (n) => new Intl.NumberFormat(locale(), { maximumFractionDigits: 1 }).format(n);

/** Draw the panel; ``table`` and ``duration`` are the console's helpers. */
export function renderIdentities(issuance, table, duration) {
  if (!issuance) return;
  $("#adm-ids-sum").textContent = t("adm_ids_budget", { burst: issuance.burst, rate: decimal(issuance.per_hour) });
  table(
    $("#adm-ids"),
    ["adm_network", "adm_ids_hour", "adm_ids_day", "adm_ids_refused_hour", "adm_ids_refused_day", "adm_ids_left", "adm_ids_next"],
    issuance.networks.map((n) => [
      n.network,
      String(n.issued_hour),
      String(n.issued_day),
      String(n.refused_hour),
      String(n.refused_day),
      `${n.left} / ${n.burst}`,
      n.next_in_s === null ? t("adm_ids_never") : n.next_in_s === 0 ? t("adm_ids_now") : duration(n.next_in_s),
    ]),
    "adm_ids_none",
  );
}
