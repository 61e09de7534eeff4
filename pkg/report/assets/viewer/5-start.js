  // ---- start ----
  window.__clawtapReport = {
    runs: D.runs.length, lanes: D.lanes.length, conns: D.conns.length, findings: D.findings.length, rows: N,
    scriptAt: Math.round(t0ms), parseMs: Math.round(performance.now() - t0ms), firstRenderMs: 0,
    draws: 0, lastDrawMs: 0,
    // runPoint returns the viewport point at the middle of run k's bar
    // (scrolling the timeline to it first), for tests that click.
    runPoint: function (k) {
      var run = D.runs[k], L = null;
      for (var a = 0; a < layout.length; a++) if (layout[a].kind === "lane" && layout[a].k === run.lane) L = layout[a];
      var ly = L.y + 3 + run.track * TRACK_H + 16;
      if (ly < wrap.scrollTop || ly > wrap.scrollTop + VH) wrap.scrollTop = ly - VH / 2;
      var rect = cv.getBoundingClientRect();
      var xa = Math.max(X(run.start), GUT + 2), xb = Math.min(X(Math.max(run.end, run.start)), W - 2);
      return { x: rect.left + (xa + xb) / 2, y: rect.top + ly - wrap.scrollTop };
    },
    // rowPoint returns the viewport point of record i on its connection's
    // band, centring the view on it first.
    rowPoint: function (i) {
      var k = rowOfI.get(i), L = null;
      for (var a = 0; a < layout.length; a++) if (layout[a].kind === "conn" && D.conns[layout[a].k].id === RC[k]) L = layout[a];
      centerOn(RT[k]);
      drawNow();
      var ly = L.y + L.h / 2;
      if (ly < wrap.scrollTop || ly > wrap.scrollTop + VH) wrap.scrollTop = ly - VH / 2;
      var rect = cv.getBoundingClientRect();
      return { x: rect.left + X(RT[k]), y: rect.top + ly - wrap.scrollTop };
    },
    // findingPoint returns the viewport point of finding k's pin on the
    // FINDINGS row, centring the view on it first.
    findingPoint: function (k) {
      var f = D.findings[k];
      centerOn(f.t);
      drawNow();
      wrap.scrollTop = 0;
      var rect = cv.getBoundingClientRect();
      return { x: rect.left + X(f.t), y: rect.top + layout[0].y + layout[0].h / 2 };
    },
    select: function (kind, k) { if (kind === "run") selectRun(k, -1); else if (kind === "finding") selectFinding(k, true); else selectRecord(k, true); },
    view: function () { return [v0, v1]; }
  };
  fit();
  resize();
})();
