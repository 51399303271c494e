// The theme switch: the system's theme until the reader picks one, kept in this browser.
// Reading needs no script; without it the pages follow the system's light or dark theme.
(function () {
  var root = document.documentElement;
  var saved = null;
  try { saved = localStorage.getItem("genesis-theme"); } catch (e) { /* storage refused */ }
  if (saved === "light" || saved === "dark") { root.setAttribute("data-theme", saved); }
  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("theme");
    if (!button) { return; }
    button.hidden = false;
    button.addEventListener("click", function () {
      var dark = root.getAttribute("data-theme") === "dark" ||
        (!root.getAttribute("data-theme") && window.matchMedia("(prefers-color-scheme: dark)").matches);
      var next = dark ? "light" : "dark";
      root.setAttribute("data-theme", next);
      try { localStorage.setItem("genesis-theme", next); } catch (e) { /* storage refused */ }
    });
  });
}());
