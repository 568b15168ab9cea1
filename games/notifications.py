"""E-mails to players: when one is due, whether to send it, and sending it at least once.

A seat's ``mail_at`` says an e-mail about it is due: "your move" (set when the player comes
to move) or the 80% reminder (``mail_reminder``). The sweep finds due e-mails in the
database and ``send_due`` settles each one:

- nothing is sent once the player has moved or opened the match (``mail_at`` is cleared), or
  to a player without an address or who switched these e-mails off;
- "your move" waits while the player is on the site (seen in the last ``AWAY``), and goes out
  at most once per match a day; the reminder always goes out;
- a claim (``mail_at`` moved ``LEASE`` ahead) keeps two workers from sending the same e-mail,
  and an e-mail that fails to go out is tried again when the claim runs out.

Links point at ``settings.SITE_URL``.
"""

from datetime import datetime, timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.forms import PasswordResetForm
from django.core.mail import send_mail
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games.models import Match, Profile, Seat

AWAY = timedelta(minutes=30)
LEASE = timedelta(minutes=10)
MOVE_MAIL_EVERY = timedelta(days=1)


def due(now: datetime | None = None, limit: int = 10_000) -> list[int]:
    """Seats with an e-mail due."""
    now = now or timezone.now()
    return list(
        Seat.objects.filter(mail_at__lte=now)
        .order_by("mail_at")
        .values_list("id", flat=True)[:limit]
    )


def _url(seat: Seat) -> str:
    return settings.SITE_URL + seat.match.get_absolute_url()


def send_due(seat_id: int, *, now: datetime | None = None) -> bool:
    """Send the e-mail due for a seat if it should go out; True if one was sent."""
    now = now or timezone.now()
    seat = (
        Seat.objects.select_related("player", "match").filter(pk=seat_id, mail_at__lte=now).first()
    )
    if seat is None:
        return False
    lease = now + LEASE
    if not Seat.objects.filter(pk=seat_id, mail_at=seat.mail_at).update(mail_at=lease):
        return False  # another worker has it
    claimed = Seat.objects.filter(pk=seat_id, mail_at=lease)

    def settle(**fields) -> None:
        claimed.update(mail_at=None, mail_reminder=False, **fields)

    profile = Profile.objects.filter(player_id=seat.player_id).first()
    wanted = bool(seat.player.email) and (profile is None or profile.email_on_move)
    running = seat.match.status == Match.Status.ACTIVE and seat.deadline and seat.deadline > now
    if not (wanted and running):
        settle()
        return False
    if not seat.mail_reminder:
        last_seen = profile.last_seen if profile else None
        if last_seen is not None and last_seen > now - AWAY:
            claimed.update(mail_at=last_seen + AWAY)  # on the site: ask again when away
            return False
        if seat.mailed_at is not None and seat.mailed_at > now - MOVE_MAIL_EVERY:
            settle()
            return False
    if seat.mail_reminder:
        _send(seat, profile, REMINDER)
        settle()
    else:
        _send(seat, profile, YOUR_MOVE)
        settle(mailed_at=now)
    return True


#: The e-mails about a move (subject, body), in English; each goes out in its reader's language.
YOUR_MOVE = (
    gettext_noop("Your move in %(match)s"),
    gettext_noop(
        "Hello %(player)s,\n\nit is your move in %(match)s:\n%(url)s\n\n"
        "Deadline: %(deadline)s UTC.\n"
        "You can switch these e-mails off in your settings.\n"
    ),
)
REMINDER = (
    gettext_noop("Time is running out in %(match)s"),
    gettext_noop(
        "Hello %(player)s,\n\nmost of your time for this move is used up.\n"
        "Play before %(deadline)s UTC, or a move is made for you:\n%(url)s\n"
    ),
)


def _send(seat: Seat, profile: Profile | None, mail: tuple[str, str]) -> None:
    """Send ``mail`` about the seat's match to its player, in their saved language (else the
    site's)."""
    language = (profile.language if profile is not None else "") or settings.LANGUAGE_CODE
    with translation.override(language):
        values = {
            "player": seat.player.username,
            "match": str(seat.match),
            "url": _url(seat),
            "deadline": f"{seat.deadline:%Y-%m-%d %H:%M}",
        }
        subject, body = mail
        send_mail(_(subject) % values, _(body) % values, None, [seat.player.email])


class _ResetForm(PasswordResetForm):
    """Django's reset form, writing each e-mail in its reader's saved language (else in
    ``language``, the one the reset was asked for in)."""

    language = ""

    def send_mail(self, subject_template_name, email_template_name, context, *args, **kwargs):
        saved = (
            Profile.objects.filter(player=context["user"])
            .exclude(language="")
            .values_list("language", flat=True)
            .first()
        )
        with translation.override(saved or self.language or settings.LANGUAGE_CODE):
            super().send_mail(subject_template_name, email_template_name, context, *args, **kwargs)


def send_password_reset(email: str, language: str = "") -> None:
    """Send the password-reset link to the accounts with this address (none: nothing), in
    each account's language (else ``language``)."""
    form = _ResetForm({"email": email})
    form.language = language if language in dict(settings.LANGUAGES) else ""
    if form.is_valid():
        site = urlsplit(settings.SITE_URL)
        form.save(
            domain_override=site.netloc,
            use_https=site.scheme == "https",
            email_template_name="registration/password_reset_email.html",
            subject_template_name="registration/password_reset_subject.txt",
        )
