// The replay viewer: steps through a stored match, full state at every step.
// Data: window.BOARD (board-<variant>.js) and window.MATCH (the match's data script), made by
// leaderboards/replay.py. Each step stores patches against the step before (applyPatch).
(function () {
  "use strict";
  const { Board, viewOf, renderTable, renderPlayers, h } = window.TTR;
  const board = window.BOARD, match = window.MATCH;
  const $ = (id) => document.getElementById(id);

  function applyPatch(old, patch) {
    if ("$v" in patch) return patch.$v;
    if ("$l" in patch) {
      const out = old.slice();
      for (const [i, p] of Object.entries(patch.$l)) out[Number(i)] = applyPatch(out[Number(i)], p);
      return out;
    }
    const out = Object.assign({}, old || {});
    for (const [k, p] of Object.entries(patch.$d)) out[k] = applyPatch(out[k], p);
    for (const k of patch.$x || []) delete out[k];
    return out;
  }

  // Every step's observations, rebuilt once (unchanged parts are shared between steps).
  const states = [];
  let obs = match.seats.map(() => null), org = null;
  for (const step of match.steps) {
    obs = obs.map((o, seat) => applyPatch(o, step.obs[seat]));
    org = applyPatch(org, step.org);
    states.push({ obs, org });
  }
  const last = match.steps.length - 1;
  const finalView = match.final && Object.assign({}, match.final, {
    ranks: match.result ? match.result.ranks : match.final.engine_ranks });

  const container = $("board");
  const mapBoard = new Board(board, container, {});
  let step = 0, seatView = null, focus = null, timer = null;

  function bestSeat() {
    if (!finalView) return 0;
    const ranks = finalView.ranks;
    return ranks.indexOf(Math.min(...ranks));
  }

  function show(n) {
    step = Math.max(0, Math.min(last, n));
    const state = states[step];
    const current = match.steps[step];
    const atEnd = Boolean(current.over && finalView);
    const view = viewOf(state.obs, match.seats, seatView, state.org, atEnd ? finalView : null);
    view.bots = match.bot_links || null;
    view.focus = seatView !== null ? seatView : focus !== null ? focus : atEnd ? bestSeat() : null;
    mapBoard.show(view);
    renderTable($("table"), view);
    renderPlayers($("players"), view, null, { focus: (seat) => { focus = seat; show(step); } });
    $("step").textContent = `step ${step} / ${last}: ` + (step === 0 ? "the deal" : current.text) +
      (current.by === "fallback" ? " [fallback: the seat had forfeited]" : "");
    $("slider").value = step;
    renderEvents(current);
    renderFinal(atEnd ? finalView : null);
    history.replaceState(null, "", `#step=${step}`);
  }

  function renderEvents(current) {
    const parts = [];
    if (current.ms !== undefined && current.by !== "fallback") parts.push(h("div", { class: "muted" }, `decided in ${current.ms} ms`));
    if (current.note) {  // the bot's own words on this action (protocol: action.note)
      parts.push(h("div", { class: "bot-note" }, h("strong", {}, `${match.seats[current.seat]}'s note: `),
        h("span", { class: "note-text" }, current.note)));
    }
    for (const f of current.faults || []) {
      const seatInfo = (match.seat_logs || [])[f.seat] || {};
      const links = Object.entries(seatInfo).map(([kind, href]) => h("a", { href, class: "log-link" }, `${kind} log`));
      if (match.download) links.push(h("a", { href: match.download, class: "log-link" }, "match log"));
      parts.push(h("div", { class: "fault" },
        h("strong", {}, `${match.seats[f.seat] || `seat ${f.seat}`} forfeited: ${f.code}`),
        h("pre", { class: "reason" }, f.detail || "(no detail)"), h("div", {}, links)));
    }
    const noted = Object.entries(current.notes || {}).map(([k, v]) => `${k.replace(/_/g, " ")}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
    for (const e of current.events || []) {
      const what = e.kind || e.type || e.code || "event";
      noted.push(`${what}: ${e.detail || e.message || JSON.stringify(e)}`);
    }
    if (noted.length) parts.push(h("ul", { class: "notes" }, noted.map((text) => h("li", {}, text))));
    if (current.stderr && current.stderr.length) {
      parts.push(h("details", { open: true }, h("summary", {}, "stderr of this decision"),
        h("pre", { class: "stderr" }, current.stderr.join("\n"))));
    }
    $("events").replaceChildren(...parts);
  }

  function renderFinal(final) {
    const box = $("final");
    if (!final) { box.replaceChildren(); return; }
    const cats = final.categories;
    // Short headings (the command line's) with their meaning below: the table fits a phone.
    const labels = final.labels || {};
    const heading = (c) => labels[c] ? labels[c][0] : c.replace(/_/g, " ");
    const meaning = (c) => labels[c] ? labels[c][1] : c.replace(/_/g, " ");
    const head = h("tr", {}, h("th", {}, "seat"), cats.map((c) => h("th", { class: "num", title: meaning(c) }, heading(c))),
      h("th", { class: "num" }, "total"), h("th", { class: "num" }, "rank"));
    const rows = match.seats.map((name, seat) => h("tr", {},
      h("td", {}, window.TTR.playerSwatch(seat), name),
      cats.map((c) => h("td", { class: "num" }, String(final.breakdown[seat][c]))),
      h("td", { class: "num final-score" }, String(final.scores[seat])),
      h("td", { class: "num" }, String(final.ranks[seat]))));
    box.replaceChildren(h("h2", {}, "Final scoring"),
      h("div", { class: "scroll" }, h("table", { id: "scores" }, h("thead", {}, head), h("tbody", {}, rows))),
      h("p", { class: "muted legend" }, cats.map((c) => `${heading(c)}: ${meaning(c)}`).join(" · ")),
      h("p", { class: "muted" }, "On the map: the focused seat's tickets (green completed, red failed) and its " +
        "longest trail (glowing). Click a player to focus it."));
  }

  function play() {
    if (timer) { clearInterval(timer); timer = null; $("play").textContent = "▶"; return; }
    if (step >= last) show(0);
    $("play").textContent = "⏸";
    timer = setInterval(() => {
      if (step >= last) { play(); return; }
      show(step + 1);
    }, 1000 / Number($("speed").value));
  }

  const slider = $("slider");
  slider.max = last;
  slider.addEventListener("input", () => show(Number(slider.value)));
  $("first").addEventListener("click", () => show(0));
  $("prev").addEventListener("click", () => show(step - 1));
  $("next").addEventListener("click", () => show(step + 1));
  $("last").addEventListener("click", () => show(last));
  $("play").addEventListener("click", play);
  $("speed").addEventListener("change", () => { if (timer) { play(); play(); } });
  const viewSelect = $("view");
  match.seats.forEach((name, seat) => viewSelect.appendChild(h("option", { value: seat }, `seat ${seat}: ${name}'s view`)));
  viewSelect.addEventListener("change", () => {
    seatView = viewSelect.value === "all" ? null : Number(viewSelect.value);
    show(step);
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.key === "ArrowRight") show(step + 1);
    else if (e.key === "ArrowLeft") show(step - 1);
    else if (e.key === "Home") show(0);
    else if (e.key === "End") show(last);
    else if (e.key === " ") { e.preventDefault(); play(); }
    else return;
  });
  const fromHash = () => {
    const n = Number((location.hash.match(/step=(\d+)/) || [])[1]);
    return Number.isFinite(n) ? n : 0;
  };
  window.addEventListener("hashchange", () => show(fromHash()));
  show(fromHash());
  window.REPLAY = { show, get step() { return step; }, last };
})();
