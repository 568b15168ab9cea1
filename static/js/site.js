// Keyboard and pointer controls for the tile being placed, and the arrow keys of a replay.
// Every control is also a plain link or form, so the game is playable without this file.
"use strict";

const KEYS = {
  ArrowLeft: "left",
  ArrowRight: "right",
  ArrowUp: "up",
  ArrowDown: "down",
  Enter: "confirm",
};

function controlFor(event) {
  if (event.key === "r" || event.key === "R") {
    return event.shiftKey ? "rotate_back" : "rotate";
  }
  return KEYS[event.key];
}

document.addEventListener("keydown", (event) => {
  const play = document.getElementById("turn") || document.querySelector(".replay-nav");
  if (!play || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.target.closest("input, textarea, select")) return;
  if (event.key === "Enter" && event.target.closest("a, button, summary")) return;
  const name = controlFor(event);
  if (!name) return;
  const control = play.querySelector(`[data-key="${name}"]`);
  if (!control) return;
  event.preventDefault();
  if (!control.disabled) control.click();
});

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

// Deadlines count down in the browser; without JavaScript they show the time left at load.
// The words come from the page, in its language: data-up ("time is up") and data-units
// ("d,h,m,s").
function formatLeft(ms, up, units) {
  if (ms <= 0) return up;
  const [du, hu, mu, su] = units;
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (d > 0) return `${d}${du} ${h}${hu} ${m}${mu}`;
  if (h > 0) return `${h}${hu} ${m}${mu} ${sec}${su}`;
  return `${m}${mu} ${sec}${su}`;
}

function tick() {
  for (const el of document.querySelectorAll("time[data-countdown]")) {
    const left = new Date(el.getAttribute("datetime")) - Date.now();
    const units = (el.dataset.units || "d,h,m,s").split(",");
    el.textContent = formatLeft(left, el.dataset.up || "time is up", units);
    el.classList.toggle("urgent", left < 3600 * 1000);
  }
}

tick();
setInterval(tick, 1000);
