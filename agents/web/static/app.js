// The page of `python -m tabletop_rl.agents.web`: plays and watches through the JSON API of server.py.
"use strict";
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
let CONFIG = null;
let GAME = null;        // the last play response
let selected = null;    // Fae: the chosen source space
let speed = 400;        // ms between bot moves
let busy = false;
let WATCH = null;       // {id, games, index, step, steps, seat}

function el(tag, attrs = {}, text = null, ns = null) {
  const e = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== null) e.textContent = text;
  return e;
}

function showError(msg) {
  const box = $("error");
  box.textContent = msg || "";
  box.hidden = !msg;
}

async function api(method, url, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    if (typeof body === "string") { opts.body = body; opts.headers["Content-Type"] = "application/x-ndjson"; }
    else { opts.body = JSON.stringify(body); opts.headers["Content-Type"] = "application/json"; }
  }
  const r = await fetch(url, opts);
  const data = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) { const e = new Error(data.error || `HTTP ${r.status}`); e.status = r.status; throw e; }
  return data;
}

// ------------------------------------------------------------------ setup
function fillSelect(sel, items, value) {
  sel.innerHTML = "";
  for (const [v, label] of items) sel.appendChild(el("option", { value: String(v) }, label));
  if (value !== undefined && items.some(([v]) => String(v) === String(value))) sel.value = String(value);
}

function setupChanged() {
  const g = CONFIG.games[$("setup-game").value];
  const players = [];
  for (let n = g.min_players; n <= g.max_players; n++) players.push([n, String(n)]);
  fillSelect($("setup-players"), players, $("setup-players").value || 2);
  const n = Number($("setup-players").value);
  const seats = [];
  for (let s = 0; s < n; s++) seats.push([s, `player_${s}` + (s === 0 ? " (moves first)" : "")]);
  fillSelect($("setup-seat"), seats, $("setup-seat").value || 0);
  const bots = $("setup-bots");
  bots.querySelectorAll("div").forEach((d) => d.remove());
  const seat = Number($("setup-seat").value);
  for (let s = 0; s < n; s++) {
    if (s === seat) continue;
    const row = el("div");
    const sel = el("select", { class: "bot", "data-seat": String(s) });
    for (const b of g.bots) sel.appendChild(el("option", { value: b }, b));
    sel.value = g.bots.includes("random") ? "random" : g.bots[0];
    // the bot's own default (Fae 300, Fantastiqa 24), within the server's bounds; shown only for mcts
    const [lo, hi] = CONFIG.bot_params.mcts.iterations;
    const it = el("input", { type: "number", min: String(lo), max: String(hi), value: String((g.bot_defaults.mcts || {}).iterations || lo),
      class: "iterations", title: "MCTS iterations per move" });
    const itLabel = el("label", { class: "iterations-label" }, " MCTS iterations ");
    itLabel.appendChild(it);
    itLabel.hidden = sel.value !== "mcts";
    sel.addEventListener("change", () => { itLabel.hidden = sel.value !== "mcts"; });
    row.appendChild(el("span", {}, `player_${s}: `));
    row.appendChild(sel);
    row.appendChild(itLabel);
    bots.appendChild(row);
  }
  const opts = $("setup-options");
  opts.querySelectorAll("label").forEach((d) => d.remove());
  for (const [name, values] of Object.entries(g.options)) {
    const label = el("label", {}, `${name} `);
    const sel = el("select", { "data-option": name });
    // the first value is the engine's default (the server reads them from the game's own table)
    values.forEach((v, i) => sel.appendChild(el("option", { value: String(i) }, String(v) + (i === 0 ? " (default)" : ""))));
    label.appendChild(sel);
    opts.appendChild(label);
  }
}

async function startGame(ev) {
  if (ev) ev.preventDefault();
  const game = $("setup-game").value;
  const g = CONFIG.games[game];
  const bots = [...document.querySelectorAll("#setup-bots select.bot")].map((sel) => {
    if (sel.value !== "mcts") return sel.value;
    const it = sel.parentElement.querySelector("input.iterations").value;
    return `mcts:iterations=${Number(it) || (g.bot_defaults.mcts || {}).iterations || 1}`;
  });
  const options = {};
  document.querySelectorAll("#setup-options select").forEach((sel) => {
    const values = g.options[sel.dataset.option];
    options[sel.dataset.option] = values[Number(sel.value)];  // every option, as shown
  });
  const body = { game, players: Number($("setup-players").value), seat: Number($("setup-seat").value), bots, options,
                 bot_budget: Number($("setup-budget").value) || 30 };
  if ($("setup-seed").value !== "") body.seed = Number($("setup-seed").value);
  speed = Number($("setup-speed").value);
  try {
    showError("");
    GAME = await api("POST", "/api/games", body);
    selected = null;
    $("play-setup").hidden = true;
    $("play").hidden = false;
    renderPlay();
  } catch (e) { showError(e.message); }
}

// ------------------------------------------------------------------ play
function scoresTable(v, labels) {
  const t = el("table", { class: "scores" });
  const head = el("tr");
  ["seat", "who", "score"].forEach((h) => head.appendChild(el("th", {}, h)));
  if (v.game === "fae") head.appendChild(el("th", {}, "ritual cards"));
  t.appendChild(head);
  for (let p = 0; p < v.num_players; p++) {
    const tr = el("tr");
    tr.appendChild(el("td", {}, `player_${p}` + (v.current === p ? " \u25C0" : "")));
    tr.appendChild(el("td", {}, labels ? labels[p] : ""));
    let score = "";
    const td = el("td");
    if (v.game === "fantastiqa") {
      // one score: what decides the game (Q-E3), and where it comes from
      const b = v.score_breakdown[p];
      td.appendChild(el("b", {}, String(b.score)));
      if (b.open_personal_quests) {
        td.appendChild(el("div", { class: "breakdown" },
          `${b.track} quest points − ${b.open_personal_quests} for personal quests not completed`));
      }
    } else {
      if (v.colours) score = `${v.colours[p]}: ${v.final_scores[p]}`;
      else if (v.seat === p) score = `${v.your_colour}: ${v.scores[v.geometry.colour_names.indexOf(v.your_colour)]}`;
      else score = "?";
      td.textContent = score;
    }
    tr.appendChild(td);
    if (v.game === "fae") tr.appendChild(el("td", {}, String(v.ritual_cards[p])));
    t.appendChild(tr);
  }
  return t;
}

function faePanel(v) {
  const d = el("div");
  const g = v.geometry;
  const track = el("div", { id: "score-track" });
  track.appendChild(el("b", {}, "Score track: "));
  g.colour_names.forEach((c, i) => {
    track.appendChild(el("span", { class: "swatch", style: `background:${g.colour_rgb[i]}` }));
    track.appendChild(el("span", {}, ` ${c} ${v.scores[i]}  `));
  });
  d.appendChild(track);
  d.appendChild(el("div", {}, `Ritual cards drawn ${v.cards_used}/12; next: ${v.next_card}`));
  if (v.pending.length) d.appendChild(el("div", {}, `Pending rituals on ${v.pending.join(", ")}: click one to resolve it`));
  d.appendChild(faeLegend(g));
  return d;
}

function keyIcon(draw) {
  const svg = el("svg", { class: "key", viewBox: "-40 -40 80 80" }, null, SVG);
  draw(svg);
  return svg;
}

function faeLegend(g) {
  // what the board's marks mean, as the terminal's legend line does
  const d = el("div", { class: "legend", id: "legend" });
  d.appendChild(el("b", {}, "Legend: "));
  const item = (icon, text) => {
    const s = el("span", { class: "item" });
    s.appendChild(icon);
    s.appendChild(document.createTextNode(" " + text));
    d.appendChild(s);
  };
  g.terrain_names.forEach((t, i) => item(el("span", { class: "swatch round", style: `background:${g.terrain_rgb[i]}` }), t));
  item(keyIcon((svg) => svg.appendChild(el("line", { x1: -36, y1: 0, x2: 36, y2: 0, stroke: RIVER, "stroke-width": 8,
    "stroke-dasharray": "12 8" }, null, SVG))), "river crossing");
  item(keyIcon((svg) => { chip(svg, 0, 0, g.colour_rgb[0], 3, 3); }), "3 red druids");
  const ringKey = (cls) => keyIcon((svg) => {
    const grp = el("g", { class: `key-mark ${cls}` }, null, SVG);
    grp.appendChild(el("circle", { class: "ring", cx: 0, cy: 0, r: 31 }, null, SVG));
    grp.appendChild(el("circle", { class: "band", cx: 0, cy: 0, r: 31 }, null, SVG));
    grp.appendChild(el("circle", { cx: 0, cy: 0, r: 22, fill: g.terrain_rgb[0], stroke: "#3c3c3c" }, null, SVG));
    svg.appendChild(grp);
  });
  item(ringKey("legal-src"), "you can move this stack (or resolve its ritual)");
  item(ringKey("selected"), "chosen stack");
  item(ringKey("legal-dst"), "it can move here");
  item(el("span", {}, "!"), "pending ritual");
  item(el("span", {}, "*"), "resolved");
  return d;
}

const RIVER = "#286ec8";
// chip offsets inside a space (radius 30) for 1..5 colours present
const CHIPS = [[], [[0, 4]], [[-11, 4], [11, 4]], [[-11, -4], [11, -4], [0, 15]],
  [[-11, -5], [11, -5], [-11, 15], [11, 15]], [[-20, -3], [0, -3], [20, -3], [-10, 16], [10, 16]]];

function chip(parent, x, y, rgb, n, scale = 1) {
  // one colour of a stack: a disc in the druid colour with its count, dark or light text for contrast
  const [r, gg, b] = [1, 3, 5].map((k) => parseInt(rgb.slice(k, k + 2), 16));
  const light = 0.299 * r + 0.587 * gg + 0.114 * b > 150;
  parent.appendChild(el("circle", { cx: x, cy: y, r: 10 * scale, fill: rgb, stroke: "#000", "stroke-width": 1 }, null, SVG));
  parent.appendChild(el("text", { x, y: y + 4.5 * scale, "text-anchor": "middle", "font-size": 13 * scale, "font-weight": "bold",
    fill: light ? "#000" : "#fff", class: "count" }, String(n), SVG));
}

function questText(q) {
  // "Quest name: Forest (pos 3), 2× Sword + 1× Fire, 3 pt"
  return `${q.name}: ${q.region} (pos ${q.position}), ${q.needs.map(([sym, n]) => `${n}× ${sym}`).join(" + ")}, ${q.points} pt`;
}

function fantastiqaPanel(v) {
  const d = el("div", { class: "fq-panel" });
  const t = v.table;
  if (!v.over) d.appendChild(el("div", { id: "phase" }, `Decision: ${v.phase.replace(/_/g, " ").toLowerCase()}; goal ${v.goal} quest points`));
  if (v.hand) d.appendChild(el("div", { id: "hand" }, `Your hand: ${v.hand.join(", ") || "-"}`));
  if (v.drawn) d.appendChild(el("div", {}, `Drawn (only you see them): ${v.drawn.join(", ")}`));
  if (v.chosen) d.appendChild(el("div", {}, `Chosen so far: ${v.chosen.join(", ")}`));
  d.appendChild(el("h4", {}, "Open quests"));
  const oq = el("ul", { id: "open-quests" });
  for (const o of t.open_quests) {
    if (!o.quest) { oq.appendChild(el("li", {}, "(empty)")); continue; }
    const li = el("li", {}, questText(o.quest) + (o.bonus ? " (+1 bonus)" : ""));
    if (o.marked_by.length) li.appendChild(el("div", { class: "breakdown" }, `token: ${o.marked_by.map((p) => `player_${p}`).join(", ")}`));
    oq.appendChild(li);
  }
  d.appendChild(oq);
  d.appendChild(el("h4", {}, "Players"));
  const pl = el("ul", { id: "players" });
  t.players.forEach((p, i) => {
    const li = el("li");
    li.appendChild(el("span", { class: "swatch round", style: `background:${t.player_colours[i]}` }));
    li.appendChild(el("b", {}, ` player_${i}${v.seat === i ? " (you)" : ""}: `));
    const n = (k, word) => `${k} ${word}${k === 1 ? "" : "s"}`;
    li.appendChild(document.createTextNode(`${n(p.gems, "gem")}, ${n(p.carpets, "carpet")}, ${n(p.reshuffles, "reshuffle")}; ` +
      `hand ${p.hand}, deck ${p.deck}, discard ${p.discard}; ${n(p.completed, "quest")} done`));
    for (const q of p.quests) li.appendChild(el("div", { class: "breakdown" }, `quest ${questText(q)}`));
    for (const c of p.committed) li.appendChild(el("div", { class: "breakdown" }, `on ${c.quest}: ${c.cards.join(", ")}`));
    pl.appendChild(li);
  });
  d.appendChild(pl);
  const full = el("details");
  full.appendChild(el("summary", {}, "The whole table as text"));
  full.appendChild(el("pre", { id: "text" }, v.text));
  d.appendChild(full);
  return d;
}

// Fantastiqa's table as HTML (readable at any width): the six regions in 3 rows of 2, the
// creature spaces between the regions they join (c6 in the middle), as the rgb picture places them.
const FQ_CELLS = { pos: { 0: [1, 1], 1: [1, 3], 5: [3, 1], 2: [3, 3], 4: [5, 1], 3: [5, 3] },
  space: { 0: [1, 2], 5: [2, 1], 1: [2, 3], 6: [3, 2], 4: [4, 1], 2: [4, 3], 3: [5, 2] } };

function darkText(rgb) {
  const [r, g, b] = [1, 3, 5].map((k) => parseInt(rgb.slice(k, k + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b > 140;
}

function fantastiqaBoard(v, interactive) {
  const t = v.table;
  const byKey = new Map();  // "position:3" -> the action id that chooses it
  if (interactive) for (const c of v.choices) {
    for (const k of ["position", "space"]) if (c[k] !== undefined && !byKey.has(`${k}:${c[k]}`)) byKey.set(`${k}:${c[k]}`, c);
  }
  const grid = el("div", { id: "fq-table", class: "fq-table" });
  const place = (node, [row, col]) => { node.style.gridRow = String(row); node.style.gridColumn = String(col); grid.appendChild(node); };
  const clickable = (node, key) => {
    const c = byKey.get(key);
    if (!c) return;
    node.classList.add("legal");
    node.title = c.label;
    node.setAttribute("role", "button");
    node.addEventListener("click", () => { if (!busy) act(c.id); });
  };
  for (const p of t.positions) {
    const cell = el("div", { class: "fq-pos", id: `fq-pos-${p.position}`, "data-position": String(p.position),
      style: `background:${p.colour};color:${darkText(p.colour) ? "#111" : "#fff"}` });
    cell.appendChild(el("div", { class: "fq-name" }, p.region));
    cell.appendChild(el("div", {}, `pos ${p.position} · ${p.statue}`));
    const who = el("div", { class: "fq-who" });
    for (const a of p.adventurers) {
      who.appendChild(el("span", { class: "fq-token", style: `background:${t.player_colours[a]}` },
        a === v.seat ? `player_${a} (you)` : `player_${a}`));
    }
    cell.appendChild(who);
    clickable(cell, `position:${p.position}`);
    place(cell, FQ_CELLS.pos[p.position]);
  }
  for (const sp of t.spaces) {
    const [row, col] = FQ_CELLS.space[sp.space];
    const cell = el("div", { class: "fq-space" + (sp.creature ? "" : " empty"), id: `fq-space-${sp.space}`,
      "data-space": String(sp.space) });
    const link = row % 2 === 0 ? "↕" : "↔";  // the regions it joins: above and below, or either side
    cell.appendChild(el("div", { class: "fq-link" }, `${link} c${sp.space}: pos ${sp.between[0]}–${sp.between[1]}`));
    const c = sp.creature;
    if (c) {
      cell.appendChild(el("div", { class: "fq-name" }, c.name + (c.gem ? " ◆ gem" : "")));
      cell.appendChild(el("div", {}, `needs ${c.strength}× ${c.needs}`));
      cell.appendChild(el("div", {}, `gives ${c.gives.join(" + ") || "-"}` + (c.power ? `; ${c.power}` : "")));
    } else cell.appendChild(el("div", {}, "no creature"));
    clickable(cell, `space:${sp.space}`);
    place(cell, [row, col]);
  }
  const info = el("div", { class: "fq-info" });
  info.appendChild(el("div", {}, `Round ${t.round}; goal ${v.goal} quest points`));
  info.appendChild(el("div", {}, `creature deck ${t.decks.creature}; artifacts ${t.decks.artifact}, beasts ${t.decks.beast}, quests ${t.decks.quest}; supply ${t.decks.gems} gems`));
  place(info, [2, 2]);
  const scores = el("div", { class: "fq-info" });
  t.players.forEach((p, i) => {
    const line = el("div");
    line.appendChild(el("span", { class: "swatch round", style: `background:${t.player_colours[i]}` }));
    line.appendChild(document.createTextNode(` player_${i}: ${p.score} quest point${p.score === 1 ? "" : "s"}`));
    scores.appendChild(line);
  });
  place(scores, [4, 2]);
  return grid;
}

function verdict(v, seat) {
  // "You won" / "You lost" for a seat; who won for the public view
  const names = v.winners.map((p) => `player_${p}`).join(", ");
  if (seat === null || seat === undefined) return `${names} won`;
  if (!v.winners.includes(seat)) return "You lost";
  return v.winners.length > 1 ? `You won (shared with ${v.winners.filter((p) => p !== seat).map((p) => `player_${p}`).join(", ")})` : "You won";
}

function showResult(box, v, seat) {
  box.hidden = !v.over;
  box.innerHTML = "";
  if (!v.over) return;
  const w = v.winners.map((p) => `player_${p}`).join(", ");
  const s = v.final_scores.map((x, p) => `player_${p} ${x}` + (v.colours ? ` (${v.colours[p]})` : "")).join(", ");
  let extra = "";
  if (v.hands) extra = "; hands: " + v.hands.map((h, p) => `player_${p}: ${h.join(", ") || "-"}`).join("; ");
  box.appendChild(el("span", { class: "verdict" }, verdict(v, seat)));
  if (v.end_reason) box.appendChild(el("div", { class: "why", id: box.id + "-why" }, `Why it ended: ${v.end_reason}.`));
  box.appendChild(el("span", {}, `Game over. Winners: ${w}. Final scores: ${s}${extra}`));
}

function faeBoard(v, interactive, onClick) {
  const g = v.geometry;
  // the spaces' extent, with room for the rings (r 35 + stroke) and the labels above them
  const xs = g.centres.map((c) => c[0]), ys = g.centres.map((c) => c[1]);
  const x0 = Math.min(...xs) - 45, y0 = Math.min(...ys) - 55, w = Math.max(...xs) + 45 - x0, h = Math.max(...ys) + 45 - y0;
  const svg = el("svg", { viewBox: `${x0} ${y0} ${w} ${h}`, id: "fae-svg", width: w, height: h }, null, SVG);
  for (const [a, b, river] of g.edges) {
    const [x0, y0] = g.centres[a - 1], [x1, y1] = g.centres[b - 1];
    svg.appendChild(el("line", { x1: x0, y1: y0, x2: x1, y2: y1, stroke: river ? RIVER : "#5a4632",
      "stroke-width": 3, "stroke-dasharray": river ? "10 10" : "none" }, null, SVG));
  }
  const srcs = new Map(), resolves = new Map();
  if (interactive) {
    for (const c of v.choices) {
      if (c.resolve !== undefined) resolves.set(c.resolve, c.id);
      else { if (!srcs.has(c.src)) srcs.set(c.src, new Map()); srcs.get(c.src).set(c.dst, c.id); }
    }
  }
  const dsts = selected !== null && srcs.has(selected) ? srcs.get(selected) : new Map();
  for (let i = 0; i < g.centres.length; i++) {
    const s = i + 1, [x, y] = g.centres[i];
    const cls = ["space"];
    if (resolves.has(s)) cls.push("legal-resolve");
    else if (dsts.has(s)) cls.push("legal-dst");
    else if (srcs.has(s)) cls.push("legal-src");
    if (selected === s) cls.push("selected");
    const grp = el("g", { class: cls.join(" "), id: `space-${s}`, "data-space": String(s) }, null, SVG);
    const pending = v.pending.includes(s), resolved = v.resolved[i];
    grp.appendChild(el("circle", { class: "ring", cx: x, cy: y, r: 35 }, null, SVG));
    grp.appendChild(el("circle", { class: "band", cx: x, cy: y, r: 35 }, null, SVG));
    grp.appendChild(el("circle", { class: "disc", cx: x, cy: y, r: 30, fill: g.terrain_rgb[g.terrain[i]],
      stroke: "#3c3c3c", "stroke-width": pending ? 4 : 1, "stroke-dasharray": pending ? "4 4" : "none" }, null, SVG));
    grp.appendChild(el("text", { x: x - 34, y: y - 33, "font-size": 15, "font-weight": "bold", class: "label" },
      String(s) + (pending ? " !" : resolved ? " *" : ""), SVG));
    const present = [];
    v.druids[i].forEach((n, c) => { if (n) present.push([c, n]); });
    present.forEach(([c, n], k) => {
      const [dx, dy] = CHIPS[present.length][k];
      chip(grp, x + dx, y + dy - 4, g.colour_rgb[c], n);
    });
    if (interactive) grp.addEventListener("click", () => onClick(s, srcs, dsts, resolves));
    svg.appendChild(grp);
  }
  return svg;
}

function faeClick(s, srcs, dsts, resolves) {
  if (busy) return;
  if (resolves.has(s)) return act(resolves.get(s));
  if (dsts.has(s)) return act(dsts.get(s));
  selected = srcs.has(s) && selected !== s ? s : null;
  renderPlay();
}

function renderPlay() {
  const g = GAME, v = g.view;
  document.body.dataset.renders = String(Number(document.body.dataset.renders || 0) + 1);
  const mine = !v.over && v.current === g.seat;
  document.body.dataset.state = v.over ? "over" : mine ? "your-turn" : "bots";
  document.body.dataset.game = v.game;
  let status = `${v.game}, ${g.players} players; you are player_${g.seat}`;
  if (v.your_colour) status += ` (secret colour ${v.your_colour})`;
  status += v.over ? "; game over" : mine ? "; your turn" : `; player_${v.current} (${g.labels[v.current]}) to move`;
  $("status").textContent = status;
  $("finish-turn").disabled = !mine;
  const board = $("board");
  board.innerHTML = "";
  board.appendChild(v.game === "fae" ? faeBoard(v, mine, faeClick) : fantastiqaBoard(v, mine));
  const panel = $("panel");
  panel.innerHTML = "";
  panel.appendChild(scoresTable(v, g.labels));
  panel.appendChild(v.game === "fae" ? faePanel(v) : fantastiqaPanel(v));
  const choices = $("choices");
  choices.innerHTML = "";
  $("choices-title").hidden = !mine;
  if (mine && v.game === "fantastiqa") {
    for (const c of v.choices) {
      const b = el("button", { "data-action": String(c.id), class: "choice", title: c.text }, c.label);
      b.addEventListener("click", () => act(c.id));
      choices.appendChild(b);
    }
  } else if (mine) {
    choices.appendChild(el("div", { class: "hint" }, selected === null
      ? (v.pending.length ? "Click a ringed space to resolve its ritual."
                          : "Click a stack with a white ring, then a space with a dashed ring (see the legend).")
      : `Stack ${selected} chosen: click a space with a dashed ring (or the stack again to drop it).`));
  }
  renderLog($("log"), g.log, g.moves);
  showResult($("result"), v, g.seat);
  if (!v.over && !mine && !busy && $("retry").hidden) setTimeout(advance, speed);
}

function renderLog(ol, texts, total) {
  ol.innerHTML = "";
  ol.start = total - texts.length + 1;
  for (const t of texts) ol.appendChild(el("li", {}, t));
  ol.scrollTop = ol.scrollHeight;
}

async function post(path, body) {
  busy = true;
  try {
    GAME = await api("POST", `/api/games/${GAME.id}/${path}`, body || {});
    showError("");
    $("retry").hidden = true;
    return true;
  } catch (e) {
    showError(e.message);
    if (path === "advance") $("retry").hidden = false;
    return false;
  } finally {
    busy = false;
  }
}

async function act(action) {
  selected = null;
  await post("act", { action });
  renderPlay();
}

async function advance() {
  if (busy || !GAME || GAME.view.over || GAME.view.current === GAME.seat) return;
  await post("advance", speed === 0 ? { all: true } : {});  // instant: every bot move up to your turn
  renderPlay();
}

// ------------------------------------------------------------------ watch
async function loadRecords() {
  const f = $("records-file").files[0];
  if (!f) return;
  try {
    const text = await f.text();
    const r = await api("POST", "/api/records", text);
    WATCH = { id: r.id, games: r.games, index: 0, step: 0, seat: null };
    fillSelect($("watch-game"), r.games.map((g) => [g.index,
      `#${g.index}: ${g.game}, ${g.num_players}p, ${g.moves} moves` + (g.agents.length ? ` (${g.agents.join(" vs ")})` : "")]));
    watchGameChanged();
  } catch (e) { showError(e.message); }
}

function watchGameChanged() {
  WATCH.index = Number($("watch-game").value);
  WATCH.step = 0;
  const n = WATCH.games[WATCH.index].num_players;
  const seats = [["public", "public view"]];
  for (let s = 0; s < n; s++) seats.push([s, `player_${s}`]);
  fillSelect($("watch-seat"), seats, "public");
  showStep();
}

async function showStep(step) {
  if (!WATCH) return;
  if (step !== undefined) WATCH.step = step;
  const seat = $("watch-seat").value;
  try {
    const r = await api("GET", `/api/records/${WATCH.id}/games/${WATCH.index}?step=${WATCH.step}&seat=${seat}`);
    WATCH.steps = r.steps;
    WATCH.step = r.step;
    showError("");
    const v = r.view;
    document.body.dataset.watchStep = String(r.step);
    $("w-step").textContent = `step ${r.step} / ${r.steps}`;
    $("w-move").textContent = r.log.length ? `last move: ${r.log[r.log.length - 1]}` : "the deal";
    const board = $("w-board");
    board.innerHTML = "";
    board.appendChild(v.game === "fae" ? faeBoard(v, false, null) : fantastiqaBoard(v, false));
    const panel = $("w-panel");
    panel.innerHTML = "";
    panel.appendChild(scoresTable(v, r.agents));
    panel.appendChild(v.game === "fae" ? faePanel(v) : fantastiqaPanel(v));
    renderLog($("w-log"), r.log, r.moves);
    showResult($("w-result"), v, null);  // watching: who won, not "you"
  } catch (e) { showError(e.message); }
}

// ------------------------------------------------------------------ start
function tab(name) {
  $("tab-play").classList.toggle("active", name === "play");
  $("tab-watch").classList.toggle("active", name === "watch");
  $("watch").hidden = name !== "watch";
  const playing = GAME !== null;
  $("play-setup").hidden = name !== "play" || playing;
  $("play").hidden = name !== "play" || !playing;
}

async function init() {
  CONFIG = await api("GET", "/api/config");
  fillSelect($("setup-game"), Object.keys(CONFIG.games).map((g) => [g, g]));
  ["setup-game", "setup-players", "setup-seat"].forEach((id) => $(id).addEventListener("change", setupChanged));
  setupChanged();
  $("setup-form").addEventListener("submit", startGame);
  $("finish-turn").addEventListener("click", async () => { if (busy) return; await post("finish_turn", { bot: $("helper").value }); renderPlay(); });
  $("retry").addEventListener("click", async () => { $("retry").hidden = true; await advance(); });
  $("new-game").addEventListener("click", () => { GAME = null; document.body.dataset.state = "setup"; tab("play"); });
  $("tab-play").addEventListener("click", () => tab("play"));
  $("tab-watch").addEventListener("click", () => tab("watch"));
  $("records-file").addEventListener("change", loadRecords);
  $("watch-game").addEventListener("change", watchGameChanged);
  $("watch-seat").addEventListener("change", () => showStep());
  $("w-first").addEventListener("click", () => showStep(0));
  $("w-prev").addEventListener("click", () => showStep(Math.max(0, WATCH.step - 1)));
  $("w-next").addEventListener("click", () => showStep(Math.min(WATCH.steps, WATCH.step + 1)));
  $("w-last").addEventListener("click", () => showStep(WATCH.steps));
  document.body.dataset.state = "setup";
}

init().catch((e) => showError(`cannot load the configuration: ${e.message}`));
