// Draws each chart a page declares (templates/charts.html): a hidden box holding a canvas, and
// a JSON block beside it (`data-chart` names it) with the x axis' labels and one series per
// metric, drawn with Chart.js (served by facades/web/chart_assets.py from its npm package). The
// table under each chart holds the same numbers and is its accessible source: the canvas is an
// image named by its aria-label. Without the library the boxes stay hidden.
(function () {
  "use strict";
  if (typeof Chart === "undefined") {
    return;
  }
  // Distinct colours, each at least 3:1 against the white card (WCAG 1.4.11).
  var COLOURS = [
    "#0b5cad", "#b3261e", "#1a7f37", "#8250df", "#9a6700", "#0e7490",
    "#bc4c00", "#57606a", "#a0116b", "#4d2d8f", "#006d5b", "#6e5600",
  ];
  Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
  Chart.defaults.color = "#1b1f24";

  function config(spec) {
    var line = spec.type === "line";
    var datasets = spec.datasets.map(function (d, i) {
      var colour = COLOURS[i % COLOURS.length];
      return {
        label: d.label,
        data: d.data,
        borderColor: colour,
        backgroundColor: line ? colour : colour + "cc",
        pointRadius: line ? 3 : 0,
        spanGaps: Boolean(spec.spanGaps),
      };
    });
    return {
      type: spec.type,
      data: { labels: spec.labels, datasets: datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        indexAxis: spec.horizontal ? "y" : "x",
        plugins: { legend: { display: datasets.length > 1, position: "bottom" } },
        scales: spec.horizontal
          ? { x: { beginAtZero: true } }
          : { y: { beginAtZero: true } },
      },
    };
  }

  document.querySelectorAll(".chart-box[data-chart]").forEach(function (box) {
    var source = document.getElementById(box.getAttribute("data-chart"));
    var canvas = box.querySelector("canvas");
    if (!source || !canvas) {
      return;
    }
    var spec;
    try {
      spec = JSON.parse(source.textContent);
    } catch (e) {
      return;
    }
    box.hidden = false;
    new Chart(canvas, config(spec));
    box.setAttribute("data-drawn", "true");
  });
})();
