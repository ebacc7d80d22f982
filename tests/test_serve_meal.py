"""/ui/meal: one meal of a draft as the engine scores it, for the meal form's line
("quality 13 → 2 stars"): the same numbers ``critter-kitchen score`` gives the meal in the game."""

from __future__ import annotations

import copy

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402
from test_serve_pages import EXAMPLES, cli_json, csrf_token, example, make_app  # noqa: E402

FOUR = "four-players.yaml"


@pytest.fixture
def client(tmp_path):
    with TestClient(make_app(tmp_path), base_url="http://127.0.0.1") as c:
        c.headers["X-CSRF-Token"] = csrf_token(c.get("/new").text)
        yield c


def card_names() -> dict[str, str]:
    return {c["id"]: c["name"] for c in cli_json("cards", "--format", "json")}


def test_each_challenge_meal_has_the_quality_and_stars_the_cli_gives_it(client):
    record = example(FOUR)
    expected = cli_json("score", str(EXAMPLES / FOUR), "--format", "json")
    names = card_names()
    for rnd, by_name in record["challenge_meals"].items():
        for name, served in by_name.items():
            for cid in served:
                answer = client.post("/ui/meal", json={"record": record, "player": name, "round": rnd, "card": cid})
                assert answer.status_code == 200
                own = [
                    a for a in expected["awards"] if a["player"] == name and a["reason"].startswith(names[cid] + " ")
                ]
                [meal] = [a for a in own if a["stage"] == f"challenge.{rnd}" and " meal, quality " in a["reason"]]
                # the meal's band, and the Grand Caterer's banquet star where it earned 4
                wanted = {
                    "problems": [],
                    "quality": int(meal["reason"].rsplit(" ", 1)[1]),
                    "stars": sum(a["stars"] for a in own),
                }
                got = answer.json()
                assert got.pop("spices") == {
                    "courses": 1,
                    "ingredients": {c: 1 for ids in record["cards"]["challenges"].values() for c in ids},
                }
                assert got == wanted, (rnd, name, cid)


def test_each_critic_meal_has_the_critic_quality_the_cli_gives_its_player(client):
    record = example(FOUR)
    expected = cli_json("score", str(EXAMPLES / FOUR), "--format", "json")
    for s in expected["standings"]:
        answer = client.post("/ui/meal", json={"record": record, "player": s["name"]}).json()
        assert (answer["problems"], answer["quality"]) == ([], s["critic_quality"])
        assert answer["stars"] > 0


def test_another_players_wrong_critic_meal_leaves_a_critic_meals_line_as_it_was(client):
    record = example(FOUR)
    before = client.post("/ui/meal", json={"record": record, "player": "Fay"}).json()
    broken = copy.deepcopy(record)
    broken["critic_meals"]["Gus"]["courses"]["wine"]["value"] = 0
    gus_gone = copy.deepcopy(record)
    del gus_gone["critic_meals"]["Gus"]
    assert (
        client.post("/ui/meal", json={"record": broken, "player": "Fay"}).json()
        == client.post("/ui/meal", json={"record": gus_gone, "player": "Fay"}).json()
    )
    assert before["quality"] == 48


def test_a_meal_with_a_problem_has_no_stars_and_says_the_problem_at_its_field(client):
    record = example(FOUR)
    record["challenge_meals"]["round3"]["Gus"]["garden-gratin"]["ingredients"][0]["value"] = 0
    ask = {"record": record, "player": "Gus", "round": "round3", "card": "garden-gratin"}
    answer = client.post("/ui/meal", json=ask).json()
    del answer["spices"]
    assert answer == {
        "problems": [
            {
                "where": "challenge_meals.round3.Gus.garden-gratin.ingredients[0].value",
                "message": "expected a positive whole number up to 1000000, got 0",
                "code": "CK301",
            }
        ],
        "quality": None,
        "stars": None,
    }
    # the other meals of the draft are not read: one of them wrong leaves this one scored
    ask["card"], ask["player"] = "hunters-ragout", "Ivo"
    assert client.post("/ui/meal", json=ask).json()["stars"] == 4


def test_a_meal_not_served_has_no_line_and_a_wrong_question_is_a_problem(client):
    record = example(FOUR)
    ask = {"record": record, "player": "Gus", "round": "round3", "card": "farmhouse-pie"}
    answer = client.post("/ui/meal", json=ask).json()
    assert (answer["problems"], answer["quality"], answer["stars"]) == ([], None, None)
    response = client.post("/ui/meal", json={"record": record, "round": "round3"})
    assert response.status_code == 422
    assert response.json()["problems"][0]["message"] == (
        "request: expected {record, player, round, card} for a challenge meal or {record, player} for a critic meal"
    )


def test_a_meal_answers_the_spices_its_player_may_put_on_each_field(client):
    record = example("five-players.yaml")  # Baron Pepperpot: two spices a course
    answer = client.post("/ui/meal", json={"record": record, "player": "Kim"}).json()
    assert answer["spices"]["courses"] == 2


def test_a_rooms_phone_may_ask_a_meals_stars_and_nothing_else_of_the_pages(tmp_path):
    pytest.importorskip("segno")
    from test_serve_rooms import OWNER, TOKEN, open_room, phone

    from critter_kitchen.web.app import Settings, create_app

    app = create_app(Settings(db=str(tmp_path / "games.sqlite3"), token=TOKEN))
    member = phone(app, open_room(TestClient(app, headers=OWNER))["join"])
    record = example("two-players.yaml")
    ask = {"record": record, "player": "Ana", "round": "round3", "card": "sunday-roast"}
    answer = member.post("/ui/meal", json=ask)
    assert answer.status_code == 200 and answer.json()["quality"] == 11
    assert member.post("/ui/check", json=record).status_code == 401  # the whole pad still needs the token
    assert member.post("/ui/plan", json={}).status_code == 401
    stranger = TestClient(app)
    assert stranger.post("/ui/meal", json=ask).status_code == 401  # no room's key: nothing
