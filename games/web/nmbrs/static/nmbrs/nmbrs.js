// nmbrs! on the page: quick clicks on the cards of a hand (site.js's ``window.site``).
"use strict";

// A card of the hand is clicked as a key presses its control (site.js): its link holds the
// selection of the page it came with, so a click while the previous one's answer is on its
// way waits for it, then clicks the same card in the hand that answer brought, toggling it
// in the selection as it is now. A click with a modifier key goes its usual way.
document.addEventListener(
  "click",
  (event) => {
    const card = event.target.closest("a[data-pick]");
    if (!card || site.pressing || !window.htmx || !site.controls()?.contains(card)) return;
    if (event.button !== 0 || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
    site.pressQueued(`a[data-pick="${card.dataset.pick}"]`);
  },
  true,
);

// A card of the hand is a toggle button: Space presses it as Enter does, queued as a click.
document.addEventListener("keydown", (event) => {
  if (event.key !== " " || event.altKey || event.ctrlKey || event.metaKey) return;
  const card = event.target.closest?.('a[role="button"][data-pick]');
  if (!card) return;
  event.preventDefault();
  if (window.htmx && site.controls()?.contains(card)) {
    site.pressQueued(`a[data-pick="${card.dataset.pick}"]`);
  } else {
    card.click();
  }
});

// What the others did, said aloud: the page's hidden news (``data-news``: the latest lines
// of the match's history that other players' moves made, numbered) is compared, whenever
// the page changes (a move, a poll, a live update), with what the page had shown, and the
// lines new to it go to a polite live region that stays in place across the swaps. After a
// swap that took the focus away with the controls it was on, the turn takes it.
(() => {
  let heard = null;
  let region = null;

  function announcer() {
    if (!region || !region.isConnected) {
      region = document.createElement("div");
      region.className = "visually-hidden";
      region.setAttribute("role", "status");
      region.setAttribute("aria-live", "polite");
      region.dataset.announcer = "";
      (document.querySelector("main") || document.body).append(region);
    }
    return region;
  }

  function listen() {
    const news = document.querySelector("[data-news]");
    if (!news) return;
    const said = announcer();
    const now = Number(news.dataset.heard);
    if (heard === null || now < heard) {
      heard = now;
      return;
    }
    if (now === heard) return;
    const lines = [...news.querySelectorAll("[data-line]")]
      .filter((line) => Number(line.dataset.line) >= heard)
      .map((line) => line.textContent.trim());
    heard = now;
    const yours = news.querySelector("[data-your-move]");
    if (lines.length && yours) lines.push(yours.textContent.trim());
    if (lines.length) said.textContent = lines.join(" ");
  }

  let focused = false;

  function refocus(event) {
    const swapped = event.detail?.target;
    if (!focused || !swapped || !["play", "turn"].includes(swapped.id)) return;
    focused = false;
    const lost = !document.activeElement || document.activeElement === document.body;
    const turn = document.querySelector(".nmbrs-turn");
    if (lost && turn) turn.focus({ preventScroll: true });
  }

  document.addEventListener("DOMContentLoaded", listen);
  // Whether the focus was in what a swap replaces, or on the control that asked for it (a
  // button is disabled while its request is on its way, which may take the focus away).
  document.addEventListener("htmx:beforeSwap", (event) => {
    const target = event.detail.target;
    const active = document.activeElement;
    const asked = event.detail.requestConfig?.elt;
    focused = Boolean(
      target &&
        ((active && active !== document.body && target.contains(active)) ||
          (asked && asked !== target && target.contains(asked) && !asked.matches("[data-polling]"))),
    );
  });
  document.addEventListener("htmx:afterSettle", (event) => {
    listen();
    refocus(event);
  });
})();
