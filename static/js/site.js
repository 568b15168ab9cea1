// Keyboard and pointer controls for the tile being placed. Every control is also a
// plain link or form, so the game is playable without this file.
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
  const play = document.getElementById("play");
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
  const play = document.getElementById("play");
  if (!svg || !play || !play.dataset.preview || !window.htmx) return;
  const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(
    svg.getScreenCTM().inverse(),
  );
  const w = Number(play.dataset.w);
  const h = Number(play.dataset.h);
  const x = Math.floor(point.x) - Math.floor((w - 1) / 2);
  const y = Math.floor(point.y) - Math.floor((h - 1) / 2);
  const query = new URLSearchParams({ x, y, rotation: play.dataset.rotation });
  window.htmx.ajax("GET", `${play.dataset.preview}?${query}`, {
    source: play,
    target: "#play",
    swap: "outerHTML",
  });
});
