// Fair deals (docs/FAIRNESS.md): a join form's empty "words for the shuffle" get 32 random
// bytes from this browser when sent, so the deal mixes in something the server never chose.
document.querySelectorAll("form input[data-deal]").forEach(function (input) {
  input.form.addEventListener("submit", function () {
    if (input.value.trim() !== "" || !window.crypto) return;
    var bytes = new Uint8Array(32);
    window.crypto.getRandomValues(bytes);
    input.value = Array.from(bytes, function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  });
});
