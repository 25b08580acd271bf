// Draws each chart a page declares (templates/charts.html): a hidden box holding a canvas, and
// a JSON block beside it (`data-chart` names it) with the x axis' labels and one series per
// metric, drawn with Chart.js (served by facades/web/chart_assets.py from its npm package). The
// table under each chart holds the same numbers and is its accessible source: the canvas is an
// image named by its aria-label. Without the library the boxes stay hidden.
//
// A chart of several metrics shows one at a time, chosen in a "Metric shown" select above it:
// impressions, watch time in seconds and likes differ by orders of magnitude, and on one axis
// the small ones lie flat along zero. The first metric (engagement, where there is one) is shown
// first; the y axis is titled with the metric shown, and so is the canvas's accessible name.
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
        hidden: i > 0,
      };
    });
    var values = { beginAtZero: true, title: { display: true, text: datasets[0] ? datasets[0].label : "" } };
    return {
      type: spec.type,
      data: { labels: spec.labels, datasets: datasets },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        indexAxis: spec.horizontal ? "y" : "x",
        plugins: { legend: { display: false } },
        scales: spec.horizontal ? { x: values } : { y: values },
      },
    };
  }

  // Shows the metric at `index` alone, and says so on the axis and in the canvas's name.
  function show(chart, canvas, named, index) {
    var shown = chart.data.datasets[index];
    chart.data.datasets.forEach(function (d, i) {
      d.hidden = i !== index;
    });
    chart.options.scales[chart.options.indexAxis === "y" ? "x" : "y"].title.text = shown.label;
    chart.update();
    canvas.setAttribute("aria-label", named + " Showing: " + shown.label + ".");
  }

  // The "Metric shown" select, above the chart's box: a field like any other of the page.
  function picker(box, chart, canvas, named) {
    var name = box.id.replace(/-chart$/, "");
    var field = document.createElement("div");
    field.className = "chart-pick";
    var label = document.createElement("label");
    label.htmlFor = name + "-metric";
    label.textContent = "Metric shown";
    var select = document.createElement("select");
    select.id = name + "-metric";
    chart.data.datasets.forEach(function (d, i) {
      var option = document.createElement("option");
      option.value = String(i);
      option.textContent = d.label;
      select.appendChild(option);
    });
    select.addEventListener("change", function () {
      show(chart, canvas, named, Number(select.value));
    });
    field.appendChild(label);
    field.appendChild(select);
    box.parentNode.insertBefore(field, box);
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
    var chart = new Chart(canvas, config(spec));
    var named = canvas.getAttribute("aria-label");
    if (chart.data.datasets.length > 1) {
      picker(box, chart, canvas, named);
    }
    if (chart.data.datasets.length) {
      show(chart, canvas, named, 0);
    }
    box.setAttribute("data-drawn", "true");
  });
})();
