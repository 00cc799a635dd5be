/* arena live page: one game as it is played. The server sends this viewer's share of each frame over
   server-sent events (already cut to what the viewer may see); the game's renderer draws it as the
   replay viewer does. A seat whose view was not sent is drawn from the public view (card backs). */
(function () {
  "use strict";
  var G = window.ArenaGames;
  var cfg = JSON.parse(document.getElementById("arena-data").textContent);
  var $ = function (id) { return document.getElementById(id); };
  var esc = G.esc;
  var current = cfg.shown;

  function draw(frame, players, game) {
    var views = {};
    Object.keys(frame.views || {}).forEach(function (s) { views[Number(s)] = frame.views[s]; });
    var deciding = frame.deciding || [];
    var ctx = {
      views: views, pub: frame.pub || {}, n: players.length, players: players, deciding: deciding,
      clock: players.map(function () { return 0; }), faulty: {},
      seatHead: function (s, score) {
        return '<div class="seat-head' + (deciding.indexOf(s) >= 0 ? " to-move" : "") + '"><b>seat ' + s + "</b> " +
          esc(players[s]) + ' <span class="score">' + esc(String(score === undefined ? "" : score)) + " pts</span></div>";
      }
    };
    var own = G.render[game];
    if (own) {
      try { return own(ctx); } catch (err) { /* the generic view below */ }
    }
    return Object.keys(views).length ? G.generic(ctx) : '<div class="view-tree">' + G.tree(ctx.pub, 0) + "</div>";
  }

  function eventHtml(e, game, players) {
    var own = G.events[game];
    if (own) { try { return own(e, players); } catch (err) { /* generic */ } }
    return G.eventText(e, players);
  }

  function render(s) {
    current = s;
    var root = document.documentElement;
    root.setAttribute("data-step", String(s.step));
    root.setAttribute("data-shown", (s.shown || []).join(","));
    root.setAttribute("data-over", s.over ? "1" : "0");
    root.setAttribute("data-full", s.full ? "1" : "0");
    $("title").textContent = s.game + " · game " + s.id + (s.over ? " · over" : " · live");
    $("where").textContent = "step " + s.step + " · " + s.players.map(esc).join(" vs ");
    $("now-title").textContent = s.over ? "the game is over: every hand" :
      (s.shown.length ? "as played: the public view and seat " + s.shown.join(", ") + "'s hand" : "as played: the public view (no hand)");
    $("board").innerHTML = draw(s, s.players, s.game);
    if (s.full) {
      $("full-wrap").hidden = false;
      $("full-title").textContent = "every hand, " + s.full.behind_s + " s behind the play (step " + s.full.step + ")";
      $("full").innerHTML = draw(s.full, s.players, s.game);
    } else {
      $("full-wrap").hidden = true;
      $("full").innerHTML = "";
    }
    $("events").innerHTML = (s.events || []).slice(-20).map(function (e) { return "<li>" + eventHtml(e, s.game, s.players) + "</li>"; }).join("");
    if (s.over && cfg.finished) {
      $("finished").href = cfg.finished;
      $("finished").hidden = false;
    }
  }

  render(current);
  document.documentElement.setAttribute("data-ready", "1");
  if (current.over || !window.EventSource) { $("live-status").textContent = current.over ? "the game is over" : "no live updates in this browser"; return; }
  var source = new EventSource(cfg.stream);
  source.addEventListener("open", function () { $("live-status").textContent = "live"; });
  source.addEventListener("frame", function (ev) { render(JSON.parse(ev.data)); $("live-status").textContent = "live: " + new Date().toLocaleTimeString(); });
  source.addEventListener("over", function () { source.close(); $("live-status").textContent = "the game is over"; });
  source.addEventListener("gone", function () { source.close(); $("live-status").textContent = "this game is no longer followed here"; });
  source.addEventListener("error", function () { if (!current.over) { $("live-status").textContent = "reconnecting…"; } });
  window.addEventListener("pagehide", function () { source.close(); });
})();
