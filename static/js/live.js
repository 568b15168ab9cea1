// Live updates of a match page. The page's section names its stream (data-live): the server
// announces there each new version of what this page shows, and the page then fetches its
// own view (data-refresh), as a poll that found a change would. While the stream is open the
// page sends no polls; while it is away (a server that streams nothing, Redis down) the page
// polls as before, and tries the stream again a little later. Other scripts listen for other
// kinds of event on the stream: each new stream is announced by a "live:stream" event on the
// document, whose detail is the EventSource. A page in the background (a hidden tab) holds
// no stream and polls: a browser opens at most six HTTP/1.1 connections to a site, and each
// stream holds one; the page opens its stream again, and catches up, once shown.
"use strict";

(() => {
  const AGAIN_MS = 30000;
  // Fetches for one announced version: a second covers a fetch dropped while another request
  // was on its way; a page that still differs after that waits for the next version.
  const TRIES = 2;
  let source = null;
  let address = null;
  let announced = null;
  let fetchedFor = null;
  let tries = 0;
  let again = null;

  const section = () => document.getElementById("play");

  function stop() {
    if (source) source.close();
    source = null;
    address = null;
    clearTimeout(again);
    delete document.documentElement.dataset.live;
  }

  function start(play) {
    stop();
    address = play.dataset.live;
    const version = encodeURIComponent(play.dataset.version || "");
    const stream = new EventSource(`${address}?version=${version}`);
    source = stream;
    stream.addEventListener("open", () => {
      document.documentElement.dataset.live = "open";
    });
    stream.addEventListener("changed", (event) => {
      announced = JSON.parse(event.data).version;
      catchUp();
    });
    document.dispatchEvent(new CustomEvent("live:stream", { detail: stream }));
    stream.addEventListener("error", () => {
      delete document.documentElement.dataset.live;
      if (stream.readyState === EventSource.CLOSED && source === stream) {
        source = null;
        address = null;
        again = setTimeout(follow, AGAIN_MS);
      }
    });
  }

  // Fetch the page's view if a newer version was announced than the one it shows.
  function catchUp() {
    const play = section();
    if (!play || !play.dataset.refresh || !announced) return;
    if (announced === play.dataset.version) return;
    if (fetchedFor !== announced) {
      fetchedFor = announced;
      tries = 0;
    }
    if (tries >= TRIES) return;
    tries += 1;
    window.htmx.ajax("GET", play.dataset.refresh, {
      source: play,
      target: "#play",
      swap: "outerHTML",
    });
  }

  // Open, keep or close the stream for what the page shows now.
  function follow() {
    const play = section();
    if (!play || !play.dataset.live || !("EventSource" in window) || document.hidden) {
      stop();
      return;
    }
    if (play.dataset.live !== address) start(play);
    catchUp();
  }

  document.addEventListener("htmx:beforeRequest", (event) => {
    const polling = event.detail.elt.matches("[data-polling]");
    if (polling && source && source.readyState === EventSource.OPEN) event.preventDefault();
  });
  document.addEventListener("htmx:afterSettle", follow);
  document.addEventListener("DOMContentLoaded", follow);
  document.addEventListener("visibilitychange", follow);
  window.addEventListener("pagehide", stop);
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) follow();
  });
})();
