// yz play-along page: the game lives here (per tab, in sessionStorage); the server replays it.
// Every text from the server or the user reaches the page through textContent (the helper
// `el`), never as HTML: rule sets are pasted by anyone, and their names are shown here.
"use strict";

const $ = (sel) => document.querySelector(sel);
const SVG = "http://www.w3.org/2000/svg";
const PIPS = {1: [5], 2: [3, 7], 3: [3, 5, 7], 4: [1, 3, 7, 9], 5: [1, 3, 5, 7, 9],
  6: [1, 3, 4, 6, 7, 9]};
const PASTE = "__paste__";
const SHOWN_HINTS = 10;
const POLL_MS = 400;
const MAX_RULES_CHARS = 65536;  // a rule set's characters: web/settings.py's MAX_YAML_CHARS
// Why a game is played without the exact distribution of its final scores.
const NOTE_MEMORY = "This game saves rolls, and its exact distribution of final scores needs " +
  "more memory than this server gives it; the expected score is exact.";
const NOTE_STORE = "This game is played from a store of its values (a layered solve, read a " +
  "few rows at a time): every move's worth and the expected score are exact; the exact " +
  "distribution of final scores is not computed for it.";

const yz = window.yz = {
  rules: null,      // {variant} or {yaml}
  info: null,       // the rule set as the server describes it
  dist: null,       // exact distribution of final scores
  game: null,       // the last view of the game from the server
  held: [],         // one flag per die showing
  busy: false,
  listed: false,    // the rule sets' list has arrived (New game waits for it)
};

function fmt(x, digits = 2) { return Number(x).toFixed(digits); }

// An element with attributes and children (strings become text nodes, never markup).
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("data-")) node.dataset[key.slice(5)] = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined && child !== false) {
      node.append(child instanceof Node ? child : String(child));
    }
  }
  return node;
}

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = String(text);
  return node;
}

function showError(message) {
  const box = $("#error");
  box.textContent = message || "";
  box.hidden = !message;
  delete box.dataset.paste;
}

async function api(path, body) {
  for (;;) {
    const res = await fetch(path, {
      method: body === undefined ? "GET" : "POST",
      headers: {"Content-Type": "application/json"},
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data;
    try { data = await res.json(); } catch (e) { data = {error: `${res.status} ${res.statusText}`}; }
    if (res.status === 202 && data.pending) {  // work the answer needs runs: ask again
      showPending(data.pending);
      await new Promise((r) => setTimeout(r, POLL_MS));
      continue;
    }
    $("#working").hidden = true;
    if (!res.ok && res.status !== 409) { throw new Error(data.error || res.statusText); }
    data._status = res.status;
    return data;
  }
}

// What the server is working out for the answer (a two-player game's chances of winning).
function showPending(p) {
  const box = $("#working");
  const eta = p.eta_seconds > 0 ? ` · about ${Math.ceil(p.eta_seconds)} s left` : "";
  box.textContent = `Working out ${p.what}${eta}…`;
  box.hidden = false;
}

// The one-player game's routes, or the two-player game's.
function apiPath(name) {
  return yz.game && yz.game.match ? `/api/match/${name}` : `/api/${name}`;
}

function save() {
  if (yz.game) {
    sessionStorage.setItem("yz-game", JSON.stringify({rules: yz.rules, state: yz.game.state,
      threshold: $("#threshold").value, match: !!yz.game.match}));
  }
}

// ------------------------------------------------------------------ setup

// The list says "loading rule sets…" and New game is disabled until it arrives (the server
// reads every built-in the first time, seconds after a start); then any error shown before
// it came is stale and goes.
async function loadVariants() {
  const select = $("#variant");
  let list = [];
  let failed = null;
  try {
    list = await api("/api/variants");
  } catch (e) {
    failed = e;
  }
  const options = list.map((v) => {
    const label = !v.playable ? `${v.variant} (${v.boxes} boxes): too slow to solve here`
      : `${v.variant} (${v.boxes} boxes${v.store ? ", from a store" : ""})`;
    const opt = el("option", {value: v.variant, title: v.playable ? v.description : v.why},
      label);
    opt.disabled = !v.playable;
    return opt;
  });
  select.replaceChildren(...options, el("option", {value: PASTE}, "Paste your own rules…"));
  const playable = list.filter((v) => v.playable);
  select.value = playable.some((v) => v.variant === "official-free-joker")
    ? "official-free-joker" : (playable[0] || {variant: PASTE}).variant;
  $("#paste").hidden = select.value !== PASTE;
  select.disabled = false;
  select.removeAttribute("aria-busy");
  $("#new-game").disabled = false;
  yz.listed = true;
  showUnplayable(list);
  showError(failed ? `The list of rule sets did not load (${failed.message}); paste a rule ` +
    "set, or reload the page." : "");
}

// Why a rule set is greyed out, as text on the page: a tooltip never shows on a touch screen.
function showUnplayable(list) {
  const greyed = list.filter((v) => !v.playable);
  $("#unplayable ul").replaceChildren(...greyed.map((v) => el("li", {}, v.why)));
  $("#unplayable").hidden = !greyed.length;
}

function rulesTooLong(what, size, unit = "characters") {
  return `${what}: ${size.toLocaleString("en")} ${unit}, more than the ` +
    `${MAX_RULES_CHARS.toLocaleString("en")} characters (64 KB) a rule set may have here; ` +
    "shorten it, or play it in the terminal (yz play --variant FILE).";
}

// The pasted text's length as the server counts it (characters, not UTF-16 units).
function pastedChars() {
  const text = $("#yaml").value;
  return text.length <= MAX_RULES_CHARS ? text.length : [...text].length;
}

// A paste over the limit is refused at once, naming it (never cut short without a word).
function checkPasteSize() {
  const size = pastedChars();
  const box = $("#error");
  if (size > MAX_RULES_CHARS) {
    showError(rulesTooLong("The pasted rules", size));
    box.dataset.paste = "1";
  } else if (box.dataset.paste) {
    showError("");
  }
}

function chosenRules() {
  const v = $("#variant").value;
  return v === PASTE ? {yaml: $("#yaml").value} : {variant: v};
}

const STAGES = {
  queued: (r) => (r.ahead > 0
    ? `waiting for ${r.ahead} other rule set${r.ahead === 1 ? "" : "s"} to finish solving`
    : "starting the solve"),
  compiling: () => "compiling the solver (once per installation)",
  solving: () => "solving the rule set exactly",
  distribution: () => "computing the exact distribution of final scores",
};

function showProgress(res) {
  const progress = $("#progress");
  progress.hidden = false;
  const stage = (STAGES[res.stage] || (() => res.stage))(res);
  const eta = res.eta_seconds > 0 ? ` · about ${Math.ceil(res.eta_seconds)} s left` : "";
  progress.querySelector(".label").textContent =
    `${res.rules.variant}: ${stage} · ${Math.floor(res.percent)}%${eta}`;
  const bar = progress.querySelector(".bar");
  bar.setAttribute("aria-valuenow", String(Math.floor(res.percent)));
  bar.firstElementChild.style.width = `${res.percent}%`;
}

async function prepare(rules) {
  try {
    for (;;) {
      const res = await api("/api/prepare", {rules});
      if (res.status === "ready") return res;
      showProgress(res);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    $("#progress").hidden = true;
  }
}

async function newGame(event) {
  if (event) event.preventDefault();
  if (!yz.listed) return;  // (the button is disabled until the list arrives)
  showError("");
  const rules = chosenRules();
  if (rules.yaml !== undefined && pastedChars() > MAX_RULES_CHARS) {
    checkPasteSize();  // (refused by name; it goes when the text is short enough)
    return;
  }
  const seedText = $("#seed").value.trim();
  try {
    const ready = await prepare(rules);
    yz.rules = rules;
    yz.info = ready.rules;
    yz.dist = ready.distribution;
    const seed = seedText === "" ? null : Number(seedText);
    const res = chosenSeats() ? await api("/api/match/new", matchRequest(rules, seed))
      : await api("/api/new", {rules, seed, own_dice: $("#own-dice").checked});
    clearNotes();
    setGame(res.game);
    if (botToMove()) playBots();
    else focusNext("new");
  } catch (e) {
    showError(e.message);
  }
}

// ------------------------------------------------------------------ moves

function threshold() {
  const t = $("#threshold").value.trim();
  return t === "" ? null : Number(t);
}

// One request at a time: a key held down or a double click never sends a move twice.
async function exclusive(work) {
  if (yz.busy || !yz.game) return;
  yz.busy = true;
  showError("");
  try {
    await work();
  } catch (e) {
    showError(e.message);
  } finally {
    yz.busy = false;
  }
}

function move(m, confirm = false) {
  return exclusive(async () => {
    const res = await api(apiPath("move"), {rules: yz.rules, state: yz.game.state, move: m,
      coach_threshold: threshold(), confirm});
    if (res.warning) {
      showWarning(res.warning, m);
      return;
    }
    $("#warning").hidden = true;
    $("#hints").hidden = true;
    setGame(res.game);
    if (yz.game.match) { matchAfterMove(res); return; }
    showDecision(res.decision);
    focusNext(m.score !== undefined ? "score" : m.dice !== undefined ? "dice" : "roll");
  });
}

// After every action the keyboard goes on from the control the next step starts at, never
// from the page's top: a roll, to the first die (or, after the last roll, the first box to
// score); a score, to Roll; typed-in dice wanted, to their field; an undo, to Undo while there
// is more to take back; the end of the game, to the review. Boxes and options below the dice
// are focused without scrolling, so a phone's view stays where it is.
function focusNext(after) {
  const g = yz.game;
  const firstBox = () => document.querySelector("#card button.box");
  let target = null;
  let scroll = true;
  if (g.phase === "over") target = $("#review");
  else if (g.phase === "dice") target = $("#own-input");
  else if (after === "undo" && !$("#undo").disabled) target = $("#undo");
  else if (g.phase === "score") { target = firstBox(); scroll = false; }
  else if (after === "score" || after === "undo") target = $("#roll");
  else target = document.querySelector("#dice .die");
  if (target) target.focus({preventScroll: !scroll});
}

function keepMove() {
  return {keep: yz.game.dice.filter((d, i) => yz.held[i])};
}

function showWarning(w, m) {
  const box = $("#warning");
  box.querySelector(".text").replaceChildren(...(w.objective ? matchWarning(w) : [
    el("b", {}, "Coach: "), `${w.chosen.label} costs `, el("b", {}, fmt(w.loss)),
    ` points of expected final score (more than your coach threshold of ${w.threshold} ` +
    `points). The best is `,
    el("b", {}, w.best.label), ` (expected final ${fmt(w.best.expected_final)}).`]));
  box.hidden = false;
  $("#warn-play").onclick = () => { box.hidden = true; move(m, true); };
  $("#warn-change").onclick = () => { box.hidden = true; focusNext("change"); };
  $("#warn-change").focus();
}

// The note on a decision says which roll it was about, so it never reads as advice on the
// dice showing now.
function showDecision(d) {
  const box = $("#feedback");
  if (!d || yz.game.phase === "over") { box.hidden = true; return; }
  const about = `Turn ${d.turn}, dice ${d.dice.join(" ")}: `;
  if (d.was_best) {
    box.className = "feedback best";
    const same = d.chosen.label === d.best.label;
    box.replaceChildren(about, same ? `${d.chosen.label} was the best move.`
      : `${d.chosen.label} was a best move (as good as ${d.best.label}).`);
  } else {
    box.className = "feedback costly";
    box.replaceChildren(about, `${d.chosen.label} cost `, el("b", {}, fmt(d.loss)),
      ": the best was ", el("b", {}, d.best.label),
      ` (expected final ${fmt(d.best.expected_final)}).`);
  }
  box.hidden = false;
}

function clearNotes() {
  $("#feedback").hidden = true;
  $("#hints").hidden = true;
  $("#warning").hidden = true;
}

function showHints() {
  return exclusive(async () => {
    if (!(yz.game.phase === "keep" || yz.game.phase === "score") || botToMove()) return;
    const res = await api(apiPath("hint"), {rules: yz.rules, state: yz.game.state});
    const win = res.objective === "win";
    $("#hints thead th.num").textContent = win ? "chance of winning" : "expected final";
    const body = $("#hints tbody");
    body.replaceChildren();
    res.options.forEach((o, i) => {
      const play = el("button", {type: "button", class: "option"}, o.label);
      const tr = el("tr", {"data-index": i},
        el("td", {}, play, o.tie ? el("span", {class: "tie"}, "tie") : null),
        el("td", {class: "num"}, win ? pct(o.p_win, 2) : fmt(o.expected_final)),
        el("td", {class: "num"}, win ? fmt(100 * o.loss) : fmt(o.loss)));
      if (o.loss <= 1e-9) tr.className = "best";
      tr.onclick = () => move(o.kind === "keep" ? {keep: o.keep} : {score: o.category});
      tr.hidden = i >= SHOWN_HINTS;
      body.append(tr);
    });
    if (res.options.length > SHOWN_HINTS) {
      const all = el("button", {type: "button", class: "linklike"},
        `show all ${res.options.length} options`);
      const more = el("tr", {class: "more"}, el("td", {colspan: "3"}, all));
      all.onclick = () => {
        const rest = [...body.querySelectorAll("tr[hidden]")];
        rest.forEach((tr) => { tr.hidden = false; });
        more.remove();
        rest[0].querySelector("button").focus();  // the first option that was hidden
      };
      body.append(more);
    }
    $("#hints").hidden = false;
    body.querySelector("button.option")?.focus({preventScroll: true});
  });
}

function undo() {
  return exclusive(async () => {
    if (!yz.game.log.length || yz.playingBots) return;
    const res = await api(apiPath("undo"), {rules: yz.rules, state: yz.game.state});
    clearNotes();
    setGame(res.game);
    focusNext("undo");
  });
}

async function enterOwnDice() {
  const text = $("#own-input").value.replace(/[^0-9]+/g, " ").trim();
  const faces = yz.info.faces;
  const dice = faces <= 9 && !text.includes(" ") ? [...text].map(Number)
    : text.split(" ").map(Number);
  $("#own-input").value = "";
  await move({dice});
}

function toggleDie(i) {
  if (yz.game.phase !== "keep" || i >= yz.held.length || botToMove()) return;
  yz.held[i] = !yz.held[i];
  const die = document.querySelectorAll("#dice .die")[i];
  die.classList.toggle("held", yz.held[i]);
  die.dataset.held = yz.held[i] ? "1" : "0";
  die.setAttribute("aria-pressed", String(yz.held[i]));
  updateRoll();
}

function roll() {
  if (yz.game && yz.game.phase === "keep" && !botToMove()) move(keepMove());
}

// Keys anywhere on the page but in a text field: 1-8 hold a die, R roll, H hint, U undo.
function onKey(e) {
  if (e.altKey || e.ctrlKey || e.metaKey || !yz.game) return;
  if (e.target.closest("input, textarea, select")) return;
  const key = e.key.toLowerCase();
  if (/^[1-8]$/.test(key)) toggleDie(Number(key) - 1);
  else if (key === "r") roll();
  else if (key === "h") showHints();
  else if (key === "u") undo();
  else return;
  e.preventDefault();
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

function dieFace(value) {
  if (value > 6) return [el("span", {class: "num"}, value)];
  const spots = [];
  for (let cell = 1; cell <= 9; cell++) {
    const spot = el("span", {class: `cell c${cell}${PIPS[value].includes(cell) ? " pip" : ""}`});
    spots.push(spot);
  }
  return spots;
}

function dieButton(value, i, held, canHold) {
  const label = `die ${i + 1}: ${value}${held ? ", held" : ""}`;
  const die = el("button", {type: "button", class: `die${held ? " held" : ""}`,
    "data-value": value, "data-index": i, "data-held": held ? "1" : "0",
    "aria-pressed": String(held), "aria-label": label}, ...dieFace(value));
  if (!canHold) die.setAttribute("aria-disabled", "true");
  die.onclick = () => toggleDie(i);
  return die;
}

function draw() {
  const g = yz.game;
  const over = g.phase === "over";
  $("#game").hidden = false;
  $("#intro").hidden = true;
  $("#turn").textContent = over ? `All ${g.turns} boxes filled` : `Turn ${g.turn} of ${g.turns}`;
  $("#rolls").textContent = (g.phase === "keep" ? `· ${g.rolls_left} re-roll${g.rolls_left > 1 ? "s" : ""} left`
    : g.phase === "score" ? "· last roll: choose a box" : g.phase === "dice" ? "· roll your dice" : "")
    + (g.saved_rolls !== null && g.saved_rolls !== undefined && !over
      ? ` · started with ${g.saved_rolls} saved roll${g.saved_rolls === 1 ? "" : "s"}` : "");
  $("#expected").textContent = fmt(g.expected_final);
  $("#variant-name").textContent = g.variant;

  const dice = $("#dice");
  dice.replaceChildren();
  if (g.dice) {
    g.dice.forEach((d, i) => dice.append(dieButton(d, i, yz.held[i],
      g.phase === "keep" && !botToMove())));
  } else if (!over) {
    for (let i = 0; i < yz.info.dice; i++) {
      dice.append(i < g.kept.length ? el("div", {class: "die kept", "aria-label":
        `kept die: ${g.kept[i]}`, role: "img"}, ...dieFace(g.kept[i]))
        : el("div", {class: "die blank", "aria-hidden": "true"}));
    }
  }
  // At the end: the card, the review and the distribution; nothing about a next move.
  for (const sel of ["#dice", "#controls", "#keys-help", "#expect", "#expected-help"]) {
    $(sel).hidden = over;
  }
  if (over) clearNotes();
  $("#own").hidden = g.phase !== "dice";
  $("#undo").disabled = !g.log.length;
  $("#hint").disabled = !(g.phase === "keep" || g.phase === "score") || botToMove();
  updateRoll();
  if (g.match) {
    drawMatch();
  } else {
    clearMatch();
    drawCard();
    drawLog();
    drawReview();
  }
  drawChart();
}

function updateRoll() {
  const g = yz.game;
  const roll = $("#roll");
  roll.disabled = g.phase !== "keep" || botToMove();
  const n = yz.held.filter((h) => !h).length;
  roll.textContent = g.phase !== "keep" ? "Roll" : n === 0 ? "Keep all" : `Roll ${n} ${n === 1 ? "die" : "dice"}`;
}

function drawCard() {
  const g = yz.game;
  const rows = [];
  const add = (cls, name, score, key) => {
    const tr = el("tr", {class: cls}, el("td", {}, ...name),
      el("td", {class: "score"}, score));
    if (key) tr.dataset.box = key;
    rows.push(tr);
    return tr;
  };
  let section = null;
  for (const row of g.card) {
    if (row.section !== section) {
      section = row.section;
      add("section", [section === "upper" ? "Upper section" : "Lower section"], "");
    }
    if (row.score !== null) {
      add("filled", [row.name], row.score, row.box);
      continue;
    }
    const now = g.box_scores && g.box_scores[row.box];
    const can = now && now.legal && (g.phase === "keep" || g.phase === "score");
    if (!can) {
      add("open", [row.name], now ? now.points : "", row.box);
      continue;
    }
    const button = el("button", {type: "button", class: "box",
      "aria-label": `score ${row.name} for ${now.points}`}, row.name);
    const tr = add("open can", [button], `+${now.points}`, row.box);
    tr.onclick = () => move({score: row.box});
  }
  if (g.upper_threshold) {
    add("sum", ["Upper bonus ", el("span", {class: "muted"},
      `(${g.upper_total} of ${g.upper_threshold})`)], g.upper_bonus, "upper_bonus");
  }
  if (yz.info.yahtzee_bonus) add("sum", ["Yahtzee bonus"], g.yahtzee_bonus, "yahtzee_bonus");
  add("total", ["Total"], g.banked, "total");
  $("#card tbody").replaceChildren(...rows);
}

function drawLog() {
  const g = yz.game;
  const rows = [...g.log].reverse().map((d) => el("tr", {class: d.was_best ? "" : "costly"},
    el("td", {}, d.turn), el("td", {class: "dice-cell"}, d.dice.join(" ")),
    el("td", {}, d.chosen.label,
      d.was_best ? null : el("span", {class: "best-was"}, `best: ${d.best.label}`)),
    el("td", {class: "num"}, d.was_best ? "✓" : fmt(d.loss))));
  $("#log tbody").replaceChildren(...rows);
  $("#lost").textContent = g.log.length ? `· ${fmt(g.lost)} points lost in ${g.log.length}` : "";
}

function drawChart() {
  const chart = $("#chart");
  const d = yz.dist;
  chart.replaceChildren();
  const missing = !d && yz.info && yz.info.has_distribution === false;
  if (!d) $("#rank").replaceChildren();  // (a rank line of the game before goes too)
  $("#chart-note").hidden = !missing;
  if (missing) $("#chart-note").textContent = yz.info.from_store ? NOTE_STORE : NOTE_MEMORY;
  $("#dist-title .muted").textContent = missing ? "exact distribution: not computed here"
    : "exact distribution, optimal play";
  chart.style.display = missing ? "none" : "";
  if (!d) return;
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
  mass.forEach((m, b) => {
    const h = (H - 38) * m / top;
    chart.append(svg("rect", {x: pad + b * (W - 2 * pad) / bins, y: H - 22 - h,
      width: (W - 2 * pad) / bins - 1, height: h, fill: "#c9dcd4"}));
  });
  chart.append(svg("line", {x1: pad, x2: W - pad, y1: H - 22, y2: H - 22, stroke: "#aaa"}));
  for (const q of ["5", "50", "95"]) {
    chart.append(svg("text", {x: x(d.percentiles[q]), y: H - 8, "font-size": 9,
      "text-anchor": "middle", fill: "#6b655b"}, d.percentiles[q]));
  }
  const g = yz.game;
  const mark = (s, color, label, y = 10) => {
    const at = x(s);
    const anchor = at < 60 ? "start" : at > W - 60 ? "end" : "middle";
    chart.append(svg("line", {x1: at, x2: at, y1: y + 4, y2: H - 22, stroke: color,
      "stroke-width": 2}));
    chart.append(svg("text", {x: at, y, "font-size": 10, "text-anchor": anchor,
      fill: color}, label));
  };
  if (g && g.match) {  // both players: their totals, or where they are headed
    g.match.seats.forEach((s, i) => mark(s.over ? s.banked : s.expected_final,
      i ? "#9a4f10" : "#1f6f5c", `${s.name}: ${s.over ? s.banked : fmt(s.expected_final, 1)}`,
      10 + 12 * i));
  } else if (g && g.phase === "over") mark(g.banked, "#b3261e", `you: ${g.banked}`);
  else if (g) mark(g.expected_final, "#1f6f5c", `expected final ${fmt(g.expected_final, 1)}`);
  const rank = $("#rank");
  if (g && g.review && g.review.p_at_most !== undefined) {
    rank.replaceChildren(`Your ${g.banked}: P(score ≤ ${g.banked}) = `,
      el("b", {}, `${fmt(100 * g.review.p_at_most, 1)}%`),
      ` under optimal play (median ${d.median}).`);
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
  const worst = r.worst.map((d) => el("li", {}, `turn ${d.turn}, dice ${d.dice.join(" ")}: ` +
    `${d.chosen.label}, cost ${fmt(d.loss)} (best: ${d.best.label})`));
  box.replaceChildren(...[
    el("h2", {}, "Game over"), el("div", {class: "big", id: "final-total"}, r.total),
    el("div", {}, `optimal play averages ${fmt(r.expected_at_start)}; your total is ` +
      `${fmt(Math.abs(r.total - r.expected_at_start))} points ` +
      `${r.total < r.expected_at_start ? "below" : "above"} that: your decisions cost `,
      el("b", {}, fmt(r.lost)), ` (each one's loss in expected final score against the best ` +
      `move, added up, over ${r.decisions} decisions: ${r.best_decisions} best, mean loss ` +
      `${fmt(r.mean_loss, 3)}) and the dice ${r.luck < 0 ? "took" : "gave"} `,
      el("b", {}, fmt(Math.abs(r.luck))), " (luck)."),
    worst.length ? el("div", {class: "gap"}, "Your worst decisions:")
      : el("div", {}, "Every decision was a best one."),
    worst.length ? el("ol", {}, ...worst) : null,
    r.p_at_most !== undefined ? el("div", {class: "gap"},
      `P(score ≤ ${r.total}) = ${fmt(100 * r.p_at_most, 1)}% under optimal play.`) : null,
  ].filter(Boolean));
  box.hidden = false;
}

// ------------------------------------------------------------------ wiring

async function restore() {
  const saved = sessionStorage.getItem("yz-game");
  if (!saved) return false;
  try {
    const {rules, state, threshold: t, match} = JSON.parse(saved);
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
    const res = await api(match ? "/api/match/state" : "/api/state", {rules, state});
    setGame(res.game);
    if (botToMove()) playBots();
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
  $("#yaml").addEventListener("input", checkPasteSize);
  $("#roll").addEventListener("click", roll);
  $("#hint").addEventListener("click", showHints);
  $("#undo").addEventListener("click", undo);
  $("#own-enter").addEventListener("click", enterOwnDice);
  $("#own-input").addEventListener("keydown", (e) => { if (e.key === "Enter") enterOwnDice(); });
  $("#threshold").addEventListener("change", save);
  document.addEventListener("keydown", onKey);
  $("#yaml-file").addEventListener("change", async () => {
    const file = $("#yaml-file").files[0];
    if (!file) return;
    if (file.size > 4 * MAX_RULES_CHARS) {  // too big whatever its characters: not read
      showError(rulesTooLong(file.name, file.size, "bytes"));
      return;
    }
    const text = await file.text();
    const size = [...text].length;
    if (size > MAX_RULES_CHARS) {
      showError(rulesTooLong(file.name, size));
      return;
    }
    $("#yaml").value = text;
    checkPasteSize();
  });
  await loadVariants();
  document.body.dataset.ready = "1";
  await restore();
});
