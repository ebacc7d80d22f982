// The game-entry page: the cards in play, the players, every meal, checked while typing by
// the engine (/ui/check), and kept through the games API once the record is legal.
"use strict";
(() => {
  const {h, call, path, debounce} = pad;
  const $ = (sel) => document.querySelector(sel);
  const DRAFT = "critter-kitchen-draft";
  // the whole draft is checked this long after the last key typed, or the last tap (a meal's own line,
  // asked at once on a tap, goes first)
  const TYPED_CHECK_MS = 300;
  const TAPPED_CHECK_MS = 120;

  let R = null;  // what the rules of the packs picked need (/ui/cards)
  let rulesOf = null;  // the packs whose rules R is, as asked
  let S = fresh();  // the game typed so far
  let last = {problems: [], result: null};  // the latest check
  let asked = 0;  // checks sent; an answer to an older one is dropped
  let step = "game";
  let shown = null;  // key of the player whose meals are shown

  function fresh() {
    return {packs: [], players: [player(1), player(2)], next: 3, table: {}, meals: {}, critic: {}, pantry: {}};
  }
  function player(key) { return {key, name: "", held: {}, counters: {}, kept: {}, automated: null}; }

  const cards = (kind) => R.cards.filter((c) => c.kind === kind);
  const card = (id) => R.cards.find((c) => c.id === id);
  const tableSlots = () => R.slots.filter((s) => s.slot.startsWith("cards."));
  const heldSlots = () => R.slots.filter((s) => s.slot.startsWith("players."));
  const field = (slot) => slot.slot.split(".")[1];
  const cooks = () => S.players.filter((p) => !p.automated);
  const isChallenges = (slot) => field(slot) === "challenges";

  // --- the record ------------------------------------------------------------------

  function number(text) {
    const t = String(text ?? "").trim();
    return /^\d+$/.test(t) ? Number(t) : t;
  }
  function tokens(counts, into) {
    for (const name of R.tokens) {
      const n = String(counts[name] ?? "").trim();
      if (n !== "" && n !== "0") into[name] = number(n);
    }
    return into;
  }
  function ingredient(i) {
    const out = {type: i.type, value: number(i.value)};
    const spice = spiceRecord(i.spice);
    if (spice !== undefined) out.spice = spice;
    return out;
  }
  // The spices of an ingredient or course as the form keeps them (one per box, "" when a box
  // is empty) and as a record writes them: one spice as its name, more as a list.
  const spiceList = (spice) => Array.isArray(spice) ? [...spice] : spice ? [spice] : [];
  function spiceRecord(spice) {
    const list = spiceList(spice).filter((sp) => sp !== "");
    return list.length === 0 ? undefined : list.length === 1 ? list[0] : list;
  }

  function record() {
    const out = {};
    if (S.packs.length) out.packs = [...S.packs];
    out.players = S.players.map((p) => {
      const entry = {name: p.name};
      if (p.automated) {
        entry.automated = {stars: number(p.automated.stars), critic_quality: number(p.automated.critic_quality)};
        return entry;
      }
      for (const slot of heldSlots()) {
        const v = p.held[field(slot)];
        if (slot.single ? v : v && v.length) entry[field(slot)] = v;
      }
      const kept = {};
      for (const r of R.rounds) if (String((p.kept || {})[r] ?? "").trim() !== "") kept[r] = number(p.kept[r]);
      if (Object.keys(kept).length) entry.kept = kept;
      const counters = {};
      for (const c of R.counters) if (String(p.counters[c] ?? "").trim() !== "") counters[c] = number(p.counters[c]);
      if (Object.keys(counters).length) entry.counters = counters;
      return entry;
    });
    out.cards = {};
    for (const slot of tableSlots()) {
      const f = field(slot), v = S.table[f];
      if (isChallenges(slot)) {
        out.cards[f] = {};
        for (const r of R.rounds) out.cards[f][r] = ((v || {})[r] || []).filter(Boolean);
      } else if (slot.single ? v : v && v.length) out.cards[f] = v;
    }
    const meals = {};
    for (const r of R.rounds) {
      meals[r] = {};
      for (const p of cooks()) {
        const served = {};
        for (const id of roundCards(r)) {
          const m = ((S.meals[r] || {})[p.key] || {})[id];
          if (m && m.served) served[id] = tokens(m.tokens, {ingredients: m.ingredients.filter(filled).map(ingredient)});
        }
        if (Object.keys(served).length) meals[r][p.name] = served;
      }
    }
    out.challenge_meals = meals;
    const critic = {};
    for (const p of cooks()) {
      const c = S.critic[p.key];
      if (!c) continue;
      const courses = {};
      for (const kind of R.courses) {
        const course = c.courses[kind] || {};
        if (course.token) courses[kind] = {token: course.token};
        else if (filled(course)) {
          courses[kind] = {value: number(course.value)};
          const spice = spiceRecord(course.spice);
          if (spice !== undefined) courses[kind].spice = spice;
        }
      }
      const meal = tokens(c.tokens, {courses});
      const left = leftRecord(c);
      if (left !== undefined) meal.left = left;
      if (Object.keys(courses).length || Object.keys(meal).length > 1) critic[p.name] = meal;
    }
    out.critic_meals = critic;
    return out;
  }

  // a row of a meal counts once it has a value or a spice (a requirement's row left empty is not served)
  const filled = (i) => String(i.value ?? "").trim() !== "" || spiceList(i.spice).some((sp) => sp !== "");
  const roundCards = (r) => ((S.table.challenges || {})[r] || []).filter(Boolean);

  // What a player left unused at the end of the game (critic_meals.NAME.left): typed in the
  // form's way (c.left), or kept as imported when it is not of a shape the form shows
  // (c.leftAsIs, which the engine then reports at its place); neither: not recorded.
  function leftRecord(c) {
    if (c.leftAsIs !== undefined) return JSON.parse(JSON.stringify(c.leftAsIs));
    if (!c.left) return undefined;
    return {ingredients: c.left.ingredients.map((i) => ({type: i.type, value: number(i.value)})), spices: [...c.left.spices]};
  }
  function leftForm(c, left) {
    delete c.leftAsIs;
    c.left = null;
    if (left === undefined) return;
    const ok = left && typeof left === "object" && !Array.isArray(left)
      && Object.keys(left).every((k) => k === "ingredients" || k === "spices")
      && Array.isArray(left.ingredients || []) && Array.isArray(left.spices || [])
      && (left.ingredients || []).every((i) => i && typeof i === "object" && !Array.isArray(i)
        && Object.keys(i).every((k) => k === "type" || k === "value") && typeof i.type === "string")
      && (left.spices || []).every((sp) => typeof sp === "string");
    if (!ok) { c.leftAsIs = JSON.parse(JSON.stringify(left)); return; }
    c.left = {ingredients: (left.ingredients || []).map((i) => ({type: i.type, value: String(i.value ?? ""), spice: ""})),
      spices: [...(left.spices || [])]};
  }

  // A record read back into the page (an imported file).
  function load(rec) {
    const s = fresh();
    s.players = [];
    s.packs = Array.isArray(rec.packs) ? rec.packs.filter((p) => typeof p === "string") : [];
    const keyOf = {};
    for (const entry of Array.isArray(rec.players) ? rec.players : []) {
      const p = player(s.next++);
      p.name = String(entry && entry.name || "");
      keyOf[p.name] = p.key;
      if (entry && entry.automated) p.automated = {...entry.automated};
      for (const [k, v] of Object.entries(entry || {})) if (!["name", "automated", "counters", "kept"].includes(k)) p.held[k] = v;
      p.counters = {...(entry && entry.counters) || {}};
      p.kept = Object.fromEntries(Object.entries((entry && entry.kept) || {}).map(([r, n]) => [r, String(n)]));
      s.players.push(p);
    }
    s.table = JSON.parse(JSON.stringify(rec.cards || {}));
    for (const [r, byName] of Object.entries(rec.challenge_meals || {})) {
      s.meals[r] = {};
      for (const [name, served] of Object.entries(byName || {})) {
        const key = keyOf[name];
        if (key === undefined) continue;
        s.meals[r][key] = {};
        for (const [id, m] of Object.entries(served || {})) {
          const ings = (m.ingredients || []).map((i) => ({type: i.type, value: String(i.value ?? ""), spice: i.spice ?? ""}));
          const t = {};
          for (const [k, v] of Object.entries(m)) if (k !== "ingredients") t[k] = String(v);
          s.meals[r][key][id] = {served: true, ingredients: ings, tokens: t};
        }
      }
    }
    for (const [name, meal] of Object.entries(rec.critic_meals || {})) {
      const key = keyOf[name];
      if (key === undefined) continue;
      const courses = {};
      for (const [kind, c] of Object.entries(meal.courses || {})) {
        courses[kind] = c && c.token ? {token: c.token} : {value: String((c && c.value) ?? ""), spice: (c && c.spice) ?? ""};
      }
      const t = {};
      for (const [k, v] of Object.entries(meal)) if (k !== "courses" && k !== "left") t[k] = String(v);
      s.critic[key] = {courses, tokens: t};
      leftForm(s.critic[key], meal.left);
    }
    return s;
  }

  // --- checking ----------------------------------------------------------------------

  // One check in flight at a time: a change meanwhile is checked once it is answered.
  let checking = false, again = false;
  async function checkNow() {
    if (checking) { again = true; return; }
    checking = true;
    try { await checkOnce(); } finally { checking = false; }
    if (again) { again = false; checkNow(); }
  }
  async function checkOnce() {
    const mine = ++asked;
    status("Checking…", "busy");
    const answer = await call("POST", "/ui/check", record());
    if (mine !== asked) return;
    const allowed = JSON.stringify(last.spices || null);
    last = answer.data && Array.isArray(answer.data.problems) ? answer.data : {problems: [{where: "", message: "the check failed (" + answer.status + ")"}], result: null};
    if (JSON.stringify(last.spices || null) !== allowed) keepFocus(renderMeals);
    showProblems();
    preview();
  }

  // ``tapped``: the change was a tap (a chip, the number pad, a button), checked soon; typing is
  // checked once it pauses.
  let typing = null;
  function changed(tapped) {
    localStorage.setItem(DRAFT, JSON.stringify({S, step, shown}));
    clearTimeout(typing);
    typing = setTimeout(checkNow, tapped ? TAPPED_CHECK_MS : TYPED_CHECK_MS);
  }

  // Each problem goes to the message slot of its record path, or of the nearest enclosing
  // path the page has a slot for; what has none is listed below the page.
  const MARKED = ".field, .meal, .course, .ingredient";  // what the check marks bad around a problem's slot
  function showProblems() {
    for (const el of document.querySelectorAll(".err[data-for]")) { el.textContent = ""; el.hidden = true; }
    for (const el of document.querySelectorAll(MARKED)) el.classList.remove("bad");  // only the check's own marks
    const other = $("#other-problems");
    other.textContent = "";
    const perPlayer = {};
    for (const p of last.problems) {
      const slot = slotFor(p.where);
      if (slot) {
        slot.hidden = false;
        slot.append(h("span", {class: "msg"}, p.message));
        const box = slot.closest(MARKED);
        if (box) box.classList.add("bad");
        const owner = slot.closest("[data-player]");
        if (owner) perPlayer[owner.dataset.player] = (perPlayer[owner.dataset.player] || 0) + 1;
      } else other.append(h("li", {}, p.where ? p.where + ": " : "", p.message));
    }
    for (const tab of document.querySelectorAll("#who button")) {
      const n = perPlayer[tab.dataset.key] || 0;
      tab.querySelector(".count").textContent = n ? String(n) : "";
    }
    const perStep = {};
    for (const p of last.problems) {
      const slot = slotFor(p.where), at = slot && slot.closest(".step");
      if (at) perStep[at.dataset.step] = (perStep[at.dataset.step] || 0) + 1;
    }
    for (const b of document.querySelectorAll("#steps button")) {
      const k = perStep[b.dataset.step] || 0;
      b.querySelector(".count").textContent = k ? String(k) : "";
      b.setAttribute("aria-label", b.dataset.name + (k ? ", " + (k === 1 ? "1 problem" : k + " problems") : ""));
    }
    const n = last.problems.length;
    $("#next-problem").hidden = !n;
    if (n) status(n === 1 ? "1 problem to fix" : n + " problems to fix", "bad");
    else status(summary(last.result), "good");
    $("#save").disabled = !!n || !last.result;
  }

  // "Next problem": each problem in turn, on its step and its player's tab, its field in view
  // and focused (a closed part of the form that holds it opened).
  let nextAt = 0;
  function nextProblem() {
    const list = last.problems;
    if (!list.length) return;
    const p = list[nextAt % list.length];
    nextAt = (nextAt + 1) % list.length;
    let slot = slotFor(p.where);
    if (!slot) { $("#other-problems").scrollIntoView({block: "center"}); return; }
    const at = slot.closest(".step");
    if (at && at.dataset.step !== step) go(at.dataset.step);
    slot = slotFor(p.where);
    const owner = slot && slot.closest("[data-player]");
    if (owner && Number(owner.dataset.player) !== shown) { shown = Number(owner.dataset.player); renderMeals(); showProblems(); slot = slotFor(p.where); }
    if (!slot) return;
    for (let d = slot.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) d.open = true;
    const box = slot.closest(".field, .meal, .course, .ingredient, .player, fieldset, section");
    const exact = document.querySelector('[data-where="' + CSS.escape(p.where) + '"]');
    let target = exact && !exact.closest("[hidden]") ? exact : box && [...box.querySelectorAll("input, select")].find((e) => !e.closest("[hidden]"));
    if (!target) { target = slot; slot.tabIndex = -1; }
    target.focus({preventScroll: true});
    target.scrollIntoView({block: "center"});
  }

  function slotFor(where) {
    let at = where || "record";
    for (;;) {
      const el = document.querySelector('.err[data-for="' + CSS.escape(at) + '"]');
      if (el) return el;
      const shorter = at.replace(/(\.[^.[\]]*|\[\d+\])$/, "");
      if (shorter === at || !shorter) return null;
      at = shorter;
    }
  }

  function summary(result) {
    if (!result) return "";
    const winners = result.winners || [result.winner];
    return "Legal · " + result.standings.map((s) => s.name + " " + s.stars + "★").join(" · ") +
      (winners.length > 1 ? " · shared win " + winners.join(", ") : " · winner " + result.winner);
  }

  // "Ana wins", "Ana and Ben share the win", "Ana, Ben and Cy share the win"
  function winnersLine(result) {
    const winners = result.winners || [result.winner];
    if (winners.length === 1) return winners[0] + " wins";
    return winners.slice(0, -1).join(", ") + " and " + winners[winners.length - 1] + " share the win";
  }

  function status(text, kind) {
    const el = $("#status");
    el.textContent = text;
    el.className = "status " + (kind || "");
  }

  // --- small pieces of form ----------------------------------------------------------

  // The form is drawn again after most changes: the field that had the keyboard focus gets it
  // back (found by its record path, or a button by what it adds), or ``to``, a field's
  // record path (the new row's first field), when given; the page does not scroll.
  const FOCUS_KEYS = ["data-chip", "data-where", "data-meal", "data-add", "data-choice"];
  function keepFocus(draw, to) {
    const was = document.activeElement;
    const key = was && FOCUS_KEYS.find((k) => was.hasAttribute && was.hasAttribute(k));
    const sel = to !== undefined ? '[data-where="' + CSS.escape(to) + '"]'
      : key ? "[" + key + '="' + CSS.escape(was.getAttribute(key)) + '"]' + (was.value && key === "data-choice" ? '[value="' + CSS.escape(was.value) + '"]' : "") : null;
    draw();
    const again = sel && document.querySelector(sel);
    if (again && again !== was) again.focus({preventScroll: to === undefined});
  }

  const err = (where) => h("p", {class: "err", "data-for": where, hidden: true});

  function input(value, onchange, attrs) {
    return h("input", {value: value ?? "", ...attrs, oninput: (e) => { onchange(e.target.value); changed(); }});
  }
  function count(value, onchange, attrs) {
    return input(value, onchange, {inputmode: "numeric", pattern: "[0-9]*", class: "num", autocomplete: "off", ...attrs});
  }
  function select(options, value, onchange, attrs) {
    const known = options.some(([v]) => v === (value ?? ""));
    const el = h("select", {...attrs, onchange: (e) => { onchange(e.target.value); changed(); }},
      options.map(([v, text]) => h("option", {value: v}, text)),
      known ? null : h("option", {value: String(value)}, String(value)));  // never a blank that drops it
    el.value = value ?? "";
    return el;
  }
  // How many spices a course (``courses``) or an ingredient of a meal for card ``id`` may take,
  // for this player: the engine's answer to the latest check, the rules' own until then.
  function spicesAllowed(p, id) {
    const known = last.spices || {};
    if (id === undefined) return ((known.courses || {})[p.name]) ?? R.spices_per_course;
    return (((known.ingredients || {})[p.name] || {})[id]) ?? R.spices_per_ingredient;
  }

  // A card's text; ``held``: it is the last card of its round, where the Hold token is, and
  // the engine's words for that (c.held) say so, the requirement it covers struck through.
  function cardText(c, held) {
    if (!c) return null;
    const words = held && c.held ? c.held : c;
    return h("div", {class: "card-text"}, said(c, held),
      words.detail && words.detail !== words.text ? h("details", {}, h("summary", {}, "effects"), h("pre", {}, words.detail)) : null);
  }
  // What a card says, its requirements once: on the card where the Hold token is, the engine's
  // words for them with the requirement it covers struck through (after the card's printed text,
  // if it has one); elsewhere the engine's text.
  function said(c, held) {
    if (!c) return null;
    if (!held || !c.held) return h("p", {class: "text"}, c.text);
    return [c.printed ? h("p", {class: "text"}, c.held.text) : null,
      h("p", {class: "requires"}, "Requires: ", c.requires.map((t, k) => [k ? ", " : "", k === c.held.covered
        ? h("s", {title: "covered by the Hold token"}, t) : h("span", {}, t)]).flat(), " (" + c.held.note + ")")];
  }
  const heldCard = (r, id) => { const ids = roundCards(r); return ids.length > 0 && ids[ids.length - 1] === id; };

  // A card as a chip, its name on it (its text on a long press or hover); a card the packs in play do
  // not have (an imported id) is its own chip, never dropped.
  function cardChip(id, on, onclick, where, disabled) {
    const c = card(id);
    return h("button", {type: "button", class: "chip card" + (on ? " on" : ""), "aria-pressed": String(!!on),
      "data-chip": where + ":" + id, title: c ? c.text : "not a card of the packs in play", disabled, onclick}, c ? c.name : id);
  }
  const chipIds = (kind, picked) => {
    const ids = cards(kind).map((c) => c.id);
    return [...ids, ...picked.filter((id) => id && !ids.includes(id))];
  };

  // One card (the critic, a player's restaurateur) as the chips of the cards of the packs in play:
  // a tap picks one, a tap on the one picked clears it. The group holds the record path
  // (data-where) and the card picked (data-value), and takes the focus when a problem is shown there.
  function cardChips(kind, value, onchange, where, labelText) {
    const box = h("div", {class: "chips cards", role: "group", tabindex: "-1", "aria-label": labelText, "data-where": where});
    const text = h("div", {class: "picked"});
    const draw = () => {
      box.dataset.value = value || "";
      box.replaceChildren(...chipIds(kind, [value]).map((id) => cardChip(id, id === value, () => {
        value = id === value ? "" : id;
        onchange(value);
        keepFocus(draw);
        changed(true);
      }, where)));
      text.replaceChildren(...[cardText(card(value))].filter(Boolean));
    };
    draw();
    return h("div", {class: "field"}, h("span", {class: "label"}, labelText), box, text, err(where));
  }

  // The challenge cards of a round: a slot a card in reveal order (the last is where the Hold token
  // is), then the chips of the cards. A tap on a card fills the round's first empty slot; a tap on a
  // card picked, or on its slot, empties that slot; a full round takes another card once a slot is emptied.
  function roundCardChips(kind, f, r, ids) {
    const pick = (i, id) => { ids[i] = id; keepFocus(renderTable); renderMeals(); changed(true); };
    const set = h("fieldset", {class: "round-cards"}, h("legend", {}, "Challenge cards of " + r + ", in reveal order"));
    for (let i = 0; i < R.per_round; i++) {
      const where = path("cards", f, r, i), id = ids[i] || "", c = card(id);
      set.append(h("div", {class: "field"},
        h("span", {class: "line"}, h("span", {class: "seat"}, String(i + 1)),
          h("button", {type: "button", class: "slot" + (id ? " on" : ""), "data-where": where, "data-value": id,
            "aria-label": "card " + (i + 1) + (id ? ": " + (c ? c.name : id) + ", tap to empty" : ": none"), "aria-disabled": id ? null : "true",
            onclick: () => pick(i, "")}, id ? [c ? c.name : id, " ✕"] : "—")),
        h("div", {class: "picked"}, cardText(c, !!id && heldCard(r, id))), err(where)));
    }
    let free = 0;
    while (free < R.per_round && ids[free]) free++;
    const at = path("cards", f, r);
    set.append(h("div", {class: "chips cards", role: "group", "aria-label": "challenge cards for " + r},
      chipIds(kind, ids).map((id) => {
        const i = ids.indexOf(id);
        return cardChip(id, i >= 0, () => pick(i >= 0 ? i : free, i >= 0 ? "" : id), at, i < 0 && free >= R.per_round);
      })), err(at));
    return set;
  }

  function cardChoices(kind, values, onchange, where, labelText) {
    const list = h("div", {class: "choices cards"});
    cards(kind).forEach((c) => {
      const box = h("input", {type: "checkbox", value: c.id, "data-choice": where, checked: values.includes(c.id), onchange: () => {
        // in the order they were picked (a record's order), not the list's
        const now = [...list.querySelectorAll("input:checked")].map((i) => i.value);
        values = [...values.filter((id) => now.includes(id)), ...now.filter((id) => !values.includes(id))];
        onchange(values);
        changed();
      }});
      list.append(h("label", {class: "choice"}, box, h("span", {}, h("b", {}, c.name), h("span", {class: "text"}, c.text))));
    });
    return h("fieldset", {class: "field"}, h("legend", {}, labelText), list, err(where));
  }

  // --- undo ---------------------------------------------------------------------------

  // What a destructive action ("Start over", a player's ✕, a meal's row removed) replaced, as it
  // was: "Undo" on the pad's undo bar puts it back exactly, step and shown player included.
  function undoable(what) {
    const was = JSON.stringify({S, step, shown});
    pad.offerUndo(what, () => undo(was));
  }
  async function undo(undone) {
    const was = JSON.parse(undone);
    S = was.S;
    shown = was.shown;
    meal.forget();
    if (await rules()) { renderAll(); go(was.step); changed(); }
  }

  // --- step 1: packs, players, cards -------------------------------------------------

  function renderPlayers() {
    const box = $("#players");
    box.textContent = "";
    S.players.forEach((p, i) => {
      const where = path("players", i);
      const row = h("div", {class: "player field"},
        h("div", {class: "line"},
          h("span", {class: "seat"}, String(i + 1)),
          input(p.name, (v) => { p.name = v; renderKnown(); names(); }, {"aria-label": "player " + (i + 1) + " name", placeholder: "name", "data-where": path(where, "name"), autocomplete: "off", class: "name",
            enterkeyhint: "next", onkeydown: (e) => { if (e.key === "Enter") { e.preventDefault(); nextSeat(i); } }}),
          h("button", {type: "button", title: "move up", "aria-label": "move up", disabled: i === 0, onclick: () => move(i, -1)}, "↑"),
          h("button", {type: "button", title: "move down", "aria-label": "move down", disabled: i === S.players.length - 1, onclick: () => move(i, 1)}, "↓"),
          h("button", {type: "button", title: "remove", "aria-label": "remove player " + (i + 1), onclick: () => {
            undoable("Removed " + (p.name || "player " + (i + 1)));
            S.players.splice(i, 1); renderAll(); changed();
          }}, "✕")),
        h("p", {class: "warn", "data-like": i, hidden: true}),
        err(path(where, "name")), err(where));
      if (R.max_automated > 0) {
        row.append(h("label", {class: "choice"}, h("input", {type: "checkbox", checked: !!p.automated, onchange: (e) => {
          p.automated = e.target.checked ? {stars: "", critic_quality: ""} : null;
          renderAll(); changed();
        }}), " automated rival"));
      }
      if (p.automated) {
        row.append(h("div", {class: "line"},
          h("label", {}, "stars ", count(p.automated.stars, (v) => { p.automated.stars = v; })),
          h("label", {}, "critic quality ", count(p.automated.critic_quality, (v) => { p.automated.critic_quality = v; }))),
        err(path(where, "automated", "stars")), err(path(where, "automated", "critic_quality")), err(path(where, "automated")));
      } else {
        for (const slot of heldSlots()) {
          const f = field(slot);
          row.append(slot.single
            ? cardChips(slot.kind, p.held[f], (v) => { p.held[f] = v; }, path(where, f), slot.kind)
            : cardChoices(slot.kind, p.held[f] || [], (v) => { p.held[f] = v; }, path(where, f), slot.kind));
        }
        for (const c of R.counters) {
          row.append(h("label", {class: "counter"}, c + " ", count(p.counters[c], (v) => { p.counters[c] = v; })), err(path(where, "counters", c)));
        }
      }
      box.append(row);
    });
    $("#add-player").disabled = S.players.length >= R.max_players;
    $("#player-limit").textContent = R.player_limit.charAt(0).toUpperCase() + R.player_limit.slice(1) + ".";
    renderKnown();
    names();
  }

  // The players the pad knows (the kept games' players, the most recent first): a tap puts one
  // in the first empty seat, or in a new seat when every seat has a name.
  const setupData = (key) => JSON.parse($("#setup-data").dataset[key] || "null");
  function renderKnown() {
    const taken = new Set(S.players.map((p) => p.name));
    const box = $("#known");
    box.replaceChildren(...(setupData("known") || []).filter((n) => !taken.has(n)).map((n) =>
      h("button", {type: "button", class: "chip", "data-known": n, onclick: () => seat(n)}, n)));
    box.hidden = !box.children.length;
  }
  function seat(name) {
    let p = S.players.find((q) => !q.automated && q.name.trim() === "");
    if (!p) {
      if (S.players.length >= R.max_players) return;
      p = player(S.next++);
      S.players.push(p);
    }
    p.name = name;
    renderAll();
    changed();
  }
  // A name that folds (as the store folds names) to a known name it is not — "ana" for "Ana",
  // a Cyrillic "а" for a Latin "a" — is flagged at its field, with a tap to use the known one.
  const names = debounce(async () => {
    const typed = S.players.map((p) => p.name);
    const answer = await call("GET", "/ui/names?" + typed.map((n) => "name=" + encodeURIComponent(n)).join("&"));
    if (!answer.ok || JSON.stringify(typed) !== JSON.stringify(S.players.map((p) => p.name))) return;
    answer.data.like.forEach((known, i) => {
      const box = document.querySelector(`#players [data-like="${i}"]`);
      if (!box) return;
      box.hidden = known === null;
      box.replaceChildren(...(known === null ? [] : [
        "Looks like " + known + ", a player the pad knows: two spellings would be two players in the statistics. ",
        h("button", {type: "button", class: "use-known", onclick: () => { S.players[i].name = known; renderAll(); changed(); }}, "Use " + known)]));
    });
  }, 200);

  // Enter (a phone keyboard's "next") in a name: on to the next seat's name; from the last seat, once
  // it has a name, to a new seat as "Add a player" makes one, while the rules allow one more player.
  function nextSeat(i) {
    if (i === S.players.length - 1) {
      if (!S.players[i].name.trim() || S.players.length >= R.max_players) return;
      S.players.push(player(S.next++));
      renderAll();
      changed();
    }
    const next = document.querySelector('[data-where="' + path("players", i + 1, "name") + '"]');
    if (next) next.focus();
  }

  function move(i, by) {
    const [p] = S.players.splice(i, 1);
    S.players.splice(i + by, 0, p);
    renderAll();
    changed();
  }

  function renderTable() {
    const box = $("#table-cards");
    box.textContent = "";
    for (const slot of tableSlots()) {
      const f = field(slot);
      if (isChallenges(slot)) {
        S.table[f] = S.table[f] || {};
        for (const r of R.rounds) {
          box.append(roundCardChips(slot.kind, f, r, S.table[f][r] = S.table[f][r] || []));
        }
      } else if (slot.single) {
        box.append(h("fieldset", {}, h("legend", {}, slot.kind),
          cardChips(slot.kind, S.table[f] || "", (v) => { S.table[f] = v; }, path("cards", f), slot.kind)));
      } else {
        const values = S.table[f] = Array.isArray(S.table[f]) ? S.table[f] : [];
        box.append(cardChoices(slot.kind, values, (v) => { S.table[f] = v; }, path("cards", f), slot.kind + "s"));
      }
    }
  }

  // --- step 2: meals -----------------------------------------------------------------

  function renderMeals() {
    const tabs = $("#who"), box = $("#meals");
    tabs.textContent = "";
    box.textContent = "";
    const people = cooks();
    if (!people.some((p) => p.key === shown)) shown = people.length ? people[0].key : null;
    for (const p of people) {
      tabs.append(h("button", {type: "button", role: "tab", "data-key": p.key, "aria-selected": String(p.key === shown),
        onclick: () => { shown = p.key; renderMeals(); showProblems(); meal.start(document.querySelector('#meals [data-player="' + p.key + '"]')); }},
        p.name || "(no name)", h("span", {class: "count"})));
      const mine = h("div", {class: "player-meals", "data-player": p.key, "data-pad-group": "", hidden: p.key !== shown});
      for (const r of R.rounds) mine.append(roundMeals(p, r));
      mine.append(criticMeal(p));
      box.append(mine);
    }
  }

  function roundMeals(p, r) {
    const set = h("section", {class: "round"}, h("h2", {}, r));
    const round = S.meals[r] = S.meals[r] || {};
    const mine = round[p.key] = round[p.key] || {};
    for (const id of roundCards(r)) {
      const m = mine[id] = mine[id] || {served: false, ingredients: [], tokens: {}};
      const where = path("challenge_meals", r, p.name, id);
      const c = card(id), held = heldCard(r, id);
      if (!m.ingredients.length) m.ingredients = meal.rows(R, c);  // a row per requirement, ready for values
      // a value or a token entered serves the meal; "served" unticked keeps what was entered, not recorded
      const box = h("input", {type: "checkbox", "data-meal": where, checked: m.served, onchange: (e) => {
        m.served = e.target.checked;
        keepFocus(renderMeals);
        o.changed(true);
      }});
      const o = mealOptions(where, c ? c.name : id, {card: c, spices: spicesAllowed(p, id),
        covered: held && c && c.held ? c.held.covered : -1, ask: () => m.served ? {record: record(), player: p.name, round: r, card: id} : null,
        serve: () => {
          if (m.served || !(m.ingredients.some(filled) || Object.values(m.tokens).some((n) => String(n ?? "") !== ""))) return;
          m.served = box.checked = true;
          box.closest(".meal").classList.remove("unserved");
        }});
      const body = h("div", {class: "meal-body"}, meal.starsLine(where), meal.ingredients(o, m));
      set.append(h("div", {class: "meal" + (m.served ? "" : " unserved"), "data-card": id},
        h("label", {class: "served"}, box, " ", h("b", {}, c ? c.name : id)),
        said(c, held), err(where), body));
      if (m.served && !meal.hasLine(where)) meal.score(where, o.ask, true);
    }
    if (!roundCards(r).length) set.append(h("p", {class: "hint"}, "Pick the challenge cards of " + r + " first."));
    const at = path("players", S.players.indexOf(p), "kept", r);
    p.kept = p.kept || {};
    set.append(h("label", {class: "kept"}, "ingredients and spices kept after " + r + " ",
      meal.numField(p.kept[r], (v, tap) => { p.kept[r] = v; changed(tap); }, {"data-where": at, "aria-label": "kept after " + r})), err(at));
    set.append(planner(p, r));
    return set;
  }

  // What the meal form (meal.js) is given for one meal at record path ``where``.
  function mealOptions(where, name, more) {
    const o = {R, where, name, err, ...more,
      changed: (tapped) => { if (o.serve) o.serve(); changed(tapped); meal.score(where, o.ask, tapped); },
      redraw: (to) => keepFocus(renderMeals, to),
      remove: (what, fn) => { undoable(what); fn(); keepFocus(renderMeals); o.changed(true); }};
    return o;
  }

  function criticMeal(p) {
    const c = S.critic[p.key] = S.critic[p.key] || {courses: {}, tokens: {}};
    const where = path("critic_meals", p.name);
    const o = mealOptions(where, "the critic meal", {spices: spicesAllowed(p),
      ask: () => { const rec = record(); return rec.critic_meals[p.name] ? {record: rec, player: p.name} : null; },
      courseExtra: R.tokens_fill_courses ? (kind, course) => select([["", "ingredient"], ...R.tokens.map((t) => [t, t])], course.token || "",
        (v) => { course.token = v; }, {"aria-label": kind + " served as"}) : null});
    const set = h("section", {class: "critic"}, h("h2", {}, "Critic meal"), meal.starsLine(where), err(where), err(path(where, "courses")),
      meal.courses(o, c), leftUnused(c, where), planner(p, "critic"));
    if (!meal.hasLine(where) && record().critic_meals[p.name]) meal.score(where, o.ask, true);
    return set;
  }

  // What the player had left unused at the end of the game: not recorded until asked for.
  function leftUnused(c, where) {
    const at = path(where, "left");
    const redo = () => { renderMeals(); changed(); };
    // open or closed as last asked: kept at the tap itself (the toggle event comes a moment later,
    // and a form drawn again meanwhile would be drawn closed)
    const box = h("details", {class: "left", open: !!(c.left || c.leftAsIs !== undefined),
      ontoggle: (e) => { if (e.target.isConnected) c.leftOpen = e.target.open; }},
      h("summary", {onclick: () => { c.leftOpen = !box.open; }}, "Left unused at the end of the game"), err(at));
    if (c.leftOpen) box.open = true;
    if (c.leftAsIs !== undefined) {
      box.append(h("p", {class: "hint"}, "Kept as imported: " + JSON.stringify(c.leftAsIs)),
        h("button", {type: "button", class: "small", onclick: () => { delete c.leftAsIs; redo(); }}, "Not recorded"));
      return box;
    }
    if (!c.left) {
      box.append(h("p", {class: "hint"}, "Not recorded: cards that read what was left see nothing."),
        h("button", {type: "button", class: "small", "data-add": at, onclick: () => {
          c.left = {ingredients: [], spices: []}; c.leftOpen = true; redo();
        }}, "Record what was left"));
      return box;
    }
    // entered as the planner's pantry is: a type chip and a value from the number pad, spices as chips
    box.append(meal.pantry({R, at, tokens: false, err, changed: () => changed(true)}, c.left),
      h("p", {}, h("button", {type: "button", class: "small", onclick: () => { c.left = null; redo(); }}, "Not recorded")));
    return box;
  }

  // "Best meals from my pantry": the planner fills this player's meals of one round.
  function planner(p, target) {
    const held = S.pantry[p.key] = S.pantry[p.key] || {};
    const pantry = held[target] = held[target] || {ingredients: [], spices: [], tokens: {}};
    // kept in the draft as typed; nothing is checked until the plan is asked for
    const rows = meal.pantry({R, err: () => null, changed: () => localStorage.setItem(DRAFT, JSON.stringify({S, step, shown}))}, pantry);
    const note = h("p", {class: "plan-note"}, pantry.note || "");
    const errors = h("ul", {class: "problems"});
    const run = async () => {
      errors.textContent = "";
      const ask = {for: target, cards: record().cards, player: planPlayer(p), pantry: {
        ingredients: pantry.ingredients.map((i) => ({type: i.type, value: number(i.value)})),
        spices: pantry.spices.filter(Boolean), ...tokens(pantry.tokens, {})}};
      if (S.packs.length) ask.packs = [...S.packs];
      const answer = await call("POST", "/ui/plan", ask);
      if (!answer.ok) {
        for (const pr of (answer.data && answer.data.problems) || []) errors.append(h("li", {}, pr.where ? pr.where + ": " : "", pr.message));
        return;
      }
      fill(p, target, answer.data);
      pantry.note = "Planned: " + answer.data.stars + (answer.data.stars === 1 ? " star" : " stars") + (answer.data.optimal ? "" : " (search cut short, maybe not the best)");
      renderMeals();
      changed();
    };
    return h("details", {class: "planner", open: !!pantry.open, ontoggle: (e) => { pantry.open = e.target.open; }},
      h("summary", {}, "Best meals from my pantry"),
      h("p", {class: "hint"}, "What " + (p.name || "this player") + " holds:"), rows,
      h("button", {type: "button", class: "plan", onclick: run}, "Fill in the best meals"), note, errors);
  }

  function planPlayer(p) {
    const out = {name: p.name || "Player"};
    for (const slot of heldSlots()) {
      const v = p.held[field(slot)];
      if (slot.single ? v : v && v.length) out[field(slot)] = v;
    }
    return out;
  }

  function fill(p, target, plan) {
    if (target === "critic") {
      const c = S.critic[p.key] = {courses: {}, tokens: {}};
      for (const [kind, course] of Object.entries(plan.courses)) {
        c.courses[kind] = course.token ? {token: course.token} : {value: String(course.value), spice: course.spice || ""};
      }
      for (const t of R.tokens) if (plan[t]) c.tokens[t] = String(plan[t]);
      leftForm(c, plan.left);
      return;
    }
    const mine = S.meals[target][p.key] = {};
    for (const id of roundCards(target)) {
      const m = plan.meals[id];
      mine[id] = {served: !!m, ingredients: [], tokens: {}};
      if (!m) continue;
      mine[id].ingredients = m.ingredients.map((i) => ({type: i.type, value: String(i.value), spice: i.spice ?? ""}));
      for (const t of R.tokens) if (m[t]) mine[id].tokens[t] = String(m[t]);
    }
  }

  // --- step 3: the result ------------------------------------------------------------

  // The result as the kept game's page will show it: every word and number comes from the
  // server's view of the scored game (last.table, pages.stage_table), which that page's
  // template lays out the same way: every stage that ran, each card by its name.
  function preview() {
    const box = $("#preview");
    box.textContent = "";
    const result = last.result, t = last.table;
    if (!result || !t) {
      const n = last.problems.length;
      box.append(h("p", {class: "hint"}, "Nothing is scored until the record is legal: " +
        (n === 1 ? "1 problem to fix" : n + " problems to fix") + ", each shown at its field."),
      n ? h("button", {type: "button", class: "small", onclick: nextProblem}, "Go to the next problem") : null);
      return;
    }
    // as _standings.html lays out the same table
    box.append(h("p", {class: "winner"}, winnersLine(result) + " · " + result.decided_by),
      ...t.packs.map((line) => h("p", {class: "said"}, "Played with " + line)),
      h("p", {class: "scroll-cue", hidden: true}, "scroll →"),
      h("div", {class: "scroll", "data-scroll": true}, h("table", {class: "stages"},
        h("thead", {}, h("tr", {}, h("th", {scope: "col"}, "stage"), t.names.map((n) => h("th", {scope: "col"}, n)))),
        h("tbody", {}, t.rows.map((row) => h("tr", {"data-stage": row.stage},
          h("th", {scope: "row"}, row.about ? h("details", {title: row.about}, h("summary", {}, row.words),
            h("span", {class: "about"}, row.about)) : row.words, row.marks.flatMap((m) => [" ", h("a", {class: "mark", href: "#note-" + m}, "placeholder " + m)])),
          row.cells.map((c) => h("td", {}, c))))),
        h("tfoot", {}, h("tr", {class: "total"}, h("th", {scope: "row"}, "total"), t.totals.map((c) => h("td", {}, c))),
          h("tr", {}, h("th", {scope: "row"}, "critic quality"), t.quality.map((c) => h("td", {}, c)))))),
      ...t.notes.map((note, i) => h("p", {class: "note", id: "note-" + (i + 1)}, (i + 1) + ". " + note)),
      h("h2", {}, "Ranking"),
      h("ol", {class: "ranking"}, t.ranking.map(([rank, line]) => h("li", {value: rank}, line))),
      h("h2", {}, "Awards"),
      h("div", {class: "awards"}, t.awards.map((p) => h("section", {class: "by-player"},
        h("h3", {}, h("span", {class: "who"}, p.player), " ", h("span", {class: "stars"}, p.stars + "★")),
        h("ul", {}, p.awards.map((a) => h("li", {}, h("span", {class: "reason"}, a.reason), ": ",
          h("span", {class: "outcome"}, a.outcome), " ", h("span", {class: "card"}, a.card))))))),
      ...(t.sums.length ? [h("h2", {}, "Critic quality"), h("ul", {class: "sums"}, t.sums.map((p) => h("li", {},
        h("span", {class: "who"}, p.name), " ", h("span", {class: "sum"}, p.line),
        p.courses.map((c) => h("span", {class: "course"}, c)))))] : []));
    pad.scrollCues(box);
  }

  async function save() {
    $("#save").disabled = true;
    if (S.edit) { await saveEdit(); return; }
    const answer = await call("POST", "/api/games", record());
    if (answer.status === 201 && answer.data && answer.data.id !== undefined) {
      localStorage.removeItem(DRAFT);
      location.href = "/games/" + encodeURIComponent(answer.data.id);
      return;
    }
    const errors = (answer.data && (answer.data.errors || answer.data.detail)) || ["the game was not kept (" + answer.status + ")"];
    $("#save-errors").textContent = [].concat(errors).map((e) => typeof e === "string" ? e : JSON.stringify(e)).join("\n");
    $("#save").disabled = false;
  }

  // --- editing a kept game: the same form, saved as the game's new version ------------------

  // S.edit = {id, version}: the kept game the form holds and the version it was opened at
  function editMode() {
    const on = !!S.edit;
    $("#step-game h1").textContent = on ? "Edit game " + S.edit.id : "New game";
    $("#save").textContent = on ? "Keep the changes" : "Keep this game";
    $("#edit-note-line").hidden = !on;
  }
  async function saveEdit() {
    const id = encodeURIComponent(S.edit.id);
    const ask = "?based_on=" + S.edit.version + "&note=" + encodeURIComponent($("#edit-note").value.trim());
    const answer = await call("PUT", "/api/games/" + id + ask, record());
    if (answer.ok && answer.data && answer.data.version !== undefined) {
      localStorage.removeItem(DRAFT);
      location.href = "/games/" + id + "?replaced=" + S.edit.version;  // its page offers the undo
      return;
    }
    const errors = (answer.data && (answer.data.errors || answer.data.detail)) || ["the changes were not kept (" + answer.status + ")"];
    $("#save-errors").textContent = [].concat(errors).map((e) => typeof e === "string" ? e : JSON.stringify(e)).join("\n");
    $("#save").disabled = false;
  }

  // --- putting it together -----------------------------------------------------------

  function go(to) {
    step = to;
    for (const s of ["game", "meals", "save"]) $("#step-" + s).hidden = s !== to;
    for (const b of document.querySelectorAll("#steps button")) {
      if (b.dataset.step === to) b.setAttribute("aria-current", "step"); else b.removeAttribute("aria-current");
    }
    if (to === "meals") renderMeals();
    pad.scrollCues(document);  // a table's cue is measured once its step shows
    showProblems();
    window.scrollTo(0, 0);
    localStorage.setItem(DRAFT, JSON.stringify({S, step, shown}));
  }

  function renderAll() {
    editMode();
    for (const box of document.querySelectorAll('#packs input')) box.checked = S.packs.includes(box.value);
    renderPlayers();
    renderTable();
    renderMeals();
  }

  async function rules() {
    const answer = await call("GET", "/ui/cards?packs=" + encodeURIComponent(S.packs.join(",")));
    if (!answer.ok) {
      status(((answer.data && answer.data.problems) || []).map((p) => p.message).join("; ") || "the packs cannot be loaded", "bad");
      return false;
    }
    R = answer.data;
    rulesOf = S.packs.join(",");
    return true;
  }

  async function repack() {
    S.packs = [...document.querySelectorAll("#packs input:checked")].map((b) => b.value);
    if (await rules()) { renderAll(); changed(); }
  }

  async function importFile(e) {
    const file = e.target.files[0];
    $("#import-errors").textContent = "";
    if (!file) return;
    const answer = await call("POST", "/ui/import", {name: file.name, text: await file.text()});
    if (!answer.ok) {
      $("#import-errors").textContent = ((answer.data && answer.data.problems) || []).map((p) => (p.where ? p.where + ": " : "") + p.message).join("\n");
      return;
    }
    if (document.activeElement) document.activeElement.blur();  // its change now, not as the undo's end
    undoable("Imported " + file.name);
    const editing = S.edit;  // a game being edited stays the game edited: the file is its new content
    S = load(answer.data.record);
    if (editing) S.edit = editing;
    meal.forget();
    if (await rules()) { renderAll(); changed(); }
  }

  // A room started with the setup entered: each player then enters their meals on their own phone.
  async function startRoom() {
    const setup = record();
    delete setup.challenge_meals;
    delete setup.critic_meals;
    $("#room-errors").textContent = "";
    const answer = await call("POST", "/api/rooms", setup);
    if (answer.status === 201 && answer.data && answer.data.code) {
      localStorage.removeItem(DRAFT);
      location.href = "/room/" + encodeURIComponent(answer.data.code);
      return;
    }
    const errors = (answer.data && (answer.data.errors || answer.data.detail)) || ["the room was not started (" + answer.status + ")"];
    $("#room-errors").textContent = [].concat(errors).map((e) => typeof e === "string" ? e : JSON.stringify(e)).join("\n");
  }

  async function start() {
    const again = setupData("again");
    const edit = setupData("edit");
    try {
      const saved = JSON.parse(localStorage.getItem(DRAFT) || "null");
      if (saved && saved.S && Array.isArray(saved.S.players)) { S = saved.S; step = saved.step || "game"; shown = saved.shown; }
      if (again || edit) {
        // the draft that was here is put aside, with an undo
        if (saved && saved.S && JSON.stringify(saved.S) !== JSON.stringify(fresh())) undoable("Draft put aside");
        S = load(again || edit.record);
        if (edit) S.edit = {id: edit.id, version: edit.version};
        step = "game"; shown = null; history.replaceState(null, "", "/new");
      }
    } catch (e) { localStorage.removeItem(DRAFT); }
    if (!(await rules())) { S = fresh(); if (!(await rules())) return; }
    renderAll();
    for (const box of document.querySelectorAll("#packs input")) box.addEventListener("change", repack);
    $("#add-player").addEventListener("click", () => { S.players.push(player(S.next++)); renderAll(); changed(); });
    $("#to-meals").addEventListener("click", () => { go("meals"); meal.start(document.querySelector("#meals [data-player]:not([hidden])")); });
    $("#to-save").addEventListener("click", () => go("save"));
    $("#save").addEventListener("click", save);
    $("#start-room").addEventListener("click", startRoom);
    $("#import").addEventListener("change", importFile);
    $("#start-over").addEventListener("click", async () => {
      undoable("Started over");
      const packs = [...document.querySelectorAll("#packs input:checked")].map((b) => b.value);
      S = fresh(); shown = null; localStorage.removeItem(DRAFT);
      S.packs = packs;
      // the rules in hand are these packs': the fresh form at once, so nothing is typed into the old
      // one while the rules are asked again
      if (rulesOf === packs.join(",")) { renderAll(); changed(); } else await repack();
      go("game");
    });
    $("#next-problem").addEventListener("click", nextProblem);
    for (const b of document.querySelectorAll("#steps button")) b.addEventListener("click", () => go(b.dataset.step));
    go(step);
    changed();
  }

  start();
})();
