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
      if (Number(e.data) > head && !document.querySelector("form.choice :focus")) location.reload();
    };
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
