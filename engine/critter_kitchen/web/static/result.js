// The result page: deleting the kept game (DELETE /api/games/{id}); the history page then offers its undo (games.js).
"use strict";
(() => {
  pad.scrollCues(document);
  const button = document.getElementById("forget");
  const problem = document.getElementById("forget-problem");
  button.addEventListener("click", async () => {
    button.disabled = true;
    problem.textContent = "";
    let answer;
    try {
      answer = await pad.call("DELETE", "/api/games/" + encodeURIComponent(button.dataset.game));
    } catch (e) {
      answer = {ok: false, data: {errors: ["the server could not be reached"]}};
    }
    if (answer.ok) {
      window.location.assign("/?deleted=" + encodeURIComponent(button.dataset.game));
      return;
    }
    const errors = (answer.data && answer.data.errors) || ["the game was not deleted (" + answer.status + ")"];
    problem.textContent = errors.join("; ");
    button.disabled = false;
  });
})();
