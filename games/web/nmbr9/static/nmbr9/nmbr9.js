// NMBR 9 on the page: a click on the own board moves the tile being placed there, the board
// shown one level at a time, and the own board's scrolling on a narrow screen.
"use strict";

// A click on the board previews the tile being placed where it was clicked.
document.addEventListener("click", (event) => {
  const svg = event.target.closest("svg[data-board='play']");
  const play = document.getElementById("turn");
  if (!svg || !play || !play.dataset.preview || !window.htmx) return;
  const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(
    svg.getScreenCTM().inverse(),
  );
  const w = Number(play.dataset.w);
  const h = Number(play.dataset.h);
  const x = Math.floor(point.x) - Math.floor((w - 1) / 2);
  const y = Math.floor(point.y) - Math.floor((h - 1) / 2);
  const url = new URL(play.dataset.preview, window.location.href);
  url.searchParams.set("x", x);
  url.searchParams.set("y", y);
  url.searchParams.set("rotation", play.dataset.rotation);
  window.htmx.ajax("GET", url.pathname + url.search, {
    source: play,
    target: "#turn",
    swap: "outerHTML",
  });
});

// One level at a time: the player's own board shows the chosen level, the levels beneath it
// faded and nothing above it, so what lies under the top tiles can be read. The choice is
// kept for the tab and applied again to every board the page receives.
let layer = sessionStorage.getItem("layer") ?? "";
function showLayer() {
  const wrap = document.querySelector(".board-wrap.own");
  const chosen = layer === "" ? null : Number(layer);
  if (wrap) {
    wrap.classList.toggle("one-level", chosen !== null);
    for (const el of wrap.querySelectorAll("[data-level]")) {
      const level = Number(el.dataset.level);
      el.classList.toggle("above", chosen !== null && level > chosen);
      el.classList.toggle("below", chosen !== null && level < chosen);
    }
  }
  for (const group of document.querySelectorAll("[data-layers]")) group.hidden = false;
  for (const button of document.querySelectorAll("button[data-layer]")) {
    button.setAttribute("aria-pressed", String(button.dataset.layer === layer));
  }
}
document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-layer]");
  if (!button) return;
  layer = button.dataset.layer;
  sessionStorage.setItem("layer", layer);
  showLayer();
});
showLayer();
document.addEventListener("htmx:afterSettle", showLayer);

// Where the own board scrolls in its frame (narrow screens), it keeps its place from one
// answer to the next, and the tile being placed stays in sight.
let scrolled = null;
document.addEventListener("htmx:beforeSwap", () => {
  const wrap = document.querySelector(".board-wrap.own");
  scrolled = wrap ? [wrap.scrollLeft, wrap.scrollTop] : null;
});
function showGhost() {
  const wrap = document.querySelector(".board-wrap.own");
  if (wrap && scrolled) [wrap.scrollLeft, wrap.scrollTop] = scrolled;
  scrolled = null;
  const ghost = wrap?.querySelector(".ghost");
  if (!ghost || wrap.scrollWidth <= wrap.clientWidth + 1) return;
  const box = ghost.getBoundingClientRect();
  const frame = wrap.getBoundingClientRect();
  if (box.left < frame.left || box.right > frame.right) {
    wrap.scrollLeft += box.left - frame.left - (frame.width - box.width) / 2;
  }
  if (box.top < frame.top || box.bottom > frame.bottom) {
    wrap.scrollTop += box.top - frame.top - (frame.height - box.height) / 2;
  }
}
showGhost();
document.addEventListener("htmx:afterSettle", showGhost);


// A tutorial's new step starts with its whole display in sight: in the board's frame (which
// kept its scrolling from the step before), and above the controls that stay at the bottom
// of a narrow screen, with the step's sentence where both fit.
let step = document.getElementById("learn")?.dataset.step;
function showStep() {
  const learn = document.getElementById("learn");
  if (!learn || learn.dataset.step === step) return;
  step = learn.dataset.step;
  const wrap = learn.querySelector(".board-wrap.own");
  if (!wrap) return;
  const pieces = [...wrap.querySelectorAll(".tile, .ghost")].map((el) => el.getBoundingClientRect());
  if (pieces.length) {
    const frame = wrap.getBoundingClientRect();
    const left = Math.min(...pieces.map((box) => box.left));
    const right = Math.max(...pieces.map((box) => box.right));
    const topmost = Math.min(...pieces.map((box) => box.top));
    const bottom = Math.max(...pieces.map((box) => box.bottom));
    wrap.scrollLeft += (left + right) / 2 - (frame.left + frame.right) / 2;
    wrap.scrollTop += (topmost + bottom) / 2 - (frame.top + frame.bottom) / 2;
  }
  const bar = learn.querySelector("#turn .controls");
  const sticky = bar && getComputedStyle(bar).position === "sticky";
  const room = window.innerHeight - (sticky ? bar.getBoundingClientRect().height : 0);
  const board = wrap.getBoundingClientRect();
  if (board.top >= 0 && board.bottom <= room) return;
  const top = learn.getBoundingClientRect().top;
  window.scrollBy(0, board.bottom - top <= room ? top : board.top);
}
document.addEventListener("htmx:afterSettle", showStep);

// The others' moves are told in a live region of the page, outside the parts that are
// swapped (screen readers hear what changes in a region they already know): each turn the
// page receives that it has not shown yet, not those it came with.
const told = new Set();
function newsRegion() {
  const list = document.querySelector("[data-news-list]");
  if (!list) return null;
  let region = document.getElementById("nmbr9-news");
  if (!region) {
    region = document.createElement("div");
    region.id = "nmbr9-news";
    region.className = "visually-hidden";
    region.setAttribute("role", "status");
    region.setAttribute("aria-live", "polite");
    (document.querySelector("main") || document.body).append(region);
  }
  region.setAttribute("aria-label", list.dataset.newsList);
  return region;
}
function tellNews(announce) {
  const region = newsRegion();
  const fresh = [];
  for (const item of document.querySelectorAll("[data-news]")) {
    if (told.has(item.dataset.news)) continue;
    told.add(item.dataset.news);
    fresh.push(item.textContent.trim());
  }
  if (announce && region && fresh.length) region.textContent = fresh.join(" ");
}
tellNews(false);
document.addEventListener("htmx:afterSettle", () => tellNews(true));

// After the player's own move the turn is new and the control that had the keyboard's focus
// is gone: the focus goes to the next tile's Confirm (which tells where it fits; the keys
// still move and turn it, the list of spots follows), not back to the top of the page. A
// page changed by the others' moves keeps the focus where it was.
document.addEventListener("htmx:afterSettle", (event) => {
  const config = event.detail.requestConfig;
  if (!config || config.verb !== "post" || event.detail.target.id !== "play") return;
  const active = document.activeElement;
  if (active && active !== document.body && document.contains(active)) return;
  const confirm = document.querySelector("#play [data-key='confirm']:not(:disabled)");
  const next = confirm || document.getElementById("spot");
  if (next) next.focus({ preventScroll: true });
});
