"use strict";

const test = require("node:test");
const assert = require("node:assert");
const { PassThrough, Readable } = require("node:stream");
const arena = require("../arena");

function collect() {
  const out = new PassThrough();
  const chunks = [];
  out.on("data", (chunk) => chunks.push(chunk));
  return { out, text: () => Buffer.concat(chunks).toString("utf8") };
}

test("a session: hello, one answer, nothing after shutdown", async () => {
  const input = Readable.from([
    '{"type":"hello","protocol":1,"referee":"arena"}\n',
    '{"type":"start","game":"kolpa","seat":0}\n',
    "not json\n",
    '{"type":"mystery"}\n',
    '{"type":"request","id":3,"legal":[{"announce":5},"5"]}\r\n',
    '{"type":"end","result":{}}\n',
    '{"type":"shutdown"}\n',
    '{"type":"request","id":4,"legal":[1]}\n',
  ]);
  const { out, text } = collect();
  const seen = [];
  const bot = {
    start: () => seen.push("start"),
    decide: (request) => request.legal[0],
    end: () => seen.push("end"),
  };
  await arena.serve(input, out, bot, "t", "1");
  assert.strictEqual(
    text(),
    '{"type":"hello","protocol":1,"name":"t","version":"1"}\n{"id":3,"action":{"announce":5}}\n',
  );
  assert.deepStrictEqual(seen, ["start", "end"]);
});

test("the end of input ends the session", async () => {
  const { out, text } = collect();
  await arena.serve(Readable.from(['{"type":"request","id":1,"legal":["5"]}']), out, { decide: (r) => r.legal[0] }, "t", "1");
  assert.strictEqual(text(), '{"id":1,"action":"5"}\n');
});
