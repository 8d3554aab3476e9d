// A copy button beside each link marked for it: shown only where scripts run and the
// clipboard can be written; without them the link stays plain text to select by hand.
document.querySelectorAll("[data-copy]").forEach(function (button) {
  if (!navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(button.getAttribute("data-copy")).then(function () {
      button.textContent = "Copied";
      setTimeout(function () { button.textContent = "Copy"; }, 2000);
    });
  });
});
