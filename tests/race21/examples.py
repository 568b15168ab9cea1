"""Race to 21's examples for the contract tests: player counts with options, and the form
its page posts for a move."""

#: (players, options): every case is played out at random on several seeds.
CASES: list[tuple[int, dict]] = [(2, {}), (3, {"target": 30}), (4, {"target": 10})]


def posted_forms(move, ply: int) -> list[dict[str, str]]:
    """The form of a button of the page's turn (``play.html``)."""
    return [{"csrfmiddlewaretoken": "token", "move": str(move), "ply": str(ply)}]
