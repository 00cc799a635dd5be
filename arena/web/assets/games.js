/* How each game looks: one renderer per game, from the views of the seats shown (never more). */
(function () {
  "use strict";
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  var COLOURS = { B: "blue", G: "green", Y: "yellow", O: "orange", V: "violet", J: "joker" };
  function card(code, label) {
    var c = String(code);
    return '<span class="card c-' + esc(c.charAt(0)) + '" data-card="' + esc(c) + '" title="' + esc(COLOURS[c.charAt(0)] || "") + " " + esc(c.slice(1)) +
      '">' + esc(label === undefined ? (c === "J" ? "★" : c.slice(1)) : label) + "</span>";
  }
  function backs(k) {
    var h = "";
    for (var i = 0; i < k; i++) { h += '<span class="card back"></span>'; }
    return h;
  }
  function cards(list) { return (list || []).map(function (c) { return card(c); }).join(""); }
  function hand(ctx, s) {
    var v = ctx.views[s];
    var sizes = ctx.pub.hand_sizes;
    var inner = v ? cards(v.hand) : backs(sizes ? sizes[s] : 0);
    return '<div class="hand" data-hand-seat="' + s + '">' + (inner || '<span class="empty">empty hand</span>') + "</div>";
  }
  function seatBox(ctx, s, score, body) {
    return '<div class="seat' + (ctx.faulty[s] ? " faulty" : "") + '" data-seat="' + s + '">' + ctx.seatHead(s, score) +
      (ctx.faulty[s] ? '<div class="warn">⚠ ' + ctx.faulty[s] + " fault(s) so far</div>" : "") + body + "</div>";
  }

  function kododo(ctx) {
    var p = ctx.pub;
    var h = '<div class="info">deal ' + p.deal + " · round " + p.round_in_deal + " · turn " + p.turn + " · play " + p.play +
      " card(s) · draw pile " + p.draw_pile + " · Kododo at exactly " + p.kododo_target + " · colour limit " + p.limit +
      (p.last_round ? " · last round" : "") + "</div>";
    h += '<div class="seats">';
    for (var s = 0; s < ctx.n; s++) {
      h += seatBox(ctx, s, p.points[s], hand(ctx, s) + '<div class="label">on the table</div><div class="table-cards">' + cards(p.table[s]) +
        '</div><div class="label">score pile: ' + p.pile_cards[s] + " cards</div>");
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
  }

  function kolpa(ctx) {
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
      h += seatBox(ctx, s, p.scores[s], hand(ctx, s) + '<div class="label">display</div>' + d);
    }
    h += "</div>";
    var hist = p.history || [];
    if (hist.length) {
      var r = hist[hist.length - 1];
      h += '<div class="last-round"><b>Round ' + r.round + " ended</b> (" + esc(r.reason) + ", by seat " + r.ended_by + "): points " + esc(r.points.join(" / ")) + "</div>";
    }
    return h;
  }

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
  function kodama(ctx) {
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
        var inner = v ? (v.hand || []).map(branch).join("") : backs(p.hand_sizes[s]);
        body += '<div class="label">hand</div><div class="hand" data-hand-seat="' + s + '">' + (inner || '<span class="empty">empty hand</span>') + "</div>";
      }
      if (p.held && p.held[s] && p.held[s].length) { body += '<div class="label">held</div>' + p.held[s].map(function (c) { return typeof c === "string" ? c : branch(c); }).join(""); }
      body += '<div class="label">Kodama cards</div><div class="hand" data-kodama-seat="' + s + '">' + (v ? kodamaCards(v.kodama) : '<span class="empty">hidden</span>') + "</div>";
      var t = p.trees.filter(function (x) { return x.seat === s; })[0];
      if (t) { body += tree(t); }
      h += seatBox(ctx, s, p.scores[s], body);
    }
    return h + "</div>";
  }

  function generic(ctx) {
    return "<pre>" + esc(JSON.stringify(ctx.views, null, 1)) + "</pre>";
  }

  function eventText(e, players) {
    var parts = [];
    Object.keys(e).forEach(function (k) {
      if (k !== "kind") { parts.push(esc(k) + "=" + esc(JSON.stringify(e[k]))); }
    });
    return "<b>" + esc(e.kind) + "</b> " + parts.join(" ");
  }

  window.ArenaGames = { esc: esc, eventText: eventText, render: { kododo: kododo, kolpa: kolpa, "kodama-duo": kodama, "kodama-draft": kodama, generic: generic } };
})();
