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

