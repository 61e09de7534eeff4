// clawtap report viewer. Plain JavaScript, no dependencies, no network.
// Everything from the capture is written with textContent or drawn on the
// canvas: capture text never becomes HTML.
(function () {
  "use strict";

  var t0ms = performance.now();
  var D = JSON.parse(document.getElementById("clawtap-data").textContent);

  // ---- constants shared with pkg/report ----
  var TY = {};
  D.types.forEach(function (n, k) { TY[n] = k; });
  var T_OTHER = TY["other"], T_AD = TY["agent-delta"], T_CD = TY["chat-delta"], T_TOOL = TY["tool"],
    T_TOOLRES = TY["tool-result"], T_APREQ = TY["approval-requested"], T_APRES = TY["approval-resolved"],
    T_FINAL = TY["final"], T_ABORT = TY["aborted"], T_ERR = TY["error"], T_LIFE = TY["lifecycle"],
    T_SEND = TY["send"], T_MARK = TY["marker"], T_TRAFFIC = TY["traffic"], T_INVALID = TY["invalid"];

  var COLORS = {
    final: "#2e9d5b", aborted: "#8a8f98", error: "#d64545", "lifecycle-end": "#c9a227",
    "lifecycle-error": "#d97a3a", "": "#3b7dd8",
    agent: "#3b7dd8", chat: "#8e44ad", tool: "#e67e22", approval: "#d4a017", resolved: "#2e9d5b",
    gap: "#d64545", sev: { error: "#d64545", warn: "#e69b00", info: "#3b7dd8" }
  };

  // ---- rows as typed arrays ----
  var N = D.rows.length;
  var RI = new Int32Array(N), RT = new Float64Array(N), RC = new Int32Array(N), RD = new Int8Array(N),
    RY = new Int8Array(N), RL = new Int32Array(N), RLANE = new Int32Array(N), RRUN = new Int32Array(N),
    RSEQ = new Float64Array(N);
  for (var k = 0; k < N; k++) {
    var r = D.rows[k];
    RI[k] = r[0]; RT[k] = r[1]; RC[k] = r[2]; RD[k] = r[3]; RY[k] = r[4]; RL[k] = r[5];
    RLANE[k] = r[6]; RRUN[k] = r[7]; RSEQ[k] = r[8];
  }
  D.rows = null;

  var bodies = new Map();
  D.bodies.forEach(function (b) { bodies.set(b.i, b); });
  var rowOfI = new Map();
  for (k = 0; k < N; k++) rowOfI.set(RI[k], k);

  // ---- small helpers ----
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  // uiNote says which of the UI versions checked show a finding, when
  // several were (check --ui all); "" when one was.
  function uiNote(f) {
    if (!f.uis) return "";
    if (!f.notUis.length) return "shown by every UI checked: " + f.uis.join(", ");
    if (!f.uis.length) return "shown by no UI checked: " + f.notUis.join(", ");
    return "shown by " + f.uis.join(", ") + "; not by " + f.notUis.join(", ");
  }
  function add(parent) {
    for (var a = 1; a < arguments.length; a++) {
      var c = arguments[a];
      if (c === null || c === undefined) continue;
      parent.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return parent;
  }
  function fmtT(ms) {
    var sign = ms < 0 ? "-" : "+";
    ms = Math.abs(Math.round(ms));
    if (ms >= 60000) {
      var m = Math.floor(ms / 60000), s = (ms % 60000) / 1000;
      return sign + m + ":" + (s < 10 ? "0" : "") + s.toFixed(3);
    }
    return sign + (ms / 1000).toFixed(3) + "s";
  }
  function fmtDur(ms) {
    if (ms < 1000) return Math.round(ms) + " ms";
    if (ms < 60000) return (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + " s";
    var m = Math.floor(ms / 60000), s = Math.round((ms % 60000) / 1000);
    return m + " min " + (s < 10 ? "0" : "") + s + " s";
  }
  function short(id) { return id.length > 12 ? id.slice(0, 8) + "…" : id; }
  function lowerBound(arr, t) { // first index whose RT >= t (arr holds row indices sorted by t)
    var lo = 0, hi = arr.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (RT[arr[mid]] < t) lo = mid + 1; else hi = mid; }
    return lo;
  }
  function runColor(run) { return COLORS[run.terminal] || COLORS[""]; }
  function laneName(l) {
    if (!l.agentId && !l.sessionKey) return "(no session)";
    return l.agentId || "(no agent)";
  }
  function rowLabel(k) { return D.labels[RL[k]] || ""; }

  // ---- indexes for drawing and hit testing ----
  var laneRuns = D.lanes.map(function () { return []; });
  D.runs.forEach(function (r, k) { laneRuns[r.lane].push(k); });
  laneRuns.forEach(function (a) { a.sort(function (x, y) { return D.runs[x].start - D.runs[y].start; }); });
  var trackTicks = D.lanes.map(function (l) { var a = []; for (var t = 0; t < l.tracks; t++) a.push([]); return a; });
  var laneLoose = D.lanes.map(function () { return []; }); // rows of a lane without a run
  var connIdx = new Map();
  D.conns.forEach(function (c, k) { connIdx.set(c.id, k); });
  var connTicks = D.conns.map(function () { return []; });
  for (k = 0; k < N; k++) {
    var ci = connIdx.get(RC[k]);
    if (ci !== undefined) connTicks[ci].push(k);
    if (RRUN[k] >= 0) {
      var run = D.runs[RRUN[k]];
      trackTicks[run.lane][run.track].push(k);
    } else if (RLANE[k] >= 0) {
      laneLoose[RLANE[k]].push(k);
    }
  }
  function byT(a, b) { return RT[a] - RT[b] || a - b; }
  connTicks.forEach(function (a) { a.sort(byT); });
  trackTicks.forEach(function (tr) { tr.forEach(function (a) { a.sort(byT); }); });
  laneLoose.forEach(function (a) { a.sort(byT); });
  var timedFindings = [];
  D.findings.forEach(function (f, k) { if (f.t !== undefined) timedFindings.push(k); });
  timedFindings.sort(function (a, b) { return D.findings[a].t - D.findings[b].t || a - b; });
  var timersByAgent = new Map();
  D.timers.forEach(function (tm) {
    if (!timersByAgent.has(tm.agent)) timersByAgent.set(tm.agent, []);
    timersByAgent.get(tm.agent).push(tm);
  });
  var gapsByConn = D.conns.map(function () { return []; });
  var gapsByLane = D.lanes.map(function () { return []; });
  D.gaps.forEach(function (g) {
    var ci = connIdx.get(g.conn);
    if (ci !== undefined) gapsByConn[ci].push(g);
    if (g.lane >= 0) gapsByLane[g.lane].push(g);
  });

