// Checks the page with axe-core (defined just before this script) once it has loaded and
// again after each change htmx settles, against WCAG 2.0-2.2 A and AA, and reports every
// violation as a console error, which fails the browser test. window.accessibilityChecked()
// runs a pending check at once and resolves when every check has ended.
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
  window.accessibilityChecked = () => (pending === null ? running : check());
  window.addEventListener("load", soon);
  document.addEventListener("htmx:afterSettle", soon);
})();
