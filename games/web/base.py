"""What every game's web adapter provides, and what they share.

An adapter turns its game's view (``MatchView.view``) into a page and a page's forms into
its game's moves; the generic views (``games.views``) do the rest: access, polling, the
match's heading, log, standings and actions. An adapter has:

- ``slug``: its game's; ``template``: the play area (a template with a ``turn`` partial
  that previews swap); ``replay_template``; ``options_form``: the form of the game's options
  on the new-match page (its cleaned data are the options);
- ``prefs``: the standing choices a player can make for a match, by name, with their label;
- ``describe(options)``: the options in a few words;
- ``read_query(query)``: what a GET asks for besides the page (ValueError: a message);
- ``context(match_view, **query)``: the template context of the play area;
- ``preview_url(match_view, context)``: the address of a preview, for the browser history
  (None: keep the address);
- ``log(match_view)``: what happened, as far as the viewer may see it, newest first;
- ``move(post)``: the move text a form posts and the ply its page knew (ValueError);
- ``refusal(refused)``: a refused move (the rules' ``IllegalMove`` or the services'
  ``MoveRefused``) as a sentence in the page's language;
- ``replay(match_view, query)``: the template context of a step of a finished match;
- ``tutorial``: the game's "Learn to play" (a short guided game, ``games.learn``), with:

  - ``template``, a page with the partials ``lesson`` (what a move changes) and ``turn``
    (what a preview changes); ``summary``: what it teaches, in one line;
  - ``read(query)``: the progress a page's address (or form) holds, checked again by the
    rules and the lessons (ValueError with a message: not a game of the tutorial);
  - ``move(progress, post)``: the progress after the move a form posts (``WrongMove`` when
    the rules refuse it or the step wants another);
  - ``context(progress)``: the template context; ``address(progress, preview=False)``: the
    page's address for it (with ``preview``, also what the page previews).
"""

from dataclasses import dataclass

from django.utils.translation import gettext as _

from games.names import shown


def first_error(form) -> str:
    """The first of a form's errors, with the field it is about."""
    for name, errors in form.errors.items():
        label = "" if name == "__all__" else f"{name}: "
        return f"{label}{errors[0]}"
    return ""


def sentence(reason: str) -> str:
    """A rules engine's reason ("you do not hold 42") as a sentence for a page."""
    end = "" if reason.endswith((".", "!", "?")) else "."
    return f"{reason[:1].upper()}{reason[1:]}{end}"


def left_text(seat) -> str:
    """What the log says of a player who left a match."""
    if seat.state == seat.State.RESIGNED:
        return _("%(player)s resigned.") % {"player": shown(seat.player.username)}
    return _("%(player)s was dropped.") % {"player": shown(seat.player.username)}


def reason_text(refused, reasons, **extra) -> str:
    """Why a request was refused, in the page's language: ``reasons`` (code: text with
    ``%(param)s`` places) say it for the codes a game's rules give, filled in from the
    refusal's ``params`` (lists written out) and ``extra``; anything else (the services'
    own refusals, already translated) keeps its words."""
    text = reasons.get(getattr(refused, "code", None))
    words = getattr(refused, "reason", None) or str(refused)
    if text is None:
        return words
    params = {
        name: ", ".join(str(v) for v in value) if isinstance(value, list | tuple) else value
        for name, value in refused.params.items()
    }
    try:
        return str(text) % {**params, **extra}
    except (KeyError, TypeError, ValueError):
        return words


class WrongMove(ValueError):
    """A move a tutorial does not take: ``str()`` says why (the rule it breaks, or what its
    step wants instead), in the page's language; ``shown`` is the progress to show with it:
    what the move tried, nothing played."""

    def __init__(self, message: str, shown) -> None:
        super().__init__(message)
        self.shown = shown


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of a match's log: when (in the game's own terms, "Round 3") and what, with
    the move in the game's notation (shown on hover; "" for none)."""

    when: str
    text: str
    notation: str = ""
