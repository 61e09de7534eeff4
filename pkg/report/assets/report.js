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

  // ---- page skeleton ----
  var app = document.getElementById("app");
  var S = D.summary, M = D.meta;

  var header = add(el("header", "top"));
  var h1 = add(el("h1"), el("span", "brand", "clawtap report"), " ", el("span", "name", M.name || "capture"));
  add(header, h1);
  var sub = [];
  if (M.createdAt) sub.push("recorded " + M.createdAt);
  if (M.tool) sub.push(M.tool + (M.mode ? " (" + M.mode + ")" : ""));
  if (M.url) sub.push(M.url);
  if (M.ui) sub.push("replayed as " + M.ui);
  if (M.uis) sub.push("findings checked under " + M.uis.join(", "));
  sub.push(fmtDur(Math.max(0, D.view[1] - D.view[0])) + " of capture" + (D.view[0] !== S.start || D.view[1] !== S.end ? " (some records have times far outside it)" : ""));
  add(header, el("div", "sub", sub.join(" · ")));
  app.appendChild(header);

  if (M.noRedact) {
    var ban = el("div", "banner danger");
    add(ban, el("strong", null, "Not redacted. "),
      "This capture was recorded with --no-redact (redaction.credentials is false): tokens, signatures and passwords may be in it and in this report. Think twice before attaching it publicly; clawtap redact makes a redacted copy.");
    app.appendChild(ban);
  } else if (M.redactedOnRead) {
    app.appendChild(el("div", "banner", "The capture was written without redaction: clawtap redacted its credentials as it read it, so this report shows none (--show-credentials would)."));
  } else if (!M.redaction) {
    app.appendChild(el("div", "banner", "The capture's header does not say what was redacted."));
  }
  if (M.truncated) app.appendChild(el("div", "banner warn", "The capture ends early (a recorder killed mid-write): everything before the cut is shown."));

  // stats header
  var cards = el("section", "cards");
  function card(title, big, lines, cls) {
    var c = el("div", "card" + (cls ? " " + cls : ""));
    add(c, el("div", "ct", title), el("div", "cv", big));
    lines.forEach(function (l) { if (l) c.appendChild(el("div", "cl", l)); });
    cards.appendChild(c);
    return c;
  }
  var ST = D.stats;
  function sumMap(m) { var n = 0; for (var key in m) if (Object.prototype.hasOwnProperty.call(m, key)) n += m[key]; return n; }
  function pairs(m) { return Object.keys(m || {}).sort().map(function (key) { return key + " " + m[key]; }).join(" · "); }
  if (ST) {
    var g = ST.gateway || {};
    card("Gateway", (g.versions && g.versions.length ? g.versions.join(", ") : M.gatewayVersion || "unknown"),
      [g.protocols && g.protocols.length ? "protocol " + g.protocols.join(", ") : "protocol unknown",
       g.bootIds > 1 ? "restarted: " + g.bootIds + " boots" : ""], g.bootIds > 1 ? "warnc" : "");
    var cl = (ST.connections || []).map(function (c) {
      return "conn " + c.conn + " · " + fmtDur(c.lifetimeMs) + " · " + (c.closeCode ? c.closeCode : c.closedMs !== null ? "closed" : "open");
    });
    card("Connections", String(S.connections), [S.reconnects ? S.reconnects + " reconnect(s)" : "no reconnects"].concat(cl.slice(0, 3), cl.length > 3 ? [(cl.length - 3) + " more"] : []));
    var fr = ST.frames || {};
    card("Frames", String(ST.capture.frames), [fr.in + " in · " + fr.out + " out", fr.requests + " req · " + fr.responses + " res",
      ST.capture.markers + " markers" + (ST.capture.invalid ? " · " + ST.capture.invalid + " invalid" : "")]);
    var rn = ST.runs || {};
    card("Runs", String(rn.count), [rn.completed + " done · " + rn.aborted + " aborted", rn.failed + " failed", rn.unterminated + " unfinished"], rn.failed || rn.unterminated ? "warnc" : "");
    if (rn.durationMs && rn.durationMs.count) {
      card("Run time p50", fmtDur(rn.durationMs.p50), ["p90 " + fmtDur(rn.durationMs.p90),
        rn.firstDeltaMs && rn.firstDeltaMs.count ? "1st delta " + fmtDur(rn.firstDeltaMs.p50) : "",
        rn.tokens && rn.tokens.runsWithUsage ? (rn.tokens.total || rn.tokens.input + rn.tokens.output) + " tokens" : ""]);
    }
    var dl0 = ST.deltas || { agent: {}, chat: {} };
    card("Deltas", String((dl0.agent.events || 0) + (dl0.chat.events || 0)), ["agent " + (dl0.agent.events || 0) + " · " + (dl0.agent.perSecond || 0) + "/s",
      "chat " + (dl0.chat.events || 0) + " · " + (dl0.chat.perSecond || 0) + "/s", S.toolCalls + " tool calls"]);
    var ap = ST.approvals || {};
    card("Approvals", String(ap.requested || 0), [(ap.resolved || 0) + " resolved", (ap.unresolved || 0) + " unresolved", pairs(ap.byDecision)], ap.unresolved ? "warnc" : "");
    var gp = ST.gaps || {};
    card("Gaps", String(gp.gaps || 0), [(gp.missing || 0) + " frames lost", ((gp.duplicates || 0) + (gp.backwards || 0)) + " dup/back", (gp.gatewayGaps || 0) + " by gateway"], gp.gaps ? "bad" : "");
    var er = ST.errors || {};
    var nerr = sumMap(er.responses || {}) + sumMap(er.chatErrors || {}) + (er.lifecycleErrors || 0);
    card("Errors", String(nerr), [sumMap(er.responses || {}) + " failed res", sumMap(er.chatErrors || {}) + " chat errors", (er.lifecycleErrors || 0) + " lifecycle", (er.invalidRecords || 0) + " invalid"], nerr ? "warnc" : "");
  } else {
    card("Gateway", M.gatewayVersion || "unknown", [M.protocol ? "protocol " + M.protocol : "protocol unknown"]);
    card("Connections", String(S.connections), [S.reconnects ? S.reconnects + " reconnect(s)" : "no reconnects"]);
    card("Frames", String(S.frames), [S.framesIn + " in · " + S.framesOut + " out", S.markers + " markers" + (S.invalid ? " · " + S.invalid + " invalid" : "")]);
    card("Runs", String(S.runs), [S.runsFinal + " final · " + S.runsAborted + " aborted · " + S.runsError + " error", S.runsUnfinished + " never finished"]);
    card("Deltas", String(S.agentDeltas + S.chatDeltas), [S.agentDeltas + " agent · " + S.chatDeltas + " chat", S.toolCalls + " tool calls"]);
    card("Approvals", String(S.approvalsRequested), [S.approvalsResolved + " resolved"]);
    card("Gaps", String(S.gaps), [S.missing + " frame(s) missing", (S.duplicates + S.backwards) + " duplicate/backwards", S.gatewayGaps + " gateway-reported"], S.gaps ? "bad" : "");
  }
  var fc = card("Findings", String(S.findingsError + S.findingsWarn + S.findingsInfo), [], (S.findingsError ? "bad" : S.findingsWarn ? "warnc" : ""));
  var sev = el("div", "cl");
  add(sev, el("span", "sev error", S.findingsError + " error"), " ", el("span", "sev warn", S.findingsWarn + " warn"), " ", el("span", "sev info", S.findingsInfo + " info"));
  fc.appendChild(sev);
  app.appendChild(cards);

  if (M.notes) {
    var nd = el("details", "capnotes");
    add(nd, el("summary", null, "Capture notes"), el("p", null, M.notes));
    app.appendChild(nd);
  }
  D.notes.forEach(function (n) { app.appendChild(el("div", "banner info", n)); });

  // toolbar
  var bar = el("div", "toolbar");
  var search = el("input", "search");
  search.type = "search";
  search.placeholder = "Search event names, runIds, text…  ( / )";
  search.setAttribute("aria-label", "search");
  var searchInfo = el("span", "sinfo", "");
  function btn(label, title, fn) { var b = el("button", null, label); b.title = title; b.addEventListener("click", fn); return b; }
  add(bar, search, searchInfo,
    btn("−", "zoom out (-)", function () { zoom(1.6, null); }),
    btn("+", "zoom in (+)", function () { zoom(1 / 1.6, null); }),
    btn("Fit", "show everything (0)", function () { fit(); }),
    btn("◀ finding", "previous finding (p)", function () { stepFinding(-1); }),
    btn("finding ▶", "next finding (n)", function () { stepFinding(1); }));
  var legend = el("div", "legend");
  [["bar final", COLORS.final], ["aborted", COLORS.aborted], ["error", COLORS.error], ["lifecycle only", COLORS["lifecycle-end"]], ["never finished", COLORS[""]],
   ["agent delta", COLORS.agent], ["chat delta", COLORS.chat], ["tool", COLORS.tool], ["approval", COLORS.approval], ["gap", COLORS.gap]].forEach(function (p) {
    var s = el("span", "lg"); var sw = el("i"); sw.style.background = p[1]; add(s, sw, p[0]); legend.appendChild(s);
  });
  bar.appendChild(legend);
  app.appendChild(bar);

  // timeline
  var tl = el("section", "timeline");
  tl.tabIndex = 0;
  tl.setAttribute("aria-label", "timeline: wheel or +/- to zoom, drag or arrows to pan");
  var axis = el("canvas", "axis");
  var wrap = el("div", "tlwrap");
  var cv = el("canvas", "tl");
  var spacer = el("div", "spacer");
  add(wrap, cv, spacer);
  var tip = el("div", "tip");
  add(tl, axis, wrap, tip);
  app.appendChild(tl);

  // bottom: findings/search list and details
  var bottom = el("section", "bottom");
  var side = el("div", "side");
  var tabs = el("div", "tabs");
  var tabF = el("button", "tab on", "Findings (" + D.findings.length + ")");
  var tabS = el("button", "tab", "Search");
  add(tabs, tabF, tabS);
  var listF = el("ol", "findings");
  var listS = el("ol", "results hidden");
  add(side, tabs, listF, listS);
  var details = el("div", "details");
  details.appendChild(el("p", "hint", N ? "Click a run bar, a tick or a finding to see its frames, the intents they produced, the replayed state diff and the run's transcript side by side." : "The capture has no records."));
  add(bottom, side, details);
  app.appendChild(bottom);
  tabF.addEventListener("click", function () { showTab("f"); });
  tabS.addEventListener("click", function () { showTab("s"); });
  function showTab(w) {
    tabF.classList.toggle("on", w === "f"); tabS.classList.toggle("on", w === "s");
    listF.classList.toggle("hidden", w !== "f"); listS.classList.toggle("hidden", w !== "s");
  }

  // findings list
  D.findings.forEach(function (f, k) {
    var li = el("li", "finding");
    li.dataset.k = String(k);
    var b = el("button", "fbtn");
    var top = el("div", "fh");
    add(top, el("span", "sev " + f.severity, f.severity), " ", el("span", "rule", f.rule), " ",
      el("span", "when", (f.t !== undefined ? fmtT(f.t) : "") + (f.i >= 0 ? "  #" + f.i : "")));
    add(b, top, el("div", "fm", f.message));
    if (f.uis) add(b, el("div", "fu", uiNote(f)));
    b.addEventListener("click", function () { selectFinding(k, true); });
    li.appendChild(b);
    listF.appendChild(li);
  });
  if (!D.findings.length) listF.appendChild(el("li", "empty", "No findings."));

  // ---- layout ----
  var GUT = 190, FIND_H = 22, CONN_H = 30, TRACK_H = 34, LANE_PAD = 6;
  var layout = [];
  var contentH = 0;
  (function () {
    var y = 0;
    layout.push({ kind: "findings", y: y, h: FIND_H }); y += FIND_H;
    D.conns.forEach(function (c, k) { layout.push({ kind: "conn", k: k, y: y, h: CONN_H }); y += CONN_H; });
    D.lanes.forEach(function (l, k) {
      var h = l.tracks * TRACK_H + LANE_PAD;
      layout.push({ kind: "lane", k: k, y: y, h: h }); y += h;
    });
    contentH = y;
  })();

  // ---- view ----
  var dataStart = S.start, dataEnd = Math.max(S.end, S.start + 1);
  D.runs.forEach(function (r) { dataEnd = Math.max(dataEnd, r.end, r.last); });
  var v0 = 0, v1 = 1, W = 0, VH = 0, dpr = 1;
  var sel = { kind: null, run: -1, i: -1, conn: -1, finding: -1 };
  var matches = null; // Uint8Array over rows when searching
  var matchList = [];

  var viewA = D.view[0], viewB = Math.max(D.view[1], D.view[0] + 1);
  if (D.view[0] === S.start && D.view[1] === S.end) { viewA = dataStart; viewB = dataEnd; }
  function fit() {
    var pad = Math.max(20, (viewB - viewA) * 0.02);
    v0 = viewA - pad; v1 = viewB + pad;
    draw();
  }
  function scale() { return (W - GUT) / (v1 - v0); }
  function X(t) { return GUT + (t - v0) * scale(); }
  function tAt(x) { return v0 + (x - GUT) / scale(); }
  function zoom(f, atX) {
    var c = atX === null ? (v0 + v1) / 2 : tAt(atX);
    var span = (v1 - v0) * f;
    span = Math.max(0.5, Math.min(span, (dataEnd - dataStart) * 50 + 1e4));
    var frac = atX === null ? 0.5 : (c - v0) / (v1 - v0);
    v0 = c - span * frac; v1 = v0 + span;
    draw();
  }
  function pan(dt) { v0 += dt; v1 += dt; draw(); }
  function centerOn(t, span) {
    var cur = v1 - v0;
    if (span === undefined) span = cur;
    if (t < v0 || t > v1 || span !== cur) { v0 = t - span / 2; v1 = t + span / 2; }
    draw();
  }

  function resize() {
    dpr = window.devicePixelRatio || 1;
    W = Math.max(400, wrap.clientWidth);
    VH = Math.min(contentH, Math.max(180, Math.round(window.innerHeight * 0.55)));
    wrap.style.height = VH + "px";
    cv.style.width = W + "px"; cv.style.height = VH + "px";
    cv.width = Math.round(W * dpr); cv.height = Math.round(VH * dpr);
    spacer.style.height = Math.max(0, contentH - VH) + "px";
    axis.style.width = W + "px"; axis.style.height = "26px";
    axis.width = Math.round(W * dpr); axis.height = Math.round(26 * dpr);
    draw();
  }

  // ---- drawing ----
  var ctx = cv.getContext("2d"), actx = axis.getContext("2d");
  var FONT = "12px system-ui, -apple-system, 'Segoe UI', sans-serif";
  var SMALL = "10px system-ui, -apple-system, 'Segoe UI', sans-serif";
  var drawPending = false;
  function draw() {
    if (drawPending) return;
    drawPending = true;
    requestAnimationFrame(function () { drawPending = false; drawNow(); });
  }

  function niceStep(ms) {
    var p = Math.pow(10, Math.floor(Math.log10(ms)));
    var m = ms / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }

  function drawAxis() {
    var c = actx;
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.clearRect(0, 0, W, 26);
    c.fillStyle = "#f6f7f9"; c.fillRect(0, 0, W, 26);
    c.strokeStyle = "#d5d9e0"; c.beginPath(); c.moveTo(0, 25.5); c.lineTo(W, 25.5); c.stroke();
    var step = niceStep(90 / scale());
    c.font = SMALL; c.fillStyle = "#4a5260"; c.textBaseline = "middle";
    for (var t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
      var x = Math.round(X(t)) + 0.5;
      if (x < GUT) continue;
      c.strokeStyle = "#aab2bf"; c.beginPath(); c.moveTo(x, 18); c.lineTo(x, 26); c.stroke();
      c.fillText(step < 1 ? fmtT(t).replace("s", "") + "s" : fmtT(t), x + 3, 11);
    }
    c.fillStyle = "#4a5260"; c.font = SMALL;
    c.fillText("span " + fmtDur(v1 - v0), 8, 13);
  }

  function clipText(c, s, maxW) {
    if (c.measureText(s).width <= maxW) return s;
    var lo = 0, hi = s.length;
    while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (c.measureText(s.slice(0, mid) + "…").width <= maxW) lo = mid; else hi = mid - 1; }
    return s.slice(0, lo) + "…";
  }

  function diamond(c, x, y, r, fill) {
    c.beginPath(); c.moveTo(x, y - r); c.lineTo(x + r, y); c.lineTo(x, y + r); c.lineTo(x - r, y); c.closePath();
    if (fill) c.fill(); else c.stroke();
  }
  function pin(c, x, y, color) {
    c.fillStyle = color; c.beginPath(); c.arc(x, y, 4.5, 0, Math.PI * 2); c.fill();
    c.strokeStyle = "#fff"; c.lineWidth = 1; c.stroke();
  }

  function drawNow() {
    if (!W) return;
    var started = performance.now();
    drawAxis();
    var c = ctx, sy = wrap.scrollTop;
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.clearRect(0, 0, W, VH);
    c.font = FONT; c.textBaseline = "middle";
    var sc = scale();
    // grid
    var step = niceStep(90 / sc);
    c.strokeStyle = "#eef0f3"; c.lineWidth = 1;
    for (var t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
      var gx = Math.round(X(t)) + 0.5;
      if (gx < GUT) continue;
      c.beginPath(); c.moveTo(gx, 0); c.lineTo(gx, VH); c.stroke();
    }
    for (var li = 0; li < layout.length; li++) {
      var L = layout[li], y = L.y - sy;
      if (y + L.h < 0 || y > VH) continue;
      c.save();
      c.beginPath(); c.rect(GUT, y, W - GUT, L.h); c.clip();
      if (L.kind === "findings") drawFindingsRow(c, y, L.h);
      else if (L.kind === "conn") drawConn(c, L.k, y, L.h);
      else drawLane(c, L.k, y, L.h);
      c.restore();
      // gutter
      c.fillStyle = li % 2 ? "#fafbfc" : "#f3f5f8"; c.fillRect(0, y, GUT, L.h);
      c.strokeStyle = "#e3e6eb"; c.beginPath(); c.moveTo(0, y + L.h - 0.5); c.lineTo(W, y + L.h - 0.5); c.stroke();
      drawGutter(c, L, y);
    }
    c.strokeStyle = "#d5d9e0"; c.beginPath(); c.moveTo(GUT - 0.5, 0); c.lineTo(GUT - 0.5, VH); c.stroke();
    // selection cursor
    if (sel.i >= 0 && rowOfI.has(sel.i)) {
      var sx = Math.round(X(RT[rowOfI.get(sel.i)])) + 0.5;
      if (sx >= GUT) { c.strokeStyle = "rgba(20,90,200,0.55)"; c.setLineDash([4, 3]); c.beginPath(); c.moveTo(sx, 0); c.lineTo(sx, VH); c.stroke(); c.setLineDash([]); }
    }
    window.__clawtapReport.draws++;
    window.__clawtapReport.lastDrawMs = performance.now() - started;
    if (!window.__clawtapReport.firstRenderMs) {
      window.__clawtapReport.firstRenderMs = Math.round(performance.now() - t0ms);
      window.__clawtapReport.firstRenderAt = Math.round(performance.now());
      document.body.setAttribute("data-ready", "1");
    }
  }

  function drawGutter(c, L, y) {
    c.textBaseline = "middle";
    if (L.kind === "findings") {
      c.font = "600 " + SMALL; c.fillStyle = "#4a5260"; c.fillText("FINDINGS", 10, y + L.h / 2);
      return;
    }
    if (L.kind === "conn") {
      var cn = D.conns[L.k];
      c.font = "600 " + FONT; c.fillStyle = "#1f2733";
      c.fillText(clipText(c, "conn " + cn.id + (cn.reconnect ? "  ↻ reconnect" : ""), GUT - 16), 10, y + 10);
      c.font = SMALL; c.fillStyle = "#6b7380";
      var s2 = (cn.server ? cn.server + " " : "") + (cn.hasClose ? (cn.code ? "close " + cn.code : cn.error ? "error" : "closed") : "open at end");
      c.fillText(clipText(c, s2, GUT - 16), 10, y + 22);
      return;
    }
    var ln = D.lanes[L.k];
    c.font = "600 " + FONT; c.fillStyle = "#1f2733";
    c.fillText(clipText(c, laneName(ln) + "  ·  " + ln.runs + " run" + (ln.runs === 1 ? "" : "s"), GUT - 16), 10, y + 11);
    c.font = SMALL; c.fillStyle = "#6b7380";
    c.fillText(clipText(c, ln.sessionKey || "(no session key)", GUT - 16), 10, y + 24);
  }

  function drawFindingsRow(c, y, h) {
    var lastX = -10;
    for (var a = 0; a < timedFindings.length; a++) {
      var f = D.findings[timedFindings[a]], x = X(f.t);
      if (x < GUT - 6 || x > W + 6) continue;
      if (Math.abs(x - lastX) < 2 && timedFindings[a] !== sel.finding) continue;
      lastX = x;
      pin(c, x, y + h / 2, COLORS.sev[f.severity] || COLORS.sev.info);
      if (timedFindings[a] === sel.finding) { c.strokeStyle = "#1f2733"; c.lineWidth = 2; c.beginPath(); c.arc(x, y + h / 2, 7, 0, 7); c.stroke(); c.lineWidth = 1; }
    }
  }

  function drawConn(c, k, y, h) {
    var cn = D.conns[k];
    var x0 = X(cn.open), x1 = Math.max(X(cn.close), x0 + 2);
    c.fillStyle = cn.hasClose ? "#e4ebf5" : "#e8f0fb";
    c.fillRect(x0, y + 5, x1 - x0, h - 10);
    if (!cn.hasClose) { // open at the capture's end: fade out
      var gr = c.createLinearGradient(x1 - 30, 0, x1 + 20, 0);
      gr.addColorStop(0, "rgba(232,240,251,1)"); gr.addColorStop(1, "rgba(232,240,251,0)");
      c.fillStyle = gr; c.fillRect(x1 - 30, y + 5, 50, h - 10);
    }
    // traffic ticks, one per pixel column
    var arr = connTicks[k], from = lowerBound(arr, v0), lastX = -1;
    c.fillStyle = "rgba(60,72,90,0.35)";
    for (var a = from; a < arr.length; a++) {
      var rk = arr[a]; if (RT[rk] > v1) break;
      var px = Math.round(X(RT[rk]));
      if (matches && matches[rk]) { c.fillStyle = "#f5c400"; c.fillRect(px - 2, y + 2, 5, h - 4); c.fillStyle = "rgba(60,72,90,0.35)"; }
      if (RY[rk] === T_MARK || RY[rk] === T_INVALID) continue;
      if (px === lastX) continue;
      lastX = px;
      c.fillRect(px, y + 10, 1, h - 20);
    }
    // markers
    c.font = SMALL;
    for (a = from; a < arr.length; a++) {
      rk = arr[a]; if (RT[rk] > v1) break;
      var ty = RY[rk];
      if (ty !== T_MARK && ty !== T_INVALID) continue;
      px = X(RT[rk]);
      var lab = rowLabel(rk);
      if (ty === T_INVALID) { c.fillStyle = COLORS.error; c.fillRect(px - 1, y + 4, 3, h - 8); continue; }
      if (lab.indexOf("mark open") === 0) { c.fillStyle = "#2e6fd0"; c.beginPath(); c.moveTo(px, y + 7); c.lineTo(px + 7, y + h / 2); c.lineTo(px, y + h - 7); c.fill(); }
      else if (lab.indexOf("mark hello") === 0) { c.fillStyle = "#2e9d5b"; c.beginPath(); c.arc(px, y + h / 2, 3, 0, 7); c.fill(); }
      else if (lab.indexOf("mark close") === 0) { c.fillStyle = "#1f2733"; c.fillRect(px - 4, y + h / 2 - 4, 8, 8); c.fillText(lab.slice(5), px + 6, y + h / 2); }
      else if (lab.indexOf("mark error") === 0) { c.strokeStyle = COLORS.error; c.lineWidth = 2; c.beginPath(); c.moveTo(px - 4, y + 9); c.lineTo(px + 4, y + h - 9); c.moveTo(px + 4, y + 9); c.lineTo(px - 4, y + h - 9); c.stroke(); c.lineWidth = 1; }
      else { c.fillStyle = "#6b7380"; c.fillRect(px - 1, y + 6, 2, h - 12); }
    }
    // seq start
    if (cn.firstSeq >= 0) {
      var fr = -1;
      for (a = 0; a < arr.length; a++) { if (RSEQ[arr[a]] === cn.firstSeq && RD[arr[a]] === 0) { fr = arr[a]; break; } }
      if (fr >= 0) {
        px = X(RT[fr]);
        var ok = cn.firstSeq === 1;
        c.fillStyle = ok ? "#2e9d5b" : "#e69b00";
        c.fillText((ok ? (cn.reconnect ? "seq ↺ 1" : "seq 1") : "first seq " + cn.firstSeq), px + 4, y + 8);
      }
    }
    // gaps
    gapsByConn[k].forEach(function (g) {
      if (g.kind === "gateway-gap") return;
      var gx = X(g.t);
      if (gx < GUT - 40 || gx > W + 40) return;
      c.fillStyle = g.kind === "first-seq" ? "#e69b00" : COLORS.gap;
      c.fillRect(gx - 1, y + 2, 3, h - 4);
      if (g.kind !== "first-seq") c.fillText(g.kind === "gap" ? "gap +" + (g.received - g.expected) : g.kind, gx + 4, y + h - 7);
    });
  }

  function drawLane(c, k, y, h) {
    var runs = laneRuns[k], labels = [];
    c.font = SMALL;
    // loose rows (a lane's frames without a run)
    var loose = laneLoose[k], from = lowerBound(loose, v0);
    c.fillStyle = "rgba(60,72,90,0.4)";
    for (var a = from; a < loose.length; a++) { var rk = loose[a]; if (RT[rk] > v1) break; c.fillRect(Math.round(X(RT[rk])), y + 3, 1, h - 6); }
    // run bars
    for (a = 0; a < runs.length; a++) {
      var run = D.runs[runs[a]];
      if (run.start > v1) break;
      var end = Math.max(run.end, run.start);
      if (Math.max(end, run.last) < v0) continue;
      var ty = y + 3 + run.track * TRACK_H, bx0 = X(run.start), bx1 = Math.max(X(end), bx0 + 3);
      var col = runColor(run), sel1 = sel.run === runs[a];
      c.globalAlpha = 0.28; c.fillStyle = col;
      c.fillRect(bx0, ty + 9, bx1 - bx0, 14);
      c.globalAlpha = 1;
      if (run.terminal === "") {
        var gr = c.createLinearGradient(Math.max(bx0, bx1 - 40), 0, bx1, 0);
        gr.addColorStop(0, "rgba(59,125,216,0)"); gr.addColorStop(1, "rgba(59,125,216,0.55)");
        c.fillStyle = gr; c.fillRect(Math.max(bx0, bx1 - 40), ty + 9, Math.min(40, bx1 - bx0), 14);
        c.setLineDash([4, 3]);
      }
      c.strokeStyle = col; c.lineWidth = sel1 ? 2.5 : 1;
      c.strokeRect(bx0 + 0.5, ty + 9.5, bx1 - bx0 - 1, 13);
      c.setLineDash([]); c.lineWidth = 1;
      if (run.last > end) { // frames after the terminal
        c.strokeStyle = COLORS.error; c.setLineDash([2, 2]);
        c.beginPath(); c.moveTo(bx1, ty + 16); c.lineTo(X(run.last), ty + 16); c.stroke(); c.setLineDash([]);
      }
      if (bx1 - bx0 > 70) labels.push([run, bx0, bx1, ty, end]);
    }
    // approvals: a line from request to resolution
    D.approvals.forEach(function (ap) {
      if (ap.lane !== k) return;
      var run = ap.run >= 0 ? D.runs[ap.run] : null, ty = y + 3 + (run ? run.track : 0) * TRACK_H;
      var ax0 = X(ap.req), ax1 = ap.resI >= 0 ? X(ap.res) : X(dataEnd);
      c.strokeStyle = COLORS.approval; c.lineWidth = 2;
      if (ap.resI < 0) c.setLineDash([3, 3]);
      c.beginPath(); c.moveTo(ax0, ty + 7); c.lineTo(ax1, ty + 7); c.stroke();
      c.setLineDash([]); c.lineWidth = 1;
    });
    // ticks per track
    var tracks = trackTicks[k];
    for (var tr = 0; tr < tracks.length; tr++) {
      var arr = tracks[tr], ty0 = y + 3 + tr * TRACK_H;
      from = lowerBound(arr, v0);
      var lastA = -1, lastC = -1, lastO = -1;
      for (a = from; a < arr.length; a++) {
        rk = arr[a];
        if (RT[rk] > v1) break;
        var x = X(RT[rk]), px = Math.round(x), t = RY[rk];
        if (matches && matches[rk]) { c.fillStyle = "#f5c400"; c.fillRect(px - 3, ty0, 7, TRACK_H - 2); }
        if (t === T_AD) { if (px !== lastA) { c.fillStyle = COLORS.agent; c.fillRect(px, ty0 + 1, 1, 7); lastA = px; } }
        else if (t === T_CD) { if (px !== lastC) { c.fillStyle = COLORS.chat; c.fillRect(px, ty0 + 24, 1, 7); lastC = px; } }
        else if (t === T_TOOL) { c.fillStyle = COLORS.tool; c.beginPath(); c.moveTo(x - 4, ty0 + 1); c.lineTo(x + 4, ty0 + 1); c.lineTo(x, ty0 + 8); c.fill(); }
        else if (t === T_TOOLRES) { c.fillStyle = COLORS.tool; c.beginPath(); c.moveTo(x - 4, ty0 + 31); c.lineTo(x + 4, ty0 + 31); c.lineTo(x, ty0 + 24); c.fill(); }
        else if (t === T_APREQ) { c.fillStyle = COLORS.approval; diamond(c, x, ty0 + 5, 4.5, true); }
        else if (t === T_APRES) { c.strokeStyle = COLORS.resolved; c.lineWidth = 2; diamond(c, x, ty0 + 5, 4, false); c.lineWidth = 1; }
        else if (t === T_FINAL || t === T_ABORT || t === T_ERR) {
          c.fillStyle = t === T_FINAL ? COLORS.final : t === T_ABORT ? COLORS.aborted : COLORS.error;
          c.fillRect(px - 1, ty0 + 6, 3, 20);
        }
        else if (t === T_LIFE) { c.fillStyle = "#1f2733"; c.fillRect(px, ty0 + 11, 1, 10); }
        else if (t === T_SEND) { c.fillStyle = "#2e6fd0"; c.beginPath(); c.arc(x, ty0 + 16, 3, 0, 7); c.fill(); }
        else if (px !== lastO) { c.fillStyle = "rgba(60,72,90,0.35)"; c.fillRect(px, ty0 + 13, 1, 6); lastO = px; }
        if (RI[rk] === sel.i) { c.strokeStyle = "#145ac8"; c.lineWidth = 2; c.strokeRect(px - 4, ty0, 9, TRACK_H - 2); c.lineWidth = 1; }
      }
    }
    // run labels over the ticks, on a light backing
    labels.forEach(function (L) {
      var run = L[0], lx = Math.max(L[1], GUT) + 4;
      var lbl = clipText(c, short(run.runId) + (run.reopened ? " ↻" : "") + "  " + (run.terminal || "never finished") + "  " + fmtDur(L[4] - run.start), L[2] - lx - 4);
      if (lbl.length < 2) return;
      var tw = c.measureText(lbl).width;
      c.fillStyle = "rgba(255,255,255,0.82)"; c.fillRect(lx - 2, L[3] + 11, tw + 4, 10);
      c.fillStyle = "#1f2733"; c.fillText(lbl, lx, L[3] + 16);
    });
    // gateway-reported gaps and findings pinned on the lane
    gapsByLane[k].forEach(function (g) {
      var gx = X(g.t);
      c.fillStyle = COLORS.gap; c.fillRect(gx - 1, y + 1, 2, h - 2);
    });
    D.findings.forEach(function (f, fk) {
      if (f.lane !== k || f.t === undefined) return;
      var run = f.run >= 0 ? D.runs[f.run] : null, fy = y + 3 + (run ? run.track : 0) * TRACK_H + 4;
      var fx = X(f.t);
      if (fx < GUT - 6 || fx > W + 6) return;
      pin(c, fx, fy, COLORS.sev[f.severity] || COLORS.sev.info);
      if (fk === sel.finding) { c.strokeStyle = "#1f2733"; c.lineWidth = 2; c.beginPath(); c.arc(fx, fy, 7, 0, 7); c.stroke(); c.lineWidth = 1; }
    });
  }

  // ---- hit testing ----
  function nearest(arr, t, slack, pred) {
    var i = lowerBound(arr, t - slack), best = -1, bd = Infinity;
    for (; i < arr.length && RT[arr[i]] <= t + slack; i++) {
      if (pred && !pred(arr[i])) continue;
      var d = Math.abs(RT[arr[i]] - t);
      if (d < bd) { bd = d; best = arr[i]; }
    }
    return best;
  }
  function hit(x, y) {
    if (x < GUT) return null;
    var yy = y + wrap.scrollTop, L = null;
    for (var a = 0; a < layout.length; a++) if (yy >= layout[a].y && yy < layout[a].y + layout[a].h) { L = layout[a]; break; }
    if (!L) return null;
    var t = tAt(x), slack = 6 / scale();
    if (L.kind === "findings") {
      var best = -1, bd = Infinity;
      timedFindings.forEach(function (fk) { var d = Math.abs(D.findings[fk].t - t); if (d < bd) { bd = d; best = fk; } });
      return best >= 0 && bd <= slack ? { kind: "finding", k: best } : null;
    }
    if (L.kind === "conn") {
      var rk = nearest(connTicks[L.k], t, slack, function (r) { return RY[r] === T_MARK || RY[r] === T_INVALID; });
      if (rk < 0) rk = nearest(connTicks[L.k], t, slack);
      if (rk >= 0) return { kind: "row", row: rk };
      return { kind: "conn", k: L.k };
    }
    var ly = yy - L.y - 3, tr = Math.max(0, Math.min(D.lanes[L.k].tracks - 1, Math.floor(ly / TRACK_H))), inTrack = ly - tr * TRACK_H;
    var ff = -1;
    D.findings.forEach(function (f, fk) {
      if (f.lane !== L.k || f.t === undefined) return;
      var run = f.run >= 0 ? D.runs[f.run] : null;
      if ((run ? run.track : 0) === tr && Math.abs(X(f.t) - x) <= 6 && inTrack < 12) ff = fk;
    });
    if (ff >= 0) return { kind: "finding", k: ff };
    var arr = trackTicks[L.k][tr];
    var strip = inTrack < 9 ? function (r) { return RY[r] === T_AD || RY[r] === T_TOOL || RY[r] === T_APREQ || RY[r] === T_APRES; }
      : inTrack > 23 ? function (r) { return RY[r] === T_CD || RY[r] === T_TOOLRES; }
      : function (r) { return RY[r] === T_FINAL || RY[r] === T_ABORT || RY[r] === T_ERR || RY[r] === T_LIFE || RY[r] === T_SEND; };
    rk = nearest(arr, t, slack, strip);
    if (rk >= 0) return { kind: "row", row: rk };
    var runs = laneRuns[L.k];
    for (a = 0; a < runs.length; a++) {
      var run = D.runs[runs[a]];
      if (run.track === tr && t >= run.start - slack && t <= Math.max(run.end, run.start) + slack) return { kind: "run", k: runs[a] };
    }
    rk = nearest(arr, t, slack);
    if (rk < 0) rk = nearest(laneLoose[L.k], t, slack);
    if (rk >= 0) return { kind: "row", row: rk };
    return null;
  }
  function describe(h) {
    if (!h) return "";
    // the UIs before the message, which the tooltip may cut
    if (h.kind === "finding") { var f = D.findings[h.k]; return f.severity + " " + f.rule + (f.uis ? " [" + uiNote(f) + "]" : "") + ": " + f.message; }
    if (h.kind === "conn") { var cn = D.conns[h.k]; return "connection " + cn.id + (cn.url ? " " + cn.url : ""); }
    if (h.kind === "run") { var r = D.runs[h.k]; return "run " + r.runId + (r.reopened ? " (reopened)" : "") + " · " + (r.terminal || "never finished") + " · " + fmtDur(r.end - r.start) + " · " + r.frames + " frames"; }
    var k = h.row;
    return "#" + RI[k] + " " + fmtT(RT[k]) + " conn " + RC[k] + " " + rowLabel(k) + (RSEQ[k] >= 0 ? " seq " + RSEQ[k] : "") + (RRUN[k] >= 0 ? " · run " + short(D.runs[RRUN[k]].runId) : "");
  }

  // ---- interaction ----
  var drag = null;
  wrap.addEventListener("wheel", function (e) {
    var rect = cv.getBoundingClientRect();
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      e.preventDefault();
      pan(((e.deltaX || e.deltaY) / (W - GUT)) * (v1 - v0));
      return;
    }
    e.preventDefault();
    zoom(Math.pow(1.0015, e.deltaY), e.clientX - rect.left);
  }, { passive: false });
  wrap.addEventListener("scroll", function () { draw(); });
  cv.addEventListener("mousedown", function (e) {
    drag = { x: e.clientX, y: e.clientY, v0: v0, v1: v1, top: wrap.scrollTop, moved: false };
    tl.focus({ preventScroll: true });
  });
  window.addEventListener("mousemove", function (e) {
    if (drag) {
      var dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (drag.moved) {
        var dt = dx / scale();
        v0 = drag.v0 - dt; v1 = drag.v1 - dt;
        wrap.scrollTop = drag.top - dy;
        tip.style.display = "none";
        draw();
      }
      return;
    }
    var rect = cv.getBoundingClientRect();
    if (e.clientX < rect.left || e.clientX > rect.right || e.clientY < rect.top || e.clientY > rect.bottom) { tip.style.display = "none"; return; }
    var h = hit(e.clientX - rect.left, e.clientY - rect.top);
    var d = describe(h);
    if (!d) { tip.style.display = "none"; cv.style.cursor = "grab"; return; }
    cv.style.cursor = "pointer";
    tip.textContent = d.length > 300 ? d.slice(0, 300) + "…" : d;
    tip.style.display = "block";
    var tr = tl.getBoundingClientRect();
    tip.style.left = Math.min(e.clientX - tr.left + 14, tr.width - 320) + "px";
    tip.style.top = (e.clientY - tr.top + 16) + "px";
  });
  window.addEventListener("mouseup", function (e) {
    if (!drag) return;
    var moved = drag.moved;
    drag = null;
    if (moved) return;
    var rect = cv.getBoundingClientRect();
    var h = hit(e.clientX - rect.left, e.clientY - rect.top);
    if (!h) return;
    if (h.kind === "finding") selectFinding(h.k, false);
    else if (h.kind === "run") selectRun(h.k, -1);
    else if (h.kind === "conn") selectConn(h.k);
    else selectRecord(RI[h.row], false);
  });
  tl.addEventListener("keydown", onKey);
  document.addEventListener("keydown", function (e) {
    if (e.target === search || e.target === tl) return;
    if (e.target && (e.target.tagName === "INPUT" || e.target.tagName === "TEXTAREA")) return;
    onKey(e);
  });
  function onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var span = v1 - v0;
    switch (e.key) {
      case "+": case "=": zoom(1 / 1.6, null); break;
      case "-": case "_": zoom(1.6, null); break;
      case "ArrowLeft": pan(-span * 0.15); break;
      case "ArrowRight": pan(span * 0.15); break;
      case "ArrowUp": wrap.scrollTop -= 40; break;
      case "ArrowDown": wrap.scrollTop += 40; break;
      case "0": case "Home": fit(); break;
      case "n": stepFinding(1); break;
      case "p": stepFinding(-1); break;
      case "/": search.focus(); break;
      case "Escape": clearSelection(); break;
      default: return;
    }
    e.preventDefault();
  }
  window.addEventListener("resize", resize);

  // ---- details ----
  function clearSelection() {
    sel = { kind: null, run: -1, i: -1, conn: -1, finding: -1 };
    details.textContent = "";
    details.appendChild(el("p", "hint", "Nothing selected."));
    markFinding();
    draw();
  }
  function markFinding() {
    var items = listF.querySelectorAll("li.finding");
    for (var a = 0; a < items.length; a++) items[a].classList.toggle("on", Number(items[a].dataset.k) === sel.finding);
  }
  function stepFinding(d) {
    if (!D.findings.length) return;
    var k = sel.finding < 0 ? (d > 0 ? 0 : D.findings.length - 1) : (sel.finding + d + D.findings.length) % D.findings.length;
    selectFinding(k, true);
  }
  function selectFinding(k, jump) {
    var f = D.findings[k];
    if (f.i >= 0 && rowOfI.has(f.i)) selectRecord(f.i, jump);
    else if (f.run >= 0) selectRun(f.run, -1);
    else { details.textContent = ""; }
    sel.finding = k;
    markFinding();
    scrollWithin(listF, listF.querySelector('li[data-k="' + k + '"]'));
    var box = el("div", "fbox " + f.severity);
    add(box, el("span", "sev " + f.severity, f.severity), " ", el("strong", null, f.rule), " ",
      el("span", "when", (f.t !== undefined ? fmtT(f.t) : "") + (f.i >= 0 ? " · record #" + f.i : "")), el("p", null, f.message));
    if (f.uis) add(box, el("p", "fu", uiNote(f)));
    details.insertBefore(box, details.firstChild);
    if (jump && f.t !== undefined) centerOn(f.t);
    draw();
  }
  function selectRecord(i, jump) {
    var k = rowOfI.get(i);
    if (k === undefined) return;
    sel.finding = -1;
    markFinding();
    if (RRUN[k] >= 0) selectRun(RRUN[k], i);
    else {
      sel = { kind: "row", run: -1, i: i, conn: -1, finding: -1 };
      details.textContent = "";
      var hd = el("div", "dh");
      add(hd, el("h2", null, rowLabel(k)), el("div", "meta", "record #" + i + " · " + fmtT(RT[k]) + " · connection " + RC[k] + (RSEQ[k] >= 0 ? " · seq " + RSEQ[k] : "")));
      details.appendChild(hd);
      var ci = connIdx.get(RC[k]);
      var near = [];
      if (ci !== undefined) { // context: the records around it on its connection
        var arr = connTicks[ci], p = arr.indexOf(k);
        for (var a = Math.max(0, p - 3); a < Math.min(arr.length, p + 4); a++) near.push(arr[a]);
      } else near.push(k);
      details.appendChild(stepsTable(near, [], i));
    }
    if (jump) centerOn(RT[k]);
    draw();
  }
  function selectConn(k) {
    var cn = D.conns[k];
    sel = { kind: "conn", run: -1, i: -1, conn: k, finding: -1 };
    details.textContent = "";
    var hd = el("div", "dh");
    add(hd, el("h2", null, "connection " + cn.id + (cn.reconnect ? " (reconnect)" : "")));
    var facts = [];
    if (cn.url) facts.push(["url", cn.url]);
    if (cn.peer) facts.push(["peer", cn.peer]);
    facts.push(["opened", fmtT(cn.open) + (cn.hasOpen ? "" : " (first record; no open marker)")]);
    facts.push(["closed", cn.hasClose ? fmtT(cn.close) + (cn.code ? " with code " + cn.code : "") + (cn.reason ? " — " + cn.reason : "") : "still open when the capture ends (" + fmtT(cn.last) + ")"]);
    if (cn.error) facts.push(["error", cn.error]);
    if (cn.server) facts.push(["gateway", cn.server + (cn.protocol ? " · protocol " + cn.protocol : "")]);
    if (cn.connId) facts.push(["connId", cn.connId]);
    if (cn.bootId) facts.push(["bootId", cn.bootId + (cn.newBoot ? " (new: the gateway restarted)" : "")]);
    facts.push(["first frame seq", cn.firstSeq >= 0 ? String(cn.firstSeq) + (cn.firstSeq === 1 ? " (restarts at 1)" : " (does not start at 1)") : "none"]);
    facts.push(["frames", cn.in + " in · " + cn.out + " out"]);
    hd.appendChild(dl(facts));
    details.appendChild(hd);
    var marks = connTicks[k].filter(function (r) { return RY[r] === T_MARK || RY[r] === T_INVALID; });
    if (marks.length) details.appendChild(stepsTable(marks, [], -1));
    draw();
  }
  // scrollWithin scrolls a box (not the page) to show one of its children.
  function scrollWithin(box, child) {
    if (!box || !child) return;
    var top = child.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop, h = child.offsetHeight;
    if (top < box.scrollTop || top + h > box.scrollTop + box.clientHeight) box.scrollTop = Math.max(0, top - box.clientHeight / 3);
  }
  function dl(pairs) {
    var d = el("dl", "facts");
    pairs.forEach(function (p) { add(d, el("dt", null, p[0]), el("dd", null, p[1])); });
    return d;
  }

  function selectRun(rk, focusI) {
    var run = D.runs[rk], lane = D.lanes[run.lane];
    sel = { kind: "run", run: rk, i: focusI, conn: -1, finding: -1 };
    details.textContent = "";
    var hd = el("div", "dh");
    var badge = el("span", "term t-" + (run.terminal || "none"), run.terminal || "never finished");
    add(hd, add(el("h2"), "run ", el("code", null, run.runId), " ", badge));
    var facts = [["lane", laneName(lane) + " · " + (lane.sessionKey || "(no session key)")],
      ["time", fmtT(run.start) + " → " + fmtT(run.end) + " (" + fmtDur(run.end - run.start) + ")" + (run.terminal ? "" : " — no terminal before the capture ends")],
      ["connections", run.conns.join(", ")],
      ["frames", run.frames + " · " + run.agentDeltas + " agent deltas · " + run.chatDeltas + " chat deltas · " + run.tools + " tool calls · " + run.approvals + " approvals"]];
    if (run.terminals > 1) facts.push(["terminals", run.terminals + " chat terminals (expected one)"]);
    if (run.late) facts.push(["after terminal", run.late + " frame(s) arrived after the terminal, until " + fmtT(run.last)]);
    if (run.reopened) facts.push(["reopened", "this run id came again after the pass had let its earlier run go: its frames from here on are this bar's"]);
    hd.appendChild(dl(facts));
    details.appendChild(hd);
    var fs = D.findings.filter(function (f) { return f.run === rk; });
    if (fs.length) {
      var ul = el("ul", "rf");
      fs.forEach(function (f) {
        var li = el("li");
        add(li, el("span", "sev " + f.severity, f.severity), " ", el("strong", null, f.rule), " ", f.message);
        if (f.uis) add(li, " ", el("span", "fu", "[" + uiNote(f) + "]"));
        ul.appendChild(li);
      });
      details.appendChild(ul);
    }
    var rows = [];
    for (var a = 0; a < N; a++) if (RRUN[a] === rk) rows.push(a);
    rows.sort(function (x, y) { return RI[x] - RI[y]; });
    var tms = (timersByAgent.get(lane.agentId) || []).filter(function (tm) { return tm.after >= run.firstI && tm.after <= run.lastI; });
    var grid = el("div", "rungrid");
    grid.appendChild(stepsTable(rows, tms, focusI));
    grid.appendChild(transcriptPanel(run));
    details.appendChild(grid);
    scrollWithin(details.querySelector(".steps"), details.querySelector("tr.focus"));
    draw();
  }

  function transcriptPanel(run) {
    var p = el("div", "transcript");
    p.appendChild(el("h3", null, "Transcript"));
    p.appendChild(el("div", "sub2", "Committed by the replayed " + (M.ui || "") + " UI"));
    if (run.transcript.length) {
      run.transcript.forEach(function (l) {
        var d = el("div", "tline k-" + l.kind);
        add(d, el("span", "tk", l.kind + " " + fmtT(l.t) + (l.via === "history" ? " · from the history refresh (the live commit was dropped)" : "")), el("pre", null, l.text));
        p.appendChild(d);
      });
    } else {
      p.appendChild(el("p", "muted", "Nothing: the replayed UI committed no line for this run (see the effects: a dropped commitChat, an error or an abort)."));
    }
    if (run.output) {
      p.appendChild(el("div", "sub2", "The gateway's terminal said"));
      if (run.output.length) run.output.forEach(function (l) { var d = el("div", "tline k-output"); d.appendChild(el("pre", null, l)); p.appendChild(d); });
      else p.appendChild(el("p", "muted", "(no text)"));
    }
    if (run.transcriptElided) p.appendChild(el("p", "muted", run.transcriptElided + " line(s) elided by the size limit."));
    return p;
  }

  function frameCell(k, b) {
    var td = el("td", "frame");
    var lab = el("div", "flabel");
    add(lab, el("strong", null, rowLabel(k)), RSEQ[k] >= 0 ? el("span", "muted", " seq " + RSEQ[k]) : null);
    td.appendChild(lab);
    if (!b) { td.appendChild(el("div", "muted", "body elided (size limit)")); return td; }
    var det = el("details");
    var prev = b.frame.length > 72 ? b.frame.slice(0, 72) + "…" : b.frame;
    det.appendChild(el("summary", "fprev", prev));
    det.addEventListener("toggle", function () {
      if (!det.open || det.querySelector("pre")) return;
      var txt = b.frame;
      try { if (!b.cut && (txt[0] === "{" || txt[0] === "[")) txt = JSON.stringify(JSON.parse(txt), null, 2); } catch (e) { /* show as captured */ }
      det.appendChild(el("pre", "fbody", txt));
      if (b.cut) det.appendChild(el("div", "muted", b.cut + " more byte(s) not shown (the capture has the whole frame)"));
    });
    td.appendChild(det);
    if (b.reason) td.appendChild(el("div", "bad", b.reason));
    return td;
  }
  function listCell(items, cls, empty) {
    var td = el("td", cls);
    if (!items || !items.length) { if (empty) td.appendChild(el("span", "muted", empty)); return td; }
    var ul = el("ul");
    items.forEach(function (s) {
      var li = el("li", null, s);
      if (/^HAZARD/.test(s)) li.className = "hazard";
      else if (/^guard:/.test(s)) li.className = "guard";
      else if (/^ignore:/.test(s)) li.className = "muted";
      ul.appendChild(li);
    });
    td.appendChild(ul);
    return td;
  }
  var MAX_ROWS = 400;
  function stepsTable(rows, tms, focusI) {
    var box = el("div", "steps");
    var table = el("table", "st");
    var thead = el("thead");
    var hr = el("tr");
    ["#", "time · conn", "frame", "intents", "effects", "state diff"].forEach(function (h) { hr.appendChild(el("th", null, h)); });
    thead.appendChild(hr);
    table.appendChild(thead);
    var tb = el("tbody");
    var ti = 0, shown = 0;
    var focusPos = -1;
    if (focusI >= 0) for (var a = 0; a < rows.length; a++) if (RI[rows[a]] === focusI) focusPos = a;
    var first = focusPos > MAX_ROWS / 2 ? focusPos - MAX_ROWS / 2 : 0;
    if (first > 0) tb.appendChild(omitted(first + " earlier record(s) of this run not shown"));
    while (ti < tms.length && rows.length && tms[ti].after < RI[rows[first]]) ti++;
    for (a = first; a < rows.length && shown < MAX_ROWS; a++, shown++) {
      var k = rows[a], i = RI[k], b = bodies.get(i);
      // timer steps that fired before this record (after an earlier one)
      while (ti < tms.length && tms[ti].after < i) tb.appendChild(timerRow(tms[ti++]));
      var tr = el("tr", "rec d" + RD[k]);
      if (i === focusI) tr.className += " focus";
      tr.appendChild(el("td", "num", "#" + i));
      var tc = el("td", "num");
      add(tc, el("div", null, fmtT(RT[k])), el("div", "cn", "conn " + RC[k] + (RD[k] === 1 ? " ↑" : RD[k] === 0 ? " ↓" : "")));
      tr.appendChild(tc);
      tr.appendChild(frameCell(k, b));
      tr.appendChild(listCell(b ? b.intents : null, "intents", b ? "none" : ""));
      tr.appendChild(listCell(b ? b.effects : null, "effects", b && b.replayed === false ? "not replayed: another client's connection" : ""));
      tr.appendChild(listCell(b ? b.diff : null, "diff", ""));
      tb.appendChild(tr);
    }
    if (a >= rows.length) while (ti < tms.length) tb.appendChild(timerRow(tms[ti++]));
    if (a < rows.length) tb.appendChild(omitted((rows.length - a) + " more record(s) not shown"));
    table.appendChild(tb);
    box.appendChild(table);
    return box;
  }
  function omitted(text) {
    var tr = el("tr", "omit"), td = el("td", null, text);
    td.colSpan = 6; tr.appendChild(td); return tr;
  }
  function timerRow(tm) {
    var tr = el("tr", "timer");
    tr.appendChild(el("td", "num", "⏱"));
    tr.appendChild(el("td", "num", fmtT(tm.t)));
    tr.appendChild(el("td", "frame", "timer " + tm.timer + " (" + tm.agent + ")"));
    tr.appendChild(el("td", "intents", ""));
    tr.appendChild(listCell(tm.effects, "effects", ""));
    tr.appendChild(listCell(tm.diff, "diff", ""));
    return tr;
  }

  // ---- search ----
  var lowerCache = null;
  function runSearch(q) {
    q = q.trim().toLowerCase();
    listS.textContent = "";
    if (!q) { matches = null; matchList = []; searchInfo.textContent = ""; draw(); return; }
    if (!lowerCache) { lowerCache = new Map(); bodies.forEach(function (b, i) { lowerCache.set(i, b.frame.toLowerCase()); }); }
    var labHit = D.labels.map(function (l) { return l.toLowerCase().indexOf(q) >= 0; });
    var runHit = D.runs.map(function (r) {
      if (r.runId.toLowerCase().indexOf(q) >= 0) return true;
      for (var a = 0; a < r.transcript.length; a++) if (r.transcript[a].text.toLowerCase().indexOf(q) >= 0) return true;
      return false;
    });
    matches = new Uint8Array(N); matchList = [];
    for (var k = 0; k < N; k++) {
      var hitk = labHit[RL[k]] || (RRUN[k] >= 0 && runHit[RRUN[k]]);
      if (!hitk) { var lc = lowerCache.get(RI[k]); hitk = lc !== undefined && lc.indexOf(q) >= 0; }
      if (hitk) { matches[k] = 1; matchList.push(k); }
    }
    searchInfo.textContent = matchList.length + " match" + (matchList.length === 1 ? "" : "es");
    var shown = Math.min(matchList.length, 300);
    for (var a = 0; a < shown; a++) {
      (function (k) {
        var li = el("li"), b = el("button", "rbtn");
        add(b, el("span", "when", "#" + RI[k] + " " + fmtT(RT[k])), " ", el("strong", null, rowLabel(k)),
          RRUN[k] >= 0 ? el("span", "muted", " run " + short(D.runs[RRUN[k]].runId)) : null);
        b.addEventListener("click", function () { selectRecord(RI[k], true); });
        li.appendChild(b); listS.appendChild(li);
      })(matchList[a]);
    }
    if (matchList.length > shown) listS.appendChild(el("li", "muted", (matchList.length - shown) + " more…"));
    if (!matchList.length) listS.appendChild(el("li", "muted", "No match."));
    showTab("s");
    draw();
  }
  var searchTimer = 0, matchPos = -1;
  search.addEventListener("input", function () {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(function () { matchPos = -1; runSearch(search.value); }, 160);
  });
  search.addEventListener("keydown", function (e) {
    if (e.key === "Enter") {
      clearTimeout(searchTimer);
      if (!matches) runSearch(search.value);
      if (matchList.length) { matchPos = (matchPos + 1) % matchList.length; selectRecord(RI[matchList[matchPos]], true); }
      e.preventDefault();
    } else if (e.key === "Escape") { search.value = ""; runSearch(""); tl.focus(); }
  });

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
