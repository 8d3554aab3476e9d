// Arrow keys step through the game; the links work without this.
(() => {
  const steps = document.getElementById("steps");
  if (!steps) return;
  const keys = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last" };
  document.addEventListener("keydown", (e) => {
    const go = keys[e.key] && steps.dataset[keys[e.key]];
    if (go && !e.target.closest("input")) location.href = go;
  });
})();
