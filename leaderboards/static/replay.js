// The replay viewer: steps through a stored match, full state at every step.
// Data: window.BOARD (board-<variant>.js) and window.MATCH (the match's data script), made by
// leaderboards/replay.py. Each step stores patches against the step before (applyPatch).
(function () {
  "use strict";
  const { Board, viewOf, renderTable, renderPlayers, h, PLAYER } = window.TTR;
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

  // The latest step up to each step that put something on the map (a claim, a station):
  // what the "+" zoom keeps in view.
  const placed = [];
  match.steps.forEach((s, n) => {
    placed.push(/^(claim|station) /.test(s.action || "") ? n : n > 0 ? placed[n - 1] : null);
  });

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
    mapBoard.markLast(current.action);
    mapBoard.anchorOn(placed[step] === null ? null : match.steps[placed[step]].action);
    renderTable($("table"), view);
    renderPlayers($("players"), view, null, { focus: (seat) => { focus = seat; show(step); } });
    $("step").textContent = `step ${step} / ${last}: ` + (step === 0 ? "the deal" : current.text) +
      (current.by === "fallback" ? " [fallback: the seat had forfeited]" : "");
    $("slider").value = step;
    markMove(step);
    chartCursor(step);
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

  // ---------------------------------------------------------------- moves, markers, chart

  // What kind of step a marker shows on the timeline (null: none).
  function markerKind(s) {
    if (s.faults && s.faults.length) return "fault";
    if (!s.action) return null;
    if (/^(claim|station) /.test(s.action)) return "claim";
    if (s.action === "tickets") return "tickets";
    return null;
  }

  function buildMoves() {
    const list = $("moves");
    if (!list) return;
    list.replaceChildren(...match.steps.map((s, n) => {
      const kind = markerKind(s);
      return h("li", { "data-step": n, class: kind ? `move ${kind}` : "move", value: n, tabindex: 0,
        onclick: () => show(n), onkeydown: (e) => { if (e.key === "Enter") show(n); } },
        n === 0 ? "the deal" : s.text + (s.note ? " · note" : ""));
    }));
    buildMarkers();
    const markers = $("markers");
    if (window.ResizeObserver) new ResizeObserver(buildMarkers).observe(markers);
    else window.addEventListener("resize", buildMarkers);
  }

  // The timeline's markers, clustered: markers closer than CLUSTER_PX on screen are one
  // button with their count (it goes to the first), so no marker covers its neighbour.
  const CLUSTER_PX = 14;
  const SEVERITY = ["tickets", "claim", "fault"];
  let markerWidth = -1;
  function buildMarkers() {
    const markers = $("markers");
    const width = markers.clientWidth;
    if (width === markerWidth) return;
    markerWidth = width;
    const marked = match.steps.flatMap((s, n) => (markerKind(s) ? [n] : []));
    const groups = [];
    for (const n of marked) {
      const x = (width * n) / Math.max(1, last);
      const group = groups[groups.length - 1];
      if (group && x - group.x < CLUSTER_PX) group.steps.push(n);
      else groups.push({ x, steps: [n] });
    }
    markers.replaceChildren(...groups.map(({ steps }) => {
      const first = steps[0];
      const kinds = steps.map((n) => markerKind(match.steps[n]));
      const kind = kinds.reduce((a, b) => (SEVERITY.indexOf(b) > SEVERITY.indexOf(a) ? b : a));
      const title = steps.length === 1 ? `step ${first}: ${match.steps[first].text}` :
        `${steps.length} steps from ${first}: ` + steps.map((n) => `${n} ${match.steps[n].text}`).join("; ");
      return h("button", { type: "button", class: steps.length > 1 ? `marker cluster ${kind}` : `marker ${kind}`,
        "data-step": first, "data-steps": steps.join(" "), title, "aria-label": title,
        style: `left: ${(100 * first) / Math.max(1, last)}%`, onclick: () => show(first) },
        steps.length > 1 ? String(steps.length) : "");
    }));
  }

  function markMove(n) {
    const list = $("moves");
    if (!list) return;
    const old = list.querySelector(".current");
    if (old) old.classList.remove("current");
    const item = list.children[n];
    if (!item) return;
    item.classList.add("current");
    // Keep the current move in sight inside the list, without scrolling the page.
    if (item.offsetTop < list.scrollTop || item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = item.offsetTop - list.clientHeight / 2;
    }
  }

  // Each seat's score so far at every step (the organiser's count; the final score at the end).
  const SVGNS = "http://www.w3.org/2000/svg";
  const svgEl = (name, attrs) => {
    const node = document.createElementNS(SVGNS, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  };
  const CHART = { w: 600, h: 170, left: 36, right: 8, top: 8, bottom: 18 };
  const series = match.seats.map((_, seat) => states.map((s, n) =>
    match.steps[n].over && finalView ? finalView.scores[seat] : ((s.org && s.org.score && s.org.score[seat]) || {}).total || 0));
  const chartX = (n) => CHART.left + (n / Math.max(1, last)) * (CHART.w - CHART.left - CHART.right);

  function buildChart() {
    const chart = $("score-chart");
    if (!chart) return;
    const values = series.flat();
    const lo = Math.min(0, ...values), hi = Math.max(1, ...values);
    const y = (v) => CHART.top + (hi - v) / (hi - lo) * (CHART.h - CHART.top - CHART.bottom);
    const parts = [];
    for (const v of [lo, 0, hi]) {
      parts.push(svgEl("line", { x1: CHART.left, x2: CHART.w - CHART.right, y1: y(v), y2: y(v), class: v === 0 ? "axis zero" : "axis" }));
      const label = svgEl("text", { x: CHART.left - 4, y: y(v) + 4, "text-anchor": "end", class: "tick" });
      label.textContent = String(v);
      parts.push(label);
    }
    series.forEach((points, seat) => {
      const line = svgEl("polyline", { class: "score-line", "data-seat": seat, fill: "none",
        stroke: PLAYER[seat % PLAYER.length], points: points.map((v, n) => `${chartX(n).toFixed(1)},${y(v).toFixed(1)}`).join(" ") });
      const title = svgEl("title", {});
      title.textContent = `${match.seats[seat]}: ${points[points.length - 1]} at the end`;
      line.appendChild(title);
      parts.push(line);
    });
    parts.push(svgEl("line", { id: "chart-cursor", x1: 0, x2: 0, y1: CHART.top, y2: CHART.h - CHART.bottom, class: "cursor" }));
    chart.replaceChildren(...parts);
    chart.addEventListener("click", (e) => {
      const r = chart.getBoundingClientRect();
      const x = ((e.clientX - r.left) / r.width) * CHART.w;
      show(Math.round(((x - CHART.left) / (CHART.w - CHART.left - CHART.right)) * last));
    });
  }

  function chartCursor(n) {
    const cursor = document.getElementById("chart-cursor");
    if (cursor) { cursor.setAttribute("x1", chartX(n)); cursor.setAttribute("x2", chartX(n)); }
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
  match.seats.forEach((name, seat) => viewSelect.appendChild(h("option", { value: seat }, `seat ${seat}: ${name === "you" ? "your" : `${name}'s`} view`)));
  viewSelect.addEventListener("change", () => {
    seatView = viewSelect.value === "all" ? null : Number(viewSelect.value);
    show(step);
  });
  // Every key the viewer handles stays in the viewer: none also scrolls the page.
  const KEYS = { ArrowRight: () => show(step + 1), ArrowLeft: () => show(step - 1),
    Home: () => show(0), End: () => show(last), " ": play };
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.altKey || e.ctrlKey || e.metaKey || !KEYS[e.key]) return;
    e.preventDefault();
    KEYS[e.key]();
  });
  const fromHash = () => {
    const n = Number((location.hash.match(/step=(\d+)/) || [])[1]);
    return Number.isFinite(n) ? n : 0;
  };
  buildMoves();
  buildChart();
  window.addEventListener("hashchange", () => show(fromHash()));
  show(fromHash());
  window.REPLAY = { show, get step() { return step; }, last };
})();
