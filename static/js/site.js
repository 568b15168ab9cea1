// Keys for a game's controls (data-key: the tile being placed, the rounds of a replay), the
// replay's autoplay, deadlines, local times, forms' conditions, the service worker.
// Every control is also a plain link or form, so the game is playable without this file.
// A game's own script (static/<game>/<game>.js) uses what ``window.site`` offers.
"use strict";

document.documentElement.classList.add("js");

const KEYS = {
  ArrowLeft: "left",
  ArrowRight: "right",
  ArrowUp: "up",
  ArrowDown: "down",
  Enter: "confirm",
  Home: "home",
  End: "end",
};

function controlFor(event) {
  if (event.key === "r" || event.key === "R") {
    return event.shiftKey ? "rotate_back" : "rotate";
  }
  return KEYS[event.key];
}

// The controls the keys press: the tile being placed, else a replay's rounds.
function controls() {
  return document.getElementById("turn") || document.querySelector(".replay-nav");
}

// The control a key presses, as a selector.
const keyed = (name) => `[data-key="${name}"]`;

// Presses the control ``selector`` finds among the controls; true when it sent a request
// whose answer replaces the controls. htmx binds new controls only once their swap has
// settled, so the control is bound here first: a key pressed just after a swap is not taken
// for a plain link. A request htmx drops (another is on its way) sends nothing and leaves
// nothing to wait for.
let started = false;
let pressing = false;
document.addEventListener("htmx:beforeRequest", () => {
  started = true;
});
let pressed = null; // the control whose answer is on its way
function press(selector) {
  const control = controls()?.querySelector(selector);
  if (!control || control.disabled) return false;
  const requests = window.htmx && control.matches("[hx-get], [hx-post]");
  if (requests) window.htmx.process(control);
  pressed = control;
  started = false;
  pressing = true;
  try {
    control.click();
  } finally {
    pressing = false;
  }
  return Boolean(requests) && started;
}

// Quick presses are never dropped: a key pressed while the previous one's answer is on its
// way waits for it, then presses the control that answer brought. The waiting presses are
// selectors of controls.
const waiting = [];
let busy = false;
const next = () => {
  busy = false;
  while (waiting.length && !busy) busy = press(waiting.shift());
};
document.addEventListener("htmx:afterSettle", (event) => {
  if (event.target.contains(controls())) next();
});
document.addEventListener("htmx:afterRequest", (event) => {
  if (!event.detail.successful) {
    waiting.length = 0;
    busy = false;
  }
});

document.addEventListener("keydown", (event) => {
  const area = controls();
  if (!area || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.target.closest("input, textarea, select")) return;
  if (event.key === "Enter" && event.target.closest("a, button, summary")) return;
  const name = controlFor(event);
  if (!name || !area.querySelector("[data-key]")) return;
  if (busy) {
    event.preventDefault();
    waiting.push(keyed(name));
    return;
  }
  if (!area.querySelector(keyed(name))) return;
  event.preventDefault();
  busy = press(keyed(name));
});

// What the games' own scripts use: the area of the controls, and a press of the control a
// selector finds there that waits, as keys do, for the previous press's answer.
window.site = {
  controls,
  pressQueued(selector) {
    if (busy) waiting.push(selector);
    else busy = press(selector);
  },
  get pressing() {
    return pressing;
  },
  // The server's clock now (ms since the epoch), as the page's latest answer told it.
  serverNow: () => serverNow(),
};

// A replay plays itself: the autoplay button steps forward every AUTOPLAY_MS until the end
// (from the start again if pressed at the end); pressed again, or Back, it pauses. Back and
// Forward bring back an earlier copy of the page (htmx's history), whose button is set up
// afresh.
const AUTOPLAY_MS = 1200;
let stopAutoplay = () => {};
function setUpAutoplay() {
  stopAutoplay();
  const autoplay = document.querySelector("[data-autoplay]");
  if (!autoplay) return;
  autoplay.dataset.play ??= autoplay.textContent;
  let timer = null;
  const control = (name) => controls()?.querySelector(keyed(name));
  const stop = () => {
    clearInterval(timer);
    timer = null;
    autoplay.textContent = autoplay.dataset.play;
    autoplay.setAttribute("aria-pressed", "false");
  };
  stopAutoplay = stop;
  stop();
  autoplay.hidden = false;
  autoplay.addEventListener("click", () => {
    if (timer) {
      stop();
      // The step asked for before the pause is not shown after it.
      if (busy) dropped = pressed;
      return;
    }
    if (!control("right")) busy = press(keyed("home"));
    timer = setInterval(() => {
      if (busy) return;
      if (control("right")) busy = press(keyed("right"));
      else stop();
    }, AUTOPLAY_MS);
    autoplay.textContent = autoplay.dataset.pause;
    autoplay.setAttribute("aria-pressed", "true");
  });
}
let dropped = null; // the control whose answer, once here, is not shown
document.addEventListener("htmx:beforeSwap", (event) => {
  if (!dropped || event.detail.requestConfig?.elt !== dropped) return;
  event.detail.shouldSwap = false;
  dropped = null;
  waiting.length = 0;
  busy = false;
});
setUpAutoplay();
window.addEventListener("popstate", () => stopAutoplay());
document.addEventListener("htmx:historyRestore", setUpAutoplay);

// Deadlines count down in the browser; without JavaScript they show the time left at load.
// The words come from the page, in its language: data-up ("time is up") and data-units
// ("d,h,m,s"). They count in the server's time: each countdown brings the server's clock
// (data-now, ms since the epoch) as it was drawn, and the difference from the browser's
// clock is taken again with every part of the page that brings one (the attribute is then
// dropped, so that a copy of the page kept for Back never brings an old time).
let offset = 0;
const serverNow = () => Date.now() + offset;
function readServerTime(root) {
  for (const el of root.querySelectorAll("[data-now]")) {
    const now = Number(el.dataset.now);
    if (Number.isFinite(now) && now > 0) offset = now - Date.now();
    delete el.dataset.now;
  }
}

// Under ten minutes the time left is "m:ss", a second shown until it has fully passed;
// longer, in days, hours, minutes and seconds.
const SHORT_MS = 10 * 60 * 1000;
function formatLeft(ms, up, units) {
  if (ms <= 0) return up;
  if (ms < SHORT_MS) {
    const s = Math.ceil(ms / 1000);
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }
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

// Every second, four times a second while a countdown is in its last minute; under an hour
// a countdown is urgent (a real-time one is not: data-quick); the last
// LOW_MS are marked (countdown-low). The element is a timer, which screen readers do not
// read out at each change.
const LOW_MS = 5000;
const QUICK_MS = 250;
let ticking = null;
function tick() {
  clearTimeout(ticking);
  let soonest = Infinity;
  for (const el of document.querySelectorAll("time[data-countdown]")) {
    const left = new Date(el.getAttribute("datetime")) - serverNow();
    const units = (el.dataset.units || "d,h,m,s").split(",");
    const text = formatLeft(left, el.dataset.up || "time is up", units);
    if (el.textContent !== text) el.textContent = text;
    // A real-time clock (data-quick) is marked in its last seconds alone, not all along.
    el.classList.toggle("urgent", !el.hasAttribute("data-quick") && left < 3600 * 1000);
    el.classList.toggle("countdown-low", left > 0 && left <= LOW_MS);
    if (left > 0) soonest = Math.min(soonest, left);
  }
  ticking = setTimeout(tick, soonest < 60 * 1000 ? QUICK_MS : 1000);
}

readServerTime(document);
tick();
// A part of the page brought by htmx counts down from the moment it is shown, in the
// server's time it brings.
document.addEventListener("htmx:afterSwap", () => {
  readServerTime(document);
  tick();
});

// The tab title counts the matches waiting for the player's move: "(2) …". The home page's
// list and the game page bring the count with every update (data-moves-owed).
document.addEventListener("htmx:afterSettle", () => {
  const owed = document.querySelector("[data-moves-owed]");
  if (!owed) return;
  const count = Number(owed.dataset.movesOwed);
  const bare = document.title.replace(/^\(\d+\) /, "");
  document.title = count > 0 ? `(${count}) ${bare}` : bare;
});

// Back on the tab, the home page's list of matches is fetched at once, not at the next tick.
document.addEventListener("visibilitychange", () => {
  const list = document.getElementById("my-matches");
  if (list && document.visibilityState === "visible" && window.htmx) {
    window.htmx.trigger(list, "refresh");
  }
});

// The server writes times in UTC; the browser shows them in its own time zone and language,
// the UTC time on hover. data-local: "datetime", "date", "time" (the time of day, and the
// day too unless it is today), "zoned" (the day and time with the zone's name: a time typed
// in UTC and read in another zone), or "title" (the text stays, the local time on hover).
function localTimes(root) {
  const language = document.documentElement.lang || undefined;
  for (const el of root.querySelectorAll("time[data-local]")) {
    const at = new Date(el.getAttribute("datetime"));
    if (Number.isNaN(at.getTime())) continue;
    const style = el.dataset.local;
    const today = at.toDateString() === new Date().toDateString();
    let options = { dateStyle: "short", timeStyle: "short" };
    if (style === "date") options = { dateStyle: "short" };
    else if (style === "time" && today) options = { timeStyle: "short" };
    else if (style === "zoned") {
      options = { year: "numeric", month: "short", day: "numeric", hour: "2-digit",
        minute: "2-digit", timeZoneName: "short" };
    }
    const local = new Intl.DateTimeFormat(language, options).format(at);
    el.dataset.utc ??= el.title;
    if (style === "title") {
      el.title = `${local} (${el.dataset.utc})`;
    } else {
      el.textContent = local;
      el.title = el.dataset.utc;
    }
  }
}
localTimes(document);
document.addEventListener("htmx:afterSettle", (event) => localTimes(event.target));

// Text a phone keeps folded (a tournament's rules) is open at once on a wide screen.
if (window.matchMedia("(min-width: 641px)").matches) {
  for (const details of document.querySelectorAll("details[data-open-wide]")) details.open = true;
}

// Forms offer only what goes with the choices made: a control with data-enabled-when
// ({"field": ["value", ...]}) is enabled while every field named has one of those values,
// an element with data-shown-when is shown under the same terms. A field the form lacks
// holds no condition. A radio button disabled while chosen gives way to the first enabled
// one of its group. The server checks every combination all the same.
function holds(form, conditions) {
  return Object.entries(JSON.parse(conditions)).every(([name, values]) => {
    const fields = [...form.elements].filter((el) => el.name === name && !el.disabled);
    if (fields.length === 0) return !form.elements.namedItem(name);
    const chosen = fields
      .filter((el) => !["radio", "checkbox"].includes(el.type) || el.checked)
      .map((el) => el.value);
    return chosen.some((value) => values.includes(value));
  });
}
function applyConditions(form) {
  for (let round = 0; round < 3; round++) {
    let changed = false;
    for (const el of form.querySelectorAll("[data-shown-when]")) {
      const hidden = !holds(form, el.dataset.shownWhen);
      if (el.hidden !== hidden) [el.hidden, changed] = [hidden, true];
    }
    for (const el of form.querySelectorAll("[data-enabled-when]")) {
      const disabled = !holds(form, el.dataset.enabledWhen);
      if (el.disabled === disabled) continue;
      [el.disabled, changed] = [disabled, true];
      el.closest("label")?.classList.toggle("disabled", disabled);
      if (disabled && el.type === "radio" && el.checked) {
        el.checked = false;
        const group = [...form.elements].filter((r) => r.name === el.name && !r.disabled);
        if (group.length) group[0].checked = true;
      }
    }
    if (!changed) return; // a change can change what other conditions see: settle them
  }
}
for (const form of document.querySelectorAll("form[data-conditions]")) {
  applyConditions(form);
  form.addEventListener("change", () => applyConditions(form));
}

// A start typed in the player's own time zone: a hidden field with data-zone (the name of the
// start's field) sends the browser's zone (an IANA name) with the form. A form drawn fresh
// suggests its start in UTC, shown here in that zone; one sent back with a zone keeps its
// start as typed. The label names the zone (data-zone-label, "{zone}" replaced).
function typedLocally(at) {
  const pad = (n) => String(n).padStart(2, "0");
  const day = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
  return `${day}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}
function startsInOwnZone() {
  const name = Intl.DateTimeFormat().resolvedOptions().timeZone;
  for (const zone of document.querySelectorAll("input[data-zone]")) {
    const field = zone.form && zone.form.elements.namedItem(zone.dataset.zone);
    if (!field || !name) continue;
    if (!zone.value) {
      const suggested = new Date(`${field.value}:00Z`);
      if (field.value && !Number.isNaN(suggested.getTime())) field.value = typedLocally(suggested);
      zone.value = name;
    }
    const label = field.labels && field.labels[0];
    if (label && zone.dataset.zoneLabel) {
      label.textContent = zone.dataset.zoneLabel.replace("{zone}", zone.value);
    }
  }
}
startsInOwnZone();

// The service worker: the offline page and the site's notifications. A browser that has
// none, or refuses it, goes on without them.
if ("serviceWorker" in navigator) {
  window.addEventListener("load", () => {
    navigator.serviceWorker.register("/sw.js").catch(() => {});
    // The offline page the worker keeps speaks the language of the pages seen last.
    navigator.serviceWorker.ready
      .then((registration) => {
        const language = document.documentElement.lang;
        if (registration.active && language) registration.active.postMessage({ language });
      })
      .catch(() => {});
  });
}

// A copy button (data-copy: the id of the field whose text it copies) is shown only with
// this script: a click puts the text on the clipboard and says so on the button for a
// moment; where the browser refuses, the text is selected for the player to copy.
const COPIED_MS = 2500;
function showCopyButtons() {
  for (const button of document.querySelectorAll("button[data-copy]")) button.hidden = false;
}
showCopyButtons();
document.addEventListener("htmx:afterSettle", showCopyButtons);
document.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-copy]");
  const field = button && document.getElementById(button.dataset.copy);
  if (!field) return;
  button.dataset.label ??= button.textContent;
  try {
    await navigator.clipboard.writeText(field.value);
    button.textContent = button.dataset.copied;
  } catch {
    field.select();
    button.textContent = button.dataset.copyFailed;
  }
  setTimeout(() => {
    button.textContent = button.dataset.label;
  }, COPIED_MS);
});

// "Play now" beside an offer of the tutorial puts the offer away.
document.addEventListener("click", (event) => {
  const now = event.target.closest("[data-play-now]");
  const offer = now?.closest("[data-learn-first]");
  if (!offer) return;
  event.preventDefault();
  offer.hidden = true;
});

// The account's menu in the header closes as menus do: a click elsewhere, or Escape (which
// gives the focus back to its name).
document.addEventListener("click", (event) => {
  for (const menu of document.querySelectorAll("[data-account-menu][open]")) {
    if (!menu.contains(event.target)) menu.open = false;
  }
});
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  const menu = document.querySelector("[data-account-menu][open]");
  if (!menu) return;
  menu.open = false;
  menu.querySelector("summary").focus();
});
