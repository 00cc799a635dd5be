/* Goofspiel's board for arena's viewer: the face-up prize, each seat's hand and points, the last round's bids. */
(function (G) {
  "use strict";
  var esc = G.esc;
  G.style("goofspiel", ".prize { font-size: 28px; font-weight: 700; background: #fff3c4; border: 2px solid #c9a400; border-radius: 8px; " +
    "display: inline-block; min-width: 40px; text-align: center; padding: 6px; } .bid-won { outline: 2px solid #2a7; }");
  function card(v, cls) { return G.card(String(v), cls || "B", String(v), "card " + v); }
  G.define("goofspiel", function (ctx) {
    var p = ctx.pub;
    var h = '<div class="info">round ' + p.round + " of " + p.rounds + " · prizes left " + p.prizes_left + "</div>";
    h += '<div class="centre"><div class="label">prize</div>' +
      (p.prize === null ? '<span class="empty">none: the game is over</span>' : '<span class="prize" data-prize="' + esc(p.prize) + '">' + esc(p.prize) + "</span>") + "</div>";
    var last = p.history.length ? p.history[p.history.length - 1] : null;
    h += '<div class="seats">';
    for (var s = 0; s < ctx.n; s++) {
      var body = '<div class="label">hand</div><div class="hand" data-hand-seat="' + s + '">' + p.hands[s].map(function (c) { return card(c); }).join("") + "</div>";
      if (last) {
        body += '<div class="label">last bid (prize ' + esc(last.prize) + ')</div><span class="' + (last.winner === s ? "bid-won" : "") + '">' + card(last.bids[s], "O") + "</span>";
      }
      h += G.seatBox(ctx, s, p.points[s], body);
    }
    return h + "</div>";
  }, function (e) {
    if (e.kind === "bids") { return "<b>bids</b> for prize " + esc(e.prize) + ": " + esc(e.bids.join(" / ")) + (e.winner === null ? " · tie, nobody wins" : " · seat " + esc(e.winner) + " wins"); }
    if (e.kind === "prize") { return "<b>prize</b> " + esc(e.prize) + " turned"; }
    return G.eventText(e);
  });
})(window.ArenaGames);
