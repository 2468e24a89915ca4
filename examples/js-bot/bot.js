// A ttr-arena bot in JavaScript: everything it needs is protocols/PROTOCOL.md and ZeroMQ.
//
//   npm install            (once, in this folder)
//   arena play --bot "cmd:node examples/js-bot/bot.js" --bot random
//
// The referee gives the endpoint and a one-time token in ARENA_CONNECT and ARENA_TOKEN.
// Strategy: claim a route whenever possible (paying with as few wilds as it can),
// otherwise draw from the deck; keep as few tickets as allowed.
"use strict";
const zmq = require("zeromq");

const VERSION = 1;

function choose(act) {
  const legal = act.legal;
  const claims = legal.filter((a) => a.startsWith("claim "));
  if (claims.length > 0) {
    const wilds = (a) => {
      const m = a.match(/ w(\d+)$/);
      return m ? Number(m[1]) : 0;
    };
    claims.sort((x, y) => wilds(x) - wilds(y));
    return claims[0];
  }
  if (legal.includes("draw deck")) return "draw deck";
  return legal[0]; // keep choices come smallest first
}

async function main() {
  const endpoint = process.env.ARENA_CONNECT;
  const token = process.env.ARENA_TOKEN;
  if (!endpoint || !token) {
    console.error("ARENA_CONNECT and ARENA_TOKEN must be set");
    process.exit(2);
  }
  const socket = new zmq.Dealer({ linger: 1000 });
  socket.connect(endpoint);
  await socket.send(JSON.stringify({ type: "hello", version: VERSION, token, name: "js-bot" }));
  for await (const [frame] of socket) {
    const message = JSON.parse(frame.toString());
    if (message.type === "act") {
      const action = choose(message);
      await socket.send(JSON.stringify({ type: "action", version: VERSION, seq: message.seq, action }));
    } else if (message.type === "error") {
      console.error(`referee error ${message.code}: ${message.message}`);
    } else if (message.type === "game_over") {
      console.error(`game ${message.game_id} over: ranks ${message.ranks}`);
    } else if (message.type === "bye") {
      break;
    }
  }
  socket.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
