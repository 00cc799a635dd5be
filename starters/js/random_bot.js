#!/usr/bin/env node
// A random bot for every arena game: each request lists every legal action; it picks one.
"use strict";

const arena = require("./arena");

arena.run(
  {
    start(message) {
      arena.log(`random-js: a game of ${message.game} in seat ${message.seat}`);
    },
    decide(request) {
      return request.legal[Math.floor(Math.random() * request.legal.length)];
    },
  },
  "random-js",
  "1.0",
);
