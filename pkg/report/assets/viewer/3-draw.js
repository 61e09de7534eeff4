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

