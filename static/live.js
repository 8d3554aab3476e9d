// Live refresh: reload when someone moves (the page works without this, with a meta refresh).
// The stream is closed when the page is left or a form is sent, so that no page kept in the
// browser's back-forward cache holds one of the few connections a browser opens to a server.
(() => {
  const live = document.getElementById("live");
  if (!live || !window.EventSource) return;
  const head = Number(live.dataset.head);
  let source = null;
  const close = () => {
    if (source) source.close();
    source = null;
  };
  source = new EventSource("/games/" + live.dataset.game + "/events");
  source.onmessage = (e) => {
    if (Number(e.data) > head && !document.querySelector("form.choice :focus")) location.reload();
  };
  addEventListener("pagehide", close);
  addEventListener("submit", close);
  // A page restored from the back-forward cache shows an old position: fetch it anew.
  addEventListener("pageshow", (e) => {
    if (e.persisted) location.reload();
  });
})();
