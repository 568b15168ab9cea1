import pytest
from django.templatetags.static import static
from django.urls import reverse

from games import services
from games.models import Match, Move, PlayerStats
from games.nmbr9 import Options, Placement
from games.nmbr9.policy import choose

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def solo(alice):
    return services.start_solo(alice, seed=7)


def current(match):
    game = services.load(match).state
    return game, game.board(0), game.current_number(0)


def ply(match) -> int:
    return Move.objects.filter(match=match).count()


def posted(p: Placement, ply: int) -> dict:
    """What the Confirm form posts for placement ``p`` on a page that knew ``ply`` moves."""
    return {"number": p.number, "x": p.x, "y": p.y, "rotation": p.rotation, "ply": ply}


def play_rounds(client, match, rounds: int) -> None:
    for _ in range(rounds):
        game, board, number = current(match)
        data = posted(choose(board, number), ply(match))
        response = client.post(reverse("play", args=[match.pk]), data)
        assert response.status_code == 302, response.content


def test_it_starts_a_solo_game(client, alice):
    client.force_login(alice)
    response = client.post(reverse("new_solo"))
    match = Match.objects.get()
    assert response.status_code == 302
    assert response.url == match.get_absolute_url()
    assert match.seats.get().player == alice
    assert match.options == {"pace": "rounds", **Options().to_dict()}
    form = client.get(reverse("new_solo"))  # the form of a solo game with chosen options
    assert form.status_code == 200 and 'name="fillers"' in form.text
    assert Match.objects.count() == 1


def test_a_visitor_starts_a_game_as_a_guest(client, db):
    response = client.post(reverse("new_solo"))
    match = Match.objects.get()
    assert response.status_code == 302 and response.url == match.get_absolute_url()
    assert match.created_by.username.startswith("guest-")
    assert match.created_by.profile.guest


def test_it_shows_the_full_page(client, alice, solo):
    client.force_login(alice)
    response = client.get(solo.get_absolute_url())
    assert response.status_code == 200
    html = response.text
    _, _, number = current(solo)
    assert "<html" in html and 'id="play"' in html
    assert f"data-current>{number}<" in html
    assert "<svg" in html and 'data-ghost="legal"' in html
    assert "Round <strong>1</strong> of 20" in html
    assert html.count("data-supply=") == 10


def test_it_returns_only_the_partial_to_htmx(client, alice, solo):
    client.force_login(alice)
    response = client.get(solo.get_absolute_url(), {"x": 0, "y": 0, "rotation": 1}, **HTMX)
    assert response.status_code == 200
    assert "<html" not in response.text
    assert response.text.lstrip().startswith('<div id="turn"')  # a preview: the turn only
    assert response["HX-Replace-Url"].endswith("?x=0&y=0&rotation=1")
    page = client.get(solo.get_absolute_url(), **HTMX)
    assert page.text.lstrip().startswith('<section id="play"')


def test_it_previews_an_illegal_spot_in_red_with_the_reason(client, alice, solo):
    client.force_login(alice)
    play_rounds(client, solo, 1)
    game, board, number = current(solo)
    p = board.tiles[0][0]
    response = client.get(solo.get_absolute_url(), {"x": p.x, "y": p.y, "rotation": 0}, **HTMX)
    assert response.status_code == 200
    assert 'data-ghost="illegal"' in response.text
    assert "data-verdict>" in response.text
    assert 'class="confirm" data-key="confirm" title="Confirm (Enter)" disabled' in response.text


@pytest.mark.parametrize(
    "query", [{"x": "a", "y": 0, "rotation": 0}, {"x": 0, "y": 0, "rotation": 4}, {"x": 1}]
)
def test_it_refuses_a_malformed_preview(client, alice, solo, query):
    client.force_login(alice)
    response = client.get(solo.get_absolute_url(), query, **HTMX)
    assert response.status_code == 400
    assert 'class="error"' in response.text


def test_it_places_a_legal_tile(client, alice, solo):
    client.force_login(alice)
    _, board, number = current(solo)
    p = choose(board, number)
    response = client.post(reverse("play", args=[solo.pk]), posted(p, 0), **HTMX)
    assert response.status_code == 200
    move = Move.objects.get()
    assert (move.ply, move.text, move.auto) == (0, f"place {p}", False)
    assert board.level_of(p) == 0
    assert "Round <strong>2</strong> of 20" in response.text
    seat = solo.seats.get()
    assert seat.progress == 1


def test_it_refuses_an_illegal_tile_with_400_and_changes_nothing(client, alice, solo):
    client.force_login(alice)
    play_rounds(client, solo, 1)
    _, board, _ = current(solo)
    p = board.tiles[0][0]
    number = current(solo)[2]
    data = posted(Placement(number, p.x, p.y, p.rotation), 1)
    response = client.post(reverse("play", args=[solo.pk]), data, **HTMX)
    assert response.status_code == 400
    assert 'class="error"' in response.text
    assert Move.objects.count() == 1
    assert solo.seats.get().progress == 1


@pytest.mark.parametrize(
    "data",
    [
        {"number": 8, "x": 0, "y": 0, "rotation": 0},
        {"number": 8, "x": "", "y": 0, "rotation": 0, "ply": 0},
        {"number": 8, "x": 0, "y": 0, "rotation": 9, "ply": 0},
        {"number": 8, "x": 0, "y": 0, "rotation": 0, "ply": "one"},
        {"number": 8, "x": 10**9, "y": 0, "rotation": 0, "ply": 0},
        {"number": 10, "x": 0, "y": 0, "rotation": 0, "ply": 0},
        {"x": 0, "y": 0, "rotation": 0, "ply": 0},
    ],
)
def test_it_refuses_malformed_placements(client, alice, solo, data):
    client.force_login(alice)
    response = client.post(reverse("play", args=[solo.pk]), data)
    assert response.status_code == 400
    assert 'class="error"' in response.text
    assert Move.objects.count() == 0


def test_a_double_submit_places_once(client, alice, solo):
    client.force_login(alice)
    _, board, number = current(solo)
    data = posted(choose(board, number), 0)
    first = client.post(reverse("play", args=[solo.pk]), data)
    second = client.post(reverse("play", args=[solo.pk]), data)
    assert first.status_code == second.status_code == 302
    assert Move.objects.count() == 1


def test_a_stale_submit_with_another_placement_is_refused(client, alice, solo):
    client.force_login(alice)
    play_rounds(client, solo, 1)
    p = Placement.parse(Move.objects.get().text.split()[1])
    data = posted(Placement(p.number, p.x + 5, p.y, p.rotation), 0)
    response = client.post(reverse("play", args=[solo.pk]), data)
    assert response.status_code == 400
    assert "moved since this page was drawn" in response.text
    assert Move.objects.count() == 1


def test_a_page_from_the_future_is_refused(client, alice, solo):
    client.force_login(alice)
    _, board, number = current(solo)
    response = client.post(reverse("play", args=[solo.pk]), posted(choose(board, number), 3))
    assert response.status_code == 400 and "out of date" in response.text
    assert Move.objects.count() == 0


def test_reloading_resumes_where_the_player_was(client, alice, solo):
    client.force_login(alice)
    play_rounds(client, solo, 5)
    game, board, number = current(solo)
    response = client.get(solo.get_absolute_url(), {"x": 2, "y": -3, "rotation": 3})
    assert "Round <strong>6</strong> of 20" in response.text
    assert f"data-current>{number}<" in response.text
    assert 'data-x="2" data-y="-3" data-rotation="3"' in response.text
    assert response.text.count('class="tile level-') == 5


def test_only_the_owner_plays_or_sees_an_unfinished_game(client, alice, bob, solo):
    client.force_login(bob)
    assert client.get(solo.get_absolute_url()).status_code == 404
    data = posted(Placement(8, 0, 0, 0), 0)
    assert client.post(reverse("play", args=[solo.pk]), data).status_code == 404
    assert Move.objects.count() == 0


def test_anonymous_visitors_are_sent_to_login(client, solo):
    response = client.get(solo.get_absolute_url())
    assert response.status_code == 302 and "/accounts/login/" in response.url
    response = client.post(reverse("play", args=[solo.pk]), posted(Placement(8, 0, 0, 0), 0))
    assert response.status_code == 302
    assert Move.objects.count() == 0


def test_a_whole_game_ends_with_score_and_personal_best(client, alice, bob, solo):
    client.force_login(alice)
    play_rounds(client, solo, 20)
    solo.refresh_from_db()
    seat = solo.seats.get()
    assert solo.status == Match.Status.FINISHED
    assert seat.rank == 1
    _, board, _ = current(solo)
    assert seat.score == board.score() > 0
    page = client.get(solo.get_absolute_url()).text
    assert f"data-final-score>{seat.score}<" in page
    assert "A new personal best!" in page
    assert "Play again" in page
    # Nothing more comes, and nothing is being placed: no supply, no legend of a ghost.
    assert "Still to come" not in page and "data-supply" not in page
    assert "the tile you are placing" not in page
    data = posted(Placement(8, 0, 0, 0), 20)
    assert client.post(reverse("play", args=[solo.pk]), data).status_code == 400
    client.force_login(bob)
    assert client.get(solo.get_absolute_url()).status_code == 200
    client.logout()
    assert client.get(solo.get_absolute_url()).status_code == 200


def test_the_profile_shows_stats_and_recent_games(client, alice, solo):
    client.force_login(alice)
    play_rounds(client, solo, 20)
    services.refresh_player_stats(alice.pk)
    seat = solo.seats.get()
    page = client.get(reverse("profile", args=["alice"])).text
    assert 'data-stat="games">1<' in page
    assert f'data-stat="best">{seat.score}<' in page
    assert solo.get_absolute_url() in page
    assert PlayerStats.objects.get(player=alice).solo_best == seat.score
    assert client.get(reverse("profile", args=["nobody"])).status_code == 404


def test_home_lists_games_in_progress(client, alice, solo):
    client.force_login(alice)
    page = client.get(reverse("home")).text
    assert "Solo games in progress" in page and solo.get_absolute_url() in page


def test_queries_do_not_grow_with_the_number_of_moves(
    client, alice, solo, django_assert_max_num_queries
):
    client.force_login(alice)
    url = solo.get_absolute_url()
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as early:
        client.get(url, {"x": 0, "y": 0, "rotation": 0}, **HTMX)
    play_rounds(client, solo, 19)
    with CaptureQueriesContext(connection) as late:
        client.get(url, {"x": 0, "y": 0, "rotation": 0}, **HTMX)
    assert len(late) == len(early)
    _, board, number = current(solo)
    p = choose(board, number)
    with django_assert_max_num_queries(len(early) + 12):
        client.post(reverse("play", args=[solo.pk]), posted(p, 19), **HTMX)


def test_a_placement_reads_the_match_once_the_locked_read(client, alice, solo):
    """The move's form is read by the match's game, which the process keeps: the match row
    is read only under the lock that the move takes."""
    client.force_login(alice)
    play_rounds(client, solo, 1)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    _, board, number = current(solo)
    with CaptureQueriesContext(connection) as placed:
        answer = client.post(
            reverse("play", args=[solo.pk]), posted(choose(board, number), 1), **HTMX
        )
    assert answer.status_code == 200
    reads = [q["sql"] for q in placed if q["sql"].startswith('SELECT "games_match"')]
    assert len(reads) == 1, reads
    if connection.features.has_select_for_update:
        assert reads[0].endswith("FOR UPDATE"), reads
    assert (
        client.post(reverse("play", args=[10**9]), posted(choose(board, number), 2)).status_code
        == 404
    )


def test_moves_round_trip_through_the_model(alice, solo):
    p = Placement(number=7, x=3, y=-2, rotation=1)
    seat = solo.seats.get()
    Move.objects.create(match=solo, ply=0, seat=seat, text=f"place {p}")
    assert Placement.parse(Move.objects.get().text.removeprefix("place ")) == p


def test_a_match_address_follows_its_number(solo):
    """The address is made once per instance and made anew if the instance becomes another
    match (a copy saved as a new row)."""
    first = solo.get_absolute_url()
    assert first == f"/game/{solo.pk}/" and solo.get_absolute_url() == first
    solo.pk = solo.pk + 1000
    assert solo.get_absolute_url() == f"/game/{solo.pk}/"


def test_a_browser_asking_for_favicon_ico_is_sent_to_the_sites_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"] == static("favicon.svg")
    assert client.head("/favicon.ico").status_code == 301


def test_a_refused_move_stays_in_place_in_debug_mode_too(client, alice, solo, settings):
    """django-htmx's debug script (added by its htmx_script tag when DEBUG is on) replaces
    the whole page with any 400 answer: the site's refused moves are 400s shown in place."""
    settings.DEBUG = True
    client.force_login(alice)
    page = client.get(solo.get_absolute_url()).text
    assert "django_htmx/htmx-2.min.js" in page and "django-htmx.js" not in page


def test_a_preview_reads_the_moves_once(client, alice, solo):
    """The page's view and the draft of the tile being placed come from one replay: the
    draft reads no move again while the position is kept."""
    client.force_login(alice)
    play_rounds(client, solo, 1)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as previewed:
        answer = client.get(solo.get_absolute_url(), {"x": 0, "y": 0, "rotation": 0}, **HTMX)
    assert answer.status_code == 200 and "data-verdict" in answer.text
    reads = [q["sql"] for q in previewed if 'FROM "games_move"' in q["sql"]]
    assert len(reads) == 1, reads
