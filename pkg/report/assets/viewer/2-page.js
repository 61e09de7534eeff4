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

