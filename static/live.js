// Live refresh: reload when someone moves (the page works without this, with a meta refresh).
// The stream is closed when the page is left or a form is sent, so that no page kept in the
// browser's back-forward cache holds one of the few connections a browser opens to a server,
// and so that a move arriving while the reader follows a link never reloads this page over
// the navigation they started.
(() => {
  const live = document.getElementById("live");
  if (!live || !window.EventSource) return;
  const head = Number(live.dataset.head);
  let source = null;
  const close = () => {
    if (source) source.close();
    source = null;
  };
  const open = () => {
    if (source) return;
    source = new EventSource(live.dataset.events);
    source.onmessage = (e) => {
      if (Number(e.data) > head && !document.querySelector("form.choice :focus")) reload();
    };
  };
  // What changed since the reload a move caused is said to a screen reader: the page's
  // "announce" region (role=status) gets the new log lines, and "Your move." when it is.
  const key = "postplay-head:" + location.pathname;
  const before = Number(sessionStorage.getItem(key));
  sessionStorage.removeItem(key);
  const announce = document.getElementById("announce");
  if (announce && before && before < head) {
    const lines = [...document.querySelectorAll("#log ol.log > li")]
      .filter((li) => Number(li.value) > before)
      .reverse()
      .map((li) => [...li.querySelectorAll(".line")].map((l) => l.textContent).join(" "));
    const status = document.querySelector(".status.yours") ? ["Your move."] : [];
    setTimeout(() => {
      announce.textContent = lines.concat(status).join(" ");
    }, 300);
  }
  const reload = () => {
    sessionStorage.setItem(key, String(head));
    location.reload();
  };
  open();
  addEventListener("pagehide", close);
  addEventListener("submit", close);
  // Leaving starts here, before the next page answers: no reload may overtake it. A page
  // that stays after all (a download, a navigation given up) listens again.
  addEventListener("beforeunload", () => {
    close();
    setTimeout(open, 10000);
  });
  // A page restored from the back-forward cache shows an old position: fetch it anew.
  addEventListener("pageshow", (e) => {
    if (e.persisted) location.reload();
  });
})();
