// The replay viewer: draws the board as SVG and steps through a stored match.
// Data come from window.BOARD (board-<variant>.js) and window.MATCH (inline in the page).
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  const CARD = { gray: "#9a9a9a", pink: "#e58fbf", white: "#f4f4f4", blue: "#3a6fd8",
                 yellow: "#f2d13c", orange: "#f08a24", black: "#222", red: "#d33",
                 green: "#3aa655" };
  const PLAYER = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"];
  const board = window.BOARD, match = window.MATCH;
  const cities = Object.fromEntries(board.cities.map((c) => [c.id, c]));
  const svg = document.getElementById("map");
  const routeLines = {};
  let step = 0;

  function el(name, attrs) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  }

  function draw() {
    svg.setAttribute("viewBox", `0 0 ${board.width} ${board.height}`);
    for (const r of board.routes) {
      const a = cities[r.a], b = cities[r.b];
      const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
      const shift = r.double ? (r.track === 0 ? -3.5 : 3.5) : 0;
      const ox = (-dy / len) * shift, oy = (dx / len) * shift;
      // A dark underlay keeps light routes (white, yellow) visible on the pale map.
      svg.appendChild(el("line", { x1: a.x + ox, y1: a.y + oy, x2: b.x + ox, y2: b.y + oy,
        stroke: "#555", "stroke-width": 7, "stroke-dasharray": dash(len, r.length) }));
      const line = el("line", { x1: a.x + ox, y1: a.y + oy, x2: b.x + ox, y2: b.y + oy,
        stroke: CARD[r.color] || "#999", "stroke-width": 5, "stroke-dasharray": dash(len, r.length),
        class: "route", "data-route": r.id });
      const title = el("title", {});
      title.textContent = `route ${r.id}: ${a.name} – ${b.name}, ${r.length} ${r.color}`;
      line.appendChild(title);
      svg.appendChild(line);
      routeLines[r.id] = line;
    }
    for (const c of board.cities) {
      svg.appendChild(el("circle", { cx: c.x, cy: c.y, r: 5, class: "city" }));
      const label = el("text", { x: c.x + 7, y: c.y - 6, class: "city-name" });
      label.textContent = c.name;
      svg.appendChild(label);
    }
  }

  function dash(pixels, cars) {
    const gap = 2, piece = Math.max(1, (pixels - gap * cars) / cars);
    return `${piece} ${gap}`;
  }

  function show(n) {
    step = Math.max(0, Math.min(match.steps.length, n));
    const owner = {};
    for (let i = 0; i < step; i++) {
      const s = match.steps[i];
      if (s.claim !== null) owner[s.claim] = s.seat;
    }
    for (const [id, line] of Object.entries(routeLines)) {
      const seat = owner[id];
      const route = board.routes.find((r) => String(r.id) === id);
      if (seat === undefined) {
        line.setAttribute("stroke", CARD[route.color] || "#999");
        line.setAttribute("stroke-width", 5);
        line.classList.remove("claimed");
      } else {
        line.setAttribute("stroke", PLAYER[seat % PLAYER.length]);
        line.setAttribute("stroke-width", 8);
        line.classList.add("claimed");
      }
    }
    const current = step > 0 ? match.steps[step - 1] : null;
    document.getElementById("step").textContent =
      `step ${step} / ${match.steps.length}` +
      (current ? `: seat ${current.seat} (${match.seats[current.seat]}) ${current.action}` +
                 (current.by === "fallback" ? " [fallback]" : "") : ": the deal");
    document.getElementById("slider").value = step;
    const points = current ? current.points : match.seats.map(() => 0);
    const rows = match.seats.map((name, seat) => {
      const done = step === match.steps.length && match.result;
      const total = done ? match.result.scores[seat] : "";
      const rank = done ? match.result.ranks[seat] : "";
      return `<tr><td><span class="swatch" style="background:${PLAYER[seat % PLAYER.length]}"></span>` +
        `${seat}</td><td>${escape(name)}</td><td class="num">${points[seat]}</td>` +
        `<td class="num">${total}</td><td class="num">${rank}</td></tr>`;
    });
    document.getElementById("scores").innerHTML = rows.join("");
  }

  function escape(text) {
    return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
  }

  draw();
  const slider = document.getElementById("slider");
  slider.max = match.steps.length;
  slider.addEventListener("input", () => show(Number(slider.value)));
  document.getElementById("first").addEventListener("click", () => show(0));
  document.getElementById("prev").addEventListener("click", () => show(step - 1));
  document.getElementById("next").addEventListener("click", () => show(step + 1));
  document.getElementById("last").addEventListener("click", () => show(match.steps.length));
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight") show(step + 1);
    if (e.key === "ArrowLeft") show(step - 1);
  });
  const fromHash = Number((location.hash.match(/step=(\d+)/) || [])[1]);
  show(Number.isFinite(fromHash) ? fromHash : 0);
})();
