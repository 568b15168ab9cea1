// Suggestions under a field of players' names (data-player-search: the address that finds
// players by the beginning of a name): the players whose name begins with the last name
// typed, asked for once the typing pauses; a click on one puts it in place of that name.
// The field stays a plain text field, sent as typed: without this script it works the same.
"use strict";

const PAUSE_MS = 250;

// The name being typed: what follows the last comma or space.
const lastName = (value) => value.split(/[\s,]+/).pop();

for (const field of document.querySelectorAll("input[data-player-search]")) {
  const list = document.createElement("div");
  list.className = "suggestions";
  list.setAttribute("aria-live", "polite");
  field.after(list);
  let timer = null;
  field.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const name = lastName(field.value);
      if (!name || !window.htmx) {
        list.replaceChildren();
        return;
      }
      const url = new URL(field.dataset.playerSearch, window.location.href);
      url.searchParams.set("q", name);
      window.htmx.ajax("GET", url.pathname + url.search, { target: list, swap: "innerHTML" });
    }, PAUSE_MS);
  });
  list.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-name]");
    if (!link) return;
    event.preventDefault();
    const typed = field.value;
    field.value = `${typed.slice(0, typed.length - lastName(typed).length)}${link.dataset.name}, `;
    list.replaceChildren();
    field.focus();
  });
}
