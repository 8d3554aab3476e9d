// The clock's time zone starts as the browser's own (a form shown again keeps what was typed).
for (const field of document.querySelectorAll("input[data-guess-zone]")) {
  try {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone && field.value === "UTC") field.value = zone;
  } catch (e) {
    // An old browser keeps UTC.
  }
}
