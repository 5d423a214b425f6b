// yz play-along page: the game lives here (per tab, in sessionStorage); the server replays it.
"use strict";

const $ = (sel) => document.querySelector(sel);
const PIPS = {1: [5], 2: [3, 7], 3: [3, 5, 7], 4: [1, 3, 7, 9], 5: [1, 3, 5, 7, 9],
  6: [1, 3, 4, 6, 7, 9]};
const PASTE = "__paste__";
const SHOWN_HINTS = 10;

const yz = window.yz = {
  rules: null,      // {variant} or {yaml}
  info: null,       // the rule set as the server describes it
  dist: null,       // exact distribution of final scores
  game: null,       // the last view of the game from the server
  held: [],         // one flag per die showing
  busy: false,
};

function fmt(x, digits = 2) { return Number(x).toFixed(digits); }

function showError(message) {
  const box = $("#error");
  box.textContent = message || "";
  box.hidden = !message;
}

async function api(path, body) {
  const res = await fetch(path, {
    method: body === undefined ? "GET" : "POST",
    headers: {"Content-Type": "application/json"},
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data;
  try { data = await res.json(); } catch (e) { data = {error: `${res.status} ${res.statusText}`}; }
  if (!res.ok && res.status !== 409) { throw new Error(data.error || res.statusText); }
  data._status = res.status;
  return data;
}

function save() {
  if (yz.game) {
    sessionStorage.setItem("yz-game", JSON.stringify({rules: yz.rules, state: yz.game.state,
      threshold: $("#threshold").value}));
  }
}

// ------------------------------------------------------------------ setup

async function loadVariants() {
  const list = await api("/api/variants");
  const select = $("#variant");
  for (const v of list) {
    const opt = document.createElement("option");
    opt.value = v.variant;
    opt.textContent = `${v.variant} (${v.boxes} boxes)`;
    opt.title = v.description;
    select.appendChild(opt);
  }
  const paste = document.createElement("option");
  paste.value = PASTE;
  paste.textContent = "Paste your own rules…";
  select.appendChild(paste);
  select.value = list.some((v) => v.variant === "official-free-joker") ? "official-free-joker"
    : list[0].variant;
}

function chosenRules() {
  const v = $("#variant").value;
  return v === PASTE ? {yaml: $("#yaml").value} : {variant: v};
}

async function prepare(rules) {
  const progress = $("#progress");
  for (;;) {
    const res = await api("/api/prepare", {rules});
    if (res.status === "ready") {
      progress.hidden = true;
      return res;
    }
    progress.hidden = false;
    const stage = {queued: "waiting for the solver", compiling: "compiling the solver (once)",
      solving: "solving the rule set exactly", distribution: "the exact distribution of scores"}[
      res.stage] || res.stage;
    const pct = res.total ? Math.round(100 * res.done / res.total) : 5;
    progress.querySelector(".label").textContent =
      `${res.rules.variant}: ${stage}${res.total ? ` (${pct}%)` : "…"}`;
    progress.querySelector(".bar div").style.width = `${pct}%`;
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function newGame(event) {
  if (event) event.preventDefault();
  showError("");
  const rules = chosenRules();
  const seedText = $("#seed").value.trim();
  try {
    const ready = await prepare(rules);
    yz.rules = rules;
    yz.info = ready.rules;
    yz.dist = ready.distribution;
    const res = await api("/api/new", {rules, seed: seedText === "" ? null : Number(seedText),
      own_dice: $("#own-dice").checked});
    setGame(res.game);
    $("#feedback").hidden = true;
    $("#hints").hidden = true;
  } catch (e) {
    showError(e.message);
  }
}

// ------------------------------------------------------------------ moves

function threshold() {
  const t = $("#threshold").value.trim();
  return t === "" ? null : Number(t);
}

async function move(m, confirm = false) {
  if (yz.busy) return;
  yz.busy = true;
  showError("");
  try {
    const res = await api("/api/move", {rules: yz.rules, state: yz.game.state, move: m,
      coach_threshold: threshold(), confirm});
    if (res.warning) {
      showWarning(res.warning, m);
    } else {
      $("#warning").hidden = true;
      showDecision(res.decision);
      setGame(res.game);
      $("#hints").hidden = true;
    }
  } catch (e) {
    showError(e.message);
  } finally {
    yz.busy = false;
  }
}

function keepMove() {
  const dice = yz.game.dice;
  return {keep: dice.filter((d, i) => yz.held[i])};
}

function showWarning(w, m) {
  const box = $("#warning");
  box.querySelector(".text").innerHTML =
    `<b>Coach:</b> ${w.chosen.label} costs <b>${fmt(w.loss)}</b> points of expected final ` +
    `score (more than your ${w.threshold}). The best is <b>${w.best.label}</b> ` +
    `(expected final ${fmt(w.best.expected_final)}).`;
  box.hidden = false;
  $("#warn-play").onclick = () => { box.hidden = true; move(m, true); };
  $("#warn-change").onclick = () => { box.hidden = true; };
}

function showDecision(d) {
  const box = $("#feedback");
  if (!d) { box.hidden = true; return; }
  box.hidden = false;
  if (d.was_best) {
    box.className = "feedback best";
    const same = d.chosen.label === d.best.label;
    box.textContent = same ? `Best move: ${d.chosen.label}.`
      : `Best move (as good as ${d.best.label}).`;
  } else {
    box.className = "feedback costly";
    box.innerHTML = `${d.chosen.label} cost <b>${fmt(d.loss)}</b>: the best was ` +
      `<b>${d.best.label}</b> (expected final ${fmt(d.best.expected_final)}).`;
  }
}

async function showHints() {
  try {
    const res = await api("/api/hint", {rules: yz.rules, state: yz.game.state});
    const body = $("#hints tbody");
    body.innerHTML = "";
    res.options.forEach((o, i) => {
      const tr = document.createElement("tr");
      if (o.loss <= 1e-9) tr.className = "best";
      tr.innerHTML = `<td>${o.label}${o.tie ? '<span class="tie">tie</span>' : ""}</td>` +
        `<td class="num">${fmt(o.expected_final)}</td><td class="num">${fmt(o.loss)}</td>`;
      tr.dataset.index = i;
      tr.onclick = () => move(o.kind === "keep" ? {keep: o.keep} : {score: o.box});
      if (i >= SHOWN_HINTS) tr.hidden = true;
      body.appendChild(tr);
    });
    if (res.options.length > SHOWN_HINTS) {
      const more = document.createElement("tr");
      more.className = "more";
      more.innerHTML = `<td colspan="3">show all ${res.options.length} options</td>`;
      more.onclick = () => {
        body.querySelectorAll("tr[hidden]").forEach((tr) => { tr.hidden = false; });
        more.remove();
      };
      body.appendChild(more);
    }
    $("#hints").hidden = false;
  } catch (e) {
    showError(e.message);
  }
}

async function undo() {
  try {
    const res = await api("/api/undo", {rules: yz.rules, state: yz.game.state});
    setGame(res.game);
    $("#feedback").hidden = true;
    $("#hints").hidden = true;
  } catch (e) {
    showError(e.message);
  }
}

async function enterOwnDice() {
  const text = $("#own-input").value.replace(/[^0-9]+/g, " ").trim();
  const faces = yz.info.faces;
  const dice = faces <= 9 && !text.includes(" ") ? [...text].map(Number)
    : text.split(" ").map(Number);
  $("#own-input").value = "";
  await move({dice});
}

// ------------------------------------------------------------------ drawing

function setGame(game) {
  const prev = yz.game;
  yz.game = game;
  // The dice kept by the last move stay held after the roll.
  yz.held = (game.dice || []).map(() => false);
  const last = game.state.moves[game.state.moves.length - 1];
  if (game.dice && last && last.keep && prev && prev.turn === game.turn) {
    const rest = [...last.keep];
    game.dice.forEach((d, i) => {
      const j = rest.indexOf(d);
      if (j >= 0) { yz.held[i] = true; rest.splice(j, 1); }
    });
  }
  save();
  draw();
}

function dieElement(value, i) {
  const die = document.createElement("div");
  die.className = "die";
  die.dataset.value = value;
  die.dataset.index = i;
  if (value <= 6) {
    for (let cell = 1; cell <= 9; cell++) {
      const spot = document.createElement("span");
      if (PIPS[value].includes(cell)) spot.className = "pip";
      spot.style.gridArea = `${Math.ceil(cell / 3)} / ${((cell - 1) % 3) + 1}`;
      die.appendChild(spot);
    }
  } else {
    const n = document.createElement("span");
    n.className = "num";
    n.textContent = value;
    die.appendChild(n);
  }
  return die;
}

function draw() {
  const g = yz.game;
  $("#game").hidden = false;
  $("#intro").hidden = true;
  $("#turn").textContent = g.phase === "over" ? `All ${g.turns} boxes filled` : `Turn ${g.turn} of ${g.turns}`;
  $("#rolls").textContent = g.phase === "keep" ? `· ${g.rolls_left} re-roll${g.rolls_left > 1 ? "s" : ""} left`
    : g.phase === "score" ? "· last roll" : g.phase === "dice" ? "· roll your dice" : "";
  $("#expected").textContent = fmt(g.expected_final);
  $("#variant-name").textContent = g.variant;

  const dice = $("#dice");
  dice.innerHTML = "";
  if (g.dice) {
    g.dice.forEach((d, i) => {
      const die = dieElement(d, i);
      die.dataset.held = yz.held[i] ? "1" : "0";
      if (yz.held[i]) die.classList.add("held");
      die.onclick = () => {
        if (g.phase !== "keep") return;
        yz.held[i] = !yz.held[i];
        die.classList.toggle("held", yz.held[i]);
        die.dataset.held = yz.held[i] ? "1" : "0";
        updateRoll();
      };
      dice.appendChild(die);
    });
  } else if (g.phase !== "over") {
    for (let i = 0; i < yz.info.dice; i++) {
      const blank = document.createElement("div");
      blank.className = "die blank";
      dice.appendChild(i < g.kept.length ? dieElement(g.kept[i], i) : blank);
    }
  }
  const over = g.phase === "over";
  dice.hidden = over;
  $("#controls").hidden = over;
  document.querySelector(".help").hidden = over;
  $("#own").hidden = g.phase !== "dice";
  $("#undo").disabled = !g.log.length;
  $("#hint").disabled = !(g.phase === "keep" || g.phase === "score");
  updateRoll();
  drawCard();
  drawLog();
  drawChart();
  drawReview();
}

function updateRoll() {
  const g = yz.game;
  const roll = $("#roll");
  roll.disabled = g.phase !== "keep";
  const n = yz.held.filter((h) => !h).length;
  roll.textContent = g.phase !== "keep" ? "Roll" : n === 0 ? "Keep all" : `Roll ${n} ${n === 1 ? "die" : "dice"}`;
}

function drawCard() {
  const g = yz.game;
  const body = $("#card tbody");
  body.innerHTML = "";
  const add = (cls, name, score, key) => {
    const tr = document.createElement("tr");
    tr.className = cls;
    tr.innerHTML = `<td>${name}</td><td class="score">${score}</td>`;
    if (key) tr.dataset.box = key;
    body.appendChild(tr);
    return tr;
  };
  let section = null;
  for (const row of g.card) {
    if (row.section !== section) {
      section = row.section;
      add("section", section === "upper" ? "Upper section" : "Lower section", "");
    }
    if (row.score !== null) {
      add("filled", row.name, row.score, row.box);
      continue;
    }
    const now = g.box_scores && g.box_scores[row.box];
    const can = now && now.legal && (g.phase === "keep" || g.phase === "score");
    const tr = add(`open${can ? " can" : ""}`, row.name, now ? now.points : "", row.box);
    if (can) tr.onclick = () => move({score: row.box});
  }
  if (g.upper_threshold) {
    add("sum", `Upper bonus <span class="muted">(${g.upper_total} of ${g.upper_threshold})</span>`,
      g.upper_bonus, "upper_bonus");
  }
  if (yz.info.yahtzee_bonus) add("sum", "Yahtzee bonus", g.yahtzee_bonus, "yahtzee_bonus");
  add("total", "Total", g.banked, "total");
}

function drawLog() {
  const g = yz.game;
  const body = $("#log tbody");
  body.innerHTML = "";
  for (const d of [...g.log].reverse()) {
    const tr = document.createElement("tr");
    if (!d.was_best) tr.className = "costly";
    const best = d.was_best ? "" : `<span class="best-was">best: ${d.best.label}</span>`;
    tr.innerHTML = `<td>${d.turn}</td><td>${d.dice.join(" ")}</td><td>${d.chosen.label}${best}</td>` +
      `<td class="num">${d.was_best ? "✓" : fmt(d.loss)}</td>`;
    body.appendChild(tr);
  }
  $("#lost").textContent = g.log.length ? `· ${fmt(g.lost)} points lost in ${g.log.length}` : "";
}

function drawChart() {
  const svg = $("#chart");
  const d = yz.dist;
  if (!d) { svg.innerHTML = ""; return; }
  const W = 320, H = 150, pad = 18;
  const lo = d.percentiles["1"], hi = d.percentiles["99"];
  const span = Math.max(1, hi - lo);
  const bins = 48, width = span / bins;
  const mass = new Array(bins).fill(0);
  d.scores.forEach((s, i) => {  // the 1% tails on each side are left out
    if (s < lo || s > hi) return;
    mass[Math.min(bins - 1, Math.floor((s - lo) / width))] += d.probabilities[i];
  });
  const top = Math.max(...mass);
  const x = (s) => pad + (W - 2 * pad) * (Math.min(hi, Math.max(lo, s)) - lo) / span;
  let html = "";
  mass.forEach((m, b) => {
    const h = (H - 38) * m / top;
    html += `<rect x="${pad + b * (W - 2 * pad) / bins}" y="${H - 22 - h}" width="${(W - 2 * pad) / bins - 1}" height="${h}" fill="#c9dcd4"/>`;
  });
  html += `<line x1="${pad}" x2="${W - pad}" y1="${H - 22}" y2="${H - 22}" stroke="#aaa"/>`;
  for (const q of ["5", "50", "95"]) {
    const s = d.percentiles[q];
    html += `<text x="${x(s)}" y="${H - 8}" font-size="9" text-anchor="middle" fill="#7a746a">${s}</text>`;
  }
  const g = yz.game;
  const mark = (s, color, label) => {
    const at = x(s);
    const anchor = at < 60 ? "start" : at > W - 60 ? "end" : "middle";
    html += `<line x1="${at}" x2="${at}" y1="14" y2="${H - 22}" stroke="${color}" stroke-width="2"/>` +
      `<text x="${at}" y="10" font-size="10" text-anchor="${anchor}" fill="${color}">${label}</text>`;
  };
  if (g && g.phase === "over") mark(g.banked, "#b3261e", `you: ${g.banked}`);
  else if (g) mark(g.expected_final, "#1f6f5c", `expected ${fmt(g.expected_final, 1)}`);
  svg.innerHTML = html;
  const rank = $("#rank");
  if (g && g.review && g.review.p_at_most !== undefined) {
    rank.innerHTML = `Your ${g.banked}: P(score ≤ ${g.banked}) = <b>${fmt(100 * g.review.p_at_most, 1)}%</b> ` +
      `under optimal play (median ${d.median}).`;
  } else {
    rank.textContent = `Optimal play: mean ${fmt(d.expected_score)}, median ${d.median}, ` +
      `5%–95% ${d.percentiles["5"]}–${d.percentiles["95"]}.`;
  }
}

function drawReview() {
  const g = yz.game;
  const box = $("#review");
  if (!g.review) { box.hidden = true; return; }
  const r = g.review;
  const worst = r.worst.map((d) => `<li>turn ${d.turn}, dice ${d.dice.join(" ")}: ` +
    `${d.chosen.label}, cost ${fmt(d.loss)} (best: ${d.best.label})</li>`).join("");
  box.innerHTML = `<h2>Game over</h2><div class="big" id="final-total">${r.total}</div>` +
    `<div>optimal play averages ${fmt(r.expected_at_start)}; you lost <b>${fmt(r.lost)}</b> points ` +
    `to the best moves over ${r.decisions} decisions (${r.best_decisions} best, mean loss ` +
    `${fmt(r.mean_loss, 3)}).</div>` +
    (worst ? `<div style="margin-top:8px">Your worst decisions:</div><ol>${worst}</ol>`
      : "<div>Every decision was a best one.</div>") +
    (r.p_at_most !== undefined ? `<div style="margin-top:8px">P(score ≤ ${r.total}) = ` +
      `${fmt(100 * r.p_at_most, 1)}% under optimal play.</div>` : "");
  box.hidden = false;
}

// ------------------------------------------------------------------ wiring

async function restore() {
  const saved = sessionStorage.getItem("yz-game");
  if (!saved) return false;
  try {
    const {rules, state, threshold: t} = JSON.parse(saved);
    const ready = await prepare(rules);
    yz.rules = rules;
    yz.info = ready.rules;
    yz.dist = ready.distribution;
    $("#threshold").value = t || "";
    if (rules.variant) {
      $("#variant").value = rules.variant;
    } else {
      $("#variant").value = PASTE;
      $("#yaml").value = rules.yaml;
      $("#paste").hidden = false;
    }
    const res = await api("/api/state", {rules, state});
    setGame(res.game);
    return true;
  } catch (e) {
    sessionStorage.removeItem("yz-game");
    return false;
  }
}

window.addEventListener("DOMContentLoaded", async () => {
  $("#setup").addEventListener("submit", newGame);
  $("#variant").addEventListener("change", () => {
    $("#paste").hidden = $("#variant").value !== PASTE;
  });
  $("#roll").addEventListener("click", () => move(keepMove()));
  $("#hint").addEventListener("click", showHints);
  $("#undo").addEventListener("click", undo);
  $("#own-enter").addEventListener("click", enterOwnDice);
  $("#own-input").addEventListener("keydown", (e) => { if (e.key === "Enter") enterOwnDice(); });
  $("#threshold").addEventListener("change", save);
  $("#yaml-file").addEventListener("change", async () => {
    const file = $("#yaml-file").files[0];
    if (!file) return;
    if (file.size > 65536) { showError(`${file.name}: larger than 64 KB; a rule set is a short text.`); return; }
    $("#yaml").value = await file.text();
  });
  try {
    await loadVariants();
  } catch (e) {
    showError(e.message);
  }
  document.body.dataset.ready = "1";
  await restore();
});
