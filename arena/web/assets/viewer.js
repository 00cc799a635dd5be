/* arena replay viewer: draws the frames embedded in #arena-data; no network, works from file://.
   The frames are gzip-compressed and base64-encoded (data-encoding="gzip-base64"): the browser's own
   DecompressionStream inflates them, then <html data-ready="1"> says the page is drawn. */
(function () {
  "use strict";
  function load(el, done) {
    if (el.getAttribute("data-encoding") !== "gzip-base64") { done(JSON.parse(el.textContent)); return; }
    var bin = atob(el.textContent.trim());
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { bytes[i] = bin.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    new Response(stream).text().then(function (text) { done(JSON.parse(text)); });
  }
  load(document.getElementById("arena-data"), function (data) { start(data); document.documentElement.setAttribute("data-ready", "1"); });

  function start(data) {
  var G = window.ArenaGames;
  var n = data.players.length;
  var last = data.steps.length;
  var pos = 0;
  var seatView = data.perspective === null ? "all" : String(data.perspective);
  var timer = null;
  var curDeciding = [];
  var $ = function (id) { return document.getElementById(id); };
  var esc = G.esc;

  // cumulative time used by each seat after each step
  var clocks = [new Array(n).fill(0)];
  data.steps.forEach(function (st, i) {
    var c = clocks[i].slice();
    st.decisions.forEach(function (d) { if (d.elapsed_ms !== null) { c[d.seat] += d.elapsed_ms; } });
    clocks.push(c);
  });

  function shownSeats() {
    return seatView === "all" ? data.shown : [Number(seatView)];
  }

  // Views are delta-encoded: the first whole, then only the top-level keys that changed.
  var frames = {};
  Object.keys(data.views).forEach(function (seat) {
    var out = [];
    data.views[seat].forEach(function (d, i) {
      if (i === 0) { out.push(d); return; }
      var f = Object.assign({}, out[i - 1], d);
      delete f["$removed"];
      (d["$removed"] || []).forEach(function (k) { delete f[k]; });
      out.push(f);
    });
    frames[seat] = out;
  });

  function frameViews(i) {
    var views = {};
    shownSeats().forEach(function (s) { views[s] = frames[String(s)][i]; });
    return views;
  }

  function faultsAt(step) {
    return data.faults.filter(function (f) { return f.step === step; });
  }

  function faultHtml(f) {
    var h = '<div class="fault"><b>' + esc(f.kind) + "</b> seat " + f.seat + " (" + esc(data.players[f.seat] || "") + ")" +
      (f.step >= 0 ? " at step " + f.step : " outside any step");
    if (f.detail !== undefined) { h += '<div class="detail">' + esc(f.detail) + "</div>"; }
    if (f.stderr_tail && f.stderr_tail.length) { h += '<pre class="stderr">' + esc(f.stderr_tail.join("\n")) + "</pre>"; }
    return h + "</div>";
  }

  // The stderr lines each shown seat wrote while step i was being decided (kept with --keep-logs).
  function logsHtml(i) {
    var logs = i < last ? (data.steps[i].logs || []) : [];
    var seats = shownSeats();
    logs = logs.filter(function (g) { return seats.indexOf(g.seat) >= 0; });
    if (!logs.length) { return ""; }
    var h = '<h3>Step ' + i + ': stderr</h3><div id="logs">';
    logs.forEach(function (g) {
      h += '<div class="log" data-seat="' + g.seat + '"><b>seat ' + g.seat + "</b> " + esc(data.players[g.seat] || "") +
        '<pre class="stderr">' + esc(g.lines.join("\n")) + "</pre>" +
        (g.dropped ? '<span class="ms">' + g.dropped + " more lines dropped (over the log's bounds)</span>" : "") + "</div>";
    });
    return h + "</div>";
  }

  function render() {
    var views = frameViews(pos);
    var seats = shownSeats();
    var pub = views[seats[0]];
    var deciding = pos < last ? data.steps[pos].deciding : [];
    curDeciding = deciding;
    var faultySeats = {};
    data.faults.forEach(function (f) { if (f.step >= 0 && f.step < pos) { faultySeats[f.seat] = (faultySeats[f.seat] || 0) + 1; } });
    var ctx = {
      views: views, pub: pub, n: n, players: data.players, deciding: deciding, clock: clocks[pos],
      faulty: faultySeats, seatHead: seatHead
    };
    $("board").innerHTML = board(ctx);
    $("where").textContent = "step " + pos + " / " + last + " · " + data.rounds[pos];
    $("step-input").value = String(pos);
    $("round-select").value = data.rounds[pos];
    var side = logsHtml(pos);
    if (pos > 0) {
      var st = data.steps[pos - 1];
      side += "<h3>Step " + (pos - 1) + ": decisions</h3><ul class=\"decisions\">";
      st.decisions.forEach(function (d) {
        side += "<li>seat " + d.seat + " " + esc(data.players[d.seat]) + ": " +
          (d.played !== undefined ? "<code>" + esc(JSON.stringify(d.played)) + "</code> " : "") +
          (d.source === "fallback" ? '<span class="fallback">fallback' + (d.fault ? " (" + esc(d.fault) + ")" : "") + "</span> " : "") +
          (d.source === "recorded" ? '<span class="ms">recorded</span> ' : "") + (d.asked === false && d.source !== "recorded" ? '<span class="ms">not asked</span> ' : "") +
          (d.elapsed_ms === null ? "" : "<span class=\"ms\">" + d.elapsed_ms.toFixed(1) + " ms</span>") + "</li>";
      });
      side += "</ul><h3>Events</h3><ul class=\"events\">";
      st.events.forEach(function (e) { side += "<li>" + eventHtml(e) + "</li>"; });
      side += "</ul>";
      var fs = faultsAt(pos - 1);
      if (fs.length) { side += "<h3>Faults</h3>" + fs.map(faultHtml).join(""); }
    } else {
      side += "<p>The deal, before any decision. " + (last) + " steps follow.</p>";
      var outside = faultsAt(-1);
      if (outside.length) { side += "<h3>Faults outside steps</h3>" + outside.map(faultHtml).join(""); }
    }
    if (pos === last) {
      side += '<h3>Result</h3><table id="result" class="grid"><tr><th>seat</th><th>player</th><th>points</th><th>rank</th></tr>';
      data.result.points.forEach(function (p, s) {
        side += "<tr><td>" + s + "</td><td>" + esc(data.players[s]) + '</td><td class="points">' + p + "</td><td>" + data.result.ranks[s] + "</td></tr>";
      });
      side += "</table>";
    }
    $("side").innerHTML = side;
  }

  // The game's renderer (its package's, inlined with this page) draws the board; a game without one, or
  // whose renderer throws, is drawn by the generic view: each shown seat's view as a tree.
  function board(ctx) {
    var own = G.render[data.game];
    if (!own) { return G.generic(ctx); }
    try {
      return own(ctx);
    } catch (err) {
      document.documentElement.setAttribute("data-renderer-error", String(err && err.message || err));
      return '<div class="renderer-error">the viewer module of game ' + esc(data.game) + " failed at step " + pos + ": " +
        esc(String(err && err.message || err)) + "; the views are shown as trees</div>" + G.generic(ctx);
    }
  }
  function eventHtml(e) {
    var own = G.events[data.game];
    if (own) {
      try { return own(e, data.players); } catch (err) { /* the generic line below */ }
    }
    return G.eventText(e, data.players);
  }

  function seatHead(s, score) {
    var cls = "seat-head" + (curDeciding.indexOf(s) >= 0 ? " to-move" : "");
    return '<div class="' + cls + '"><b>seat ' + s + "</b> " + esc(data.players[s]) + ' <span class="score">' + esc(String(score)) + " pts</span>" +
      ' <span class="ms">' + clocks[pos][s].toFixed(0) + " ms used</span>" + "</div>";
  }

  function go(i) {
    pos = Math.max(0, Math.min(last, i));
    render();
  }

  function stop() { if (timer !== null) { clearInterval(timer); timer = null; $("play").textContent = "▶ play"; } }
  function play() {
    if (timer !== null) { stop(); return; }
    if (pos === last) { go(0); }
    $("play").textContent = "⏸ pause";
    timer = setInterval(function () { if (pos >= last) { stop(); } else { go(pos + 1); } }, Number($("speed").value));
  }

  function setup() {
    document.title = data.game + " " + data.game_id + " (" + (data.perspective === null ? "organiser" : "seat " + data.perspective) + ")";
    $("title").textContent = data.game + " · " + data.game_id + (data.seed === null ? "" : " · seed " + data.seed);
    var tc = data.time_control || {};
    $("clock").textContent = "clock: " + (tc.decision_ms ? tc.decision_ms + " ms a decision" : "no limit a decision") +
      (tc.bank_ms ? ", bank " + tc.bank_ms + " ms + " + (tc.increment_ms || 0) + " ms a move" : "");
    var sel = $("perspective");
    var opts = data.perspective === null ? ['<option value="all">whole game (every hand)</option>'] : [];
    data.shown.forEach(function (s) { opts.push('<option value="' + s + '">seat ' + s + ": " + esc(data.players[s]) + "</option>"); });
    sel.innerHTML = opts.join("");
    sel.value = seatView;
    sel.disabled = data.shown.length < 2 && data.perspective !== null;
    sel.addEventListener("change", function () { seatView = sel.value; render(); });
    var rs = $("round-select");
    var seen = {};
    rs.innerHTML = data.rounds.filter(function (r) { if (seen[r]) { return false; } seen[r] = true; return true; })
      .map(function (r) { return '<option value="' + esc(r) + '">' + esc(r) + "</option>"; }).join("");
    rs.addEventListener("change", function () { stop(); go(data.rounds.indexOf(rs.value)); });
    $("step-input").max = String(last);
    $("step-input").addEventListener("change", function () { stop(); go(parseInt($("step-input").value, 10) || 0); });
    $("first").addEventListener("click", function () { stop(); go(0); });
    $("prev").addEventListener("click", function () { stop(); go(pos - 1); });
    $("next").addEventListener("click", function () { stop(); go(pos + 1); });
    $("end").addEventListener("click", function () { stop(); go(last); });
    $("play").addEventListener("click", play);
    document.addEventListener("keydown", function (ev) {
      var t = ev.target && ev.target.tagName;
      if (t === "INPUT" || t === "SELECT") { return; }
      if (ev.key === "ArrowRight") { stop(); go(pos + 1); } else if (ev.key === "ArrowLeft") { stop(); go(pos - 1); }
      else if (ev.key === "Home") { stop(); go(0); } else if (ev.key === "End") { stop(); go(last); }
      else if (ev.key === " ") { play(); } else { return; }
      ev.preventDefault();
    });
    window.ArenaViewer = { frame: function (seat, i) { return frames[String(seat)][i]; }, go: go, data: data };
    var m = /[#&]step=(\d+)/.exec(location.hash);
    go(m ? parseInt(m[1], 10) : 0);
  }
  setup();
  }
})();
