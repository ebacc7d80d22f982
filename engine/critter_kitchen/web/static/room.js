// A game room: this phone enters one player's meals; everyone's progress and the result
// arrive live from the room's event stream (each event the whole room at a version).
"use strict";
(() => {
  const {h, call} = pad;
  const root = document.getElementById("room");
  const code = root.dataset.code;
  const seatKey = "ck-room-" + code + "-seat";
  const member = root.hasAttribute("data-member");  // a phone let in by the room's key alone
  let room = null;      // the room as last received
  let rules = null;     // what the rules of the room's packs need (/ui/cards)
  let seat = localStorage.getItem(seatKey) === null ? null : Number(localStorage.getItem(seatKey));
  let draft = null;     // this phone's player's meals being entered
  let base = 0;         // the player's version the draft is based on
  let dirty = false;    // changed here and not saved
  let stream = null;

  const $ = (id) => document.getElementById(id);
  const say = (text) => { $("message").textContent = text || ""; $("message").hidden = !text; };
  const copy = (x) => JSON.parse(JSON.stringify(x));
  const cardName = (id) => ((rules && rules.cards.find((c) => c.id === id)) || {name: id}).name;

  function connect() {
    const since = room ? "?since=" + room.version : "";
    stream = new EventSource("/api/rooms/" + code + "/events" + since);
    stream.addEventListener("open", () => { $("live").textContent = "live"; });
    stream.addEventListener("room", (e) => receive(JSON.parse(e.data)));
    stream.addEventListener("gone", (e) => {
      stream.close();
      $("live").textContent = "closed";
      say(JSON.parse(e.data).errors.join(" "));
    });
    stream.addEventListener("error", () => {
      $("live").textContent = "reconnecting…";
      if (stream.readyState === EventSource.CLOSED) setTimeout(connect, 3000);  // refused: try again later
    });
  }

  async function receive(next) {
    room = next;
    if (!rules) {
      const packs = (room.setup.packs || []).join(",");
      const answer = await call("GET", "/ui/cards?packs=" + encodeURIComponent(packs));
      rules = answer.ok ? answer.data : {rounds: [], ingredients: [], courses: [], tokens: [], cards: []};
    }
    const mine = seat === null ? null : room.players[seat];
    if (mine && (draft === null || (!dirty && mine.version !== base))) take(mine);
    else if (mine && dirty && mine.version !== base) say(mine.name + "'s meals were changed on another device: saving here will be refused until you reload them.");
    render();
  }

  function take(player) {
    draft = copy(player.part);
    base = player.version;
    dirty = false;
    editor();
  }

  function render() {
    const list = $("players");
    list.replaceChildren(...room.players.map((p) => {
      const meals = Object.values(p.part.challenge_meals).reduce((n, m) => n + Object.keys(m).length, 0);
      const state = p.done ? "done" : "entering";
      return h("li", {"data-seat": p.seat, class: p.done ? "done" : ""},
        h("strong", {}, p.name), " — ", state, " (", meals, " challenge meals", p.part.critic_meal ? ", critic meal" : "", ")",
        seat === null ? h("button", {type: "button", onclick: () => choose(p.seat)}, "This is me") : null,
        seat === p.seat ? h("em", {}, " (this phone)") : null);
    }));
    const out = $("outcome");
    if (room.result) {
      out.replaceChildren(h("h2", {}, "Result"), h("p", {class: "winner"}, "Winner: " + room.result.winner),
        h("table", {class: "result"}, h("thead", {}, h("tr", {}, h("th", {}, "Rank"), h("th", {}, "Player"), h("th", {}, "Stars"))),
          h("tbody", {}, room.result.standings.map((s) => h("tr", {}, h("td", {}, s.rank), h("td", {}, s.name), h("td", {}, s.stars))))));
      if (room.complete) out.append(keeping());
    } else if (room.problems) {
      out.replaceChildren(h("h2", {}, "Problems to fix"), h("ul", {class: "problems"}, room.problems.map((m) => h("li", {}, m))));
    } else {
      const waiting = room.players.filter((p) => !p.done).map((p) => p.name);
      out.replaceChildren(h("p", {class: "hint"}, "Waiting for " + waiting.join(", ") + "."));
    }
  }

  // "Keep this game": the room's game kept in the history by the server, once for the room (the
  // room says which game it was kept as, on every device); meals changed since are kept as the
  // game's new version. Only the pad's own devices keep: a phone with the room's key alone is told.
  let keepingNow = false;
  function keeping() {
    const kept = room.kept;
    const changed = kept && room.version > kept.version;
    const label = kept ? "Kept as game " + kept.id : "";
    const line = kept ? h("p", {id: "kept"}, member ? label : h("a", {href: "/games/" + encodeURIComponent(kept.id)}, label),
      changed ? " (the meals changed since)" : "") : null;
    if (member) return line || h("p", {class: "hint", id: "keep-hint"}, "The pad's own device keeps this game.");
    if (kept && !changed) return line;
    const button = h("button", {type: "button", class: "primary", id: "keep", disabled: keepingNow, onclick: keep}, kept ? "Keep the changes" : "Keep this game");
    return h("div", {}, line, h("p", {class: "actions"}, button));
  }
  async function keep() {
    if (keepingNow) return;
    keepingNow = true;
    $("keep").disabled = true;
    const answer = await call("POST", "/api/rooms/" + code + "/keep", {});
    keepingNow = false;
    if (answer.ok && answer.data && answer.data.room) { receive(answer.data.room); return; }
    say(((answer.data && answer.data.errors) || ["the game was not kept (" + answer.status + ")"]).join(" "));
    render();
  }

  // Undo on the bar for what this page destroys: leaving the player's seat (with the meals typed
  // and not saved), and ending the room (opened again as it was).
  function offerUndo(what, action) {
    $("undo-what").textContent = what;
    $("undo").hidden = false;
    $("undo-button").onclick = () => { $("undo").hidden = true; action(); };
  }
  function leave() {
    const was = {seat, draft: copy(draft), base, dirty};
    localStorage.removeItem(seatKey); seat = null; draft = null; editor(); render();
    offerUndo("Left " + room.players[was.seat].name + "'s seat", () => {
      seat = was.seat; localStorage.setItem(seatKey, String(seat));
      draft = was.draft; base = was.base; dirty = was.dirty;
      editor(); render();
    });
  }
  async function endRoom() {
    const answer = await call("DELETE", "/api/rooms/" + code);
    if (answer.status !== 204) { say(((answer.data && answer.data.errors) || ["the room was not ended (" + answer.status + ")"]).join(" ")); return; }
    offerUndo("Room " + code + " ended", async () => {
      const back = await call("POST", "/api/rooms/" + code + "/reopen", {});
      if (!back.ok) { say(((back.data && back.data.errors) || ["the room was not opened again"]).join(" ")); return; }
      say("");
      if (stream) stream.close();
      connect();
    });
  }
  if ($("end-room")) $("end-room").addEventListener("click", endRoom);

  function choose(s) {
    seat = s;
    localStorage.setItem(seatKey, String(s));
    take(room.players[s]);
    render();
  }

  const number = (value, onchange, label) => h("input", {type: "number", inputmode: "numeric", min: 0, value: value === undefined ? "" : value, "aria-label": label,
    oninput: (e) => { onchange(e.target.value === "" ? undefined : Number(e.target.value)); dirty = true; }});
  const spiceText = (spice) => Array.isArray(spice) ? spice.join(", ") : (spice || "");
  const spiceValue = (text) => { const parts = text.split(",").map((s) => s.trim()).filter(Boolean); return parts.length > 1 ? parts : parts[0]; };
  const set = (obj, key, value) => { if (value === undefined || value === "") delete obj[key]; else obj[key] = value; };

  function tokenInputs(meal, where) {
    return h("span", {class: "tokens"}, rules.tokens.map((t) => h("label", {}, t + " ", number(meal[t], (v) => set(meal, t, v), where + " " + t))));
  }

  function ingredientRow(meal, ing, where) {
    const row = h("div", {class: "ingredient"},
      h("select", {"aria-label": where + " type", onchange: (e) => { ing.type = e.target.value; dirty = true; }},
        rules.ingredients.map((t) => h("option", {value: t, selected: t === ing.type}, t))),
      number(ing.value, (v) => set(ing, "value", v), where + " value"),
      h("input", {type: "text", "aria-label": where + " spice", placeholder: "spice", value: spiceText(ing.spice),
        oninput: (e) => { set(ing, "spice", spiceValue(e.target.value)); dirty = true; }}),
      h("button", {type: "button", "aria-label": "remove " + where, onclick: () => { meal.ingredients.splice(meal.ingredients.indexOf(ing), 1); dirty = true; editor(); }}, "✕"));
    return row;
  }

  function challengeMeal(roundId, cardId) {
    const byCard = draft.challenge_meals[roundId] || {};
    const meal = byCard[cardId];
    const where = cardName(cardId);
    const served = h("label", {}, h("input", {type: "checkbox", checked: !!meal, "aria-label": where + " served", onchange: (e) => {
      const meals = draft.challenge_meals[roundId] = draft.challenge_meals[roundId] || {};
      if (e.target.checked) meals[cardId] = {ingredients: []}; else delete meals[cardId];
      if (!Object.keys(meals).length) delete draft.challenge_meals[roundId];
      dirty = true; editor();
    }}), " served");
    if (!meal) return h("fieldset", {class: "meal"}, h("legend", {}, where), served);
    meal.ingredients = meal.ingredients || [];
    return h("fieldset", {class: "meal"}, h("legend", {}, where), served,
      meal.ingredients.map((ing, i) => ingredientRow(meal, ing, where + " ingredient " + (i + 1))),
      h("button", {type: "button", onclick: () => { meal.ingredients.push({type: rules.ingredients[0], value: undefined}); dirty = true; editor(); }}, "+ ingredient"),
      tokenInputs(meal, where));
  }

  function criticMeal() {
    const meal = draft.critic_meal;
    const served = h("label", {}, h("input", {type: "checkbox", checked: !!meal, "aria-label": "critic meal served", onchange: (e) => {
      draft.critic_meal = e.target.checked ? {courses: {}} : null; dirty = true; editor();
    }}), " served");
    if (!meal) return h("fieldset", {class: "meal"}, h("legend", {}, "Critic meal"), served);
    meal.courses = meal.courses || {};
    return h("fieldset", {class: "meal"}, h("legend", {}, "Critic meal"), served,
      rules.courses.map((c) => {
        const course = meal.courses[c];
        return h("div", {class: "ingredient"},
          h("label", {}, h("input", {type: "checkbox", checked: !!course, "aria-label": c + " course served", onchange: (e) => {
            if (e.target.checked) meal.courses[c] = {value: undefined}; else delete meal.courses[c]; dirty = true; editor();
          }}), " " + c),
          course ? number(course.value, (v) => set(course, "value", v), c + " course value") : null,
          course ? h("input", {type: "text", placeholder: "spice", "aria-label": c + " course spice", value: spiceText(course.spice),
            oninput: (e) => { set(course, "spice", spiceValue(e.target.value)); dirty = true; }}) : null);
      }),
      tokenInputs(meal, "critic meal"));
  }

  function editor() {
    const box = $("editor");
    if (seat === null || draft === null) { box.hidden = true; return; }
    const player = room.players[seat];
    const challenges = (room.setup.cards && room.setup.cards.challenges) || {};
    box.hidden = false;
    box.replaceChildren(...[h("h2", {}, player.name + "'s meals"),
      Object.keys(challenges).map((r) => h("div", {class: "round"}, h("h3", {}, r.replace(/_/g, " ")), (challenges[r] || []).map((id) => challengeMeal(r, id)))),
      criticMeal(),
      h("p", {class: "actions"},
        h("button", {type: "button", onclick: () => save(false)}, "Save"),
        h("button", {type: "button", class: "primary", onclick: () => save(true)}, player.done ? "Save, still done" : "Done: submit my meals"),
        h("button", {type: "button", id: "not-me", onclick: leave}, "Not me"))].flat());
  }

  async function save(done) {
    const answer = await call("PUT", "/api/rooms/" + code + "/players/" + seat, {version: base, done, part: draft});
    if (answer.ok) {
      say("");
      dirty = false;
      receive(answer.data);
      return;
    }
    const data = answer.data || {};
    say((data.errors || ["the meals could not be saved (" + answer.status + ")"]).join(" "));
    if (answer.status === 409 && data.room) {  // another device changed them: show theirs
      const mine = copy(draft);
      room = data.room;
      take(room.players[seat]);
      render();
      offerUndo("Your change set aside", () => { draft = mine; dirty = true; editor(); });  // back, on their version
    }
  }

  connect();
})();
