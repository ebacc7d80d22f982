// Statistics pages: the API's JSON (a player's, or every card's) shown as tables, whatever
// figures it holds. Every value goes in with textContent.
"use strict";
(async () => {
  const {h, call, label} = pad;
  const box = document.getElementById("stats");
  const kind = box.dataset.kind;
  const answer = await call("GET", box.dataset.source);
  box.textContent = "";
  if (!answer.ok) {
    const why = answer.status === 404 ? "No statistics yet." : "The statistics cannot be read (" + answer.status + ").";
    box.append(h("p", {class: "empty"}, (answer.data && answer.data.errors || [why]).join(" ")));
    return;
  }
  const data = answer.data;
  if (kind === "player" && data && "games" in data && "wins" in data) box.append(playerFigures(data));
  else if (kind === "cards" && data && Array.isArray(data.cards)) box.append(cardFigures(data.cards));
  else box.append(shown(data));

  function percent(v) { return typeof v === "number" ? Math.round(v * 100) + "%" : "—"; }
  function who(name) { return h("a", {href: "/players/" + encodeURIComponent(name)}, name); }

  // A player's record in sentences, then the stars per stage and any other figure the API gives.
  function playerFigures(d) {
    const out = h("div", {class: "player-stats"},
      h("p", {class: "headline"}, `${d.games} ${d.games === 1 ? "game" : "games"} · ${d.wins} ${d.wins === 1 ? "win" : "wins"}`
        + (d.shared_wins ? ` (${d.shared_wins} shared)` : "")
        + ` · win rate ${percent(d.win_rate)}` + ("stars_mean" in d ? ` · ${scalar(d.stars_mean)} ${d.stars_mean === 1 ? "star" : "stars"} a game` : "")));
    const best = d.best_game;
    if (best) out.append(h("p", {}, "Best game: ", h("a", {href: "/games/" + encodeURIComponent(best.id)}, "game " + best.id),
      `, ${best.stars} ${best.stars === 1 ? "star" : "stars"}, rank ${best.rank}`));
    const often = d.frequent_rival, tough = d.toughest_rival;
    if (often) out.append(h("p", {}, "Plays most often against ", who(often.name), ` (${often.games} ${often.games === 1 ? "game" : "games"})`));
    if (tough) out.append(h("p", {}, "Beaten most often by ", who(tough.name), ` (ahead in ${tough.ahead} of ${tough.games})`));
    if (d.stars_per_stage) out.append(h("h2", {}, "Stars per stage, on average"), perStage(d.stars_per_stage));
    const known = ["name", "games", "wins", "shared_wins", "win_rate", "stars_mean", "best_game", "frequent_rival", "toughest_rival", "stars_per_stage"];
    const rest = Object.fromEntries(Object.entries(d).filter(([k]) => !known.includes(k)));
    if (Object.keys(rest).length) out.append(h("h2", {}, "More"), shown(rest));
    return out;
  }

  // One row per stage, in the order the stages run, named as the result's rows name it (its short
  // name, its description as the row's title) when the server's packs know it; others after, by id.
  function perStage(stars) {
    const known = JSON.parse(box.dataset.stages || "[]").filter(([id]) => id in stars);
    const named = new Set(known.map(([id]) => id));
    const order = [...known, ...Object.keys(stars).filter((id) => !named.has(id)).map((id) => [id, id, null])];
    return h("table", {class: "figures"}, h("tbody", {}, order.map(([id, name, about]) =>
      h("tr", {}, h("th", {scope: "row", title: about}, name), h("td", {}, scalar(stars[id]))))));
  }

  // One row per card: its name from the loaded packs (else its id), then its figures.
  function cardFigures(list) {
    const names = JSON.parse(box.dataset.names || "{}");
    const columns = [["games", "games"], ["awards", "awards"], ["stars", "stars"], ["stars_per_game", "per game"],
      ["holder_win_rate", "holder won"]];
    return h("div", {class: "scroll"}, h("table", {class: "stats cards"},
      h("thead", {}, h("tr", {}, h("th", {scope: "col"}, "card"), columns.map(([, t]) => h("th", {scope: "col"}, t)))),
      h("tbody", {}, list.map((c) => h("tr", {},
        h("th", {scope: "row"}, (names[c.id] || [c.id])[0], h("span", {class: "kind"}, names[c.id] ? names[c.id][1] : "")),
        columns.map(([k]) => h("td", {}, k === "holder_win_rate" ? (c[k] === null ? "" : percent(c[k])) : scalar(c[k]))))))));
  }

  function scalar(v) {
    if (v === null || v === undefined) return "—";
    if (typeof v === "number" && !Number.isInteger(v)) return v.toFixed(Math.abs(v) < 1 ? 3 : 2);
    return String(v);
  }
  function isPlain(v) { return v === null || typeof v !== "object"; }

  // Names of players link to their page, and a game's id to its result (a card's id is text).
  function link(key, v, within) {
    if (key === "name" && within) return h("a", {href: "/players/" + encodeURIComponent(v)}, scalar(v));
    if (key === "id" && within && kind === "player") return h("a", {href: "/games/" + encodeURIComponent(v)}, "game " + v);
    return scalar(v);
  }

  function rows(list) {
    const keys = [...new Set(list.flatMap((r) => Object.keys(r)))];
    return h("div", {class: "scroll"}, h("table", {class: "stats"},
      h("thead", {}, h("tr", {}, keys.map((k) => h("th", {scope: "col"}, label(k))))),
      h("tbody", {}, list.map((r) => h("tr", {}, keys.map((k) => h("td", {}, isPlain(r[k]) ? link(k, r[k], kind === "player") : shown(r[k], true))))))));
  }

  function shown(data, within) {
    if (isPlain(data)) return document.createTextNode(scalar(data));
    const keys = Object.keys(data);
    if (!Array.isArray(data) && keys.length === 1 && Array.isArray(data[keys[0]])) return shown(data[keys[0]], within);
    if (Array.isArray(data)) {
      if (data.length && data.every((r) => r && typeof r === "object" && !Array.isArray(r))) return rows(data);
      return h("span", {}, data.map(scalar).join(", "));
    }
    const values = Object.values(data);
    if (values.length > 1 && values.every((v) => v && typeof v === "object" && !Array.isArray(v) && Object.values(v).every(isPlain))
        && Object.values(values[0]).length > 1) {
      return rows(Object.entries(data).map(([k, v]) => ({"": k, ...v})));
    }
    return h("table", {class: "figures"}, h("tbody", {}, Object.entries(data).map(([k, v]) =>
      h("tr", {}, h("th", {scope: "row"}, label(k)), h("td", {}, isPlain(v) ? link(k, v, within) : shown(v, true))))));
  }
})();
