// The operator console's load panel: each process's moves per second, ack and
// leaderboard p50/p99 and its solver queue, the rooms and askers waiting for the
// solver (their share of all waiting jobs), and the public and daily activity -
// all from /admin/api/figures, which every process feeds from its beat.

import { $, h } from "./dom.js";
import { locale, t } from "./i18n.js";

const DRAWS = ["1", "3"];

const decimal = (n) => new Intl.NumberFormat(locale(), { maximumFractionDigits: 1 }).format(n);
const ms = (n) => (n === null || n === undefined ? "-" : t("adm_ms", { n: decimal(n) }));

/** The solver's waiting jobs per owner, summed over every process, longest first. */
function queueShares(processes) {
  const jobs = new Map();
  for (const p of processes) for (const o of p.solver.owners) jobs.set(o.owner, (jobs.get(o.owner) || 0) + o.jobs);
  const total = processes.reduce((sum, p) => sum + p.solver.waiting, 0);
  const shares = [...jobs].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return { total, shares };
}

/** Draw the panel; ``table(el, head, rows, empty)`` is the console's table helper. */
export function renderFigures(figures, table) {
  const { processes, activity } = figures;
  table(
    $("#adm-load"),
    ["adm_process", "adm_moves_s", "adm_ack_p50", "adm_ack_p99", "adm_board_p50", "adm_board_p99", "adm_solver"],
    processes.map((p) => [
      p.name,
      decimal(p.moves_per_s),
      ms(p.ack_p50_ms),
      ms(p.ack_p99_ms),
      ms(p.board_p50_ms),
      ms(p.board_p99_ms),
      t("adm_solver_jobs", { waiting: p.solver.waiting, running: p.solver.running, slots: p.solver.slots }),
    ]),
    "adm_no_processes",
  );
  const { total, shares } = queueShares(processes);
  $("#adm-queue-sum").textContent = t("adm_queue_n", { n: total });
  table(
    $("#adm-queue"),
    ["adm_queue_owner", "adm_queue_jobs", "adm_queue_share"],
    shares.map(([owner, jobs]) => [owner, String(jobs), `${Math.round((100 * jobs) / Math.max(total, 1))} %`]),
    "adm_queue_none",
  );
  const facts = [
    ["adm_public_live", activity.public_live],
    ["adm_quick_open", activity.quick_open],
    ...DRAWS.map((draw) => [["adm_daily_draw", { draw }], activity.daily[draw] ?? 0]),
  ];
  $("#adm-activity").replaceChildren(
    ...facts.flatMap(([key, n]) => {
      const [name, params] = Array.isArray(key) ? key : [key, {}];
      return [h("dt", {}, t(name, params)), h("dd", {}, String(n))];
    }),
  );
}
