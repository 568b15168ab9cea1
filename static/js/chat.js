// A match's chat. New messages come without reloading the page: where the page follows its
// match live (static/js/live.js), the stream says when the chat has something new ("chat"
// events, which carry no text) and the messages are fetched as the reader may read them;
// elsewhere the chat polls (its data-polling element, which live.js holds back while a
// stream is open). Enter sends a message, Shift+Enter starts a new line. Without this file
// the form is sent as a plain form.
"use strict";

(() => {
  const log = () => document.getElementById("chat-log");
  let streams = 0;

  function refresh() {
    const el = log();
    if (!el || !el.dataset.chatRefresh || !window.htmx) return;
    window.htmx.ajax("GET", el.dataset.chatRefresh, {
      source: el,
      target: "#chat-log",
      swap: "outerHTML",
    });
  }

  document.addEventListener("live:stream", (event) => {
    const stream = event.detail;
    // A stream opened again after one was lost may have missed messages meanwhile.
    if (streams++ > 0) stream.addEventListener("open", refresh, { once: true });
    stream.addEventListener("chat", refresh);
  });

  document.addEventListener("keydown", (event) => {
    const box = event.target.closest?.("#chat-text");
    if (!box || event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    if (box.value.trim()) box.form.requestSubmit();
  });
})();
