// The racers' boards on the spectator screen, in a room whose host chose
// "Watchers see the boards": a grid of every racer's live board, the leader's
// large, each under its racer's place, name and cards home. The boards are what
// each racer sees (the server sends nothing face down); main.js hands this view
// the state's boards and rows, and it only draws them (read-only BoardViews).

import { BoardView } from "./board.js";
import { h, setText, syncKeyed } from "./dom.js";
import { t } from "./i18n.js";

/** the smallest the boards shrink to so that all of them show at once (of their width's size) */
const MIN_SCALE = 0.45;

export class WatchBoards {
  /** parent: where the grid goes (the race view's main area). */
  constructor(parent) {
    this.cells = new Map(); // player id -> cell
    this.grid = h("section", { id: "watch-boards", class: "watch-boards", hidden: true, "aria-label": t("watch_boards") });
    parent.prepend(this.grid);
    this.height = 0;
    new ResizeObserver(() => {
      if (Math.abs(this.grid.clientHeight - this.height) > 1) this.fitHeight();
    }).observe(this.grid);
    window.addEventListener("resize", () => this.fitHeight());
  }

  /** Show `boards` (player id -> board, or null: none) in the order of `rows`
   * (the leaderboard's, leader first); racers with no board yet are left out. */
  render(boards, rows) {
    const shown = boards ? (rows || []).filter((row) => boards[row.id]) : [];
    this.grid.hidden = !shown.length;
    document.body.classList.toggle("watch-boards-on", shown.length > 0);
    if (!shown.length) return;
    this.grid.setAttribute("aria-label", t("watch_boards"));
    this.grid.dataset.count = String(shown.length);
    syncKeyed(this.grid, this.cells, shown, () => this.makeCell(), (cell, row) => {
      cell.classList.toggle("lead", row === shown[0]);
      cell.dataset.id = row.id;
      cell.dataset.status = row.status;
      setText(cell.place, row.rank);
      setText(cell.name, row.name);
      setText(cell.count, `${row.on_foundations}/52`);
      cell.count.title = t("finish_cards", { n: row.on_foundations });
      cell.setAttribute("aria-label", t("lane_label", { place: row.rank, name: row.name, n: row.on_foundations }));
      if (cell.view.board !== boards[row.id]) cell.view.render(boards[row.id]);
    });
    this.fitHeight();
  }

  /**
   * Where the grid has a height of its own (a wide screen: the chart's place; a phone's
   * page scrolls instead), shrink the boards' cards until all the boards show in it at
   * once: the leader's if it alone is too tall, else the others' alike. A TV's watchers
   * see every racer's board whole, none below the fold.
   */
  fitHeight() {
    const grid = this.grid;
    if (grid.hidden) return;
    const bounded = getComputedStyle(grid).overflowY !== "visible";
    const scale = { lead: 1, rest: 1 };
    for (let i = 0; i < 8; i += 1) {
      for (const cell of this.cells.values()) {
        cell.style.setProperty("--wb-scale", String(cell.classList.contains("lead") ? scale.lead : scale.rest));
        cell.view.layout(); // the columns, for these cards
      }
      const [content, room] = [grid.scrollHeight, grid.clientHeight];
      if (!bounded || content <= room) break;
      const lead = grid.querySelector(".wb-cell.lead")?.offsetHeight || 0;
      const which = lead > room ? "lead" : "rest";
      if (scale[which] <= MIN_SCALE) break;
      // headers keep their size: a little more than the ratio
      scale[which] = Math.max(MIN_SCALE, (scale[which] * room) / (which === "lead" ? lead : content) - 0.02);
    }
    this.height = grid.clientHeight;
  }

  makeCell() {
    const cell = h("article", { class: "wb-cell" });
    cell.place = h("b", { class: "place" });
    cell.name = h("span", { class: "name" });
    cell.count = h("span", { class: "count" });
    const root = h("div", { class: "board-wrap wb-board" });
    cell.append(h("header", { class: "wb-head" }, cell.place, cell.name, cell.count), root);
    cell.view = new BoardView(root, {}, { capped: true }); // beside and above other boards
    return cell;
  }
}
