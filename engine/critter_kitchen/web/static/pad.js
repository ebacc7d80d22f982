// Shared by the score pad's pages. Data is always put in the page with textContent
// (through h()), never as HTML: names and card texts are other people's input.
"use strict";
const pad = (() => {
  const csrf = () => (document.querySelector('meta[name="csrf-token"]') || {}).content || "";

  // h("p", {class: "x"}, "text", child): an element; strings become text nodes.
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else if (k === "value") el.value = v;
      else if (k === "checked") el.checked = !!v;
      else el.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  async function call(method, url, body) {
    const init = {method, headers: {"X-CSRF-Token": csrf()}, credentials: "same-origin"};
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(url, init);
    } catch (e) {  // no answer at all (the server stopped, the network is down): said, never thrown
      return {status: 0, ok: false, data: {errors: ["the server could not be reached"]}};
    }
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    return {status: response.status, ok: response.ok, data};
  }

  // A record path as the engine writes it: keys joined by dots, list indexes in brackets.
  function path(...parts) {
    let text = "";
    for (const part of parts) {
      if (typeof part === "number") text += "[" + part + "]";
      else text += text ? "." + part : part;
    }
    return text;
  }

  function debounce(fn, ms) {
    let timer = null;
    return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
  }

  // a figure's key for people; a stage's name (it has a dot) is left as the engine writes it
  const label = (key) => String(key).includes(".") ? String(key) : String(key).replace(/_/g, " ");

  // A wide table says so: its "scroll →" cue (the element before its box) shows while the box
  // is narrower than the table, on every box with data-scroll under root, and on each resize.
  function scrollCues(root) {
    const show = () => {
      for (const box of (root || document).querySelectorAll("[data-scroll]")) {
        const cue = box.previousElementSibling;
        if (cue && cue.classList.contains("scroll-cue")) cue.hidden = box.scrollWidth <= box.clientWidth + 1;
      }
    };
    show();
    if (!scrollCues.listening) {
      scrollCues.listening = true;
      window.addEventListener("resize", () => scrollCues(document));
      // a stage's description opened in its row widens the table: the cue follows
      document.addEventListener("toggle", () => scrollCues(document), true);
    }
  }

  // The status bar (fixed at the bottom) never covers the field being typed in: the page ends
  // below it by its height, and a focused field it would cover is scrolled above it.
  function keepAboveBar() {
    const bar = document.querySelector(".bar"), main = document.querySelector("main");
    if (!bar || !main) return;
    const room = () => { main.style.paddingBottom = (bar.offsetHeight + 24) + "px"; };
    const uncover = () => {
      const el = document.activeElement;
      if (!el || el === document.body || bar.contains(el) || !el.getBoundingClientRect) return;
      const over = el.getBoundingClientRect().bottom - bar.getBoundingClientRect().top + 8;
      if (over > 0) window.scrollBy(0, over);
    };
    room();
    new ResizeObserver(() => { room(); uncover(); }).observe(bar);
    document.addEventListener("focusin", uncover);
    if (window.visualViewport) window.visualViewport.addEventListener("resize", uncover);
  }
  document.addEventListener("DOMContentLoaded", keepAboveBar);

  // The undo bar (#undo: _undo.html, or the new-game page's bar) for what a page just destroyed:
  // ``what`` said beside "Undo", which runs ``action``. One offer at a time; the next thing typed or
  // picked on the page ends it (undoing then would take that away too), as does dropUndo().
  let ending = null;
  function offerUndo(what, action) {
    dropUndo();
    const bar = document.getElementById("undo");
    document.getElementById("undo-what").textContent = what;
    bar.hidden = false;
    const end = (e) => { if (!(e && e.target && e.target.closest && e.target.closest("#undo"))) dropUndo(); };
    const stop = () => {
      document.removeEventListener("input", end, true);
      document.removeEventListener("change", end, true);
      bar.hidden = true;
      document.getElementById("undo-button").onclick = null;
    };
    ending = stop;
    document.getElementById("undo-button").onclick = () => { dropUndo(); action(); };
    // from the next event on: the one that made this offer does not end it
    setTimeout(() => {
      if (ending !== stop) return;
      document.addEventListener("input", end, true);
      document.addEventListener("change", end, true);
    }, 0);
  }
  function dropUndo() { const stop = ending; ending = null; if (stop) stop(); }

  return {h, call, path, debounce, label, scrollCues, offerUndo, dropUndo};
})();
