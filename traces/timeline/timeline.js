(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("trace-data").textContent);
  var events = data.events || [], lanes = data.lanes || [], laneOf = data.lane || [];
  var ROW = 34, GUTTER = 52, MIN_LANE = 112, MIN_LEFT_LANE = 180, BUFFER = 8;
  var LEFT_LIFELINE = 0.72; // where the lifeline sits in a lane left of the store
  var ARROW_TEXT = 200;     // arrows at least this long carry their own label
  var ROOM = 190;           // a label needs this much free row to its side
  var FAULT_ACTIONS = { crash: 1, "crash-container": 1, "node-down": 1, "drop-watch": 1, compact: 1, hold: 1 };
  var COLORS = {
    user: "#2563eb", fault: "#dc2626", store: "#475569", controller: "#7c3aed",
    scheduler: "#d97706", kubelet: "#059669", proxy: "#0891b2", other: "#64748b"
  };
  function $(id) { return document.getElementById(id); }
  var scroller = $("scroller"), canvas = $("canvas"), laneBar = $("lanes"), tip = $("tip");
  var filterBox = $("filter"), details = $("details");

  var storeLane = 0, laneByName = {};
  lanes.forEach(function (l, i) { laneByName[l.name] = i; if (l.kind === "store") storeLane = i; });

  function isLocal(verb) { return /^(RUNTIME|PROXY)-/.test(verb); }
  function writeText(w) {
    var s = w.verb + " " + w.resource + "/" + w.name;
    if (w.fields && w.fields.length) s += " [" + w.fields.join(",") + "]";
    if (w.error) s += " error=" + JSON.stringify(w.error);
    return s;
  }
  // A fault names its target in key: a component ("scheduler") or a node.
  function targetLane(e) {
    if (!e.key) return -1;
    if (e.key in laneByName) return laneByName[e.key];
    for (var i = 0; i < lanes.length; i++) {
      var n = lanes[i].name;
      if (n.slice(-e.key.length - 1) === "/" + e.key) return i;
    }
    return -1;
  }

  // Facts computed once per event.
  var nFaults = 0, nErrors = 0;
  var facts = events.map(function (e, i) {
    var store = [], local = [], failed = false;
    (e.writes || []).forEach(function (w) {
      (isLocal(w.verb) ? local : store).push(w);
      if (w.error) failed = true;
    });
    var fault = e.actor === "fault" || FAULT_ACTIONS[e.action] === 1;
    if (fault) nFaults++;
    if (e.error || failed) nErrors++;
    return {
      store: store, local: local, fault: fault, err: !!e.error || failed,
      changed: i === 0 ? store.length > 0 : e.digest !== events[i - 1].digest,
      target: fault ? targetLane(e) : -1,
      search: (e.actor + " " + e.action + " " + (e.key || "")).toLowerCase()
    };
  });

  function el(tag, cls, txt) {
    var n = document.createElement(tag);
    if (cls) n.className = cls;
    if (txt !== undefined) n.textContent = txt;
    return n;
  }

  // Geometry: lanes left of the store are wider so their labels, drawn on
  // the side away from the store, fit.
  var laneLeft = [], laneWidth = [], totalWidth = 0;
  function laneX(i) { return laneLeft[i] + laneWidth[i] * (i < storeLane ? LEFT_LIFELINE : 0.5); }
  // Two-line lane titles keep lanes narrow: "kubelet" over "node-1".
  function titleParts(l) {
    if (l.kind === "store") return [l.name, "api · etcd"];
    var slash = l.name.indexOf("/");
    if (slash > 0) return [l.name.slice(0, slash), l.name.slice(slash + 1)];
    var m = /^(.+)-(controller)$/.exec(l.name);
    return m ? [m[1], m[2]] : [l.name, ""];
  }
  function layout() {
    var avail = Math.max(0, scroller.clientWidth - GUTTER);
    var nLeft = storeLane, nRest = lanes.length - storeLane;
    var base = Math.max(MIN_LANE, Math.floor((avail - nLeft * MIN_LEFT_LANE) / Math.max(1, nRest)));
    var x = GUTTER;
    lanes.forEach(function (l, i) {
      laneLeft[i] = x;
      laneWidth[i] = i < storeLane ? Math.max(base, MIN_LEFT_LANE) : base;
      x += laneWidth[i];
    });
    totalWidth = Math.max(x, avail + GUTTER);
    canvas.style.width = totalWidth + "px";
    laneBar.style.width = totalWidth + "px";
    laneBar.textContent = "";
    lanes.forEach(function (l, i) {
      var d = el("div", "lane " + l.kind + (i < storeLane ? " left" : ""));
      d.style.width = laneWidth[i] + "px";
      if (i < storeLane) d.style.paddingRight = (laneWidth[i] * (1 - LEFT_LIFELINE) - 5) + "px";
      var dot = el("i");
      dot.style.background = COLORS[l.kind] || COLORS.other;
      var parts = titleParts(l), name = el("span", "name");
      name.appendChild(el("b", "", parts[0]));
      if (parts[1]) name.appendChild(el("small", "", parts[1]));
      if (i < storeLane) { d.appendChild(name); d.appendChild(dot); } else { d.appendChild(dot); d.appendChild(name); }
      d.title = l.kind === "store" ? "the API server and etcd" : "show only " + l.name;
      d.addEventListener("click", function () {
        if (l.kind === "store") return;
        filterBox.value = filterBox.value === l.name ? "" : l.name;
        applyFilter();
      });
      laneBar.appendChild(d);
    });
    Array.prototype.slice.call(canvas.querySelectorAll(".life")).forEach(function (n) { n.remove(); });
    lanes.forEach(function (l, i) {
      var life = el("div", "life" + (l.kind === "store" ? " store" : ""));
      life.style.left = laneX(i) + "px";
      canvas.appendChild(life);
    });
    redraw();
  }

  // The rows in view are the only ones in the DOM.
  var visible = [], drawn = new Map(), selected = -1;
  function applyFilter() {
    var terms = filterBox.value.toLowerCase().split(/\s+/).filter(Boolean);
    visible = [];
    for (var i = 0; i < events.length; i++) {
      var ok = true;
      for (var t = 0; t < terms.length && ok; t++) ok = facts[i].search.indexOf(terms[t]) >= 0;
      if (ok) visible.push(i);
    }
    canvas.style.height = Math.max(visible.length * ROW, 80) + "px";
    var empty = $("empty");
    empty.hidden = visible.length > 0;
    empty.textContent = events.length ? "No events match the filter." : "This trace has no events.";
    $("shown").textContent = terms.length ? "showing " + visible.length + " of " + events.length : "";
    redraw();
  }
  function redraw() {
    drawn.forEach(function (n) { n.remove(); });
    drawn.clear();
    render();
  }
  function render() {
    var top = scroller.scrollTop - canvas.offsetTop, h = scroller.clientHeight;
    var from = Math.max(0, Math.floor(top / ROW) - BUFFER);
    var to = Math.min(visible.length, Math.ceil((top + h) / ROW) + BUFFER);
    drawn.forEach(function (n, p) { if (p < from || p >= to) { n.remove(); drawn.delete(p); } });
    for (var p = from; p < to; p++) {
      if (!drawn.has(p)) { var r = row(p); canvas.appendChild(r); drawn.set(p, r); }
    }
    document.body.setAttribute("data-drawn", String(drawn.size));
  }
  var pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; render(); });
  }

  // arrow draws from x1 to x2, stopping short of the markers at both ends.
  function arrow(x1, x2, label, cls, y) {
    var a = el("div", "arrow " + cls + (x2 > x1 ? " right" : " left"));
    a.style.left = Math.min(x1, x2) + 7 + "px";
    a.style.width = Math.max(0, Math.abs(x2 - x1) - 14) + "px";
    a.style.top = (y - 1) + "px";
    if (label) a.appendChild(el("span", "", label));
    return a;
  }
  function row(p) {
    var i = visible[p], e = events[i], f = facts[i], L = laneOf[i];
    var kind = (lanes[L] || {}).kind || "other";
    var r = el("div", "ev" + (f.fault ? " fault" : "") + (f.err ? " err" : "") + (i === selected ? " sel" : ""));
    r.style.top = p * ROW + "px";
    r.style.width = totalWidth + "px";
    r.style.setProperty("--c", COLORS[kind] || COLORS.other);
    r.setAttribute("data-i", String(i));
    r.appendChild(el("span", "seq", String(e.seq)));
    var x = laneX(L), xs = laneX(storeLane);
    var deliver = e.action === "deliver" && L !== storeLane;
    var writes = f.store.length > 0 && L !== storeLane;
    var aside = []; // arrow texts too long for a short arrow go by the label
    var toRight = false, toLeft = false, drawnArrows = [], shortest = Infinity;
    function draw(x1, x2, text, cls, y, sign) {
      var long = Math.abs(x2 - x1) >= ARROW_TEXT;
      var a = arrow(x1, x2, long ? text : "", cls, y);
      r.appendChild(a);
      drawnArrows.push(a);
      shortest = Math.min(shortest, Math.abs(x2 - x1));
      if (!long) aside.push(sign + " " + text);
      var other = x1 === x ? x2 : x1;
      if (other > x) toRight = true; else toLeft = true;
    }
    if (deliver) {
      draw(xs, x, e.detail || e.key || "event", "deliver", writes ? ROW * 0.3 : ROW / 2, "←");
    }
    if (writes) {
      var label = writeText(f.store[0]) + (f.store.length > 1 ? "  +" + (f.store.length - 1) + " more" : "");
      var failed = f.store.some(function (w) { return !!w.error; });
      draw(x, xs, label, "write" + (failed ? " failed" : ""), deliver ? ROW * 0.72 : ROW / 2, "→");
    }
    if (f.target >= 0 && f.target !== L) draw(x, laneX(f.target), e.action, "failed", ROW / 2, "⚡");
    if (f.changed) {
      var s = el("i", "diamond");
      s.style.left = xs + "px";
      s.title = "state changed: " + e.digest;
      r.appendChild(s);
    }
    var dot = el("i", "dot");
    dot.style.left = x + "px";
    r.appendChild(dot);
    // The label goes where the row is free: away from the arrows, unless
    // the row ends too soon; then it sits on the near half of the arrows,
    // whose own text moves to their far half.
    var right = !(toRight && !toLeft), over = false;
    if (right && totalWidth - x < ROOM && !toRight) {
      right = false;
      over = toLeft;
    }
    var act = el("span", "act " + (right ? "r" : "l") + (over ? " over" : ""));
    act.style.left = x + "px";
    var room = right ? totalWidth - x - 8 : over ? shortest / 2 - 10 : x - GUTTER;
    act.style.maxWidth = Math.max(40, room) + "px";
    if (over) drawnArrows.forEach(function (a) { a.classList.add("near"); });
    act.appendChild(el("b", "", (f.fault ? "⚡ " : "") + e.action));
    if (e.key) act.appendChild(el("span", "key", " " + e.key));
    aside.forEach(function (t) { act.appendChild(el("span", "via", t)); });
    if (f.local.length) {
      act.appendChild(el("span", "local", "⇢ " + writeText(f.local[0]) + (f.local.length > 1 ? " +" + (f.local.length - 1) : "")));
    }
    if (e.error) act.appendChild(el("span", "error", "✕ " + e.error));
    r.appendChild(act);
    return r;
  }

  function describe(e) {
    var lines = [];
    if (e.detail) lines.push(e.detail);
    if (e.seen) lines.push("seen " + e.seen);
    (e.writes || []).forEach(function (w) { lines.push("→ " + writeText(w)); });
    if (e.error) lines.push("✕ " + e.error);
    lines.push("digest " + e.digest + (e.rev ? "  rev " + e.rev : "") + (e.time ? "  " + e.time : ""));
    return lines.join("\n");
  }
  function heading(e) { return "#" + e.seq + " " + e.actor + " " + e.action + (e.key ? " " + e.key : ""); }

  canvas.addEventListener("mousemove", function (ev) {
    var r = ev.target.closest ? ev.target.closest(".ev") : null;
    if (!r) { tip.hidden = true; return; }
    var e = events[+r.getAttribute("data-i")];
    tip.textContent = "";
    tip.appendChild(el("div", "h", heading(e)));
    tip.appendChild(document.createTextNode(describe(e)));
    tip.hidden = false;
    var w = tip.offsetWidth, h = tip.offsetHeight;
    var left = Math.min(ev.clientX + 14, window.innerWidth - w - 8);
    var top = ev.clientY + 16 + h > window.innerHeight ? ev.clientY - h - 10 : ev.clientY + 16;
    tip.style.left = Math.max(4, left) + "px";
    tip.style.top = Math.max(4, top) + "px";
  });
  canvas.addEventListener("mouseleave", function () { tip.hidden = true; });
  canvas.addEventListener("click", function (ev) {
    var r = ev.target.closest ? ev.target.closest(".ev") : null;
    if (r) pin(+r.getAttribute("data-i"));
  });
  function pin(i) {
    selected = i;
    drawn.forEach(function (n) { n.classList.toggle("sel", +n.getAttribute("data-i") === i); });
    if (i < 0) { details.hidden = true; return; }
    var e = events[i];
    $("dtitle").textContent = heading(e);
    $("dtext").textContent = describe(e);
    $("djson").textContent = JSON.stringify(e, null, 2);
    details.hidden = false;
  }
  $("dclose").addEventListener("click", function () { pin(-1); });
  document.addEventListener("keydown", function (ev) {
    if (ev.target === filterBox) return;
    if (ev.key === "Escape") pin(-1);
    if (selected < 0 || (ev.key !== "j" && ev.key !== "k" && ev.key !== "ArrowDown" && ev.key !== "ArrowUp")) return;
    var p = visible.indexOf(selected) + (ev.key === "j" || ev.key === "ArrowDown" ? 1 : -1);
    if (p < 0 || p >= visible.length) return;
    ev.preventDefault();
    pin(visible[p]);
    var y = p * ROW + canvas.offsetTop;
    if (y < scroller.scrollTop + canvas.offsetTop || y + ROW > scroller.scrollTop + scroller.clientHeight) {
      scroller.scrollTop = y - scroller.clientHeight / 2;
    }
  });
  filterBox.addEventListener("input", applyFilter);
  scroller.addEventListener("scroll", schedule);
  window.addEventListener("resize", layout);

  var stats = $("stats");
  stats.appendChild(el("b", "", String(events.length)));
  stats.appendChild(document.createTextNode(" events · "));
  stats.appendChild(el("b", "", String(lanes.length)));
  stats.appendChild(document.createTextNode(" lanes"));
  function count(n, word) { return " · " + n + " " + word + (n === 1 ? "" : "s"); }
  if (nFaults) stats.appendChild(el("span", "bad", count(nFaults, "fault")));
  if (nErrors) stats.appendChild(el("span", "bad", count(nErrors, "error")));

  // "page.html#42" opens with event 42 pinned, so a CI log can link to it.
  function fromHash() {
    var m = /^#(\d+)$/.exec(location.hash), i = m ? +m[1] - 1 : -1;
    if (i < 0 || i >= events.length) return;
    var p = visible.indexOf(i);
    if (p < 0) { filterBox.value = ""; applyFilter(); p = i; }
    scroller.scrollTop = Math.max(0, p * ROW - scroller.clientHeight / 3);
    render();
    pin(i);
  }
  window.addEventListener("hashchange", fromHash);

  applyFilter();
  layout();
  fromHash();
  document.body.setAttribute("data-lanes", String(lanes.length));
  document.body.setAttribute("data-events", String(events.length));
  document.body.setAttribute("data-rendered", "true");
})();
