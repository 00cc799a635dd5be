/* The viewer's toolkit for game renderers, and the generic view for a game without one.
   A game's renderer (its GameSpec's `renderer`, a file in its own package, inlined after this one)
   calls ArenaGames.define(NAME, board, event): board(ctx) returns the board's HTML from the views of
   the seats shown (never more); event(e), optional, one event's HTML. docs/writing-a-game.md. */
(function () {
  "use strict";
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  // A card: `code` its data, `cls` its colour class, `label` what it shows, `title` its tooltip.
  function card(code, cls, label, title) {
    return '<span class="card c-' + esc(cls) + '" data-card="' + esc(code) + '" title="' + esc(title) + '">' + esc(label) + "</span>";
  }
  function backs(k) {
    var h = "";
    for (var i = 0; i < k; i++) { h += '<span class="card back"></span>'; }
    return h;
  }
  // Seat s's hand: its cards drawn by `draw` when this page shows that seat, else as many backs as the public sizes say.
  function hand(ctx, s, draw, sizes) {
    var v = ctx.views[s];
    var inner = v ? draw(v.hand || []) : backs(sizes ? sizes[s] : 0);
    return '<div class="hand" data-hand-seat="' + s + '">' + (inner || '<span class="empty">empty hand</span>') + "</div>";
  }
  function seatBox(ctx, s, score, body) {
    return '<div class="seat' + (ctx.faulty[s] ? " faulty" : "") + '" data-seat="' + s + '">' + ctx.seatHead(s, score) +
      (ctx.faulty[s] ? '<div class="warn">⚠ ' + ctx.faulty[s] + " fault(s) so far</div>" : "") + body + "</div>";
  }
  var styled = {};
  function style(name, css) {  // a renderer's own CSS, added to the page once
    if (styled[name]) { return; }
    styled[name] = true;
    var el = document.createElement("style");
    el.textContent = css;
    document.head.appendChild(el);
  }

  // The generic view: each shown seat's view as a readable tree (the events are the side panel's log).
  function tree(value, depth) {
    if (value === null || typeof value !== "object") {
      return '<span class="leaf">' + esc(JSON.stringify(value)) + "</span>";
    }
    var keys = Object.keys(value);
    if (!keys.length) { return '<span class="leaf">' + (Array.isArray(value) ? "[]" : "{}") + "</span>"; }
    var items = keys.map(function (k) {
      return '<li><span class="key">' + esc(k) + "</span>: " + tree(value[k], depth + 1) + "</li>";
    }).join("");
    return '<details class="node"' + (depth < 2 ? " open" : "") + "><summary>" + (Array.isArray(value) ? "list of " + keys.length : keys.length + " entries") +
      '</summary><ul class="tree-view">' + items + "</ul></details>";
  }
  function generic(ctx) {
    var h = '<div class="seats generic">';
    Object.keys(ctx.views).forEach(function (s) {
      var v = ctx.views[s];
      var score = v && v.scores ? v.scores[s] : v && v.points ? v.points[s] : "";
      h += seatBox(ctx, Number(s), score, '<div class="view-tree" data-view-seat="' + esc(s) + '">' + tree(v, 0) + "</div>");
    });
    return h + "</div>";
  }

  function eventText(e) {
    var parts = [];
    Object.keys(e).forEach(function (k) {
      if (k !== "kind") { parts.push(esc(k) + "=" + esc(JSON.stringify(e[k]))); }
    });
    return "<b>" + esc(e.kind) + "</b> " + parts.join(" ");
  }

  var render = {};
  var events = {};
  function define(name, board, event) {
    render[name] = board;
    if (event) { events[name] = event; }
  }
  // A renderer may also offer its game's actions to a person playing a seat (arena play --human):
  // offer(NAME, fn), fn(action, view, seat) -> the parts picked in turn, [{label, card, scope, stage}] (arena/human/human.js).
  var offers = {};
  function offer(name, fn) { offers[name] = fn; }
  window.ArenaGames = { esc: esc, card: card, backs: backs, hand: hand, seatBox: seatBox, style: style, tree: tree,
    eventText: eventText, render: render, events: events, define: define, generic: generic, offers: offers, offer: offer };
})();
