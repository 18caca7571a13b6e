// The members of a room in the operator console: a disclosure in the rooms table
// listing each member (name, racer or spectator, bot) with a button that removes
// them after a confirmation (/admin/api/rooms/CODE/members/ID/remove). Which
// rooms are shown open survives the console's polling, which redraws the table.

import { h } from "./dom.js";
import { ask } from "./confirm.js";
import { t } from "./i18n.js";

const shown = new Set(); // codes of the rooms whose members are open

/** A room's members, with removal; ``act(path, body, doneKey)`` does the request. */
export function membersOf(room, act) {
  const members = room.members || [];
  const details = h("details", { class: "adm-members", open: shown.has(room.code) });
  details.addEventListener("toggle", () => {
    if (details.open) shown.add(room.code);
    else shown.delete(room.code);
  });
  const remove = async (member) => {
    if (await ask(t("adm_remove_sure", { name: member.name, code: room.code }), t("adm_remove"))) {
      act(`rooms/${room.code}/members/${encodeURIComponent(member.id)}/remove`, {}, "adm_removed");
    }
  };
  const rows = members.map((m) =>
    h(
      "li",
      {},
      h("span", { text: m.name }),
      h("span", { class: "hint", text: t(m.role === "player" ? "adm_role_player" : "adm_role_spectator") + (m.bot ? `, ${t("bot")}` : "") }),
      h("button", { type: "button", class: "quiet", onclick: () => remove(m) }, t("adm_remove")),
    ),
  );
  details.append(h("summary", { text: t("adm_members_n", { n: members.length }) }), h("ul", {}, rows));
  return details;
}
