// The game as a picture: the map as SVG (or the Card Game's yards), the cards on the table
// and one panel per seat. Shared by the replay viewer (replay.js) and the play page (play.js).
// Everything is drawn from observations (the engine's state.observation(seat)) and never
// from anything else, so a seat's view shows exactly what that seat knew.
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  const CARD = { gray: "#a7a7a7", pink: "#f08fc6", white: "#fafafa", blue: "#3f7fe0",
                 yellow: "#f5d63d", orange: "#f39a2e", black: "#2b2b2b", red: "#e04343",
                 green: "#45b35c", wild: "url(#wild)", locomotive: "url(#wild)" };
  // Player colours are drawn as a dark casing with a light centre stripe and the seat's
  // number, so a claimed route never reads as a free route of a similar colour.
  const PLAYER = ["#0b7a75", "#8e24aa", "#c25e00", "#1a3e8c", "#7a5c00"];
  const SYMBOL = ["●", "■", "▲", "◆", "★"];
  const CITY = {};  // city id -> name, filled by each Board
  const titled = (id) => id.split("-").map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(" ");
  const cityName = (id) => CITY[id] || titled(String(id));

  function el(name, attrs, text) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else if (k === "style") node.style.cssText = v;  // CSSOM: allowed by the served pages' CSP
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(typeof child === "string" || typeof child === "number"
        ? document.createTextNode(String(child)) : child);
    }
    return node;
  }

  function cardChip(colour, count, extra) {
    const chip = h("span", Object.assign({ class: "card card-" + colour, title: colour }, extra || {}),
      count === undefined ? colour : `${count} ${colour}`);
    return chip;
  }

  function playerSwatch(seat) {
    return h("span", { class: "swatch", style: `background:${PLAYER[seat % PLAYER.length]}` },
      SYMBOL[seat % SYMBOL.length]);
  }

  // ------------------------------------------------------------------------- the map

  class Board {
    constructor(board, container, handlers) {
      this.board = board;
      this.handlers = handlers || {};
      this.cities = Object.fromEntries(board.cities.map((c) => [c.id, c]));
      board.cities.forEach((c) => { CITY[c.id] = c.name; });
      this.routes = Object.fromEntries(board.routes.map((r) => [String(r.id), r]));
      this.container = container;
      this.hasMap = board.routes.length > 0;
      // The Card Game has no map: its yards and piles take the whole width.
      container.classList.toggle("no-map", !this.hasMap);
      if (container.parentNode) container.parentNode.classList.toggle("no-map", !this.hasMap);
      if (this.hasMap) this.drawMap(container);
    }

    drawMap(container) {
      const svg = this.svg = el("svg", { id: "map", viewBox: `0 0 ${this.board.width} ${this.board.height}`,
                                         role: "img", "aria-label": `map of ${this.board.title}` });
      const defs = el("defs");
      const grad = el("linearGradient", { id: "wild", x1: 0, x2: 1 });
      ["#e04343", "#f5d63d", "#45b35c", "#3f7fe0", "#8e24aa"].forEach((c, i) =>
        grad.appendChild(el("stop", { offset: `${i * 25}%`, "stop-color": c })));
      defs.appendChild(grad);
      svg.appendChild(defs);
      this.layers = {};
      for (const name of ["tickets", "routes", "claims", "marks", "cities", "overlay"]) {
        this.layers[name] = svg.appendChild(el("g", { class: `layer-${name}` }));
      }
      this.routeNodes = {};
      for (const r of this.board.routes) this.drawRoute(r);
      for (const c of this.board.cities) {
        const g = this.layers.cities.appendChild(el("g", { class: "city", "data-city": c.id }));
        if (c.attraction) {
          g.appendChild(el("text", { x: c.x, y: c.y + 5, class: "attraction", "text-anchor": "middle" }, "★"));
        } else {
          g.appendChild(el("circle", { cx: c.x, cy: c.y, r: 5 }));
        }
        // Labels stay inside the map: left of a city near the east edge, below one at the top.
        const east = c.x > this.board.width * 0.82, top = c.y < 18;
        g.appendChild(el("text", { x: east ? c.x - 7 : c.x + 7, y: top ? c.y + 16 : c.y - 6,
          class: "city-name", "text-anchor": east ? "end" : "start" }, c.name));
        g.appendChild(el("title", {}, c.name + (c.attraction ? " (tourist attraction)" : "")));
        g.addEventListener("click", () => this.handlers.city && this.handlers.city(c.id));
      }
      container.appendChild(svg);
      this.zoomable(container);
    }

    // Zoom and pan (buttons, the wheel, a drag, a pinch): the viewBox shrinks around a point.
    // City names keep a readable size on screen (at least LABEL_PX), however small the map.
    zoomable(container) {
      const svg = this.svg, W = this.board.width, H = this.board.height;
      this.box = { x: 0, y: 0, w: W, h: H };
      const apply = () => {
        const b = this.box;
        svg.setAttribute("viewBox", `${b.x} ${b.y} ${b.w} ${b.h}`);
        const scale = (svg.clientWidth || W) / b.w;  // screen px per map unit
        const px = b.w < W ? LABEL_PX : LABEL_PX_WHOLE;  // zoomed in: room for bigger names
        svg.style.setProperty("--label-size", `${Math.max(11, px / scale).toFixed(1)}px`);
        svg.dataset.zoom = (W / b.w).toFixed(2);
      };
      const zoom = (factor, cx, cy) => {
        const b = this.box, w = Math.min(W, Math.max(W / 8, b.w / factor)), h = w * H / W;
        cx = cx ?? b.x + b.w / 2; cy = cy ?? b.y + b.h / 2;
        this.box = clampBox({ x: cx - (cx - b.x) * w / b.w, y: cy - (cy - b.y) * h / b.h, w, h }, W, H);
        apply();
      };
      const toMap = (clientX, clientY) => {
        const r = svg.getBoundingClientRect(), b = this.box;
        return [b.x + (clientX - r.left) / r.width * b.w, b.y + (clientY - r.top) / r.height * b.h];
      };
      // "+" centres on the last move put on the map (anchorOn), else zooms on the middle.
      const zoomIn = () => {
        if (!this.anchor) { zoom(1.6); return; }
        const w = Math.min(W, Math.max(W / 8, this.box.w / 1.6)), h = w * H / W;
        const [x, y] = this.anchor;
        this.box = clampBox({ x: x - w / 2, y: y - h / 2, w, h }, W, H);
        apply();
      };
      const controls = h("div", { class: "zoom-controls" },
        h("button", { type: "button", class: "zoom-in", title: "zoom in on the last move", onclick: zoomIn }, "+"),
        h("button", { type: "button", class: "zoom-out", title: "zoom out", onclick: () => zoom(1 / 1.6) }, "−"),
        h("button", { type: "button", class: "zoom-reset", title: "the whole map",
          onclick: () => { this.box = { x: 0, y: 0, w: W, h: H }; apply(); } }, "⤢"));
      container.classList.add("zoomable");
      container.appendChild(controls);
      svg.addEventListener("wheel", (e) => {
        if (!e.ctrlKey && this.box.w === W) return;  // the page scrolls until the map is zoomed
        e.preventDefault();
        zoom(e.deltaY < 0 ? 1.25 : 0.8, ...toMap(e.clientX, e.clientY));
      }, { passive: false });
      const pointers = new Map();
      let pinch = null, moved = false;
      svg.addEventListener("pointerdown", (e) => {
        pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
        moved = false;
        if (pointers.size === 2) {
          const [p, q] = [...pointers.values()];
          pinch = { d: Math.hypot(p.x - q.x, p.y - q.y), box: Object.assign({}, this.box) };
        }
      });
      svg.addEventListener("pointermove", (e) => {
        const last = pointers.get(e.pointerId);
        if (!last) return;
        const now = { x: e.clientX, y: e.clientY };
        pointers.set(e.pointerId, now);
        if (pointers.size === 2 && pinch) {
          const [p, q] = [...pointers.values()];
          const d = Math.hypot(p.x - q.x, p.y - q.y);
          if (d > 0 && pinch.d > 0) {
            const [cx, cy] = toMap((p.x + q.x) / 2, (p.y + q.y) / 2);
            this.box = pinch.box;
            zoom(d / pinch.d, cx, cy);
            moved = true;
          }
        } else if (pointers.size === 1 && this.box.w < W) {  // a drag pans a zoomed map
          const r = svg.getBoundingClientRect();
          const dx = (now.x - last.x) / r.width * this.box.w, dy = (now.y - last.y) / r.height * this.box.h;
          if (Math.abs(dx) + Math.abs(dy) > 0) moved = true;
          this.box = clampBox({ x: this.box.x - dx, y: this.box.y - dy, w: this.box.w, h: this.box.h }, W, H);
          apply();
        }
      });
      const release = (e) => { pointers.delete(e.pointerId); if (pointers.size < 2) pinch = null; };
      svg.addEventListener("pointerup", release);
      svg.addEventListener("pointercancel", release);
      // A drag or a pinch is not a click on the route under it.
      svg.addEventListener("click", (e) => { if (moved) { e.stopPropagation(); moved = false; } }, true);
      svg.style.touchAction = "pan-y";  // one finger scrolls the page until zoomed; two pinch
      window.addEventListener("resize", apply);
      this.zoomTo = zoom;
      apply();
    }

    geometry(r) {
      const a = this.cities[r.a], b = this.cities[r.b];
      const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
      const shift = r.double ? (r.track === 0 ? -4 : 4) : 0;
      const ox = (-dy / len) * shift, oy = (dx / len) * shift;
      return { x1: a.x + ox, y1: a.y + oy, x2: b.x + ox, y2: b.y + oy, len,
               mx: (a.x + b.x) / 2 + ox, my: (a.y + b.y) / 2 + oy };
    }

    drawRoute(r) {
      const g = this.geometry(r);
      const line = { x1: g.x1, y1: g.y1, x2: g.x2, y2: g.y2 };
      const dash = dashes(g.len, r.length);
      const group = this.layers.routes.appendChild(el("g", { class: "route", "data-route": r.id }));
      // Tunnels get a dashed dark border; ordinary routes a solid one.
      group.appendChild(el("line", Object.assign({}, line, { class: r.tunnel ? "casing tunnel" : "casing",
        "stroke-dasharray": r.tunnel ? "3 3" : dash })));
      group.appendChild(el("line", Object.assign({}, line, { class: "slots", stroke: CARD[r.color] || "#999",
        "stroke-dasharray": dash })));
      if (r.ferries) {
        group.appendChild(el("text", { x: g.mx, y: g.my + 4, class: "mark ferry", "text-anchor": "middle" },
          "⛴".repeat(r.ferries)));
      }
      if (r.carts) {
        group.appendChild(el("text", { x: g.mx, y: g.my - 5, class: "mark cart", "text-anchor": "middle" }, "🛒"));
      }
      const a = this.cities[r.a], b = this.cities[r.b];
      const kind = r.tunnel ? ", tunnel" : r.ferries ? `, ferry (${r.ferries} wild)` : "";
      group.appendChild(el("title", {}, `${a.name}–${b.name}: ${r.length} ${r.color}${kind} (route ${r.id})`));
      // A wide invisible line makes short routes easy to hit on a phone.
      group.appendChild(el("line", Object.assign({}, line, { class: "hit" })));
      group.addEventListener("click", (e) => this.handlers.route && this.handlers.route(r.id, e));
      this.routeNodes[r.id] = group;
    }

    // Claims, stations, tourist stacks, tunnel in progress; on the last step, tickets and
    // the longest trails.
    show(view) {
      if (!this.hasMap) return;
      const claims = this.layers.claims, marks = this.layers.marks, tickets = this.layers.tickets;
      claims.replaceChildren(); marks.replaceChildren(); tickets.replaceChildren();
      for (const node of Object.values(this.routeNodes)) node.classList.remove("taken", "longest", "borrowed", "digging");
      const longest = new Set(), borrowed = new Set();
      if (view.final && view.focus !== null && view.focus !== undefined) {
        (view.final.longest[view.focus] || []).forEach((id) => longest.add(`${view.focus}:${id}`));
        view.final.borrowed.forEach((ids) => ids.forEach((id) => borrowed.add(String(id))));
      }
      for (const [id, seat] of Object.entries(view.claimed || {})) {
        const r = this.routes[id];
        if (!r) continue;
        this.routeNodes[id].classList.add("taken");
        const g = this.geometry(r);
        const line = { x1: g.x1, y1: g.y1, x2: g.x2, y2: g.y2 };
        const group = claims.appendChild(el("g", { class: "claimed", "data-route": id, "data-seat": seat }));
        if (longest.has(`${seat}:${id}`)) {
          group.classList.add("longest");
          group.appendChild(el("line", Object.assign({}, line, { class: "halo" })));
        }
        group.appendChild(el("line", Object.assign({}, line, { class: "claim-casing" })));
        group.appendChild(el("line", Object.assign({}, line, { class: "claim-fill", stroke: PLAYER[seat % PLAYER.length] })));
        group.appendChild(el("line", Object.assign({}, line, { class: "claim-stripe" })));
        group.appendChild(el("text", { x: g.mx, y: g.my + 3.5, class: "claim-mark", "text-anchor": "middle" },
          SYMBOL[seat % SYMBOL.length]));
        group.appendChild(el("title", {}, `${view.names[seat]} claimed ${this.cities[r.a].name}–${this.cities[r.b].name}`));
        group.addEventListener("click", (e) => this.handlers.route && this.handlers.route(r.id, e));
      }
      borrowed.forEach((id) => this.routeNodes[id] && this.routeNodes[id].classList.add("borrowed"));
      view.players.forEach((p) => (p.stations || []).forEach((city, i) => {
        const c = this.cities[city];
        if (!c) return;
        const x = c.x - 10 + i * 3, y = c.y + 4;
        marks.appendChild(el("path", { d: `M${x} ${y} l5 -6 l5 6 v6 h-10 z`, class: "station",
          fill: PLAYER[p.seat % PLAYER.length], "data-seat": p.seat },)).appendChild(
          el("title", {}, `${view.names[p.seat]}'s station in ${c.name}`));
      }));
      for (const [city, stack] of Object.entries(view.tourist_stacks || {})) {
        const c = this.cities[city];
        if (c) marks.appendChild(el("text", { x: c.x, y: c.y + 16, class: "tourist", "text-anchor": "middle" },
          `${stack.symbol} ×${stack.tokens}`));
      }
      if (view.tunnel) {
        const node = this.routeNodes[view.tunnel.route];
        if (node) node.classList.add("digging");
      }
      if (view.final && view.focus !== null && view.focus !== undefined) {
        for (const t of view.final.tickets[view.focus] || []) {
          const a = this.cities[t.a], b = this.cities[t.b];
          if (!a || !b) continue;
          tickets.appendChild(el("path", { d: `M${a.x} ${a.y} Q${(a.x + b.x) / 2} ${(a.y + b.y) / 2 - 40} ${b.x} ${b.y}`,
            class: t.completed ? "ticket-arc done" : "ticket-arc failed" }))
            .appendChild(el("title", {}, `${a.name}–${b.name} (${t.points}): ${t.completed ? "completed" : "failed"}`));
        }
      }
    }

    // The move just played, outlined (after show(), which redraws the claims and marks): a
    // claimed route glows under its pieces, a station's city is ringed.
    markLast(action) {
      if (!this.hasMap) return;
      const parts = (action || "").split(" ");
      if (parts[0] === "claim") {
        const group = this.layers.claims.querySelector(`.claimed[data-route="${parts[1]}"]`);
        if (!group) return;
        group.classList.add("last-move");
        const g = this.geometry(this.routes[parts[1]]);
        this.layers.claims.insertBefore(el("line", { x1: g.x1, y1: g.y1, x2: g.x2, y2: g.y2,
          class: "last-move-halo", "data-route": parts[1] }), this.layers.claims.firstChild);
      } else if (parts[0] === "station" && this.cities[parts[1]]) {
        const c = this.cities[parts[1]];
        this.layers.marks.appendChild(el("circle", { cx: c.x, cy: c.y, r: 13, class: "last-move-halo",
          "data-city": parts[1] }));
      }
    }

    // Where the "+" zoom centres: the middle of the route an action claims, or the city it
    // builds a station in; none for any other action (null).
    anchorOn(action) {
      const parts = (action || "").split(" ");
      const route = parts[0] === "claim" && this.routes[parts[1]];
      const city = parts[0] === "station" && this.cities[parts[1]];
      if (route) { const g = this.geometry(route); this.anchor = [g.mx, g.my]; }
      else if (city) this.anchor = [city.x, city.y];
      else this.anchor = null;
    }

    highlight(routeIds, cls) {
      if (!this.hasMap) return;
      for (const node of Object.values(this.routeNodes)) node.classList.remove(cls);
      for (const id of routeIds) this.routeNodes[id] && this.routeNodes[id].classList.add(cls);
    }
  }

  // The smallest a city's name is drawn on screen, in CSS pixels: zoomed in, and the whole map
  // (where a phone has no room for more without names covering each other).
  const LABEL_PX = 11, LABEL_PX_WHOLE = 7.5;

  function clampBox(b, W, H) {
    return { x: Math.min(Math.max(0, b.x), W - b.w), y: Math.min(Math.max(0, b.y), H - b.h), w: b.w, h: b.h };
  }

  // Phases in words (the engine's names are for programs).
  const PHASE_WORDS = {
    setup_tickets: "choosing first tickets", turn: "taking a turn", second_draw: "drawing a second card",
    keep_tickets: "choosing tickets to keep", over: "game over", tunnel: "paying for a tunnel",
    place_stacks: "placing tourist stacks", take_token: "taking a tourist token",
    complete_tickets: "completing tickets",
  };
  const phaseWords = (phase) => PHASE_WORDS[phase] || String(phase || "").replace(/_/g, " ");

  function dashes(pixels, cars) {
    const gap = 2, piece = Math.max(1, (pixels - gap * cars) / cars);
    return `${piece} ${gap}`;
  }

  // ------------------------------------------------------------------------- the view

  // One seat's observation, or every seat's (the organiser), as one view to draw.
  function viewOf(observations, names, seat, organiser, final) {
    const base = observations[seat === null ? 0 : seat];
    const view = {
      names, seat, final: final || null, focus: null,
      phase: base.phase, turn: base.turn, round: base.round, to_move: base.to_move,
      display: base.display, deck_size: base.deck_size,
      discard_size: Object.values(base.discards || {}).reduce((a, b) => a + b, 0),
      ticket_deck_size: base.ticket_deck_size, claimed: base.claimed || {},
      tunnel: base.tunnel || null, tourist_stacks: base.tourist_stacks || null,
      stacks_to_place: base.stacks_to_place || null, merchandise_left: base.merchandise_left,
      last_round: base.last_round, turns_left: base.turns_left, tickets_out: base.tickets_out,
      token_choices: base.token_choices || [],
    };
    view.players = base.public.map((pub, p) => {
      const own = seat === null ? observations[p] : (p === seat ? base : null);
      const row = Object.assign({}, seat === null ? observations[p].public[p] : pub);
      row.name = names[p];
      if (own) {
        row.hand = own.hand;
        row.ticketList = own.tickets;
        row.offeredList = own.offered_tickets;
        if (own.track) row.track = own.track;
      }
      if (organiser && (seat === null || p === seat)) {
        row.score = organiser.score[p];
        row.done = organiser.done[p];
      }
      // The Card Game's On-the-Track piles: in no observation, shown to the organiser only.
      if (organiser && seat === null && organiser.tracks && !row.track) row.track = organiser.tracks[p];
      return row;
    });
    return view;
  }

  function renderTable(container, view, handlers) {
    handlers = handlers || {};
    const slots = (view.display || []).map((card, slot) => card === null
      ? h("span", { class: "card empty" }, "—")
      : cardChip(card, undefined, { "data-slot": slot, role: "button", tabindex: 0,
          onclick: () => handlers.card && handlers.card(slot) }));
    const facts = [
      h("span", { class: "deck", role: "button", tabindex: 0, onclick: () => handlers.deck && handlers.deck() },
        `deck ${view.deck_size}`),
      h("span", {}, `discards ${view.discard_size}`),
      h("span", { class: "ticket-deck", role: "button", tabindex: 0,
                  onclick: () => handlers.tickets && handlers.tickets() }, `tickets ${view.ticket_deck_size}`),
    ];
    if (view.merchandise_left !== undefined) facts.push(h("span", {}, `Merchandise left ${view.merchandise_left}`));
    if (view.tickets_out !== undefined && view.tickets_out !== null) facts.push(h("span", {}, `tickets out of the game ${view.tickets_out}`));
    const lines = [h("div", { class: "display" }, h("strong", {}, "face up "), slots), h("div", { class: "facts" }, facts)];
    lines.push(h("div", { class: "muted phase" }, `turn ${view.turn ?? "—"} · ${phaseWords(view.phase)}` +
      (view.round ? ` · round ${view.round}` : "") +
      (view.to_move !== null && view.to_move !== undefined ? ` · ${view.names[view.to_move]} to move` : "") +
      (view.last_round ? ` · last round (${view.turns_left} turns left)` : "")));
    if (view.tunnel) {
      const t = view.tunnel;
      lines.push(h("div", { class: "tunnel-info" }, `Tunnel on route ${t.route}: turned `,
        t.turned.map((c) => cardChip(c)), ` → ${t.extra} more ${t.colour} needed`));
    }
    if (view.stacks_to_place && view.stacks_to_place.length) {
      lines.push(h("div", {}, "tourist stacks to place: " + view.stacks_to_place.map((s) => `${s.symbol} ×${s.tokens}`).join(", ")));
    }
    container.replaceChildren(...lines);
  }

  function cards(hand, onclick) {
    return Object.entries(hand || {}).filter(([, n]) => n).map(([c, n]) => cardChip(c, n,
      onclick ? { "data-colour": c, role: "button", tabindex: 0, onclick: () => onclick(c) } : {}));
  }

  function ticketItem(t, status, handlers, index, offered) {
    const text = `${cityName(t.a)}–${cityName(t.b)} ${t.points}`;
    // During the game a kept ticket is connected (✓) or still open (○); at the end it is
    // completed (✓) or failed (✗).
    const mark = status === true ? "✓ " : status === false ? "✗ " : status === "open" ? "○ " : "";
    if (offered && handlers && handlers.offered) {
      return h("label", { class: "ticket offered" },
        h("input", { type: "checkbox", "data-offer": index, onchange: handlers.offered }), ` ${text}`);
    }
    const clickable = handlers && handlers.ticket && t.id !== undefined;
    return h("span", Object.assign({ class: "ticket" + (status === true ? " done" : status === false ? " failed" : "") },
      clickable ? { "data-ticket": t.id, role: "button", tabindex: 0, onclick: () => handlers.ticket(t) } : {}), mark + text);
  }

  function renderPlayers(container, view, categories, handlers) {
    const panels = view.players.map((p) => {
      const seat = p.seat;
      const own = p.hand !== undefined;
      const final = view.final;
      const rows = [];
      const head = h("div", { class: "player-head" }, playerSwatch(seat),
        h("strong", {}, view.bots ? h("a", { href: view.bots[seat] }, p.name) : p.name),
        h("span", { class: "muted" }, ` seat ${seat}`),
        view.to_move === seat ? h("span", { class: "to-move" }, " ▶ to move") : null);
      rows.push(head);
      const stats = [];
      if (p.trains !== undefined) stats.push(`trains ${p.trains}`);
      stats.push(`cards ${p.hand_size}`);
      if (p.tickets !== null && p.tickets !== undefined) stats.push(`tickets ${p.tickets}`);
      if (p.offered) stats.push(`offered ${p.offered}`);
      if (p.route_points !== undefined) stats.push(`route points ${p.route_points}`);
      if (p.merchandise !== undefined) stats.push(`Merchandise ${p.merchandise}`);
      if (p.track_size !== undefined) stats.push(`On the Track ${p.track_size}`);
      if (p.stations !== undefined) stats.push(`stations ${p.stations.length}`);
      if (p.tourist_tokens && p.tourist_tokens.length) stats.push(`tourist tokens ${p.tourist_tokens.join(" ")}`);
      rows.push(h("div", { class: "stats" }, stats.join(" · ")));
      if (own) rows.push(h("div", { class: "hand", "data-hand-seat": seat }, h("span", { class: "label" }, "hand "),
        cards(p.hand, handlers && handlers.handCard)));
      if (p.track) rows.push(h("div", { class: "track" }, h("span", { class: "label" }, "On the Track "), cards(p.track)));
      if (p.yard && Object.keys(p.yard).length) {
        rows.push(h("div", { class: "yard" }, h("span", { class: "label" }, "Train Yard "),
          Object.entries(p.yard).map(([c, g]) => cardChip(c, g.cards + g.wilds, { title: `${g.cards} ${c} + ${g.wilds} wild` }))));
      }
      if (p.completed && p.completed.length) {
        rows.push(h("div", { class: "tickets" }, h("span", { class: "label" }, "completed "),
          p.completed.map((t) => ticketItem(t, true))));
      }
      const finalTickets = final && final.tickets[seat];
      if (finalTickets && finalTickets.length) {
        rows.push(h("div", { class: "tickets", "data-ticket-seat": seat }, h("span", { class: "label" }, "tickets "),
          finalTickets.filter((t) => !(p.completed || []).some((c) => c.id !== undefined && c.id === t.id && t.completed))
            .map((t) => ticketItem(t, t.completed))));
      } else if (p.ticketList) {
        rows.push(h("div", { class: "tickets", "data-ticket-seat": seat }, h("span", { class: "label" }, "tickets "),
          p.ticketList.map((t, i) => ticketItem(t, p.done ? (p.done[i] || "open") : undefined, handlers))));
      }
      if (p.offeredList && p.offeredList.length) {
        rows.push(h("div", { class: "tickets offered-tickets" }, h("span", { class: "label" }, "offered "),
          p.offeredList.map((t, i) => ticketItem(t, undefined, handlers, i, true)),
          handlers && handlers.keep ? h("button", { class: "keep", onclick: handlers.keep }, "keep ticked") : null));
      }
      if (final) {
        const row = final.breakdown[seat];
        rows.push(h("div", { class: "score final" }, (final.categories || []).map((c) =>
          h("span", { class: "cat" }, `${c.replace(/_/g, " ")} ${row[c]}`)), h("strong", {}, ` total ${row.total}`),
          final.ranks ? h("span", { class: "rank" }, ` · rank ${final.ranks[seat]}`) : null));
      } else if (p.score) {
        rows.push(h("div", { class: "score" }, Object.entries(p.score).filter(([k]) => k !== "total").map(([k, v]) =>
          h("span", { class: "cat" }, `${k.replace(/_/g, " ")} ${v}`)), h("strong", {}, ` so far ${p.score.total}`)));
      }
      const panel = h("section", { class: "player" + (view.focus === seat ? " focus" : ""), "data-seat": seat,
        style: `border-color:${PLAYER[seat % PLAYER.length]}` }, rows);
      panel.addEventListener("click", () => handlers && handlers.focus && handlers.focus(seat));
      return panel;
    });
    container.replaceChildren(...panels);
  }

  // A claim's or a station's payment in words, with counts: "claim 12 white w1" on a route of
  // 3 is "pay 2 white + 1 wild" (a wild is "wN", never a colour that starts with w).
  // A payment in words with its counts: a route costs its length; a station costs as many
  // cards as the stations its builder will then have (`stationCost`: 1 for the first).
  function paymentWords(action, boardData, stationCost) {
    const parts = action.split(" ");
    if (parts[0] !== "claim" && parts[0] !== "station") return action;
    const wilds = parts.slice(2).filter((p) => /^w\d+$/.test(p)).reduce((n, p) => n + Number(p.slice(1)), 0);
    const colours = parts.slice(2).filter((p) => !/^w\d+$/.test(p));
    const route = parts[0] === "claim" ? ((boardData && boardData.routes) || []).find((r) => r.id === Number(parts[1])) : null;
    const cost = route ? route.length : (parts[0] === "station" && stationCost) || null;
    const pay = [];
    for (const colour of colours) {
      const count = cost === null ? null : cost - wilds;
      if (count === null) pay.push(colour);
      else if (count > 0) pay.push(`${count} ${colour}`);
    }
    if (wilds) pay.push(`${wilds} wild`);
    return `pay ${pay.join(" + ") || "nothing"}`;
  }

  window.TTR = { Board, viewOf, renderTable, renderPlayers, PLAYER, SYMBOL, h, cardChip, playerSwatch, cityName, paymentWords, phaseWords };
})();
