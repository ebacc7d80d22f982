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
    pad.dropUndo();  // the form is replaced: an undo of its last removal would put back an older one
    draft = copy(player.part);
    form = null;
    meal.forget();
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

  // Undo on the pad's undo bar (pad.offerUndo) for what this page destroys: leaving the player's
  // seat (with the meals typed and not saved), ending the room (opened again as it was), a change
  // set aside, a meal's row removed or a meal cleared.
  const offerUndo = pad.offerUndo;
  function leave() {
    const was = {seat, draft: copy(draft), base, dirty};
    localStorage.removeItem(seatKey); seat = null; draft = null; form = null; meal.forget(); editor(); render();
    offerUndo("Left " + room.players[was.seat].name + "'s seat", () => {
      seat = was.seat; localStorage.setItem(seatKey, String(seat));
      draft = was.draft; base = was.base; dirty = was.dirty; form = null; meal.forget();
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

  // --- this phone's player's meals: the pad's meal form (meal.js) ------------------------

  // The form keeps each meal as the pad's page does ({served, ingredients: [{type, value, spice}],
  // tokens}); the draft (the player's part of the room) is made from it at each change.
  let form = null;
  let limits = {courses: null, ingredients: {}};  // the spices in force for this player (/ui/meal answers)
  const filled = (i) => String(i.value ?? "").trim() !== "" || (Array.isArray(i.spice) ? i.spice.length > 0 : !!i.spice);
  const num = (text) => { const t = String(text ?? "").trim(); return /^\d+$/.test(t) ? Number(t) : t; };
  const challenges = () => (room.setup.cards && room.setup.cards.challenges) || {};
  const cardOf = (id) => rules.cards.find((c) => c.id === id);

  function formOf(part) {
    const f = {meals: {}, critic: {courses: {}, tokens: {}}};
    for (const [r, ids] of Object.entries(challenges())) {
      f.meals[r] = {};
      for (const id of ids || []) {
        const m = ((part.challenge_meals || {})[r] || {})[id];
        const tokens = {};
        for (const [k, v] of Object.entries(m || {})) if (k !== "ingredients") tokens[k] = String(v);
        f.meals[r][id] = m
          ? {served: true, ingredients: (m.ingredients || []).map((i) => ({type: i.type, value: String(i.value ?? ""), spice: i.spice ?? ""})), tokens}
          : {served: false, ingredients: meal.rows(rules, cardOf(id)), tokens: {}};
      }
    }
    const c = part.critic_meal;
    if (c) {
      for (const [kind, course] of Object.entries(c.courses || {})) f.critic.courses[kind] = {value: String(course.value ?? ""), spice: course.spice ?? ""};
      for (const [k, v] of Object.entries(c)) if (k !== "courses") f.critic.tokens[k] = String(v);
    }
    return f;
  }
  function tokensOf(counts, into) {
    for (const t of rules.tokens) if (String(counts[t] ?? "").trim() !== "") into[t] = num(counts[t]);
    return into;
  }
  function partOf(f) {
    const part = {challenge_meals: {}, critic_meal: null};
    for (const [r, byCard] of Object.entries(f.meals)) {
      for (const [id, m] of Object.entries(byCard)) {
        if (!m.served) continue;
        const ingredients = m.ingredients.filter(filled).map((i) => {
          const out = {type: i.type, value: num(i.value)};
          if (i.spice && !(Array.isArray(i.spice) && !i.spice.length)) out.spice = i.spice;
          return out;
        });
        (part.challenge_meals[r] = part.challenge_meals[r] || {})[id] = tokensOf(m.tokens, {ingredients});
      }
    }
    const courses = {};
    for (const [kind, course] of Object.entries(f.critic.courses)) {
      if (!filled(course)) continue;
      courses[kind] = {value: num(course.value)};
      if (course.spice && !(Array.isArray(course.spice) && !course.spice.length)) courses[kind].spice = course.spice;
    }
    const critic = tokensOf(f.critic.tokens, {courses});
    if (Object.keys(courses).length || Object.keys(critic).length > 1) part.critic_meal = critic;
    return part;
  }
  // The record a meal's stars are asked with: the room's setup and this player's meals.
  function asked(name) {
    const part = partOf(form);
    const byRound = {};
    for (const [r, meals] of Object.entries(part.challenge_meals)) byRound[r] = {[name]: meals};
    return {...room.setup, challenge_meals: byRound, critic_meals: part.critic_meal ? {[name]: part.critic_meal} : {}};
  }

  // the spices in force, from a meal's answer: the form is drawn again when they change
  function seen(data) {
    if (!data.spices || JSON.stringify(data.spices) === JSON.stringify(limits)) return;
    limits = data.spices;
    const was = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.where : null;
    editor();
    const el = was && document.querySelector('[data-where="' + CSS.escape(was) + '"]');
    if (el) el.focus({preventScroll: true});
  }

  function options(where, name, more) {
    const o = {R: rules, where, name, err: () => "", ...more,  // no problems shown at fields here: nothing, not "null"
      changed: (tapped) => {
        if (o.serve) o.serve();
        draft = partOf(form);
        dirty = true;
        meal.score(where, o.ask, tapped, seen);
      },
      redraw: (to) => { editor(); const el = to && document.querySelector('[data-where="' + CSS.escape(to) + '"]'); if (el) el.focus({preventScroll: true}); },
      remove: (what, fn) => {
        const was = JSON.stringify(form);
        fn(); draft = partOf(form); dirty = true; editor();
        offerUndo(what, () => { form = JSON.parse(was); draft = partOf(form); dirty = true; meal.forget(); editor(); });
      }};
    return o;
  }

  function challengeMeal(name, r, id) {
    const m = form.meals[r][id];
    const where = "challenge_meals." + r + "." + name + "." + id;
    const c = cardOf(id);
    const ids = challenges()[r] || [];
    const held = ids.length > 0 && ids[ids.length - 1] === id;
    const box = h("input", {type: "checkbox", "data-meal": where, "aria-label": (c ? c.name : id) + " served", checked: m.served, onchange: (e) => {
      m.served = e.target.checked; draft = partOf(form); dirty = true; editor();
    }});
    const o = options(where, c ? c.name : id, {card: c, spices: (limits.ingredients || {})[id] ?? rules.spices_per_ingredient,
      covered: held && c && c.held ? c.held.covered : -1,
      ask: () => m.served ? {record: asked(name), player: name, round: r, card: id} : null,
      serve: () => {
        if (m.served || !(m.ingredients.some(filled) || Object.values(m.tokens).some((n) => String(n ?? "") !== ""))) return;
        m.served = box.checked = true;
        box.closest(".meal").classList.remove("unserved");
      }});
    if (m.served && !meal.hasLine(where)) meal.score(where, o.ask, true, seen);
    return h("div", {class: "meal" + (m.served ? "" : " unserved"), "data-card": id},
      h("label", {class: "served"}, box, " ", h("b", {}, c ? c.name : id)),
      h("div", {class: "meal-body"}, meal.starsLine(where), meal.ingredients(o, m)));
  }

  function criticMeal(name) {
    const where = "critic_meals." + name;
    const o = options(where, "the critic meal", {spices: limits.courses ?? rules.spices_per_course,
      ask: () => partOf(form).critic_meal ? {record: asked(name), player: name} : null});
    if (partOf(form).critic_meal && !meal.hasLine(where)) meal.score(where, o.ask, true, seen);
    return h("section", {class: "critic"}, h("h3", {}, "Critic meal"), meal.starsLine(where), meal.courses(o, form.critic));
  }

  function editor() {
    const box = $("editor");
    if (seat === null || draft === null) { box.hidden = true; return; }
    const player = room.players[seat];
    if (form === null) form = formOf(draft);
    box.hidden = false;
    box.replaceChildren(...[h("h2", {}, player.name + "'s meals"),
      h("div", {"data-pad-group": ""},
        Object.keys(challenges()).map((r) => h("div", {class: "round"}, h("h3", {}, r.replace(/_/g, " ")), (challenges()[r] || []).map((id) => challengeMeal(player.name, r, id)))),
        criticMeal(player.name)),
      h("p", {class: "actions"},
        h("button", {type: "button", onclick: () => save(false)}, "Save"),
        h("button", {type: "button", class: "primary", onclick: () => save(true)}, player.done ? "Save, still done" : "Done: submit my meals"),
        h("button", {type: "button", id: "not-me", onclick: leave}, "Not me"))].flat().filter((c) => c));  // no undo: nothing, not "null"
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
      offerUndo("Your change set aside", () => { draft = mine; dirty = true; form = null; meal.forget(); editor(); });  // back, on their version
    }
  }

  connect();
})();
