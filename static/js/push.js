// "Notify this device" in Settings: the browser is asked for permission to show
// notifications (only once the button is pressed), subscribes to the site's pushes with the
// site's public key, and the subscription is posted; the answer is the list of devices.
// Every message comes translated in the form's data- attributes.
"use strict";

(() => {
  const form = document.querySelector("[data-push-add]");
  if (!form) return;
  const button = form.querySelector("[data-push-button]");
  // Seconds to wait for the browser's service worker, then for its push service.
  const WAIT = 20;

  // Says ``text`` under the button (an error, unless ``ok``).
  function say(text, ok = false) {
    const line = document.querySelector("[data-push-message]");
    if (!line) return;
    line.textContent = text;
    line.classList.toggle("error", !ok);
  }

  if (!("serviceWorker" in navigator && "PushManager" in window && "Notification" in window)) {
    say(form.dataset.unsupported);
    return;
  }
  button.hidden = false;

  // The public key as the push manager takes it: base64url to bytes.
  function keyBytes(base64url) {
    const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/");
    const padded = base64 + "=".repeat((4 - (base64.length % 4)) % 4);
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  }

  // ``promise``, or a failure after ``seconds``: a browser whose push service cannot be
  // reached may never answer a subscription (Chromium without Google's keys waits forever).
  function within(seconds, promise) {
    const late = new Promise((_, fail) => {
      setTimeout(() => fail(new Error("no answer")), seconds * 1000);
    });
    return Promise.race([promise, late]);
  }

  // The browser's subscription to the site's pushes; one made with another key (the site's
  // keys changed) is replaced.
  async function subscription() {
    await navigator.serviceWorker.register(form.dataset.sw);
    const registration = await within(WAIT, navigator.serviceWorker.ready);
    const options = { userVisibleOnly: true, applicationServerKey: keyBytes(form.dataset.key) };
    try {
      return await within(WAIT, registration.pushManager.subscribe(options));
    } catch (error) {
      const old = await registration.pushManager.getSubscription();
      if (!old) throw error;
      await old.unsubscribe();
      return within(WAIT, registration.pushManager.subscribe(options));
    }
  }

  // Replaces the list of devices by the server's answer (200, or 400 with its message).
  async function show(response) {
    const list = document.querySelector("[data-push-devices]");
    const fragment = response.redirected ? "" : await response.text();
    if (![200, 400].includes(response.status) || !fragment.includes("data-push-devices")) {
      say(form.dataset.failed);
      return;
    }
    list.outerHTML = fragment;
  }

  async function notifyThisDevice() {
    const permission = await Notification.requestPermission();
    if (permission !== "granted") {
      say(form.dataset.denied);
      return;
    }
    let made;
    try {
      made = await subscription();
    } catch {
      say(form.dataset.failed);
      return;
    }
    form.elements.subscription.value = JSON.stringify(made);
    try {
      await show(await fetch(form.action, { method: "POST", body: new FormData(form) }));
    } catch {
      say(form.dataset.failed);
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    say(form.dataset.asking || "", true);  // the browser may take a while to answer
    button.disabled = true;
    notifyThisDevice().finally(() => {
      button.disabled = false;
    });
  });
})();
