/* The ladder's pages: the leaderboard follows the server's update events; the upload form sends the
   archive and follows its check. Every text from the server goes in as textContent; the only HTML
   taken from the server is the leaderboard table, rendered and escaped by the server itself. */
(function () {
  "use strict";

  function $(id) { return document.getElementById(id); }

  function liveBoard() {
    var board = $("board"), live = $("live");
    if (!board || !window.EventSource) { return; }
    var busy = false, again = false;
    function shown() {
      var table = $("leaderboard");
      return table ? table.getAttribute("data-generation") : "";
    }
    function refresh() {
      if (busy) { again = true; return; }
      busy = true;
      fetch("/leaderboard/table", { credentials: "same-origin", cache: "no-store" })
        .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.text(); })
        .then(function (text) {
          board.innerHTML = text;
          live.textContent = "live: updated " + new Date().toLocaleTimeString();
        })
        .catch(function () { live.textContent = "live: the last refresh failed; retrying on the next update"; })
        .then(function () { busy = false; if (again) { again = false; refresh(); } });
    }
    var source = new EventSource("/events");
    source.addEventListener("update", function (ev) { if (ev.data !== shown()) { refresh(); } });
    source.addEventListener("error", function () { live.textContent = "live: reconnecting…"; });
    window.addEventListener("pagehide", function () { source.close(); });
  }

  function uploadForm() {
    var form = $("upload");
    if (!form) { return; }
    var verdict = $("verdict"), report = $("report"), input = $("archive");
    function show(text, body) {
      verdict.textContent = text;
      report.hidden = !body;
      report.textContent = body || "";
    }
    // Follows a submission until its verdict. A failed request (the server busy or restarting, the
    // network gone for a moment) is retried with a growing pause, never given up: the check goes on
    // on the server whatever the page does. Only "not yours" or "signed out" stops it.
    function follow(id, started, failures) {
      function again(pause) { setTimeout(function () { follow(id, started, failures); }, pause); }
      fetch("/submissions/" + id + ".json", { credentials: "same-origin", cache: "no-store" })
        .then(function (r) {
          if (r.status === 401 || r.status === 404) {
            return r.json().then(function (e) { return { status: "stopped", reason: e.error || ("HTTP " + r.status) }; });
          }
          if (!r.ok) { throw new Error("HTTP " + r.status); }
          return r.json();
        })
        .then(function (s) {
          var secs = Math.round((Date.now() - started) / 1000);
          failures = 0;
          if (s.status === "passed") {
            show("submission " + id + ": passed — " + s.reason + ". Your bot joined the ladder.", s.report);
            var link = document.createElement("a");
            link.href = "/bots/" + Number(s.bot);
            link.textContent = " Open your bot's page";
            verdict.appendChild(link);
          } else if (s.status === "refused") {
            show("submission " + id + ": refused — " + s.reason, s.report);
          } else if (s.status === "stopped") {
            show("submission " + id + ": " + s.reason + "; reload to see its verdict", "");
          } else {
            show("submission " + id + ": " + s.status + " (" + secs + " s)…", "");
            again(1000);
          }
        })
        .catch(function () {
          failures += 1;
          var pause = Math.min(10000, 1000 * Math.pow(2, failures - 1));
          show("submission " + id + ": checking; lost contact with the server, trying again in " +
               Math.round(pause / 1000) + " s…", "");
          again(pause);
        });
    }
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var file = input.files && input.files[0];
      if (!file) { show("choose an archive first", ""); return; }
      show("uploading " + file.name + "…", "");
      fetch("/submit", {
        method: "POST", credentials: "same-origin", body: file,
        headers: { "Content-Type": "application/octet-stream", "X-Arena-CSRF": form.getAttribute("data-csrf") }
      })
        .then(function (r) { return r.json().then(function (body) { return [r.status, body]; }); })
        .then(function (pair) {
          var body = pair[1];
          if (pair[0] === 202) { follow(body.submission, Date.now(), 0); }
          else if (body.status === "refused") { show("submission " + body.submission + ": refused — " + body.reason, ""); }
          else { show("the upload failed: " + (body.error || ("HTTP " + pair[0])), ""); }
        })
        .catch(function () { show("the upload failed: the server did not answer", ""); });
    });
  }

  liveBoard();
  uploadForm();
}());
