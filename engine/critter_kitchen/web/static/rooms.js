// The open rooms, and a new room started from a setup file.
"use strict";
(() => {
  const {h} = pad;
  const csrf = () => (document.querySelector('meta[name="csrf-token"]') || {}).content || "";

  async function list() {
    const answer = await pad.call("GET", "/api/rooms");
    const rooms = answer.ok ? answer.data.rooms : [];
    document.getElementById("rooms").replaceChildren(...(rooms.length ? rooms.map((r) => h("li", {},
      h("a", {href: "/room/" + r.code}, "Room " + r.code), " — ",
      r.players.map((p) => p.name + (p.done ? " ✓" : "")).join(", "))) : [h("li", {class: "empty"}, "No room is open.")]));
  }

  document.getElementById("start-room").addEventListener("submit", async (e) => {
    e.preventDefault();
    const file = document.getElementById("setup").files[0];
    const problems = document.getElementById("problems");
    if (!file) { problems.replaceChildren(h("li", {}, "choose the game's setup file first")); return; }
    const yaml = !file.name.endsWith(".json");
    const response = await fetch("/api/rooms", {method: "POST", credentials: "same-origin", body: await file.text(),
      headers: {"X-CSRF-Token": csrf(), "Content-Type": yaml ? "application/yaml" : "application/json"}});
    const data = await response.json();
    if (response.ok) { location.href = "/room/" + data.code; return; }
    problems.replaceChildren(...data.errors.map((m) => h("li", {}, m)));
  });

  list();
})();
