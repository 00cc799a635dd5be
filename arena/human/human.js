/* arena's human seat: draws the seat's view with the game's renderer, offers the legal actions, sends the
   choice. State comes from the seat's own server (GET state?since=V, a long poll); a choice is a JSON POST
   of {request_id, index}, which the server checks (a stale or forged one is refused with a message).
   A game's renderer may offer its actions (ArenaGames.offer(GAME, fn): fn(action, view, seat) returns the
   parts a person picks in turn, each {label, card?, scope?, stage?}, `card` naming a [data-card] element of
   the board to click); a game without one gets each legal action as a button. */
(function () {
  "use strict";
  var G = window.ArenaGames;
  var esc = G.esc;
  var base = location.pathname.replace(/[^/]*$/, "");
  var state = null, version = -1, picked = [], focus = null, deadline = null, failures = 0;
  var $ = function (id) { return document.getElementById(id); };

  function parts(action) {
    var own = (G.offers || {})[state.game];
    var out = null;
    if (own) { try { out = own(action, state.view || {}, state.seat); } catch (err) { out = null; } }
    if (!out || !out.length) { out = [{ label: JSON.stringify(action) }]; }
    return out.map(function (p, i) { return { label: String(p.label), card: p.card, scope: p.scope, stage: p.stage === undefined ? i : p.stage }; });
  }
  // Which legal actions agree with the parts picked so far (in any order), and what is left of each.
  function candidates() {
    var out = [];
    state.legal.forEach(function (action, index) {
      var left = parts(action);
      var ok = picked.every(function (label) {
        for (var i = 0; i < left.length; i++) { if (left[i].label === label) { left.splice(i, 1); return true; } }
        return false;
      });
      if (ok) { out.push({ index: index, left: left }); }
    });
    return out;
  }
  function options(cands) {
    var stage = Infinity, seen = {}, out = [];
    cands.forEach(function (c) { c.left.forEach(function (p) { stage = Math.min(stage, p.stage); }); });
    cands.forEach(function (c) {
      c.left.forEach(function (p) { if (p.stage === stage && !seen[p.label]) { seen[p.label] = true; out.push(p); } });
    });
    return out;
  }

  function say(text, ok) { var m = $("message"); m.textContent = text || ""; m.className = ok ? "ok" : ""; }

  function choose(requestId, index) {
    // on `arena serve` the page is the server's: its writes carry the session's CSRF token (a meta tag)
    var csrf = document.querySelector('meta[name="arena-csrf"]'), headers = { "Content-Type": "application/json" };
    if (csrf) { headers["X-Arena-CSRF"] = csrf.getAttribute("content"); }
    return fetch(base + "choose", { method: "POST", headers: headers,
      body: JSON.stringify({ request_id: requestId, index: index }) })
      .then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
      .then(function (res) {
        if (res.ok) { say(res.body.ok, true); } else { say(res.body.refused || "refused", false); }
        return res;
      }, function () { say("the seat's server did not answer: is the game still running?", false); });
  }
  function pick(label) {
    picked.push(label);
    focus = null;
    var cands = candidates();
    var done = cands.filter(function (c) { return !c.left.length; });
    if (cands.length === 1 && (done.length === 1 || picked.length > 0)) {
      var rid = state.request_id;
      picked = [];
      $("choices").hidden = true;
      choose(rid, cands[0].index);
      return;
    }
    draw();
  }

  function drawChoices() {
    var box = $("choices");
    if (state.phase !== "asked" || !state.legal.length) { box.hidden = true; return; }
    box.hidden = false;
    var cands = candidates();
    var opts = options(cands);
    var done = cands.filter(function (c) { return !c.left.length; });
    $("picked").innerHTML = picked.map(function (l) { return '<span class="part">' + esc(l) + "</span>"; }).join("");
    $("clear").hidden = !picked.length;
    var shown = focus === null ? opts : opts.filter(function (p) { return p.card === focus; });
    var h = done.map(function (c) { return '<button type="button" class="play" data-index="' + c.index + '">play this</button>'; }).join("");
    h += shown.map(function (p, i) { return '<button type="button" class="option" data-option="' + i + '">' + esc(p.label) + "</button>"; }).join("");
    $("options").innerHTML = h;
    Array.prototype.forEach.call($("options").querySelectorAll("button.option"), function (b) {
      b.addEventListener("click", function () { pick(shown[Number(b.getAttribute("data-option"))].label); });
    });
    Array.prototype.forEach.call($("options").querySelectorAll("button.play"), function (b) {
      b.addEventListener("click", function () { picked = []; choose(state.request_id, Number(b.getAttribute("data-index"))); });
    });
    // The board's own elements: a card in hand, a pile, a tree position. A part picked marks one element.
    var board = $("board");
    var used = [];
    function find(p) {
      if (p.card === undefined || p.card === null) { return []; }
      var sel = (p.scope ? p.scope + " " : "") + '[data-card="' + CSS.escape(String(p.card)) + '"]';
      return Array.prototype.filter.call(board.querySelectorAll(sel), function (el) { return used.indexOf(el) < 0; });
    }
    picked.forEach(function (label) {
      var p = null;
      cands.forEach(function (c) { parts(state.legal[c.index]).forEach(function (q) { if (q.label === label && !p) { p = q; } }); });
      var els = p ? find(p) : [];
      if (els.length) { els[0].classList.add("picked"); used.push(els[0]); }
    });
    var byEl = [];
    opts.forEach(function (p) {
      find(p).forEach(function (el) {
        var entry = byEl.filter(function (e) { return e.el === el; })[0];
        if (!entry) { entry = { el: el, labels: [], card: p.card }; byEl.push(entry); }
        if (entry.labels.indexOf(p.label) < 0) { entry.labels.push(p.label); }
      });
    });
    byEl.forEach(function (e) {
      e.el.classList.add("pickable");
      e.el.setAttribute("data-pick", e.labels.join(" | "));
      e.el.addEventListener("click", function () {
        if (e.labels.length === 1) { pick(e.labels[0]); } else { focus = e.card; draw(); }
      });
    });
  }

  function board() {
    var s = state.seat, n = state.players.length, views = {};
    views[s] = state.view || {};
    var ctx = { views: views, pub: views[s], n: n, players: state.players, deciding: state.phase === "asked" ? [s] : [],
      clock: new Array(n).fill(0), faulty: {}, seatHead: function (seat, score) {
        return '<div class="seat-head' + (seat === s && state.phase === "asked" ? " to-move" : "") + '"><b>seat ' + seat + "</b> " +
          esc(state.players[seat] || "") + (seat === s ? " (you)" : "") + ' <span class="score">' + esc(String(score)) + " pts</span></div>";
      } };
    var own = G.render[state.game];
    if (!own || state.view === null) {
      return state.view !== null ? G.generic(ctx) : '<p class="empty">' + (state.phase === "over" ? "the game is over: its record is on your games page" : "the game has not asked you anything yet") + "</p>";
    }
    try { return own(ctx); } catch (err) { return '<div class="renderer-error">' + esc(String(err && err.message || err)) + "</div>" + G.generic(ctx); }
  }
  function eventHtml(e) {
    var own = G.events[state.game];
    if (own) { try { return own(e, state.players); } catch (err) { /* the generic line */ } }
    return G.eventText(e, state.players);
  }

  function draw() {
    $("title").textContent = "arena · " + state.game + " · you play seat " + state.seat;
    $("players").textContent = state.players.map(function (p, i) { return "seat " + i + ": " + p; }).join(" · ");
    var status = { asked: "your move", waiting: "waiting for the other players", over: "the game is over", closed: "the game is closed" };
    $("status").textContent = (status[state.phase] || state.phase) + (state.phase === "over" && state.reason ? ": " + state.reason : "");
    document.documentElement.setAttribute("data-phase", state.phase);
    $("step").textContent = state.step === null ? "" : "step " + state.step;
    $("board").innerHTML = board();
    drawChoices();
    var evs = state.events.slice(-60).reverse();
    $("events").innerHTML = (state.events_dropped ? "<li class=\"ms\">" + state.events_dropped + " older events not shown</li>" : "") +
      evs.map(function (e) { var c = Object.assign({}, e); delete c.at_step; return "<li><span class=\"ms\">step " + esc(String(e.at_step)) + "</span> " + eventHtml(c) + "</li>"; }).join("");
    if (state.result) {
      var r = state.result;
      $("result").innerHTML = '<h3>Result</h3><table class="grid" id="result-table"><tr><th>seat</th><th>player</th><th>points</th><th>rank</th></tr>' +
        r.points.map(function (p, i) {
          return "<tr><td>" + i + '</td><td class="name">' + esc(state.players[i] || "") + (i === state.seat ? " (you)" : "") + "</td><td>" + esc(String(p)) + "</td><td>" + esc(String(r.ranks[i])) + "</td></tr>";
        }).join("") + "</table>";
    }
  }
  function tick() {
    var c = $("clock");
    if (!state || state.phase !== "asked" || deadline === null) { c.textContent = ""; c.className = ""; return; }
    var ms = Math.max(0, deadline - Date.now());
    var s = Math.ceil(ms / 1000);
    c.textContent = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
    c.className = ms < 10000 ? "low" : "";
  }

  function update(s) {
    var fresh = !state || s.request_id !== state.request_id;
    state = s;
    version = s.version;
    if (fresh) { picked = []; focus = null; if (s.phase === "asked") { say(""); } }
    deadline = s.remaining_ms === null ? null : Date.now() + s.remaining_ms;
    draw();
    tick();
    document.documentElement.setAttribute("data-version", String(s.version));
    document.documentElement.setAttribute("data-request", s.request_id === null ? "" : String(s.request_id));
  }
  function poll() {
    fetch(base + "state?since=" + version, { cache: "no-store" })
      .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.json(); })
      .then(function (s) { failures = 0; update(s); if (s.phase !== "over") { poll(); } }, function () {
        failures += 1;
        if (state && (state.phase === "over" || state.phase === "closed")) {
          $("status").textContent = "the game is over (its seat server has closed)";
          document.documentElement.setAttribute("data-phase", "gone");
          return;
        }
        $("status").textContent = "connection lost: retrying…";
        setTimeout(poll, Math.min(5000, 500 * failures));
      });
  }
  $("clear").addEventListener("click", function () { picked = []; focus = null; draw(); });
  setInterval(tick, 250);
  window.ArenaHuman = { choose: choose, state: function () { return state; }, parts: parts };
  poll();
})();
