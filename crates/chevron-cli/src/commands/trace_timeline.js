// The timeline of a chevron trace page (see trace_html.rs): draws the rows of the page's data on
// a canvas, with a time axis, zoom and pan (wheel, drag, keys) and details on hover. Bars closer
// than a pixel are drawn once, so a view of 10,000 launches costs about as much as one of 100.
// `#view=FROM,TO` in the address (µs) opens a part of it.
// With `#selftest` in the address, it writes into #timing the time of the first draw (from this
// script's start: parsing the data and drawing), of the whole page until then (from the start of
// its navigation: reading the file and parsing the HTML too), and of a zoom step (20 of them).
(function () {
  "use strict";
  const started = performance.now();
  const data = JSON.parse(document.getElementById("data").textContent);
  const canvas = document.getElementById("timeline");
  const tip = document.getElementById("tip");
  const ctx = canvas.getContext("2d");
  const LABEL = 260, ROW = 22, AXIS = 26;
  const span = Math.max(data.span, 1e-3);
  let t0 = 0, t1 = span;

  function size() {
    canvas.width = Math.max(600, window.innerWidth - 40);
    canvas.height = AXIS + ROW * data.rows.length + 4;
  }

  function unit(step) {
    if (step >= 1e6) return [1e6, "s"];
    if (step >= 1e3) return [1e3, "ms"];
    if (step >= 1) return [1, "µs"];
    return [1e-3, "ns"];
  }

  function niceStep(range, pixels) {
    const rough = range / Math.max(1, pixels / 90);
    const power = Math.pow(10, Math.floor(Math.log10(rough)));
    for (const m of [1, 2, 5, 10]) if (m * power >= rough) return m * power;
    return 10 * power;
  }

  function x(t) { return LABEL + (t - t0) * (canvas.width - LABEL - 8) / (t1 - t0); }
  function time(px) { return t0 + (px - LABEL) * (t1 - t0) / (canvas.width - LABEL - 8); }

  // The first bar of `bars` (sorted by start) that may be visible at `from`.
  function first(bars, from) {
    let lo = 0, hi = bars.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (bars[mid][0] < from) lo = mid + 1; else hi = mid;
    }
    // A long bar that started earlier may still reach the view.
    let i = lo;
    while (i > 0 && lo - i < 64) {
      i--;
      if (bars[i][0] + bars[i][1] >= from) lo = i;
    }
    return lo;
  }

  function draw() {
    const w = canvas.width;
    ctx.clearRect(0, 0, w, canvas.height);
    ctx.font = "11px sans-serif";
    const step = niceStep(t1 - t0, w - LABEL);
    const [scale, name] = unit(step);
    ctx.fillStyle = "#333";
    ctx.strokeStyle = "#ddd";
    for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
      const px = Math.round(x(t)) + 0.5;
      ctx.beginPath(); ctx.moveTo(px, AXIS - 6); ctx.lineTo(px, canvas.height); ctx.stroke();
      ctx.fillText(+(t / scale).toFixed(3) + " " + name, px + 2, AXIS - 10);
    }
    data.rows.forEach(function (row, r) {
      const y = AXIS + r * ROW;
      ctx.fillStyle = r % 2 ? "#ffffff" : "#f4f4f4";
      ctx.fillRect(0, y, w, ROW);
      const bars = row.bars;
      let lastPx = -1;
      ctx.save();
      ctx.beginPath(); ctx.rect(LABEL, y, w - LABEL, ROW); ctx.clip();
      for (let i = first(bars, t0); i < bars.length && bars[i][0] <= t1; i++) {
        const b = bars[i];
        const left = x(b[0]);
        const width = Math.max(1, x(b[0] + b[1]) - left);
        if (width < 2 && Math.floor(left) === lastPx) continue;
        lastPx = Math.floor(left);
        ctx.fillStyle = data.colors[b[2]];
        ctx.fillRect(left, y + 2, width, ROW - 4);
        const text = data.strings[b[3]];
        if (width > 7 * text.length) {
          ctx.fillStyle = "#fff";
          ctx.fillText(text, left + 2, y + 15);
        }
      }
      ctx.restore();
      ctx.fillStyle = "#222";
      ctx.fillText(row.label, 4, y + 15, LABEL - 8);
    });
  }

  function zoom(factor, at) {
    const centre = at === undefined ? (t0 + t1) / 2 : at;
    const range = Math.min(span * 1.05, Math.max(1e-3, (t1 - t0) * factor));
    t0 = centre - (centre - t0) * range / (t1 - t0);
    t1 = t0 + range;
    draw();
  }

  function pan(dt) { t0 += dt; t1 += dt; draw(); }

  canvas.addEventListener("wheel", function (e) {
    e.preventDefault();
    zoom(e.deltaY > 0 ? 1.25 : 0.8, time(e.offsetX));
  }, { passive: false });
  let dragging = null;
  canvas.addEventListener("mousedown", function (e) { dragging = e.offsetX; canvas.focus(); });
  window.addEventListener("mouseup", function () { dragging = null; });
  canvas.addEventListener("mousemove", function (e) {
    if (dragging !== null) {
      pan(time(dragging) - time(e.offsetX));
      dragging = e.offsetX;
      tip.style.display = "none";
      return;
    }
    const r = Math.floor((e.offsetY - AXIS) / ROW);
    const row = data.rows[r];
    const t = time(e.offsetX);
    const slack = 3 * (t1 - t0) / (canvas.width - LABEL);
    let found = null;
    if (row && e.offsetX > LABEL) {
      const bars = row.bars;
      for (let i = first(bars, t - slack); i < bars.length && bars[i][0] <= t + slack; i++) {
        if (bars[i][0] + bars[i][1] + slack >= t) { found = bars[i]; break; }
      }
    }
    if (!found) { tip.style.display = "none"; return; }
    tip.textContent = data.strings[found[3]] + " (" + data.categories[found[2]] + ", " +
      found[1].toFixed(2) + " µs at " + found[0].toFixed(1) + " µs)\n" + data.strings[found[4]];
    tip.style.left = (e.clientX + 12) + "px";
    tip.style.top = (e.clientY + 12) + "px";
    tip.style.display = "block";
  });
  canvas.addEventListener("keydown", function (e) {
    const range = t1 - t0;
    if (e.key === "+" || e.key === "=") zoom(0.8);
    else if (e.key === "-") zoom(1.25);
    else if (e.key === "ArrowLeft") pan(-range / 10);
    else if (e.key === "ArrowRight") pan(range / 10);
    else if (e.key === "0") { t0 = 0; t1 = span; draw(); }
    else return;
    e.preventDefault();
  });
  window.addEventListener("resize", function () { size(); draw(); });

  // `#view=FROM,TO` (µs from the trace's start) opens that part of the timeline.
  const view = /^#view=([0-9.]+),([0-9.]+)$/.exec(location.hash);
  if (view && Number(view[2]) > Number(view[1])) { t0 = Number(view[1]); t1 = Number(view[2]); }
  size();
  draw();
  const rendered = performance.now() - started;
  const shown = performance.now();
  if (location.hash === "#selftest") {
    const zoomStart = performance.now();
    for (let i = 0; i < 10; i++) zoom(0.5, span / 3);
    for (let i = 0; i < 10; i++) zoom(2, span / 3);
    const zoomed = (performance.now() - zoomStart) / 20;
    const bars = data.rows.reduce(function (n, row) { return n + row.bars.length; }, 0);
    document.getElementById("timing").textContent = "bars=" + bars + " render_ms=" +
      rendered.toFixed(1) + " page_ms=" + shown.toFixed(1) + " zoom_step_ms=" + zoomed.toFixed(2);
  }
})();
