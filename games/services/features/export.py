"""Everything the site keeps about a player, as plain data (the "Export my data" file).

Reads only. Every game comes with its moves in the game's own notation; of a game still
running, only the player's own moves (the others' may hold what the player may not see yet,
which is also why no game's seed is given).
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.utils import timezone

from games import notices
from games.models import (
    Block,
    ChatBan,
    ChatMessage,
    ChatMute,
    DailyResult,
    Follow,
    FollowNotice,
    Match,
    Move,
    Notification,
    Profile,
    PushSubscription,
    Rating,
    RatingChange,
    Report,
    Seat,
)
from games.services.features import push_devices

#: The version of this file's layout.
FORMAT = 1


def _when(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def everything(user: User) -> dict:
    profile = Profile.objects.filter(player=user).first()
    return {
        "format": FORMAT,
        "exported": _when(timezone.now()),
        "profile": {
            "username": user.username,
            "email": user.email,
            "email_waiting_for_confirmation": profile.pending_email if profile else "",
            "joined": _when(user.date_joined),
            "last_login": _when(user.last_login),
            "language": profile.language if profile else "",
            "email_on_move": profile.email_on_move if profile else True,
            "show_chats": profile.show_chats if profile else True,
            "push_notifications": {
                kind: getattr(profile, f"push_{kind}") if profile else True
                for kind in push_devices.KINDS
            },
        },
        "push_devices": [
            {"endpoint": d.endpoint, "user_agent": d.user_agent, "added": _when(d.created)}
            for d in PushSubscription.objects.filter(player=user).order_by("created", "id")
        ],
        "games": _games(user),
        "ratings": [
            {
                "game": r.game,
                "pool": r.pool,
                "value": round(r.value, 1),
                "games": r.games,
                "wins": r.wins,
                "updated": _when(r.updated),
            }
            for r in Rating.objects.filter(player=user).order_by("game", "pool")
        ],
        "rating_history": [
            {
                "match": c.match_id,
                "game": c.game,
                "pool": c.pool,
                "before": round(c.before, 1),
                "after": round(c.after, 1),
                "at": _when(c.created),
            }
            for c in RatingChange.objects.filter(player=user).order_by("created", "id")
        ],
        "daily_results": [
            {"day": d.day.isoformat(), "puzzle": d.puzzle_id, "match": d.match_id}
            for d in DailyResult.objects.filter(player=user).order_by("day")
        ],
        "following": [
            f.followed.username
            for f in Follow.objects.filter(follower=user).select_related("followed").order_by("id")
        ],
        "follow_news_sent": [
            {"player": n.followed.username, "at": _when(n.sent_at)}
            for n in FollowNotice.objects.filter(follower=user)
            .select_related("followed")
            .order_by("id")
        ],
        "blocked": [
            b.blocked.username
            for b in Block.objects.filter(blocker=user).select_related("blocked").order_by("id")
        ],
        "notifications": [
            {"text": n.said, "match": n.match_id, "at": _when(n.created), "read": n.read}
            for n in notices.say_all(
                Notification.objects.filter(player=user).order_by("created", "id")
            )
        ],
        **_chats(user),
    }


def _chats(user: User) -> dict:
    """What the player wrote in chats, the chats they muted, the reports they sent (never
    those about them: nobody is told who reported them) and the staff's bans on them."""
    return {
        "chat_messages": [
            {
                "match": m.match_id,
                "tournament": m.tournament_id,
                "room": m.room,
                "text": m.text,
                "at": _when(m.created),
                "removed": _when(m.removed),
            }
            for m in ChatMessage.objects.filter(author=user).order_by("created", "id")
        ],
        "muted_chats": list(
            ChatMute.objects.filter(player=user, match__isnull=False)
            .order_by("match_id")
            .values_list("match_id", flat=True)
        ),
        "muted_tournament_chats": list(
            ChatMute.objects.filter(player=user, tournament__isnull=False)
            .order_by("tournament_id")
            .values_list("tournament_id", flat=True)
        ),
        "reports_sent": [
            {
                "player": r.reported.username,
                "message": r.message_id,
                "reason": r.reason,
                "text": r.text,
                "at": _when(r.created),
            }
            for r in Report.objects.filter(reporter=user)
            .select_related("reported")
            .order_by("created", "id")
        ],
        "chat_bans": [
            {"until": _when(b.until), "at": _when(b.created)}
            for b in ChatBan.objects.filter(player=user).order_by("created", "id")
        ],
    }


def _games(user: User) -> list[dict]:
    seats = list(
        Seat.objects.filter(player=user).select_related("match").order_by("match__created")
    )
    match_ids = [seat.match_id for seat in seats]
    everyone: dict[int, list[Seat]] = {}
    for other in Seat.objects.filter(match_id__in=match_ids).select_related("player"):
        everyone.setdefault(other.match_id, []).append(other)
    moves: dict[int, list[Move]] = {}
    for move in Move.objects.filter(match_id__in=match_ids).order_by("match_id", "ply"):
        moves.setdefault(move.match_id, []).append(move)
    games = []
    for seat in seats:
        match = seat.match
        over = match.status in (Match.Status.FINISHED, Match.Status.CANCELLED)
        players = sorted(everyone.get(match.pk, []), key=lambda s: s.index)
        games.append(
            {
                "match": match.pk,
                "game": match.game,
                "kind": match.kind,
                "status": match.status,
                "options": match.options,
                "rated": match.rated,
                "puzzle": match.puzzle_id,
                "created": _when(match.created),
                "finished": _when(match.finished),
                "your_seat": seat.index,
                "players": [
                    {
                        "seat": s.index,
                        "player": s.player.username,
                        "state": s.state,
                        "score": s.score if over or s.pk == seat.pk else None,
                        "rank": s.rank if over else None,
                    }
                    for s in players
                ],
                "moves": [
                    {"ply": m.ply, "seat": _index(players, m.seat_id), "move": m.text}
                    for m in moves.get(match.pk, [])
                    if over or m.seat_id == seat.pk
                ],
            }
        )
    return games


def _index(seats: list[Seat], seat_id: int) -> int | None:
    return next((s.index for s in seats if s.pk == seat_id), None)
