"""What the browser tests share: logging in and signing up in a page, waiting for an
answer, the phone's screen, the accessibility report."""

from playwright.sync_api import expect

from tests.factories import PASSWORD


def following(session, path: str):
    """The page at ``path``, once its live stream is open, with a note that is lost if the
    page is loaded again, and a count of the polls it sends."""
    page = session.page
    polls: list[str] = []
    page.on("request", lambda request: "poll=" in request.url and polls.append(request.url))
    session.goto(path)
    expect(page.locator("html")).to_have_attribute("data-live", "open")
    page.evaluate("() => { window.notReloaded = true; }")
    return page, polls


def still_the_same_page(page) -> bool:
    return page.evaluate("() => window.notReloaded === true")


PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def play_out(page, first_round: int = 2) -> None:
    """Confirm the suggested spot for every remaining tile."""
    for round in range(first_round, 21):
        expect(page.locator(".round strong")).to_have_text(str(round))
        answered(page, lambda: page.keyboard.press("Enter"))


#: Reports every Content-Security-Policy violation as a console error, whatever the browser
#: itself says of it.
REPORT_VIOLATIONS = """document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`CSP violation: ${event.violatedDirective} ${event.sample}`);
}, true);"""


def fill_sign_up(page, username: str) -> None:
    """Fill in the sign-up form on ``page`` for ``username`` and send it (in any language)."""
    page.fill("#id_username", username)
    page.fill("#id_email", f"{username}@example.com")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.locator("main form button[type=submit]").click()
    expect(page.locator(".who")).to_have_text(username)


def log_in(session, username: str):
    page = session.page
    session.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("main form button[type=submit]").click()  # in the browser's language
    expect(page.locator(".who")).to_have_text(username)
    return page


def screen_point(page, x: float, y: float) -> tuple[float, float]:
    """Where the centre of display square (x, y) is on the screen, scrolled into the middle
    of the window first if it is outside (a board grown over the rounds reaches below it)."""
    return page.evaluate(
        """([x, y]) => {
            const svg = document.querySelector("svg[data-board='play']");
            const at = () => new DOMPoint(x + 0.5, y + 0.5).matrixTransform(svg.getScreenCTM());
            let p = at();
            if (p.y < 80 || p.y > innerHeight - 80) {
                window.scrollBy(0, p.y - innerHeight / 2);
                p = at();
            }
            return [p.x, p.y];
        }""",
        [x, y],
    )


def ghost(page) -> tuple[int, int, int]:
    play = page.locator("#turn")
    return tuple(int(play.get_attribute(f"data-{k}")) for k in ("x", "y", "rotation"))


def wait_ghost(page, x: int, y: int, rotation: int) -> None:
    expect(page.locator("#turn")).to_have_attribute("data-x", str(x))
    expect(page.locator("#turn")).to_have_attribute("data-y", str(y))
    expect(page.locator("#turn")).to_have_attribute("data-rotation", str(rotation))


def answered(page, action, *, areas: str = "#turn, #play", path: str = "/game/") -> None:
    """Do ``action`` and wait until its answer (from an address with ``path``) replaced one
    of ``areas``, by default the turn (a selection, a preview) or the whole play area (a
    move), and settled."""
    page.evaluate(
        """(areas) => document.querySelectorAll(areas)
            .forEach(e => { e.dataset.stale = "yes"; })""",
        areas,
    )
    with page.expect_response(lambda response: path in response.url):
        action()
    page.wait_for_function(
        """(areas) => {
            const fresh = [...document.querySelectorAll(areas)].some(e => !e.dataset.stale);
            const busy = ".htmx-request, .htmx-swapping, .htmx-settling";
            return fresh && !document.querySelector(busy);
        }""",
        arg=areas,
    )


def solo_without_javascript(browser, live_server, username: str, **options):
    """A browser context without JavaScript in which ``username`` started a solo game."""
    context = browser.new_context(java_script_enabled=False, **options)
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("button", name="New solo game").click()
    return context, page


def checked(page) -> None:
    """Wait until axe-core has checked the page as it is now (tests/browser/accessibility.js;
    what it finds fails the test)."""
    page.evaluate("() => window.accessibilityChecked()")


def small_controls(page) -> list[str]:
    """The controls on ``page`` a finger may miss: shown, and less than 24 x 24 CSS px,
    except a link inside a sentence (WCAG 2.5.8's inline exception)."""
    return page.evaluate(
        """() => {
            const controls = "a[href], button, input:not([type=hidden]), select, textarea, summary,"
                + " [role=button], [tabindex]:not([tabindex='-1'])";
            const small = [];
            for (const e of document.querySelectorAll(controls)) {
                const box = e.getBoundingClientRect();
                const seen = getComputedStyle(e).visibility !== "hidden";
                const shown = box.width && box.height && seen;
                if (!shown) continue;
                if (e.closest(".visually-hidden")) continue;
                if (box.width >= 24 && box.height >= 24) continue;
                const block = e.parentElement.closest("p, li, dd, td, span, label, h1, h2, h3");
                const inline = e.tagName === "A" && block
                    && block.textContent.trim().length > e.textContent.trim().length + 2;
                if (inline) continue;
                const name = (e.textContent || e.getAttribute("aria-label") || e.name || "")
                    .trim().slice(0, 30);
                const size = `${Math.round(box.width)}x${Math.round(box.height)}`;
                small.push(`${e.tagName.toLowerCase()} "${name}" ${size}`);
            }
            return small;
        }"""
    )


def tab_to(page, target, *, limit: int = 300) -> None:
    """Press Tab until ``target`` (a locator found by its role) has the keyboard's focus."""
    expect(target).to_be_visible()
    for _press in range(limit):
        if target.evaluate("element => element === document.activeElement"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {target}")


def log_in_by_keyboard(session, username: str, names: dict[str, str]):
    """Log in with the keyboard alone (``names``: the fields' and the button's names in the
    page's language)."""
    page = session.page
    session.goto("/accounts/login/")
    tab_to(page, page.get_by_role("textbox", name=names["username"], exact=True))
    page.keyboard.type(username)
    tab_to(page, page.get_by_label(names["password"], exact=True))
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    expect(page.locator(".who")).to_have_text(username)
    return page


def write_chat(page, text: str) -> None:
    """Type ``text`` in the chat and send it with Enter; wait until the chat came back."""
    page.locator("#chat-text").fill(text)
    with page.expect_response(lambda r: "/chat/" in r.url and r.request.method == "POST"):
        page.locator("#chat-text").press("Enter")
    expect(page.locator("#chat-text")).to_have_value("")


def chat_messages(page):
    return page.locator("#chat .chat-message [data-text]")
