/* Kododo's board for arena's viewer (GameSpec.renderer): hands, table cards, score piles, the last round scored. */
(function (G) {
  "use strict";
  var esc = G.esc;
  var COLOURS = { B: "blue", G: "green", Y: "yellow", O: "orange", V: "violet", J: "joker" };
  function card(code) {
    var c = String(code);
    return G.card(c, c.charAt(0), c === "J" ? "★" : c.slice(1), (COLOURS[c.charAt(0)] || "") + " " + c.slice(1));
  }
  function cards(list) { return (list || []).map(card).join(""); }

  G.define("kododo", function (ctx) {
    var p = ctx.pub;
    var h = '<div class="info">deal ' + p.deal + " · round " + p.round_in_deal + " · turn " + p.turn + " · play " + p.play +
      " card(s) · draw pile " + p.draw_pile + " · Kododo at exactly " + p.kododo_target + " · colour limit " + p.limit +
      (p.last_round ? " · last round" : "") + "</div>";
    h += '<div class="seats">';
    for (var s = 0; s < ctx.n; s++) {
      h += G.seatBox(ctx, s, p.points[s], G.hand(ctx, s, cards, p.hand_sizes) + '<div class="label">on the table</div><div class="table-cards">' +
        cards(p.table[s]) + '</div><div class="label">score pile: ' + p.pile_cards[s] + " cards</div>");
    }
    h += "</div>";
    var hist = p.history || [];
    if (hist.length) {
      var r = hist[hist.length - 1];
      h += '<div class="last-round"><b>Last round scored</b> (deal ' + r.deal + " round " + r.round + "): " + esc(r.mode) +
        (r.colour ? " · colour " + esc(COLOURS[r.colour] || r.colour) : "") + " · points " + esc(r.points.join(" / ")) + "<br>";
      r.played.forEach(function (pl, i) { h += "seat " + i + ": " + cards(pl) + " "; });
      h += "</div>";
    }
    return h;
  });

  // For a person playing a seat: the cards of an action, each picked from the hand in any order.
  G.offer("kododo", function (action, view, seat) {
    return (action || []).map(function (c) { return { label: String(c), card: String(c), scope: '[data-hand-seat="' + seat + '"]', stage: 0 }; });
  });
})(window.ArenaGames);
