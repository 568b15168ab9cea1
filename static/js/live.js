// Live updates of a match page. The page's section names its stream (data-live): the server
// announces there each new version of what this page shows, and the page then fetches its
// own view (data-refresh), as a poll that found a change would. While the stream is open the
// page sends no polls; while it is away (a server that streams nothing, Redis down) the page
// polls as before, and tries the stream again a little later. Other scripts listen for other
// kinds of event on the stream: each new stream is announced by a "live:stream" event on the
// document, whose detail is the EventSource. A page in the background (a hidden tab) holds
// no stream and polls: a browser opens at most six HTTP/1.1 connections to a site, and each
// stream holds one; the page opens its stream again, and catches up, once shown.
//
// A page whose player owes a move (data-owes: the deadline, empty in a match without any;
// data-turn: the game's number of the decision; data-ply: the moves they made) is fetched
// again too, from data-page: with each new version the stream announces (the others' moves,
// a move made for them), and, stream or not, once their time is up (plus a grace, in the
// server's time), so that the move made for them and their next turn show without a
// reload. While the answer still owes the same move, the turn being made (#turn: the tile
// moved about, the cards selected) is kept as it is.
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

  // The address a page is fetched again from, if it is: a page waiting for the others, or
  // one whose player owes a move.
  const refreshOf = (play) => play.dataset.refresh || play.dataset.page;

  function refetch(play) {
    window.htmx.ajax("GET", refreshOf(play), { source: play, target: "#play", swap: "outerHTML" });
  }

  // Fetch the page's view if a newer version was announced than the one it shows.
  function catchUp() {
    const play = section();
    if (!play || !refreshOf(play) || !announced) return;
    if (announced === play.dataset.version) return;
    if (fetchedFor !== announced) {
      fetchedFor = announced;
      tries = 0;
    }
    if (tries >= TRIES) return;
    tries += 1;
    refetch(play);
  }

  // Once the owed move's time is up, the page is fetched again after GRACE_MS, then, while
  // the move made for the player is not there yet, after longer and longer waits.
  const GRACE_MS = 1500;
  const LATER_MS = [2000, 4000, 8000, 15000, 30000];
  const LONGEST_MS = 2 ** 31 - 1; // the longest wait setTimeout takes (24.8 days)
  let overdue = null;
  let overdueFor = null;
  let overdueTries = 0;

  function watchDeadline() {
    clearTimeout(overdue);
    const play = section();
    const deadline = play && play.dataset.owes && Date.parse(play.dataset.owes);
    if (!deadline || !play.dataset.page) return;
    const owed = `${play.dataset.ply} ${play.dataset.owes}`;
    if (overdueFor !== owed) {
      overdueFor = owed;
      overdueTries = 0;
    }
    if (overdueTries > LATER_MS.length) return;
    const now = window.site?.serverNow ? window.site.serverNow() : Date.now();
    const wait = overdueTries === 0 ? deadline + GRACE_MS - now : LATER_MS[overdueTries - 1];
    if (wait > LONGEST_MS) {
      overdue = setTimeout(watchDeadline, LONGEST_MS);
      return;
    }
    overdue = setTimeout(() => {
      const current = section();
      if (!current || document.hidden) return; // looked at again once shown
      overdueTries += 1;
      refetch(current);
    }, Math.max(wait, 0));
  }
  // A fetch that failed tries again later (one that was answered is watched afresh).
  document.addEventListener("htmx:afterRequest", (event) => {
    if (!event.detail.successful) watchDeadline();
  });

  // An answer fetched here (from #play itself) that still owes the move the page owes keeps
  // the turn being made: htmx puts the page's own #turn in place of the answer's
  // (hx-preserve).
  document.addEventListener("htmx:beforeSwap", (event) => {
    const play = section();
    if (play?.dataset.owes === undefined || !document.getElementById("turn")) return;
    if (event.detail.requestConfig?.elt !== play || event.detail.isError) return;
    const answer = document.createElement("template");
    answer.innerHTML = event.detail.serverResponse;
    const next = answer.content.getElementById("play");
    const nextTurn = answer.content.getElementById("turn");
    if (!next || !nextTurn || next.dataset.owes !== play.dataset.owes) return;
    if (next.dataset.ply !== play.dataset.ply || next.dataset.turn !== play.dataset.turn) return;
    nextTurn.setAttribute("hx-preserve", "");
    event.detail.serverResponse = answer.innerHTML;
  });

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

  // A refresh that brings a link to follow at once (data-go: the rematch has started) goes
  // there; a link the page already showed when it was loaded is only a link.
  const loadedWith = new Set();
  function go() {
    const link = document.querySelector("#play a[data-go]");
    if (link && !loadedWith.has(link.href)) window.location.assign(link.href);
  }
  document.addEventListener("DOMContentLoaded", () => {
    for (const link of document.querySelectorAll("a[data-go]")) loadedWith.add(link.href);
  });
  document.addEventListener("htmx:afterSettle", go);

  function update() {
    follow();
    watchDeadline();
  }

  document.addEventListener("htmx:beforeRequest", (event) => {
    const polling = event.detail.elt.matches("[data-polling]");
    if (polling && source && source.readyState === EventSource.OPEN) event.preventDefault();
  });
  document.addEventListener("htmx:afterSettle", update);
  document.addEventListener("DOMContentLoaded", update);
  document.addEventListener("visibilitychange", update);
  window.addEventListener("pagehide", stop);
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) update();
  });
})();
