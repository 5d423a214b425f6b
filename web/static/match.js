// yz play-along page, two-player games: a person against a bot, or two people at one device.
// The match lives in the tab as the one-player game does (its state, with the bots' moves, is
// sent with every request; the server replays it: /api/match/*). app.js draws the dice and
// the controls of the seat to move; this file draws both cards side by side, the live chances
// of winning, and plays the bots' moves one request at a time, pausing between them so that
// each one is seen. Every text reaches the page through textContent (`el`), never as HTML.
"use strict";

Object.assign(window.yz, {
  botPause: 900,    // ms between two bot moves shown
  botSteps: [],     // each bot move as it was shown: {moves, label, at}
  playingBots: false,
});

function pct(p, digits = 1) { return p === null || p === undefined ? "?" : `${(100 * p).toFixed(digits)}%`; }

function botToMove() {
  const g = yz.game;
  return !!(g && g.match && g.match.bot_to_move);
}

function seatName(i, capital = false) {
  const name = yz.game.match.seats[i].name;
  return capital ? name[0].toUpperCase() + name.slice(1) : name;
}

// The chosen opponent: "" (play alone), a bot's kind, or "person" (two people).
function chosenSeats() {
  const o = $("#opponent").value;
  return o ? ["person", o] : null;
}

function matchRequest(rules, seed) {
  return {rules, seed, seats: chosenSeats(), first: $("#opponent-first").checked ? 1 : 0,
    own_dice: $("#own-dice").checked, win_chances: $("#win-chances").checked};
}

// ------------------------------------------------------------------ the bots, one by one

async function playBots() {
  if (yz.playingBots) return;
  yz.playingBots = true;
  const feed = $("#feedback");
  try {
    let lines = [];
    let seat = null;
    while (botToMove() && yz.game.phase !== "dice") {
      $("#match-status").focus({preventScroll: true});
      await new Promise((r) => setTimeout(r, yz.botPause));
      if (!botToMove()) break;
      const res = await api("/api/match/bot", {rules: yz.rules, state: yz.game.state});
      const b = res.bot;
      if (b.seat !== seat) { lines = []; seat = b.seat; }
      lines.push(el("li", {}, `dice ${b.dice.join(" ")}: ${b.label}`));
      setGame(res.game);
      yz.botSteps.push({moves: yz.game.state.moves.length, label: b.label, at: performance.now()});
      feed.className = "feedback bot";
      feed.replaceChildren(el("b", {}, `${seatName(b.seat, true)}: `), el("ol", {}, ...lines));
      feed.hidden = false;
    }
  } catch (e) {
    showError(e.message);
  } finally {
    yz.playingBots = false;
  }
  if (yz.game && !botToMove()) focusNext("bot");
}

// After a person's move: the note on it, then the bots' turn if it is theirs.
function matchAfterMove(res) {
  showMatchDecision(res.decision);
  if (botToMove()) playBots();
  else focusNext(res.decision && res.decision.chosen.kind === "score" ? "score" : "roll");
}

function worth(a, d) {
  return d.objective === "win" ? `chance of winning ${pct(a.p_win, 2)}`
    : `expected final ${fmt(a.expected_final)}`;
}

function lossText(loss, objective) {
  return objective === "win" ? `${fmt(100 * loss)} percentage points of the chance of winning`
    : `${fmt(loss)} points`;
}

function showMatchDecision(d) {
  const box = $("#feedback");
  if (!d || yz.game.phase === "over") { box.hidden = true; return; }
  const two = yz.game.match.seats.every((s) => s.kind === "person");
  const about = `${two ? seatName(d.seat, true) + ", t" : "T"}urn ${d.turn}, dice ${d.dice.join(" ")}: `;
  if (d.was_best) {
    box.className = "feedback best";
    box.replaceChildren(about, `${d.chosen.label} was the best move (${worth(d.chosen, d)}).`);
  } else {
    box.className = "feedback costly";
    box.replaceChildren(about, `${d.chosen.label} cost `, el("b", {}, lossText(d.loss, d.objective)),
      ": the best was ", el("b", {}, d.best.label), ` (${worth(d.best, d)}).`);
  }
  box.hidden = false;
}

function matchWarning(w) {
  return [el("b", {}, "Coach: "), `${w.chosen.label} costs `, el("b", {}, lossText(w.loss, w.objective)),
    ` (more than your coach threshold of ${w.threshold}). The best is `, el("b", {}, w.best.label),
    ` (${worth(w.best, w)}).`];
}

// ------------------------------------------------------------------ drawing

function drawMatch() {
  const g = yz.game;
  const m = g.match;
  const who = m.over ? "" : m.seats[m.current].name;
  $("#match-status").textContent = m.over ? "Game over"
    : who === "you" ? "Your turn" : `${seatName(m.current, true)}'s turn`;
  $("#match-status").hidden = false;
  drawChances();
  drawMatchCard();
  drawMatchLog();
  drawMatchReview();
  $("#card-title").firstChild.textContent = "Score cards ";
}

function drawChances() {
  const m = yz.game.match;
  const box = $("#chances");
  const c = m.seats.map((s) => s.chance);
  box.hidden = c.every((x) => x === null);
  if (box.hidden) return;
  const share = c[0] !== null && c[1] !== null && c[0] + c[1] > 0 ? c[0] / (c[0] + c[1])
    : c[0] !== null ? c[0] : 1 - c[1];
  const seat = (i) => el("div", {class: `who seat${i}${m.current === i && !m.over ? " now" : ""}`},
    el("span", {}, seatName(i, true)), " ", el("b", {"data-chance": i}, pct(c[i])));
  const fill = el("div");
  fill.style.width = `${(100 * share).toFixed(1)}%`;  // (CSSOM: the page allows no inline style)
  const bar = el("div", {class: "meter", role: "img",
    "aria-label": `chances of winning: ${seatName(0)} ${pct(c[0])}, ${seatName(1)} ${pct(c[1])}`},
    fill);
  const skipped = m.seats.filter((s) => s.skipped_seconds !== null && s.skipped_seconds !== undefined);
  box.replaceChildren(el("div", {class: "title muted"}, "chance of winning"), seat(0), bar, seat(1));
  if (skipped.length) {
    box.append(el("div", {class: "muted note"}, skipped.map((s) =>
      `${s.name}: not computed this turn (about ${Math.ceil(s.skipped_seconds)} s here); ` +
      "judged by the expected score").join("; ")));
  }
}

function drawMatchCard() {
  const g = yz.game;
  const m = g.match;
  const mover = m.over ? null : m.current;
  const person = mover !== null && m.seats[mover].kind === "person";
  const rows = [el("tr", {class: "seats"}, el("th", {scope: "col"}, "box"),
    ...m.seats.map((s, i) => el("th", {scope: "col", class: `score${mover === i ? " now" : ""}`},
      seatName(i, true))))];
  const add = (cls, name, cells, key) => {
    const tr = el("tr", {class: cls}, el("td", {}, ...name), ...cells);
    if (key) tr.dataset.box = key;
    rows.push(tr);
    return tr;
  };
  let section = null;
  m.seats[0].card.forEach((row, r) => {
    if (row.section !== section) {
      section = row.section;
      add("section", [section === "upper" ? "Upper section" : "Lower section"], [el("td"), el("td")]);
    }
    let can = false;
    const cells = m.seats.map((s, i) => {
      const score = s.card[r].score;
      if (score !== null) return el("td", {class: "score filled"}, score);
      const now = i === mover && g.box_scores && g.box_scores[row.box];
      if (now && person && now.legal && (g.phase === "keep" || g.phase === "score")) {
        can = true;
        return el("td", {class: "score"}, el("button", {type: "button", class: "box",
          "aria-label": `score ${row.name} for ${now.points}`}, `+${now.points}`));
      }
      return el("td", {class: "score open"}, now && now.legal ? now.points : "");
    });
    const tr = add(`${can ? "open can" : "row"}`, [row.name], cells, row.box);
    if (can) tr.onclick = () => move({score: row.box});
  });
  const sums = (f) => m.seats.map((s) => el("td", {class: "score"}, f(s)));
  if (g.upper_threshold) {
    add("sum", ["Upper bonus ", el("span", {class: "muted"}, `(of ${g.upper_threshold})`)],
      sums((s) => `${s.upper_bonus} (${s.upper_total})`), "upper_bonus");
  }
  if (yz.info.yahtzee_bonus) add("sum", ["Yahtzee bonus"], sums((s) => s.yahtzee_bonus), "yahtzee_bonus");
  add("total", ["Total"], sums((s) => s.banked), "total");
  const card = $("#card");
  card.classList.add("two");
  card.querySelector("tbody").replaceChildren(...rows);
}

function drawMatchLog() {
  const g = yz.game;
  const two = g.match.seats.every((s) => s.kind === "person");
  const rows = [...g.log].reverse().map((d) => el("tr", {class: d.was_best ? "" : "costly"},
    el("td", {}, two ? `${d.seat + 1}·${d.turn}` : d.turn), el("td", {class: "dice-cell"}, d.dice.join(" ")),
    el("td", {}, d.chosen.label,
      d.was_best ? null : el("span", {class: "best-was"}, `best: ${d.best.label}`)),
    el("td", {class: "num"}, d.was_best ? "✓" : d.objective === "win" ? `${fmt(100 * d.loss)}%`
      : fmt(d.loss))));
  $("#log tbody").replaceChildren(...rows);
  const lost = g.log.filter((d) => d.objective === "win").reduce((s, d) => s + d.loss, 0);
  $("#lost").textContent = g.log.length ? `· ${fmt(100 * lost)} percentage points of the ` +
    `chance of winning lost in ${g.log.length}` : "";
}

function drawMatchReview() {
  const m = yz.game.match;
  const box = $("#review");
  if (!m.review) { box.hidden = true; return; }
  const r = m.review;
  const [a, b] = r.totals;
  const result = r.winner === null ? `A draw at ${a}`
    : m.seats[r.winner].name === "you" ? `You win, ${r.totals[r.winner]} to ${r.totals[1 - r.winner]}`
      : `${seatName(r.winner, true)} wins, ${r.totals[r.winner]} to ${r.totals[1 - r.winner]}`;
  const parts = [el("h2", {}, "Game over"), el("div", {class: "big", id: "final-total"},
    `${a} – ${b}`), el("div", {id: "match-result"}, `${result}.`)];
  for (const p of r.people) {
    const whose = m.seats[p.seat].name === "you" ? "Your" : `${seatName(p.seat, true)}'s`;
    parts.push(el("div", {class: "gap"}, `${whose} decisions: ${p.decisions}, ${p.best_decisions} ` +
      `best; they cost `, el("b", {}, `${fmt(100 * p.lost_chance)} percentage points`),
      " of the chance of winning" + (p.lost_points ? ` and ${fmt(p.lost_points)} points of expected ` +
      "final score (those judged by it)" : "") + "."));
    if (p.worst.length) {
      parts.push(el("ol", {}, ...p.worst.map((d) => el("li", {}, `turn ${d.turn}, dice ` +
        `${d.dice.join(" ")}: ${d.chosen.label}, cost ${lossText(d.loss, d.objective)} ` +
        `(best: ${d.best.label})`))));
    }
  }
  box.replaceChildren(...parts);
  box.hidden = false;
}

// A solitaire game leaves the two-player parts of the page as they were.
function clearMatch() {
  $("#chances").hidden = true;
  $("#match-status").hidden = true;
  $("#card").classList.remove("two");
  $("#card-title").firstChild.textContent = "Score card ";
}

// The two-player options show only when there is an opponent.
window.addEventListener("DOMContentLoaded", () => {
  const sync = () => {
    for (const label of document.querySelectorAll("#setup .two-player")) {
      label.hidden = !$("#opponent").value;
    }
  };
  $("#opponent").addEventListener("change", sync);
  sync();
});
