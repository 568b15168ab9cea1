"""E-mails to players: when one is due, whether to send it, and sending it at least once.

A seat's ``mail_at`` says an e-mail about it is due: "your move" (set when the player comes
to move) or the 80% reminder (``mail_reminder``). The sweep finds due e-mails in the
database and ``send_many`` settles them a batch at a time (``send_due``: one seat):

- nothing is sent once the player has moved or opened the match (``mail_at`` is cleared), or
  to a player without an address or who switched these e-mails off;
- "your move" waits while the player is on the site (seen in the last ``AWAY``), and goes out
  at most once per match a day; the reminder always goes out;
- a claim (``mail_at`` moved ``LEASE`` ahead) keeps two workers from sending the same e-mail,
  and an e-mail that fails to go out is tried again when the claim runs out.

A duplicate tournament's reminder of a game not finished (``Entry.mail_at``, set by
``tournaments.remind`` when the game's window is 80% used) goes out the same way
(``send_reminders``): claimed first, and only if the entrant still has the game to finish
before it closes and wants these e-mails.

The e-mails about addresses (``send_address_mail``: the confirmation link, or a word to
the owner of an address given again) and password resets go out at once, in their reader's
language. Links point at ``settings.SITE_URL``.
"""

from datetime import datetime, timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.models import User
from django.contrib.auth.tokens import default_token_generator
from django.core.mail import EmailMessage, mailers
from django.db import connection
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games import notices
from games.infra import metrics, queue
from games.models import Entry, Match, Profile, Seat, Tournament
from games.services.features import addresses
from games.services.match.prepared import column, field_of

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
    return send_many([seat_id], now=now) == 1


def send_many(seat_ids: list[int], *, now: datetime | None = None) -> int:
    """Settle the e-mails due for these seats; how many went out.

    Most seats need no e-mail yet (the player is on the site, had one today, wants none,
    or the match is over): they are read together and written together, each only if its
    ``mail_at`` is still the one read (a move or a reminder since then wins). Each e-mail
    that goes out is claimed first, so that nobody sends it twice.
    """
    now = now or timezone.now()
    seats = list(
        Seat.objects.select_related("player", "match")
        .filter(pk__in=seat_ids, mail_at__lte=now)
        .order_by("mail_at", "pk")  # the longest due first, as the sweep found them
    )
    players = {seat.player_id for seat in seats}
    profiles = {p.player_id: p for p in Profile.objects.filter(player_id__in=players)}
    settled, mails = [], []
    for seat in seats:
        profile = profiles.get(seat.player_id)
        mail = _mail_for(seat, profile, now)
        if isinstance(mail, tuple):
            mails.append((seat, profile, mail))
        else:
            settled.append((seat.pk, seat.mail_at, mail))
    _settle(settled)
    return sum(_send_claimed(seat, profile, mail, now) for seat, profile, mail in mails)


def _mail_for(seat: Seat, profile: Profile | None, now: datetime):
    """The e-mail due for the seat now, or, if none goes out, when to ask again (None:
    not for this move)."""
    wanted = bool(seat.player.email) and (profile is None or profile.email_on_move)
    running = seat.match.status == Match.Status.ACTIVE and seat.deadline and seat.deadline > now
    if not (wanted and running):
        return None
    if seat.mail_reminder:
        return REMINDER
    last_seen = profile.last_seen if profile else None
    if last_seen is not None and last_seen > now - AWAY:
        return last_seen + AWAY  # on the site: ask again when away
    if seat.mailed_at is not None and seat.mailed_at > now - MOVE_MAIL_EVERY:
        return None
    return YOUR_MOVE


def _settle(rows: list[tuple[int, datetime | None, datetime | None]]) -> None:
    """Write each seat's next ``mail_at`` (None: no e-mail due), if ``mail_at`` is still
    the one read: (seat id, as read, next). One statement sent for all rows at once."""
    if not rows:
        return
    quote = connection.ops.quote_name
    mail_at, reminder = (quote(column(Seat, name)) for name in ("mail_at", "mail_reminder"))
    sql = (
        f"UPDATE {quote(Seat._meta.db_table)} SET {mail_at} = %s, {reminder} = %s"
        f" WHERE {quote(column(Seat, 'pk'))} = %s AND {mail_at} = %s"
    )
    field = field_of(Seat, "mail_at")

    def stored(value: datetime | None):
        return field.get_db_prep_save(value, connection)

    with connection.cursor() as cursor:
        cursor.executemany(
            sql, [[stored(after), False, pk, stored(read)] for pk, read, after in rows]
        )


def _send_claimed(seat: Seat, profile: Profile | None, mail: tuple[str, str], now) -> bool:
    """Claim the seat's e-mail (``mail_at`` moved ``LEASE`` ahead), send it, and settle it;
    False if somebody else has it. An e-mail that fails keeps its claim until the lease
    runs out, and is then tried again."""
    lease = now + LEASE
    if not Seat.objects.filter(pk=seat.pk, mail_at=seat.mail_at).update(mail_at=lease):
        return False
    # Settled as soon as the server has taken the e-mail, before the connection is closed:
    # a server slow to say goodbye could outlast the task's time limit and leave the claim,
    # and the e-mail would go out again when the lease ran out.
    mailer = mailers.default
    try:
        with metrics.sending_mail("reminder" if mail is REMINDER else "your_move"):
            mailer.open()
            _send(seat, profile, mail, mailer)
        done = {"mailed_at": now} if mail is YOUR_MOVE else {}
        Seat.objects.filter(pk=seat.pk, mail_at=lease).update(
            mail_at=None, mail_reminder=False, **done
        )
    finally:
        mailer.close()
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


def _send(seat: Seat, profile: Profile | None, mail: tuple[str, str], mailer) -> None:
    """Send ``mail`` about the seat's match to its player, in their language (else the
    site's)."""
    language = profile.writing_language if profile is not None else ""
    with translation.override(language or settings.LANGUAGE_CODE):
        values = {
            "player": seat.player.username,
            "match": str(seat.match),
            "url": _url(seat),
            "deadline": f"{seat.deadline:%Y-%m-%d %H:%M}",
        }
        subject, body = mail
        message = EmailMessage(_(subject) % values, _(body) % values, None, [seat.player.email])
        mailer.send_messages([message])


#: The reminder of a tournament's game not finished (subject, body), in English.
GAME_CLOSES = (
    gettext_noop("Game %(number)s of %(tournament)s closes soon"),
    gettext_noop(
        "Hello %(player)s,\n\ngame %(number)s of %(tournament)s closes at %(closes)s and "
        "you have not finished it. Play it before then: a game not finished counts as it "
        "stands, a game never begun counts 0.\n%(url)s\n\n"
        "You can switch these e-mails off in your settings.\n"
    ),
)


def due_entries(now: datetime | None = None, limit: int = 10_000) -> list[int]:
    """Tournament entries with a reminder's e-mail due."""
    now = now or timezone.now()
    found = Entry.objects.filter(mail_at__lte=now).order_by("mail_at")
    return list(found.values_list("id", flat=True)[:limit])


def send_reminders(entry_ids: list[int], *, now: datetime | None = None) -> int:
    """Settle the tournament reminders' e-mails due for these entries; how many went out.
    One goes out if the entrant has an address, wants e-mails about their moves, and still
    has the game to finish before it closes; each is claimed first (``mail_at`` moved
    ``LEASE`` ahead), so that nobody sends it twice."""
    now = now or timezone.now()
    sent = 0
    entries = Entry.objects.select_related("player", "tournament").filter(
        pk__in=entry_ids, mail_at__lte=now
    )
    for entry in entries.order_by("mail_at", "pk"):
        profile = Profile.objects.filter(player=entry.player).first()
        deal = entry.tournament.deals.filter(number=entry.reminded, closes__gt=now).first()
        wanted = bool(entry.player.email) and (profile is None or profile.email_on_move)
        finished = Seat.objects.filter(
            player=entry.player, match__puzzle=deal, match__status=Match.Status.FINISHED
        ).exists()
        running = entry.tournament.status == Tournament.Status.RUNNING
        mine = Entry.objects.filter(pk=entry.pk, mail_at=entry.mail_at)
        if not (wanted and running and deal is not None and deal.closes and not finished):
            mine.update(mail_at=None)
            continue
        lease = now + LEASE
        if not mine.update(mail_at=lease):
            continue
        language = profile.writing_language if profile is not None else ""
        values = {
            "number": deal.number,
            "tournament": entry.tournament.name,
            "closes": notices.Instant(deal.closes),
            "url": settings.SITE_URL + entry.tournament.get_absolute_url(),
        }
        with metrics.sending_mail("reminder"):
            _write(entry.player, GAME_CLOSES, entry.player.email, language, **values)
        Entry.objects.filter(pk=entry.pk, mail_at=lease).update(mail_at=None)
        sent += 1
    return sent


class _ResetForm(PasswordResetForm):
    """Django's reset form, writing each e-mail in its reader's saved language (else in
    ``language``, the one the reset was asked for in)."""

    language = ""

    def send_mail(self, subject_template_name, email_template_name, context, *args, **kwargs):
        with (
            translation.override(_language_of(context["user"].pk, self.language)),
            metrics.sending_mail("password_reset"),
        ):
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


#: The e-mails about an address waiting to be confirmed (subject, body), in English.
CONFIRM_ADDRESS = (
    gettext_noop("Confirm your e-mail address"),
    gettext_noop(
        "Hello %(player)s,\n\nplease confirm that this address is yours by following this "
        "link within %(days)s days:\n%(url)s\n\n"
        "Until then nmbr9site sends you no other e-mail. If you did not ask for this, "
        "ignore this e-mail.\n"
    ),
)
ADDRESS_IN_USE = (
    gettext_noop("Your e-mail address was given again"),
    gettext_noop(
        "Hello %(player)s,\n\nsomeone (hopefully you) gave this e-mail address to nmbr9site "
        "for another account. It stays with your account, %(player)s.\n\n"
        "If you have forgotten your password, choose a new one here:\n%(url)s\n\n"
        "If it was not you, ignore this e-mail.\n"
    ),
)


ADDRESS_CHANGED = (
    gettext_noop("Your nmbr9site e-mail address was changed"),
    gettext_noop(
        "Hello %(player)s,\n\nthe e-mail address of your nmbr9site account is now "
        "%(email)s: this address gets no more e-mails from us.\n\n"
        "If you did not change it, someone else may be using your account. Choose a new "
        "password here, then give your address again in your settings:\n%(url)s\n"
    ),
)


def _language_of(player_id: int, fallback: str = "") -> str:
    """The language to write to the player in (``Profile.languages_of``), else ``fallback``
    (the language an e-mail was asked for in), else the site's."""
    known = Profile.languages_of([player_id]).get(player_id)
    if known:
        return known
    return fallback if fallback in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


def send_address_mail(user_id: int, language: str = "") -> bool:
    """Send the link confirming the address waiting for account ``user_id`` to that address;
    or, when another account has that address already, tell that account's owner instead,
    with a password-reset link. Each in its reader's saved language (else ``language``).
    False if no address waits."""
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return False
    email = addresses.pending(user)
    if not email:
        return False
    taken = addresses.owner(email, besides=user)
    if taken is None:
        reader, mail, to = user, CONFIRM_ADDRESS, email
        path = reverse("confirm_email", args=[addresses.token(user, email)])
        days = addresses.LINK_AGE.days
    else:
        reader, mail, to, days = taken, ADDRESS_IN_USE, taken.email, 0
        path = _reset_path(taken)
    _write(reader, mail, to, language, url=settings.SITE_URL + path, days=days)
    return True


def send_soon(name: str, *args) -> None:
    """Send an account's e-mail (``name``: a function of this module, and a task of the same
    name) by a worker, or at once if the broker is away: the answer takes as long whether or
    not an e-mail goes out, and a lost one is asked for again by its reader."""
    if not queue.send_now(f"games.tasks.{name}", *args):
        globals()[name](*args)


def send_address_changed(user_id: int, old: str, language: str = "") -> None:
    """Tell the old address of account ``user_id`` that the account's address changed, with
    a link to choose a new password (in case it was not its owner who changed it)."""
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None or not old or old == user.email:
        return
    _write(user, ADDRESS_CHANGED, old, language, url=settings.SITE_URL + _reset_path(user))


def _reset_path(user) -> str:
    """The address of the page where ``user`` chooses a new password (a one-time link)."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return reverse("password_reset_confirm", args=[uid, default_token_generator.make_token(user)])


def _write(reader, mail: tuple[str, str], to: str, language: str, **values) -> None:
    """Send ``mail`` (subject, body in English) to ``to`` in ``reader``'s language (else
    ``language``), with the reader's name and ``values`` filled in."""
    with translation.override(_language_of(reader.pk, language)):
        values |= {"player": reader.username, "email": reader.email}
        subject, body = mail
        EmailMessage(_(subject) % values, _(body) % values, None, [to]).send()
