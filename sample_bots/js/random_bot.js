#!/usr/bin/env node
// A random bot for any arena game, in JavaScript (node, no npm packages): picks uniformly among the
// legal actions. Seed: the first argument that is a whole number (other arguments, such as options
// meant for another bot, are ignored), else ARENA_SEED, else the time; mixed with the game id and the
// seat at each game's start.
"use strict";

const readline = require("readline");

// SplitMix64 on BigInt, the generator arena itself uses (arena/rng.py).
const MASK = (1n << 64n) - 1n;
const seedArg = process.argv.slice(2).find((arg) => /^-?[0-9]+$/.test(arg));
const base = BigInt(seedArg ?? process.env.ARENA_SEED ?? Date.now()) & MASK;
let state = base;
// Each game gets its own stream from the seed, the game id and the seat, so a bot's moves in one game
// do not depend on the games it played before (results then do not depend on concurrency).
function reseed(gameId, seat) {
  let h = 0xcbf29ce484222325n; // FNV-1a 64 over the game id's UTF-8 bytes
  for (const byte of Buffer.from(String(gameId), "utf8")) h = ((h ^ BigInt(byte)) * 0x100000001b3n) & MASK;
  state = base ^ h ^ ((BigInt(seat) * 0x9e3779b97f4a7c15n) & MASK);
}
function next64() {
  state = (state + 0x9e3779b97f4a7c15n) & MASK;
  let z = state;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return z ^ (z >> 31n);
}
function below(n) {
  const big = BigInt(n);
  const limit = MASK - ((MASK % big) + 1n) % big;
  for (;;) {
    const x = next64();
    if (x <= limit) return Number(x % big);
  }
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on("line", (line) => {
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello":
      send({ type: "hello", protocol: 1, name: "random-js", version: "1.0" });
      break;
    case "start":
      reseed(message.game_id, message.seat);
      break;
    case "request":
      send({ id: message.id, action: message.legal[below(message.legal.length)] });
      break;
    case "shutdown":
      input.close();
      process.exit(0);
    // start, end and unknown messages need no answer
  }
});
input.on("close", () => process.exit(0));
