// Live refresh: reload when someone moves (the page works without this, with a meta refresh).
(() => {
  const live = document.getElementById("live");
  if (!live || !window.EventSource) return;
  const head = Number(live.dataset.head);
  new EventSource("/games/" + live.dataset.game + "/events").onmessage = (e) => {
    if (Number(e.data) > head && !document.querySelector("form.choice :focus")) location.reload();
  };
})();
