// The meal form of the score pad, shared by the new-game page and a game room's phone page:
// a row per requirement of the card with its type chosen, values from an on-screen number pad,
// spices and tokens as chips, and the meal's quality and stars as the engine scores them
// (/ui/meal). The form knows no rule: types, spices and tokens come from the rules' description
// (/ui/cards), how many spices a field takes from the page's check, every number from the engine.
"use strict";
const meal = (() => {
  const {h, call} = pad;
  const TOKEN_CHIPS = 3;  // counts of a token offered as chips (more: a tap on the highest adds one)
  const PAD_VALUES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0];  // the number pad's value buttons, as laid out
  const TYPED_MS = 150;  // a meal is scored this long after the last key typed (a tap: at once)

  // --- the number pad: one per page, for the focused field that has data-pad --------------

  let target = null;
  let padBox = null;
  function numberPad() {
    if (padBox) return padBox;
    const press = (fn) => ({onpointerdown: (e) => e.preventDefault(), onmousedown: (e) => e.preventDefault(), onclick: fn});
    padBox = h("div", {id: "numpad", class: "numpad", role: "group", "aria-label": "number pad", hidden: true},
      PAD_VALUES.map((v) => h("button", {type: "button", "data-pad-value": v, ...press(() => put(String(v)))}, String(v))),
      h("button", {type: "button", class: "clear", "aria-label": "clear", ...press(() => put(""))}, "⌫"),
      h("button", {type: "button", class: "skip", "data-pad-skip": "", ...press(skip)}, "Skip"),
      h("button", {type: "button", class: "done", ...press(() => { if (target) target.blur(); hide(); })}, "Done"));
    // room below the form for the pad, always (the page does not jump when the pad comes and goes)
    document.body.classList.add("with-pad");
    const bar = document.querySelector(".bar");
    if (bar) bar.prepend(padBox); else { padBox.classList.add("alone"); document.body.append(padBox); }
    document.addEventListener("focusin", (e) => { if (e.target.dataset && "pad" in e.target.dataset) show(e.target); else hide(); });
    document.addEventListener("focusout", () => setTimeout(() => { if (!document.activeElement || !("pad" in (document.activeElement.dataset || {}))) hide(); }, 0));
    return padBox;
  }
  function show(field) {
    target = field;
    padBox.hidden = false;
    // on a challenge meal's row the pad's skip key says what it does: the meal is not served
    padBox.querySelector("[data-pad-skip]").textContent = field.closest("[data-pad-meal]") ? "Not served" : "Skip";
    field.scrollIntoView({block: "center"});
  }
  function hide() { target = null; if (padBox) padBox.hidden = true; }
  // A value from the pad: set, told as input (a tap), and on to the next field of its group.
  function put(text) {
    const field = target;
    if (!field) return;
    field.value = text;
    field.dispatchEvent(new Event("input", {bubbles: true}));  // not trusted: the page takes it as a tap
    if (text === "") return;
    const next = onward(field);
    if (next) next.focus(); else { field.blur(); hide(); }
  }
  // The field of ``field``'s group the pad goes on to after it: the next one shown, passing an empty
  // row the Hold token covers (a meal need not fill it; a tap on it still takes a value) and, with
  // ``past``, every field of the meal at that record path.
  function onward(field, past) {
    const group = field.closest("[data-pad-group]");
    const all = group ? [...group.querySelectorAll("[data-pad]")].filter((e) => shownField(e) && e.closest("[data-pad-group]") === group) : [];
    return all.slice(all.indexOf(field) + 1).find((e) => !passed(e) && !(past && (e.dataset.where || "").startsWith(past + ".")));
  }
  const passed = (e) => e.value === "" && !!e.closest("[data-covered]");
  // "Not served" (on a challenge meal's row): the meal unticked, as its "served" box does (what was
  // entered is kept, not recorded), and the pad on the first field after it; "Skip" elsewhere (a course
  // not served, nothing kept): the pad on the next field.
  function skip() {
    const field = target;
    if (!field) return;
    const rows = field.closest("[data-pad-meal]");
    const next = onward(field, rows ? rows.dataset.padMeal : null);
    const to = next && next.dataset.where;
    if (rows) {
      const served = document.querySelector('[data-meal="' + CSS.escape(rows.dataset.padMeal) + '"]');
      if (served && served.checked) served.click();  // its form may be drawn again: the next field is found anew
    }
    const again = to && document.querySelector('[data-where="' + CSS.escape(to) + '"]');
    if (again) again.focus(); else { if (document.activeElement) document.activeElement.blur(); hide(); }
  }
  const tapped = (e) => !e.isTrusted;  // an input event the pad made (a key typed is trusted)
  const shownField = (e) => e.getClientRects().length > 0;
  // The pad on the first empty field of ``group`` (a player's meals just opened), the page not scrolled.
  function start(group) {
    const first = group && [...group.querySelectorAll("[data-pad]")].find((e) => shownField(e) && e.value === "" && !passed(e));
    if (first) first.focus({preventScroll: true});
  }

  // A number field the pad fills (typing on a keyboard works too); no phone keyboard opens.
  function numField(value, onchange, attrs) {
    numberPad();
    return h("input", {value: value ?? "", inputmode: "none", class: "num", autocomplete: "off", "data-pad": "", ...attrs,
      oninput: (e) => onchange(e.target.value, tapped(e))});
  }

  // --- chips ---------------------------------------------------------------------------

  // A chip: a tap does not take the focus (the number pad stays on its field); Tab reaches it.
  function chip(text, on, onclick, attrs) {
    return h("button", {type: "button", class: "chip" + (on ? " on" : ""), "aria-pressed": String(!!on), ...attrs, onclick, ...keep}, text);
  }
  const keep = {onpointerdown: (e) => e.preventDefault(), onmousedown: (e) => e.preventDefault()};

  // The spices as the form keeps them: one spice as its name, more as a list.
  const spiceList = (spice) => Array.isArray(spice) ? spice.filter((s) => s !== "") : spice ? [spice] : [];
  const spiceValue = (list) => list.length === 0 ? "" : list.length === 1 ? list[0] : list;

  // The spices of an ingredient or course as chips: its own type's and the wild spice first, the
  // others behind "…"; at most ``limit`` on (a tap past it takes the place of the last). A spice the
  // data holds is always shown, on, so nothing is dropped (the engine says at its field if it is wrong).
  function spiceChips(R, holder, type, limit, where, changed) {
    const list = spiceList(holder.spice);
    if (limit <= 0 && !list.length) return null;
    const all = [...R.ingredients, R.wild_spice];
    const first = [type, R.wild_spice].filter((s, i, a) => all.includes(s) && a.indexOf(s) === i);
    const box = h("span", {class: "chips spices", "data-where": where, "data-limit": limit, role: "group", "aria-label": "spices"});
    const draw = (wide) => {
      const now = spiceList(holder.spice);
      const shown = wide ? all : [...first, ...now.filter((s) => !first.includes(s))];
      box.replaceChildren(...shown.map((s) => chip(s === R.wild_spice ? s : s === type && !wide ? "spice" : s + " spice", now.includes(s), () => {
        let next = spiceList(holder.spice);
        if (next.includes(s)) next = next.filter((x) => x !== s);
        else if (next.length < Math.max(limit, 1)) next.push(s);
        else next[next.length - 1] = s;
        holder.spice = spiceValue(next);
        draw(false);
        changed(true);
      }, {"data-chip": where + ":" + s, "data-spice": s, "aria-label": s === R.wild_spice ? s : s + " spice"})),
      wide || shown.length >= all.length ? null : h("button", {type: "button", class: "chip more", "aria-label": "other spices", "data-chip": where + ":more", onclick: () => draw(true), ...keep}, "…"));
    };
    draw(false);
    return box;
  }

  // Tokens as chips: "soup 1 2 3", a tap sets the count (a tap on the count set clears it; on the
  // highest when it is set, adds one).
  function tokenChips(R, counts, where, changed) {
    const box = h("div", {class: "chips tokens"});
    const draw = () => box.replaceChildren(...R.tokens.map((t) => {
      const n = Number(counts[t] || 0) || 0;
      const at = where ? where + "." + t : t;
      const top = Math.max(TOKEN_CHIPS, n);
      return h("span", {class: "token", role: "group", "aria-label": t, "data-where": at}, h("span", {class: "name"}, t),
        Array.from({length: top}, (_, k) => k + 1).map((k) => chip(String(k), n === k, () => {
          counts[t] = n === k ? (k === top && k >= TOKEN_CHIPS ? String(k + 1) : "") : String(k);
          draw(); changed(true);
        }, {"data-chip": at + ":" + k, "aria-label": t + " " + k})));
    }));
    draw();
    return box;
  }

  // Ingredient types as chips, ``first`` (the card's types) before the others.
  function typeChips(R, first, pick, where) {
    const head = first.filter((t, i) => R.ingredients.includes(t) && first.indexOf(t) === i);
    const rest = R.ingredients.filter((t) => !head.includes(t));
    return h("div", {class: "chips types", role: "group", "aria-label": "ingredient types"},
      [...head, ...rest].map((t) => chip(t, false, () => pick(t), {"data-chip": where + ":" + t, class: "chip" + (head.includes(t) ? " first" : "")})));
  }

  // --- a meal --------------------------------------------------------------------------

  const opened = {};  // the type chips open (a row's, "+ ingredient"'s), kept when the form is drawn again

  // The rows of a challenge meal (``m``: {served, ingredients: [{type, value, spice}], tokens}).
  // o: {R, card, where, spices (boxes each ingredient takes), covered (index of the requirement the
  // Hold token covers, or -1), err(where), changed(tapped), redraw(focusPath), remove(what, fn)}.
  function ingredients(o, m) {
    const {R, where} = o;
    const box = h("div", {class: "meal-rows", "data-pad-meal": where});
    const required = ((o.card && o.card.requires) || []).filter((t) => R.ingredients.includes(t));
    m.ingredients.forEach((ing, i) => {
      const at = where + ".ingredients[" + i + "]";
      const covered = i === o.covered && ing.type === required[i] && String(ing.value ?? "") === "";
      const retype = (t) => { delete opened[at + ".type"]; ing.type = t; o.changed(true); o.redraw(at + ".value"); };
      const typeBox = h("div", {class: "retype", hidden: !opened[at + ".type"]}, opened[at + ".type"] ? typeChips(R, required, retype, at + ".type") : null);
      box.append(h("div", {class: "ingredient" + (covered ? " covered" : ""), "data-covered": i === o.covered && ing.type === required[i] ? "" : null},
        h("div", {class: "line"},
          h("button", {type: "button", class: "type", "data-where": at + ".type", "aria-label": "ingredient " + (i + 1) + ": " + ing.type + " (change)",
            onclick: () => {
              typeBox.hidden = !typeBox.hidden;
              opened[at + ".type"] = !typeBox.hidden;
              if (!typeBox.hidden) typeBox.replaceChildren(typeChips(R, required, retype, at + ".type"));
            }}, covered ? h("s", {title: "covered by the Hold token"}, ing.type) : ing.type),
          numField(ing.value, (v, tap) => { ing.value = v; o.changed(tap); }, {"aria-label": ing.type + " value", placeholder: "—", "data-where": at + ".value"}),
          h("button", {type: "button", class: "small remove", "aria-label": "remove ingredient " + (i + 1), onclick: () => {
            o.remove("Removed " + ing.type + (String(ing.value ?? "") !== "" ? " " + ing.value : "") + " from " + o.name, () => m.ingredients.splice(i, 1));
          }}, "✕")),
        spiceChips(R, ing, ing.type, o.spices || 0, at + ".spice", o.changed),
        typeBox, o.err(at + ".type"), o.err(at + ".value"), o.err(at + ".spice"), o.err(at)));
    });
    const add = (t) => {
      delete opened[where + ".ingredients"];
      m.ingredients.push({type: t, value: "", spice: ""});
      o.changed(true);
      o.redraw(where + ".ingredients[" + (m.ingredients.length - 1) + "].value");
    };
    const adding = h("div", {class: "adding", hidden: !opened[where + ".ingredients"]},
      opened[where + ".ingredients"] ? typeChips(R, required, add, where + ".ingredients") : null);
    box.append(o.err(where + ".ingredients"),
      h("p", {class: "meal-actions"},
        h("button", {type: "button", class: "small", "data-add": where + ".ingredients", onclick: () => {
          adding.hidden = !adding.hidden;
          opened[where + ".ingredients"] = !adding.hidden;
          if (!adding.hidden) adding.replaceChildren(typeChips(R, required, add, where + ".ingredients"));
          const first = adding.querySelector("button");
          if (first && !adding.hidden) first.focus({preventScroll: true});
        }}, "+ ingredient"),
        h("button", {type: "button", class: "small", "data-clear": where, onclick: () => o.remove("Cleared " + o.name, () => clear(o, m))}, "Clear")),
      adding, tokenChips(R, m.tokens, where, (tap) => { tokensTapped(where); o.changed(tap); }));
    return box;
  }

  // A meal served anew, or cleared: a row per requirement of its card, its type chosen, no value.
  function rows(R, card) {
    const required = ((card && card.requires) || []).filter((t) => R.ingredients.includes(t));
    return (required.length ? required : [R.ingredients[0]]).map((t) => ({type: t, value: "", spice: ""}));
  }
  function clear(o, m) { m.ingredients = rows(o.R, o.card); m.tokens = {}; m.served = false; }

  // A critic meal's courses (``c``: {courses: {kind: {value, spice}}, tokens}): a row per course.
  // o as for ingredients, ``spices`` the boxes a course takes; ``courseExtra(kind, course)``: more
  // of the row (how it is served, when tokens may be).
  function courses(o, c) {
    const {R, where} = o;
    const box = h("div", {class: "meal-rows"});
    for (const kind of R.courses) {
      const course = c.courses[kind] = c.courses[kind] || {value: "", spice: ""};
      const at = where + ".courses." + kind;
      box.append(h("div", {class: "course"},
        h("div", {class: "line"}, h("span", {class: "kind"}, kind),
          o.courseExtra ? o.courseExtra(kind, course) : null,
          numField(course.value, (v, tap) => { course.value = v; o.changed(tap); }, {"aria-label": kind + " value", placeholder: "—", "data-where": at + ".value"})),
        spiceChips(R, course, kind, o.spices || 0, at + ".spice", o.changed),
        o.err(at + ".value"), o.err(at + ".spice"), o.err(at + ".token"), o.err(at)));
    }
    box.append(h("p", {class: "meal-actions"}, h("button", {type: "button", class: "small", "data-clear": where, onclick: () => o.remove("Cleared " + o.name, () => {
      c.courses = {}; c.tokens = {};
    })}, "Clear")), h("p", {class: "hint"}, "Unused tokens kept:"), tokenChips(R, c.tokens, where, o.changed));
    return box;
  }

  // --- a pantry (the planner's), or what a player left: what a player holds, entered as a meal is ---

  // ``P``: {ingredients: [{type, value}], spices: [names], tokens: {name: count}}; o: {R, changed(),
  // err(where), at (the record path of what is entered: "pantry" unless given), tokens (false: none
  // asked, as for what was left)}. Its own number-pad group: the pad moves down its values only.
  function pantry(o, P) {
    const {R} = o;
    const at = o.at || "pantry";
    const box = h("div", {class: "pantry meal-rows", "data-pad-group": ""});
    const spices = [...R.ingredients, R.wild_spice];
    const draw = (to) => {
      const add = h("div", {class: "adding", hidden: true});
      const more = h("div", {class: "adding", hidden: true});
      box.replaceChildren(...[
        ...P.ingredients.map((ing, i) => h("div", {class: "ingredient"}, h("div", {class: "line"},
          h("span", {class: "type"}, ing.type),
          numField(ing.value, (v) => { ing.value = v; o.changed(); }, {"aria-label": ing.type + " value", placeholder: "—", "data-where": at + ".ingredients[" + i + "].value"}),
          h("button", {type: "button", class: "small remove", "aria-label": "remove " + ing.type, onclick: () => { P.ingredients.splice(i, 1); draw(); o.changed(); }}, "✕")),
        o.err(at + ".ingredients[" + i + "].value"), o.err(at + ".ingredients[" + i + "]"))),
        h("div", {class: "chips spices"}, P.spices.map((sp, i) => chip(sp === R.wild_spice ? sp + " ✕" : sp + " spice ✕", true,
          () => { P.spices.splice(i, 1); draw(); o.changed(); }, {"data-chip": at + ".spices[" + i + "]", "aria-label": "remove " + sp}))),
        ...P.spices.map((_, i) => o.err(at + ".spices[" + i + "]")), o.err(at + ".ingredients"), o.err(at + ".spices"),
        h("p", {class: "meal-actions"},
          h("button", {type: "button", class: "small", "data-add": at + ".ingredients", onclick: () => { add.hidden = !add.hidden; }}, "+ ingredient"),
          h("button", {type: "button", class: "small", "data-add": at + ".spices", onclick: () => { more.hidden = !more.hidden; }}, "+ spice")),
        add, more, o.tokens === false ? null : tokenChips(R, P.tokens, at, () => o.changed()),
      ].filter((part) => part));  // a part not shown (no problem at a field, no tokens asked) is left out, never "null"
      add.append(typeChips(R, [], (t) => { P.ingredients.push({type: t, value: ""}); draw(at + ".ingredients[" + (P.ingredients.length - 1) + "].value"); o.changed(); }, at + ".ingredients"));
      more.append(h("div", {class: "chips"}, spices.map((sp) => chip(sp === R.wild_spice ? sp : sp + " spice", false,
        () => { P.spices.push(sp); draw(); o.changed(); }, {"data-chip": at + ".spices:" + sp}))));
      const field = to && box.querySelector('[data-where="' + CSS.escape(to) + '"]');
      if (field) field.focus({preventScroll: true});
    };
    draw();
    return box;
  }

  // --- the stars -------------------------------------------------------------------------

  // A meal's line, "quality 13 → 2 stars", as /ui/meal answers for ``ask()`` ({record, player,
  // round, card}); shown[key] keeps the last text so a redrawn form shows it at once.
  const shown = {};
  const asked = {};
  const waiting = {};
  const flying = {};
  // A token chip tapped while the pad is on an empty row of the meal: once the engine scores the meal
  // (the tokens filled what its empty rows were for), the pad goes on past the meal's rows.
  const onRow = {};
  function tokensTapped(key) {
    const at = document.activeElement;
    const where = at && at.dataset && "pad" in at.dataset ? at.dataset.where || "" : "";
    if (where.startsWith(key + ".") && at.value === "") onRow[key] = where; else delete onRow[key];
  }
  function filledByTokens(key) {
    const where = onRow[key];
    delete onRow[key];
    const at = document.activeElement;
    if (!where || !at || !at.dataset || at.dataset.where !== where || at.value !== "") return;
    const next = onward(at, key);
    if (next) next.focus(); else { at.blur(); hide(); }
  }
  function starsLine(key) {
    const was = shown[key] || {text: "", kind: ""};
    return h("p", {class: "meal-stars " + was.kind, "data-stars": key, role: "status"}, was.text);
  }
  function setLine(key, text, kind) {
    shown[key] = {text, kind};
    const el = document.querySelector('[data-stars="' + CSS.escape(key) + '"]');
    if (el) { el.textContent = text; el.className = "meal-stars " + kind; }
  }
  // Score the meal ``key`` now (a tap) or once typing pauses; ``seen(answer)``: told each answer.
  function score(key, ask, now, seen) {
    clearTimeout(waiting[key]);
    const mine = asked[key] = (asked[key] || 0) + 1;
    setLine(key, (shown[key] || {}).text || "", "busy");
    const go = async () => {
      if (flying[key]) { flying[key] = go; return; }  // one question in flight a meal: this one once it is answered
      const question = ask();
      if (!question) { if (asked[key] === mine) setLine(key, "", ""); return; }
      flying[key] = true;
      let answer;
      try { answer = await call("POST", "/ui/meal", question); } finally {
        const next = flying[key];
        flying[key] = false;
        if (typeof next === "function") next();
      }
      if (asked[key] !== mine) return;  // a later input asked again
      const data = answer.data || {};
      if (seen) seen(data);
      if (answer.ok && data.quality !== null && data.quality !== undefined) {
        filledByTokens(key);
        setLine(key, "quality " + data.quality + " → " + data.stars + (data.stars === 1 ? " star" : " stars"), "good");
      } else {
        delete onRow[key];
        const problems = (data.problems || []);
        const own = problems.find((p) => (p.where || "").startsWith(key)) || problems[0];
        setLine(key, own ? "not scored yet: " + own.message : answer.ok ? "" : "not scored (" + ((data.errors || [])[0] || answer.status) + ")", own ? "bad" : "");
      }
    };
    if (now) go(); else waiting[key] = setTimeout(go, TYPED_MS);
  }

  const hasLine = (key) => !!(shown[key] && shown[key].text);
  // every line forgotten (the meals were put back or replaced): each is asked again when drawn
  const forget = () => { for (const key of Object.keys(shown)) { delete shown[key]; asked[key] = (asked[key] || 0) + 1; } };

  return {numField, chip, spiceChips, tokenChips, typeChips, ingredients, courses, rows, starsLine, score, hasLine, forget, start, pantry};
})();
