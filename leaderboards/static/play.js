// The play page: a person's seat. The state comes from the person's bridge to the referee
// (long-polled from /play/ID/state); clicks become actions in the notation, posted to
// /play/ID/action. The referee judges them: an illegal click comes back with the rule's message.
(function () {
  "use strict";
  const { Board, viewOf, renderTable, renderPlayers, h } = window.TTR;
  const game = window.GAME, board = window.BOARD;
  const base = `/play/${game.game}`;
  // Every click posted carries the server's token (arena serve: only its own pages hold
  // it), or on a hosted competition the session's CSRF token, as a form field.
  const post = (path, fields) => fetch(`${base}/${path}`, game.csrf
    ? { method: "POST", headers: { Accept: "application/json" },
        body: new URLSearchParams(Object.assign({ csrf: game.csrf }, fields)) }
    : { method: "POST", headers: { "Content-Type": "application/json", "X-Arena-Token": game.token },
        body: JSON.stringify(fields) });
  const replayUrl = (id) => game.replay ? `${game.replay}${id}` : `/matches/${id}.html`;
  const $ = (id) => document.getElementById(id);
  let state = { status: "connecting", legal: [] }, version = -1, offered = new Set();

  const handlers = {
    route: (id, event) => clickRoute(id, event),
    city: (id) => clickCity(id),
    card: (slot) => send(`draw ${slot}`),
    deck: () => send("draw deck"),
    tickets: () => send("tickets"),
    ticket: (t) => {  // the Card Game's scoring: a held ticket clicked is one to complete
      if (state.legal.includes(`complete ${t.id}`)) send(`complete ${t.id}`);
      else if (state.legal.some((a) => a.startsWith("complete "))) say("Your On-the-Track pile cannot complete that ticket too.");
    },
    offered: (e) => {
      const i = Number(e.target.dataset.offer);
      if (e.target.checked) offered.add(i); else offered.delete(i);
    },
    handCard: (colour) => {  // the Card Game: the plays that use this colour
      const plays = state.legal.filter((a) => a.startsWith("play ") &&
        (a.split(" ").includes(colour) || (colour === "wild" && / w\d/.test(a))));
      if (plays.length) choose(`Play ${colour}:`, plays);
      else say(`No play with ${colour} now.`);
    },
    keep: () => {
      const picked = [...offered].sort((a, b) => a - b);
      send(picked.length ? `keep ${picked.join(" ")}` : "keep none");
    },
  };
  const map = new Board(board, $("board"), handlers);
  if (!map.hasMap) {
    $("hint").textContent = "Click a face-up card or the deck to draw, the ticket pile to draw " +
      "tickets, a card of your hand to play it; tick the tickets to keep. Keys: d draws from the deck.";
  }

  function say(text, ok) {
    const box = $("message");
    box.hidden = !text;
    box.textContent = text || "";
    box.className = ok ? "message ok" : "message";
  }

  async function send(action) {
    if (state.status === "sending") return;
    if (state.status !== "to-move") { say("It is not your turn yet."); return; }
    say(null);
    state.status = "sending";  // no second click until the referee has answered
    $("status").dataset.status = "sending";
    $("status").textContent = `sent: ${action}`;
    const response = await post("action", { action });
    if (!response.ok) {
      state.status = "to-move";
      $("status").dataset.status = "to-move";
      say((await response.json()).error || "not sent");
    }
  }

  function choose(title, actions) {
    $("choices").replaceChildren(h("strong", {}, title + " "),
      ...actions.map((a) => h("button", { type: "button", class: "choice", "data-action": a, onclick: () => send(a) }, words(a))),
      h("button", { type: "button", onclick: () => $("choices").replaceChildren() }, "cancel"));
  }

  function words(action) {
    return window.TTR.paymentWords(action, board, stationCost());
  }

  function stationCost() {  // Europe: the nth station built costs n cards
    const obs = state.observation, mine = obs && obs.public && obs.public[game.seat];
    return mine && mine.stations ? mine.stations.length + 1 : null;
  }

  function mostHeldColour() {
    const hand = (state.observation && state.observation.hand) || {};
    const colours = Object.entries(hand).filter(([c]) => c !== "wild" && c !== "locomotive");
    colours.sort((a, b) => b[1] - a[1]);
    return colours.length ? colours[0][0] : "red";
  }

  function claimsOf(id) {
    return state.legal.filter((a) => a.startsWith(`claim ${id} `));
  }

  // Routes that cross overlap where they cross: the claimable one under the pointer.
  function claimableUnder(event) {
    if (!event || event.clientX === undefined) return [];
    return document.elementsFromPoint(event.clientX, event.clientY)
      .map((node) => node.closest && node.closest(".route.legal"))
      .filter(Boolean).map((node) => Number(node.dataset.route));
  }

  function clickRoute(id, event) {
    // The two tracks of a double route lie close together: a click on either offers the
    // track that can be claimed.
    const route = board.routes.find((r) => r.id === id);
    const twins = board.routes.filter((r) => r.a === route.a && r.b === route.b && r.id !== id);
    let options = claimsOf(id);
    if (!options.length) options = twins.flatMap((r) => claimsOf(r.id));
    if (!options.length) options = claimableUnder(event).flatMap((other) => claimsOf(other));
    if (options.length === 1) return send(options[0]);
    if (options.length > 1) return choose(`Claim route ${id}:`, options);
    // Not claimable now: ask the referee anyway, so the person reads the rule that forbids it.
    const colour = route && route.color !== "gray" ? route.color : mostHeldColour();
    send(`claim ${id} ${colour}`);
  }

  function clickCity(id) {
    const options = state.legal.filter((a) => /^(station|place|token) /.test(a) && a.split(" ")[1] === id);
    if (options.length === 1) return send(options[0]);
    if (options.length > 1) return choose(`At ${id}:`, options);
    const station = state.legal.find((a) => a.startsWith("station "));
    if (station) return send(`station ${id} ${mostHeldColour()}`);
    say(`Nothing to do at ${id} now.`);
  }

  // The Card Game's scoring: "complete 12" completes held ticket 12 with the On-the-Track pile.
  function ticketWords(action) {
    const id = Number(action.split(" ")[1]);
    const t = ((state.observation && state.observation.tickets) || []).find((x) => x.id === id);
    return t ? `complete ${window.TTR.cityName(t.a)}–${window.TTR.cityName(t.b)} (${t.points})` : action;
  }

  // Actions with nothing to click on the map or the cards get buttons.
  function otherChoices() {
    const others = state.legal.filter((a) => /^(complete|pay|withdraw|pass|token|place)\b/.test(a));
    const plays = state.legal.some((a) => a.startsWith("play "));
    const completing = others.some((a) => a.startsWith("complete "));
    if (!others.length && !plays) { $("choices").replaceChildren(); return; }
    $("choices").replaceChildren(...[h("strong", {}, others.length ? "You may: " : ""),
      plays ? h("span", { class: "muted" }, "Click a card of your hand to play it into your Train Yard. ") : null,
      completing ? h("span", { class: "muted" }, "Your On-the-Track pile can complete these tickets (or click one in your panel); " +
        "pass when done. ") : null].filter(Boolean),
      ...others.map((a) => h("button", { type: "button", class: "choice", "data-action": a, onclick: () => send(a) },
        a.startsWith("complete ") ? ticketWords(a) : a)));
  }

  function render() {
    const obs = state.observation;
    const status = {
      connecting: "Connecting to the referee…", waiting: "The bots are playing…",
      "to-move": "Your move.", over: "Game over.", resigned: "You resigned.",
    }[state.status] || state.status;
    $("status").textContent = status + (state.status === "to-move" ? ` (${state.legal.length} legal actions)` : "");
    $("status").dataset.status = state.status;
    $("status").dataset.version = state.version;
    $("resign").hidden = state.status === "over" || state.status === "resigned";  // nothing to resign
    if (state.message) say(state.message);
    if (state.error) say(`The game stopped: ${state.error}`);
    if (!obs) return;
    const observations = [];
    observations[game.seat] = obs;
    const view = viewOf(observations, game.names, game.seat, null, null);
    view.focus = game.seat;
    map.show(view);
    const legalRoutes = new Set(state.legal.filter((a) => a.startsWith("claim ")).map((a) => a.split(" ")[1]));
    map.highlight([...legalRoutes], "legal");
    renderTable($("table"), view, handlers);
    // Outline what can be drawn now (the deck, the ticket pile, each face-up card).
    const legal = new Set(state.legal);
    const mark = (node, ok) => node && node.classList.toggle("legal", ok);
    mark(document.querySelector("#table .deck"), legal.has("draw deck"));
    mark(document.querySelector("#table .ticket-deck"), legal.has("tickets"));
    document.querySelectorAll("#table [data-slot]").forEach((n) => mark(n, legal.has(`draw ${n.dataset.slot}`)));
    offered = new Set();
    renderPlayers($("players"), view, null, state.status === "to-move" ? handlers : {});
    if (state.status === "to-move") otherChoices(); else $("choices").replaceChildren();
    if (state.status === "over" && state.final) renderFinal(state.final);
  }

  function renderFinal(final) {
    const rows = game.names.map((name, seat) => h("tr", { class: seat === game.seat ? "you" : "" },
      h("td", {}, window.TTR.playerSwatch(seat), name), h("td", { class: "num final-score" }, String(final.scores[seat])),
      h("td", { class: "num" }, String(final.ranks[seat]))));
    $("final").replaceChildren(h("h2", {}, "Result"),
      h("table", { id: "result" }, h("tr", {}, h("th", {}, "seat"), h("th", { class: "num" }, "score"), h("th", { class: "num" }, "rank")), rows),
      state.match_id ? h("p", {}, h("a", { id: "replay-link", href: replayUrl(state.match_id) }, "Watch the replay"),
        " · stored with the other results.") : h("p", { class: "muted" }, state.error || "storing the result…"));
  }

  async function poll() {
    for (;;) {
      try {
        const response = await fetch(`${base}/state?version=${version}`, { cache: "no-store" });
        if (!response.ok) { say("The game is gone (the server was restarted?)."); return; }
        const fresh = await response.json();
        if (fresh.version !== version || fresh.status !== state.status || fresh.match_id !== state.match_id) {
          state = fresh;
          version = fresh.version;
          render();
        }
        if (state.status === "over" && (state.match_id || state.error)) return;
      } catch (error) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  $("resign").addEventListener("click", async () => {
    if (!confirm("Resign? The bots finish the game.")) return;
    await post("resign", {});
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT") return;
    if (e.key === "d") send("draw deck");
  });
  poll();
})();
