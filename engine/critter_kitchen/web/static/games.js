// A kept game's history and the undo of what was done to kept games: a deleted game brought
// back (the history page, after "Delete game"), an edit or a restored version undone (the
// game's page: the version it replaced restored), an earlier version restored (its page).
"use strict";
(() => {
  const {call} = pad;
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  const errors = (answer, what) => ((answer.data && answer.data.errors) || [what + " (" + answer.status + ")"]).join("; ");
  const say = (text) => { if ($("games-problem")) $("games-problem").textContent = text; };

  // the bar that offers the undo; the address loses its note, so a reload offers nothing
  function offer(what, action) {
    $("undo-what").textContent = what;
    $("undo").hidden = false;
    $("undo-button").onclick = async () => {
      $("undo-button").disabled = true;
      const answer = await action();
      $("undo-button").disabled = false;
      if (!answer.ok) say(errors(answer, "it could not be undone"));
    };
    history.replaceState(null, "", location.pathname);
  }

  const restore = (game, version) => call("POST", "/api/games/" + encodeURIComponent(game) + "/versions/" + version + "/restore", {});

  async function restoreAndShow(game, version, latest) {
    const answer = await restore(game, version);
    if (answer.ok) location.assign("/games/" + encodeURIComponent(game) + "?replaced=" + latest);
    return answer;
  }

  const deleted = params.get("deleted");
  if (deleted && /^[0-9]{1,19}$/.test(deleted)) {  // the history page, after "Delete game"
    offer("Deleted game " + deleted, async () => {
      const answer = await call("POST", "/api/games/" + deleted + "/undelete", {});
      if (answer.ok) location.assign("/games/" + deleted);
      return answer;
    });
  }
  const forget = $("forget");
  const replaced = params.get("replaced");
  if (forget && replaced && /^[0-9]{1,19}$/.test(replaced)) {  // the game's page, after an edit or a restore
    const game = forget.dataset.game;
    const now = document.querySelector("#versions [data-version]");
    offer("Version " + replaced + " replaced", () => restoreAndShow(game, replaced, now ? now.dataset.version : ""));
  }
  const button = $("restore");
  if (button) {  // an earlier version's page
    button.addEventListener("click", async () => {
      button.disabled = true;
      const answer = await restoreAndShow(button.dataset.game, button.dataset.version, button.dataset.latest);
      if (!answer.ok) { say(errors(answer, "the version was not restored")); button.disabled = false; }
    });
  }
})();
