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

