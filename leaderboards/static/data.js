// A page's data where its server runs no inline script (arena host's Content-Security-Policy):
// JSON in <script type="application/json"> elements, read into the globals that replay.js
// (window.MATCH) and play.js (window.GAME) read.
(function () {
  "use strict";
  const read = (id) => {
    const node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : undefined;
  };
  const match = read("match-data");
  if (match !== undefined) window.MATCH = match;
  const game = read("game-data");
  if (game !== undefined) window.GAME = game;
})();
