/* The report's game list: filter, sort and page through the games embedded in #arena-data. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("arena-data").textContent);
  var g = data.games;
  var names = data.names;
  var PAGE = 50;
  var total = g.index.length;
  var order = [];
  var page = 0;
  var sortKey = "index";
  var sortDir = 1;
  var $ = function (id) { return document.getElementById(id); };
  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]; });
  }
  function winner(i) {
    var w = [];
    g.ranks[i].forEach(function (r, s) { if (r === 1) { w.push(names[g.seats[i][s]]); } });
    return w.join(" = ");
  }
  function key(i) {
    if (sortKey === "winner") { return winner(i); }
    return g[sortKey][i];
  }
  function refresh() {
    var text = $("game-filter").value.trim().toLowerCase();
    var faultsOnly = $("faults-only").checked;
    var wanted = null;
    if (text) {
      wanted = {};
      names.forEach(function (n, e) { if (n.toLowerCase().indexOf(text) >= 0) { wanted[e] = true; } });
    }
    order = [];
    for (var i = 0; i < total; i++) {
      if (faultsOnly && !g.faults[i]) { continue; }
      if (wanted && !g.seats[i].some(function (e) { return wanted[e]; })) { continue; }
      order.push(i);
    }
    if (sortKey !== "index" || sortDir !== 1) {
      order.sort(function (a, b) { var x = key(a), y = key(b); return (x < y ? -1 : x > y ? 1 : a - b) * sortDir; });
    }
    page = 0;
    draw();
  }
  function draw() {
    var pages = Math.max(1, Math.ceil(order.length / PAGE));
    page = Math.max(0, Math.min(page, pages - 1));
    var rows = [];
    for (var k = page * PAGE; k < Math.min(order.length, (page + 1) * PAGE); k++) {
      var i = order[k];
      var seats = g.seats[i].map(function (e, s) {
        return '<span class="seat-cell' + (g.ranks[i][s] === 1 ? " win" : "") + '">' + s + ": " + esc(names[e]) + " (" + g.points[i][s] + ", #" + g.ranks[i][s] + ")</span>";
      }).join(" ");
      var link = g.replay[i] ? '<a class="replay" href="' + esc(g.replay[i]) + '">view</a>' : '<span class="empty">no replay</span>';
      rows.push("<tr data-index=\"" + g.index[i] + "\"><td>" + g.index[i] + "</td><td>" + g.round[i] + "</td><td>" + g.table[i] + "</td><td class=\"name\">" +
        seats + "</td><td class=\"name\">" + esc(winner(i)) + "</td><td" + (g.faults[i] ? ' class="bad"' : "") + ">" + g.faults[i] + "</td><td>" +
        g.decisions[i] + "</td><td>" + g.duration[i].toFixed(2) + "</td><td>" + link + "</td></tr>");
    }
    document.querySelector("#game-table tbody").innerHTML = rows.join("");
    $("game-count").textContent = order.length + " of " + total + " games";
    $("page-info").textContent = "page " + (page + 1) + " / " + pages;
  }
  $("game-filter").addEventListener("input", refresh);
  $("faults-only").addEventListener("change", refresh);
  $("page-prev").addEventListener("click", function () { page--; draw(); });
  $("page-next").addEventListener("click", function () { page++; draw(); });
  Array.prototype.forEach.call(document.querySelectorAll("#game-table th[data-key]"), function (th) {
    th.style.cursor = "pointer";
    th.title = "sort";
    th.addEventListener("click", function () {
      var k = th.getAttribute("data-key");
      sortDir = k === sortKey ? -sortDir : 1;
      sortKey = k;
      refresh();
    });
  });
  refresh();
})();
