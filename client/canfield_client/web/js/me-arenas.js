// The arenas this browser's identity raced, on /me (`arena_history`): each
// arena's name (a link to its page), the racer's place among how many, points
// and heats, newest first; the panel stays hidden until there is one.

import { $, h } from "./dom.js";
import { getLang, onLangChange, t } from "./i18n.js";
import { arenaName, medal, trophyWords } from "./arena-words.js";

export function showArenas(conn, identity, panel) {
  let arenas = [];
  const render = () => {
    panel.hidden = arenas.length === 0;
    const won = arenas.filter((a) => a.trophy);
    const cabinet = $("#me-trophies", panel);
    cabinet.hidden = won.length === 0;
    cabinet.replaceChildren(
      h("span", { class: "hint", text: t("me_trophies") }),
      ...won.map((a) => medal(a.trophy, `${trophyWords(a.trophy)} · ${arenaName(a)}`)),
    );
    $("#me-arenas", panel).replaceChildren(
      ...arenas.map((a) =>
        h(
          "li",
          {},
          a.trophy ? medal(a.trophy) : "",
          a.trophy ? " " : "",
          h("a", { href: `/a/${a.code}`, text: arenaName(a) }),
          " ",
          h("span", { text: t("me_arena_place", { place: a.place, n: a.racers }) }),
          " · ",
          h("span", { text: t("arena_points_n", { n: a.points }) }),
          " · ",
          h("span", { class: "hint", text: new Date(a.ended_at).toLocaleDateString(getLang()) }),
        ),
      ),
    );
  };
  identity.onReady(() => conn.send({ type: "arena_history", limit: 20 }));
  conn.on("arena_history", (msg) => {
    arenas = msg.arenas;
    render();
  });
  onLangChange(render);
}
