/* The Kodama games' board for arena's viewer (GameSpec.renderer of kodama-duo and kodama-draft): trees of
   Branch cards, spirits, hands, Kodama cards. */
(function (G) {
  "use strict";
  var esc = G.esc;
  var CSS =
    "ul.tree, ul.tree ul { list-style: none; padding-left: 14px; margin: 0; border-left: 1px dotted #8a6d3b; }\n" +
    "ul.tree { border-left: none; padding-left: 0; }\n" +
    ".branch { display: inline-flex; align-items: center; gap: 2px; background: #f4ecd8; border: 1px solid #8a6d3b; border-radius: 4px; padding: 1px 3px; margin: 1px; }\n" +
    ".branch small { color: #8a6d3b; font-size: 10px; margin-right: 2px; }\n" +
    ".el { display: inline-block; width: 16px; height: 16px; line-height: 16px; border-radius: 50%; text-align: center; font-size: 10px; font-weight: 700; color: #fff; }\n" +
    ".el-flower { background: #d6458f; } .el-mushroom { background: #a0522d; } .el-firefly { background: #c9a400; }\n" +
    ".el-caterpillar { background: #4b9a2e; } .el-cloud { background: #6f8fb3; } .el-star { background: #3b3b8f; }\n" +
    ".el.spirit { outline: 2px solid #000; outline-offset: 1px; }\n" +
    ".kodama { display: inline-block; background: #e7f3e0; border: 1px solid #4b9a2e; border-radius: 4px; padding: 1px 4px; margin: 1px; font-size: 12px; }\n" +
    ".pile { margin-right: 8px; }\n" +
    ".legend { font-size: 12px; color: #555; margin-bottom: 6px; }\n";
  var ELEMENTS = { flower: "F", mushroom: "M", firefly: "L", caterpillar: "C", cloud: "W", star: "S" };
  function element(e, spirit) {
    return '<span class="el el-' + esc(e) + (spirit ? " spirit" : "") + '" title="' + esc(e) + (spirit ? " (spirit)" : "") + '">' +
      esc(ELEMENTS[e] || "?") + "</span>";
  }
  function branch(c) {
    var shown = c.shown || c.elements;
    return '<span class="branch" data-card="' + esc(c.id) + '" title="' + esc(c.id) + '"><small>' + esc(c.id) + "</small>" +
      shown.map(function (e, i) { return element(e, c.spirits && c.spirits[i]); }).join("") + "</span>";
  }
  function tree(t) {
    var byId = {};
    t.cards.forEach(function (c) { byId[c.id] = c; });
    function node(id) {
      var c = byId[id];
      var kids = (c.children || []).filter(function (k) { return k !== null; });
      return '<li>' + branch(c) + (kids.length ? "<ul>" + kids.map(node).join("") + "</ul>" : "") + "</li>";
    }
    return '<ul class="tree">' + node(t.trunk) + "</ul>";
  }
  function kodamaCards(list) {
    return (list || []).map(function (k) {
      var id = typeof k === "string" ? k : k.id;
      return '<span class="kodama" data-card="' + esc(id) + '" title="' + esc(typeof k === "string" ? k : JSON.stringify(k.terms || k)) + '">' +
        esc(typeof k === "string" ? k : (k.name || k.id)) + "</span>";
    }).join("");
  }
  G.define("kodama-duo", kodama);
  G.define("kodama-draft", kodama);
  function kodama(ctx) {
    G.style("kodama", CSS);
    var p = ctx.pub;
    var h = '<div class="info">' + esc(p.season_name) + " · turn " + p.turn + " · " + esc(p.step) + " · deck " + p.deck +
      (p.season_card ? " · season card: " + esc(p.season_card.name) : "") + "</div>";
    h += '<div class="legend">' + Object.keys(ELEMENTS).map(function (e) { return element(e, false) + " " + esc(e); }).join(" · ") +
      " · ringed: a spirit</div>";
    var centre = "";
    if (p.revealed && p.revealed.length) { centre += '<div class="label">revealed</div>' + p.revealed.map(branch).join(""); }
    if (p.piles) { centre += '<div class="label">piles</div>' + p.piles.map(function (pl, i) { return '<span class="pile">' + i + ": " + pl.map(branch).join("") + "</span>"; }).join(" "); }
    if (p.spirits) {
      centre += '<div class="label">spirits</div>' + Object.keys(p.spirits).map(function (e) {
        var sp = p.spirits[e];
        return element(e, sp !== null) + (sp ? " seat " + sp.seat + " on " + esc(sp.on[0]) : " free");
      }).join(" · ");
    }
    if (centre) { h += '<div class="centre">' + centre + "</div>"; }
    h += '<div class="seats">';
    for (var s = 0; s < ctx.n; s++) {
      var v = ctx.views[s];
      var body = "";
      if (p.hand_sizes) {
        var inner = v ? (v.hand || []).map(branch).join("") : G.backs(p.hand_sizes[s]);
        body += '<div class="label">hand</div><div class="hand" data-hand-seat="' + s + '">' + (inner || '<span class="empty">empty hand</span>') + "</div>";
      }
      if (p.held && p.held[s] && p.held[s].length) { body += '<div class="label">held</div>' + p.held[s].map(function (c) { return typeof c === "string" ? c : branch(c); }).join(""); }
      body += '<div class="label">Kodama cards</div><div class="hand" data-kodama-seat="' + s + '">' + (v ? kodamaCards(v.kodama) : '<span class="empty">hidden</span>') + "</div>";
      var t = p.trees.filter(function (x) { return x.seat === s; })[0];
      if (t) { body += tree(t); }
      h += G.seatBox(ctx, s, p.scores[s], body);
    }
    return h + "</div>";
  }

  // For a person playing a seat: the card or spirit, then the position on the seat's own tree; a split, a pile, a Kodama card.
  function offer(a, view, seat) {
    var mine = '[data-seat="' + seat + '"]';
    var tree = mine + " ul.tree";
    if (a.split) {
      var alone = a.split[0].length === 1 ? a.split[0][0] : a.split[1][0];
      return [{ label: "split: " + a.split.map(function (p) { return p.join(" "); }).join(" | "), card: alone, scope: ".centre" }];
    }
    if (a.pile !== undefined) { return [{ label: "take pile " + a.pile }]; }
    if (a.kodama !== undefined) { return [{ label: "score " + a.kodama, card: a.kodama, scope: '[data-kodama-seat="' + seat + '"]' }]; }
    if (a.spirit !== undefined) {
      return [{ label: "spirit " + a.spirit }, { label: "on " + a.on[0] + " element " + a.on[1], card: a.on[0], scope: tree }];
    }
    if (a.card !== undefined) {
      return [{ label: "place " + a.card, card: a.card, scope: mine }, { label: "on " + a.at[0] + " point " + a.at[1], card: a.at[0], scope: tree }];
    }
    return null;
  }
  G.offer("kodama-duo", offer);
  G.offer("kodama-draft", offer);
})(window.ArenaGames);
