// The link package's launch page: frames the hosted TileLab and relays its score to the LMS.
//
// score.js, loaded just before, found the LMS's SCORM 1.2 API (this page is the SCO) and owns
// the conversation, and it counts only the questions this package's page lists (written by the
// build, the same as imsmanifest.xml): the frame says which question was answered, never how
// many count. This file frames the hosted copy named in the frame's data-src, with a random
// nonce in its address (`relay=`); it says hello to it with that nonce (and the answers recorded
// in earlier sessions, so the student sees them again), and records the answers it posts back
// carrying the same nonce. Only messages from that frame's window, from the hosted copy's origin
// and with the nonce are read; anything else is ignored, and the hosted page relays to no parent
// that cannot echo the nonce.
(function () {
  "use strict";
  var frame = document.getElementById("tilelab");
  var hosted = new URL(frame.getAttribute("data-src"), location.href);
  var origin = hosted.origin;
  var score = window.tilelabScore;
  var bytes = new Uint8Array(16);
  window.crypto.getRandomValues(bytes);
  var nonce = Array.prototype.map
    .call(bytes, function (byte) {
      return ("0" + byte.toString(16)).slice(-2);
    })
    .join("");
  hosted.hash += (hosted.hash.indexOf("?") >= 0 ? "&" : "?") + "relay=" + nonce;

  function hello() {
    if (!frame.contentWindow) return;
    frame.contentWindow.postMessage({ type: "tilelab:hello", nonce: nonce, answers: score.restored() }, origin);
  }

  window.addEventListener("message", function (event) {
    var data = event.data;
    if (event.origin !== origin || event.source !== frame.contentWindow || !data) return;
    if (data.type === "tilelab:hello?") {
      hello();
    } else if (data.type === "tilelab:answer" && data.nonce === nonce && typeof data.key === "string") {
      score.answer(data.key, data.correct === true, 0, String(data.text || ""));
    }
  });
  frame.addEventListener("load", hello);
  frame.src = hosted.href;
})();
