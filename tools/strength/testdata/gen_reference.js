// gen_reference.js builds a reproducible corpus of realistic passwords and
// scores them with the reference implementation, npm zxcvbn 4.4.2, writing
// reference_scores.tsv (password \t score \t guesses_log10).
//
// Rerun (from this directory):
//   mkdir -p /tmp/zx && (cd /tmp/zx && npm pack zxcvbn@4.4.2 && tar xzf zxcvbn-4.4.2.tgz)
//   node gen_reference.js /tmp/zx/package > reference_scores.tsv
//
// zxcvbn 4.4.2 reads the current year for year and date guesses; the Go
// package fixes it as ReferenceYear. The year the run saw goes to stderr
// and must equal that constant.
'use strict';
const path = require('path');

const pkg = process.argv[2] || '/tmp/zx/package';
const zxcvbn = require(pkg);
const lists = require(path.join(pkg, 'lib', 'frequency_lists.js'));
const graphs = require(path.join(pkg, 'lib', 'adjacency_graphs.js'));

// mulberry32: small seeded PRNG, so the corpus is the same on every run.
function rng(seed) {
  return function () {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(20161114);
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1)); // inclusive
const pick = (arr) => arr[Math.floor(rand() * arr.length)];
// Skewed towards the top of a ranked list, like real choices.
const ranked = (list) => list[Math.floor(Math.pow(rand(), 2.5) * list.length)];

const lower = 'abcdefghijklmnopqrstuvwxyz';
const upper = lower.toUpperCase();
const digits = '0123456789';
const symbols = '!@#$%^&*()-_=+[]{};:\'",.<>/?\\|`~ ';
const l33t = { a: ['4', '@'], e: ['3'], i: ['1', '!'], o: ['0'], s: ['$', '5'], t: ['7', '+'], l: ['1'], g: ['9'], b: ['8'] };

const word = () => ranked(pick([lists.english_wikipedia, lists.passwords, lists.female_names, lists.male_names, lists.surnames, lists.us_tv_and_film]));
const capitalise = (w) => w.charAt(0).toUpperCase() + w.slice(1);
function leet(w) {
  let out = '';
  for (const c of w) out += l33t[c] && rand() < 0.7 ? pick(l33t[c]) : c;
  return out;
}
function randomCase(w) {
  let out = '';
  for (const c of w) out += rand() < 0.3 ? c.toUpperCase() : c;
  return out;
}
function randomString(len, alphabet) {
  let s = '';
  for (let k = 0; k < len; k++) s += alphabet.charAt(int(0, alphabet.length - 1));
  return s;
}
const year = () => String(int(1940, 2025));
const pad = (n) => (n < 10 ? '0' + n : String(n));
function date() {
  const d = int(1, 28), m = int(1, 12), y = int(1950, 2024);
  const yy = rand() < 0.5 ? String(y) : pad(y % 100);
  const sep = pick(['', '', '/', '-', '.', '_']);
  const dd = rand() < 0.7 ? pad(d) : String(d), mm = rand() < 0.7 ? pad(m) : String(m);
  return pick([[dd, mm, yy], [mm, dd, yy], [yy, mm, dd]]).join(sep);
}
function keyboardWalk() {
  const name = pick(['qwerty', 'qwerty', 'qwerty', 'dvorak', 'keypad', 'mac_keypad']);
  const g = graphs[name];
  let key = pick(Object.keys(g));
  let dir = int(0, g[key].length - 1);
  let s = key;
  const len = int(3, 12);
  for (let k = 1; k < len; k++) {
    if (rand() < 0.25) dir = int(0, g[key].length - 1); // a turn
    const next = g[key][dir];
    if (!next) break;
    const c = rand() < 0.15 && next.length > 1 ? next.charAt(1) : next.charAt(0);
    s += c;
    key = next.charAt(0);
  }
  return s;
}
function sequence() {
  const start = pick([lower, upper, digits]);
  const step = pick([1, 1, 1, 2, 3]) * (rand() < 0.3 ? -1 : 1);
  const len = int(3, 10);
  let k = step > 0 ? int(0, 5) : start.length - 1 - int(0, 5);
  let s = '';
  while (s.length < len && k >= 0 && k < start.length) { s += start.charAt(k); k += step; }
  return s;
}
function repeat() {
  const unit = pick([randomString(1, lower + digits), randomString(int(2, 4), lower + digits), word()]);
  return unit.repeat(int(2, 4));
}
const suffix = () => pick([String(int(0, 9)), String(int(10, 99)), '123', '1234', year(), pick(['!', '!!', '?', '#', '@', '.', '*']), randomString(int(1, 3), digits + symbols)]);

const makers = [
  () => ranked(lists.passwords),
  () => ranked(lists.passwords),
  () => capitalise(word()),
  () => word().toUpperCase(),
  () => randomCase(word()),
  () => leet(word()),
  () => capitalise(leet(word())),
  () => word() + suffix(),
  () => capitalise(word()) + suffix(),
  () => leet(capitalise(word())) + suffix() + suffix(),
  () => word() + word(),
  () => word() + pick(['', '-', '_', '.', ' ']) + word() + pick(['', String(int(1, 99))]),
  () => [word(), word(), word()].join(pick(['', ' ', '-'])),
  () => [word(), word(), word(), word()].join(pick(['', ' '])),
  () => word().split('').reverse().join(''),
  () => keyboardWalk(),
  () => keyboardWalk() + suffix(),
  () => word() + keyboardWalk(),
  () => date(),
  () => word() + date(),
  () => capitalise(word()) + year(),
  () => year() + word(),
  () => sequence(),
  () => word() + sequence(),
  () => repeat(),
  () => randomString(int(4, 8), lower),
  () => randomString(int(6, 12), lower + digits),
  () => randomString(int(8, 16), lower + upper + digits),
  () => randomString(int(8, 24), lower + upper + digits + symbols),
  () => randomString(int(4, 10), digits),
  // Harder cases: ambiguous l33t, non-ASCII (BMP only: zxcvbn counts UTF-16
  // units, the Go package runes), long inputs, mixed patterns.
  () => pick(['p4$$w0rd', 'l1ttl3', '|ove', 'h3||0', '7r1ck', 'b1gb0$$', '$3cr3+', 'pa55w0rd!', '@dm1n', 'g00gl3', 'm0nk3y', 'dr4g0n', '5up3rm4n', 'ph0en1x', '(h1(k3n']) + suffix(),
  () => leet(word()) + leet(word()),
  () => pick(['пароль', 'привет', 'passwörd', 'müller', 'αβγδε', 'абвгд', 'zürich', 'ÄÖÜäöü', '日本語', 'contraseña', 'señor']) + pick(['', suffix()]),
  () => randomString(int(6, 14), 'αβγδεζηθικλμνξοπρστυφχψω' + lower),
  () => randomString(int(30, 64), lower + upper + digits + symbols),
  () => [word(), word(), word(), word(), word(), word()].join(''),
  () => { const u = word() + String(int(1, 999)); return u + u; },
  () => word() + word().split('').reverse().join(''),
  () => String(int(2015, 2030)) + pick(['', word()]),
  () => pick(['7894561230', '147258369', '159357', '1qaz2wsx', 'zaq12wsx', '!QAZ2wsx', 'qazwsxedc', '1q2w3e4r5t', 'poiuytrewq', 'asdfghjkl;']) + pick(['', suffix()]),
  () => pick(['', word()]) + [pad(int(1, 28)), pad(int(1, 12)), String(int(1900, 2049))].join(pick([' ', '\\', '/', '.'])),
  () => randomString(int(1, 3), lower + digits + symbols),
];

const seen = new Set();
const rows = [];
while (rows.length < 2000) {
  const pw = pick(makers)();
  if (!pw || seen.has(pw) || /[\t\n\r]/.test(pw)) continue;
  seen.add(pw);
  const r = zxcvbn(pw);
  rows.push(`${pw}\t${r.score}\t${r.guesses_log10.toFixed(6)}`);
}
process.stderr.write(`reference year seen by zxcvbn: ${new Date().getFullYear()}\n`);
process.stdout.write(rows.join('\n') + '\n');
