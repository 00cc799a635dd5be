// arena.js: the arena bot protocol (protocol.md) for Node, no npm packages. Usable from TypeScript
// too (compile to JavaScript, then require it).
//
//   const arena = require("./arena");
//   arena.run({ decide: (request) => request.legal[0] }, "my-bot", "1.0");
//
// A bot is an object with decide(request) (returns one action) and, optionally, start(message) and
// end(message). Log with arena.log (stderr): stdout carries the protocol only.
"use strict";

const readline = require("readline");

function log(...parts) {
  process.stderr.write(parts.join(" ") + "\n");
}

// The protocol loop on any readable and writable stream (the tests give it buffers); resolves at
// shutdown or the end of input.
function serve(input, output, bot, name, version) {
  return new Promise((resolve) => {
    const lines = readline.createInterface({ input, crlfDelay: Infinity });
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        resolve();
      }
    };
    const send = (message) => output.write(JSON.stringify(message) + "\n");
    lines.on("line", (line) => {
      if (done || !line.trim()) return;
      let message;
      try {
        message = JSON.parse(line);
      } catch (problem) {
        log(`arena: cannot read the referee's line: ${problem.message}`);
        return;
      }
      switch (message.type) {
        case "hello":
          send({ type: "hello", protocol: 1, name, version });
          break;
        case "start":
          if (bot.start) bot.start(message);
          break;
        case "request":
          send({ id: message.id, action: bot.decide(message) });
          break;
        case "end":
          if (bot.end) bot.end(message);
          break;
        case "shutdown":
          lines.close();
          finish();
          break;
        // unknown messages are ignored: later protocol versions may add some
      }
    });
    lines.on("close", finish);
  });
}

function run(bot, name, version) {
  return serve(process.stdin, process.stdout, bot, name, version).then(() => process.exit(0));
}

module.exports = { log, serve, run };
