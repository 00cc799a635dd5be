/* Kolpa!'s board for arena's viewer (GameSpec.renderer): the discard, hands, displays (top cards), the last round. */
(function (G) {
  "use strict";
  var esc = G.esc;
  var COLOURS = { B: "blue", G: "green", Y: "yellow", O: "orange", V: "violet", J: "joker" };
  function card(code) {
    var c = String(code);
    return G.card(c, c.charAt(0), c === "J" ? "★" : c.slice(1), (COLOURS[c.charAt(0)] || "") + " " + c.slice(1));
  }
  function cards(list) { return (list || []).map(card).join(""); }

  G.define("kolpa", function (ctx) {
    var p = ctx.pub;
    var h = '<div class="info">round ' + p.round + " · turn " + p.turn + " · draw pile " + p.draw_pile + " · discard pile " + p.discard_size +
      " · target " + p.target + "</div>";
    h += '<div class="centre"><div class="label">discard</div>' + (p.discard ? card(p.discard) : '<span class="empty">none</span>') +
      (p.match ? '<div class="label">to match: ' + esc(COLOURS[p.match.colour] || p.match.colour || "any colour") + " / " +
        esc(p.match.number === null || p.match.number === undefined ? "any number" : p.match.number) + "</div>" : "") +
      (p.announce ? '<div class="label">joker announced: ' + esc(JSON.stringify(p.announce)) + "</div>" : "") + "</div>";
    h += '<div class="seats">';
    for (var s = 0; s < ctx.n; s++) {
      var disp = p.displays[s];
      var d = '<div class="display">';
      Object.keys(disp).forEach(function (col) {  // a pile shows its top card only (the covered ones are hidden)
        var top = disp[col];
        d += '<div class="stack" title="' + esc(COLOURS[col] || col) + ' pile">' +
          (top === null || top === undefined ? '<span class="card slot c-' + esc(col) + '"></span>' : card(top)) + "</div>";
      });
      d += "</div>";
      h += G.seatBox(ctx, s, p.scores[s], G.hand(ctx, s, cards, p.hand_sizes) + '<div class="label">display</div>' + d);
    }
    h += "</div>";
    var hist = p.history || [];
    if (hist.length) {
      var r = hist[hist.length - 1];
      h += '<div class="last-round"><b>Round ' + r.round + " ended</b> (" + esc(r.reason) + ", by seat " + r.ended_by + "): points " + esc(r.points.join(" / ")) + "</div>";
    }
    return h;
  });

  // For a person playing a seat: the card (from the hand or a display top), where it goes, a Joker's announcement.
  G.offer("kolpa", function (a, view, seat) {
    if (a.pass) { return [{ label: "pass (empty hand)" }]; }
    var from = a.from === "display" ? '[data-seat="' + seat + '"] .display' : '[data-hand-seat="' + seat + '"]';
    var out = [{ label: a.play + " from " + a.from, card: a.play, scope: from }, { label: "to the " + a.to }];
    if (a.announce !== undefined) { out.push({ label: "announce " + (COLOURS[a.announce] || a.announce) }); }
    return out;
  });
})(window.ArenaGames);
