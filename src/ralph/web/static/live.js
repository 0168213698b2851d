// Live pages: one stream of server-sent events from /events. A section that declares
//   data-refresh="URL" data-on="board runs" [data-select="#id"] [data-throttle="300"]
// is fetched again when one of its events arrives (at most once per throttle, the last
// event of a burst always followed by a fetch) and replaced by the fresh copy: the element
// data-select names in the answer, or the answer's first element.
(function () {
  "use strict";
  const live = document.getElementById("live");
  const csrf = document.body.dataset.csrf || "";
  const pending = new Map(); // section id -> {timer, busy, again}

  // A person typing in a section is not interrupted: it is marked stale and refreshed
  // when they leave the field with nothing unsent in it (a submit leaves the page anyway).
  function typing(section) {
    const field = document.activeElement;
    if (field && section.contains(field) && field.matches("input, textarea, select")) return true;
    return [...section.querySelectorAll("textarea, input:not([type=hidden])")]
      .some((f) => f.value !== f.defaultValue);
  }

  function want(id) {
    const state = pending.get(id) || {};
    pending.set(id, state);
    if (state.busy) state.again = true; // the answer in flight may predate this event
    if (state.busy || state.timer) return; // else the fetch planned comes after this event
    const section = document.getElementById(id);
    const wait = section ? Number(section.dataset.throttle || 300) : 0;
    state.timer = setTimeout(() => { state.timer = null; refresh(id, state); }, wait);
  }

  async function refresh(id, state) {
    const section = document.getElementById(id);
    if (!section) return;
    if (typing(section)) { section.dataset.stale = "1"; return; }
    state.busy = true;
    try {
      const answer = await fetch(section.dataset.refresh, {
        headers: { "X-CSRF-Token": csrf }, credentials: "same-origin", cache: "no-store",
      });
      if (answer.ok) swap(id, await answer.text());
    } catch (error) { // the server is gone: the stream's error shows it, its return refreshes
    } finally {
      state.busy = false;
      if (state.again) { state.again = false; want(id); }
    }
  }

  function swap(id, html) {
    const old = document.getElementById(id);
    const page = new DOMParser().parseFromString(html, "text/html");
    const fresh = old && (old.dataset.select ? page.querySelector(old.dataset.select) : page.body.firstElementChild);
    if (!fresh) return;
    if (typing(old)) { old.dataset.stale = "1"; return; } // they began while it was on its way
    // A <details> a person opened or closed stays so (matched in order, if none came or went).
    const before = [...old.querySelectorAll("details")], after = fresh.querySelectorAll("details");
    if (before.length === after.length) after.forEach((d, i) => { d.open = before[i].open; });
    // The focus stays where it was when that element is still there (matched by id).
    const focused = old.contains(document.activeElement) ? document.activeElement.id : "";
    old.replaceWith(document.adoptNode(fresh));
    const again = focused && document.getElementById(focused);
    if (again) again.focus();
  }

  // A form that asks first (data-confirm): a question no inline script has to put.
  document.addEventListener("submit", (event) => {
    const question = event.target.dataset.confirm;
    if (question && !window.confirm(question)) event.preventDefault();
  });

  document.addEventListener("focusout", () => setTimeout(() => {
    for (const section of document.querySelectorAll("[data-stale]")) {
      if (!typing(section)) { delete section.dataset.stale; want(section.id); }
    }
  }, 0));

  const everySection = (name) => document.querySelectorAll(name ? `[data-on~="${name}"]` : "[data-on]");
  const names = new Set([...everySection()].flatMap((s) => s.dataset.on.split(/\s+/).filter(Boolean)));
  const stream = new EventSource("/events");
  let dropped = false;
  stream.addEventListener("open", () => {
    live.className = "live on";
    if (dropped) everySection().forEach((s) => want(s.id)); // events sent meanwhile are lost
    dropped = false;
  });
  stream.addEventListener("error", () => { live.className = "live off"; dropped = true; });
  // The page fell too far behind the feed: only a reload shows it right again.
  stream.addEventListener("reload", () => window.location.reload());
  for (const name of names) stream.addEventListener(name, () => everySection(name).forEach((s) => want(s.id)));
})();
