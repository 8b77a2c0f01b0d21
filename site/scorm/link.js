// The link package's launch page: frames the hosted TileLab and relays its score to the LMS.
//
// score.js, loaded just before, found the LMS's SCORM 1.2 API (this page is the SCO) and owns
// the conversation. This file frames the hosted copy named in the frame's data-src, says hello
// to it (with the answers recorded in earlier sessions, so the student sees them again), and
// records the answers it posts back. Only messages from that frame's window and from the hosted
// copy's origin are read; anything else is ignored.
(function () {
  "use strict";
  var frame = document.getElementById("tilelab");
  var hosted = new URL(frame.getAttribute("data-src"), location.href);
  var origin = hosted.origin;
  var score = window.tilelabScore;

  function hello() {
    if (!frame.contentWindow) return;
    frame.contentWindow.postMessage({ type: "tilelab:hello", answers: score.restored() }, origin);
  }

  window.addEventListener("message", function (event) {
    var data = event.data;
    if (event.origin !== origin || event.source !== frame.contentWindow || !data) return;
    if (data.type === "tilelab:hello?") {
      hello();
    } else if (data.type === "tilelab:answer" && typeof data.key === "string") {
      score.answer(data.key, data.correct === true, Number(data.total) || 0, String(data.text || ""));
    }
  });
  frame.addEventListener("load", hello);
  frame.src = hosted.href;
})();
