// Checks the page with axe-core (defined just before this script) once it has loaded,
// against WCAG 2.0-2.2 A and AA, and reports every violation as a console error, which
// fails the browser test. A page htmx changed since is checked again, as it is then, when
// the test asks (window.accessibilityChecked(), which the fixture calls at the end and
// tests/browser/pages.checked whenever a test wants): checking after every swap of a game
// played to its end would take the suite's time many times over.
(() => {
  if (window.top !== window) return; // a frame is checked as part of its page
  const options = {
    runOnly: {
      type: "tag",
      values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"],
    },
    resultTypes: ["violations"],
  };
  const reported = new Set();
  let running = Promise.resolve();
  let pending = null;
  const check = () => {
    clearTimeout(pending);
    pending = null;
    running = running
      .then(() => axe.run(document, options))
      .then(
        (results) => {
          for (const violation of results.violations) {
            for (const node of violation.nodes) {
              const where = node.target.join(" ");
              const key = `${violation.id} ${where}`;
              if (reported.has(key)) continue;
              reported.add(key);
              const why = (node.failureSummary || "").replace(/\s+/g, " ");
              console.error(
                `axe: ${violation.id} (${violation.impact}) on ${location.pathname} at ${where}: ${why}`,
              );
            }
          }
        },
        (error) => console.error(`axe could not check ${location.pathname}: ${error}`),
      );
    return running;
  };
  const soon = () => {
    clearTimeout(pending);
    pending = setTimeout(check, 150);
  };
  let changed = false;
  window.accessibilityChecked = () => {
    if (pending === null && !changed) return running;
    changed = false;
    return check();
  };
  window.addEventListener("load", soon);
  document.addEventListener("htmx:afterSettle", () => {
    changed = true;
  });
})();
