// A board's map as the control (Votes for Women): a tap on a state adds a cube of the
// preferred colour to the labelled rows of the placement form; a state that can take no more
// changes to its next kind of cube, then back to none. A running tally says what is placed;
// the submit button waits for a complete placement. Without this script the rows are the form.
(() => {
  const form = document.querySelector("form.place");
  if (!form) return;
  form.classList.add("scripted");
  const inputs = [...form.querySelectorAll(".rows input[type=number]")];
  for (const i of inputs) {
    i.dataset.st = i.closest(".strow").dataset.st;
    i.dataset.p = i.name.slice(1).split("_")[0];
  }
  const params = [...form.querySelectorAll("p.param")];
  const groups = params.map((p) => JSON.parse(p.dataset.groups || "{}"));
  const submit = form.querySelector("button[type=submit]");
  const clear = form.querySelector("button.clear");
  const colours = form.querySelector(".colours");
  const kinds = new Set(inputs.map((i) => i.dataset.c));
  if (kinds.has("purple") && kinds.has("yellow")) colours.hidden = false;
  clear.hidden = false;
  const totals = () => {
    const way = form.querySelector("input[name=choice][type=radio]:checked");
    return (way ? way.dataset.totals : form.dataset.totals).split(",").map(Number);
  };
  const n = (i) => Number(i.value) || 0;
  const sum = (list) => list.reduce((a, i) => a + n(i), 0);
  const ofParam = (p) => inputs.filter((i) => Number(i.dataset.p) === p);
  const inGroup = (i) => ofParam(Number(i.dataset.p)).filter((o) => i.dataset.g && o.dataset.g === i.dataset.g);
  const canAdd = (i) => {
    const p = Number(i.dataset.p);
    if (n(i) >= Number(i.max)) return false;
    if (sum(ofParam(p)) >= (totals()[p] || 0)) return false;
    const cap = groups[p][i.dataset.g];
    return cap === undefined || sum(inGroup(i)) < cap;
  };
  const tap = (st) => {
    const here = inputs.filter((i) => i.dataset.st === st);
    if (!here.length) return;
    const prefer = (form.querySelector("input[name=prefer]:checked") || {}).value;
    const order = [...here].sort((a, b) => (b.dataset.c === prefer) - (a.dataset.c === prefer));
    const add = order.find(canAdd);
    if (add) {
      add.value = n(add) + 1;
    } else {
      let last = -1;
      here.forEach((i, k) => { if (n(i) > 0) last = k; });
      here.forEach((i) => { i.value = 0; });
      const next = here.slice(last + 1).find(canAdd);
      if (next) next.value = 1;
    }
    update();
  };
  const update = () => {
    const t = totals();
    let complete = true;
    params.forEach((p, k) => {
      const placed = sum(ofParam(k));
      if (placed !== (t[k] || 0)) complete = false;
      p.querySelector(".count").textContent = placed + " of " + (t[k] || 0) + " placed";
    });
    if (inputs.some((i) => n(i) > Number(i.max) || n(i) < 0)) complete = false;
    submit.disabled = !complete;
    for (const badge of form.querySelectorAll("text.add")) {
      const st = badge.id.slice(4);
      const here = inputs.filter((i) => i.dataset.st === st && n(i) > 0);
      badge.textContent = here.length ? "+" + here.map((i) => (here.length > 1 || n(i) > 1 ? n(i) : "") + i.dataset.c[0].toUpperCase()).join(" ") : "";
      badge.closest("g").classList.toggle("placed", here.length > 0);
    }
  };
  for (const g of form.querySelectorAll("svg g.st.open")) {
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");
    g.addEventListener("click", () => tap(g.dataset.st));
    g.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); tap(g.dataset.st); }
    });
  }
  clear.addEventListener("click", () => { inputs.forEach((i) => { i.value = 0; }); update(); });
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  update();
})();
