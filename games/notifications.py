"""E-mails to players, sent only to those who want them."""

from django.conf import settings
from django.core.mail import send_mail

from games.models import Notification, Profile, Seat


def _wants_email(seat: Seat) -> bool:
    if not seat.player.email:
        return False
    profile = Profile.objects.filter(player_id=seat.player_id).first()
    return profile is None or profile.email_on_move


def _url(seat: Seat) -> str:
    return settings.SITE_URL + seat.match.get_absolute_url()


def send_your_move(seat_id: int) -> bool:
    seat = Seat.objects.select_related("player", "match").get(pk=seat_id)
    if seat.deadline is None or not _wants_email(seat):
        return False
    send_mail(
        f"Your move in {seat.match}",
        f"Hello {seat.player.username},\n\nit is your move in {seat.match}:\n{_url(seat)}\n\n"
        f"Deadline: {seat.deadline:%Y-%m-%d %H:%M} UTC.\n"
        "You can switch these e-mails off in your settings.\n",
        None,
        [seat.player.email],
    )
    return True


def send_reminder(seat_id: int) -> bool:
    seat = Seat.objects.select_related("player", "match").get(pk=seat_id)
    Notification.objects.create(
        player_id=seat.player_id, match=seat.match, text=f"Time is running out in {seat.match}."
    )
    if seat.deadline is None or not _wants_email(seat):
        return False
    send_mail(
        f"Time is running out in {seat.match}",
        f"Hello {seat.player.username},\n\nmost of your time for this move is used up.\n"
        f"Play before {seat.deadline:%Y-%m-%d %H:%M} UTC, or a tile is placed for you:\n"
        f"{_url(seat)}\n",
        None,
        [seat.player.email],
    )
    return True
