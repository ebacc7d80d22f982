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
  box.append(shown(answer.data));

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
