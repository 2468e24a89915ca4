// The live site (arena serve): when a match lands, fetch this page again and swap it in,
// flashing the rows of new matches and marking them new (class new-match) for as long as
// the page is open. Replay pages are left alone (no jump while reading).
(function () {
  "use strict";
  const url = document.body.dataset.live;
  if (!url || !window.EventSource || document.getElementById("board")) return;
  const source = new EventSource(url);

  const ids = (selector) => new Set([...document.querySelectorAll(selector)].map((r) => r.dataset.match));

  // A click is a press and a release on the same element: a swap between the two would
  // replace the link being clicked, and the click would be lost. A swap waits until no
  // press is in progress (checked on later tasks, so the release's click goes first).
  let pressed = false;
  addEventListener("pointerdown", () => { pressed = true; }, true);
  for (const end of ["pointerup", "pointercancel"]) {
    addEventListener(end, () => { pressed = false; }, true);
  }
  const later = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  async function swap() {
    const seen = ids("[data-match]"), marked = ids("[data-match].new-match");
    const response = await fetch(location.href, { cache: "no-store" });
    if (!response.ok) return;
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = doc.getElementById("main"), nav = doc.querySelector("nav");
    if (!fresh) return;
    await later(0);
    while (pressed) await later(50);
    if (nav) document.querySelector("nav").replaceWith(nav);  // a new variant's link
    // A form being filled in (data-keep) stays as the person left it.
    document.querySelectorAll("[data-keep][id]").forEach((kept) => {
      const twin = fresh.querySelector("#" + kept.id);
      if (twin) twin.replaceWith(kept);
    });
    fresh.querySelectorAll("img").forEach((img) => { img.src = img.src.split("?")[0] + "?t=" + Date.now(); });
    document.getElementById("main").replaceWith(fresh);
    // A match new since the page was opened stays marked new (its flash plays once): a
    // later swap with nothing new must not unmark it.
    fresh.querySelectorAll("[data-match]").forEach((row) => {
      if (!seen.has(row.dataset.match)) row.classList.add("live-flash", "new-match");
      else if (marked.has(row.dataset.match)) row.classList.add("new-match");
    });
  }

  // A change told while the page is being fetched is not dropped: the page is fetched
  // once more when that fetch ends (on a busy server a fetch can outlast the last events).
  let busy = false, again = false;
  source.addEventListener("change", async () => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        await swap();
      } while (again);
    } finally {
      busy = false;
    }
  });
})();
