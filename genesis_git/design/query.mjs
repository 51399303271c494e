#!/usr/bin/env node
// Reader of a genesis design library: Node.js >= 20, no dependencies, read-only.
//
//   node query.mjs "深色 卡片 间距" --top 5 --json
//   node query.mjs "圆角 20vp" --markdown
//
// It reads index.json next to this file and scores exactly as
// `genesis design search` does (same tokenizer rules, same synonym groups,
// same arithmetic, scores rounded to 6 decimals). The tables it needs
// (stopwords, stop characters, synonyms, areas, profile) are stored in
// index.json. Exit codes: 0 ok, 2 bad usage or an empty or unreadable index.
// Written by `genesis design init`; its sha256 is manifest.json's engineSha256.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const TOKENIZER = "t1";
const RUN = /[A-Za-z0-9_\-]+|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+/g;
const CAMEL = /[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9]+|[A-Z0-9]+/g;
const VALUE = new RegExp(
  "#(?:[0-9A-Fa-f]{8}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{3})(?![0-9A-Za-z])" +
  "|(?<![0-9A-Za-z.#])(\\d{1,6}(?:\\.\\d{1,3})?)(:1|[A-Za-z]{1,3}|%)?(?![0-9A-Za-z])", "g");
const ALPHA = /^[a-z]+$/;

function fail(message, hint) {
  process.stderr.write(`query.mjs: ${message}${hint ? ` (${hint})` : ""}\n`);
  process.exit(2);
}

function isCjk(s) {
  const o = s.codePointAt(0);
  return (o >= 0x3040 && o <= 0x30ff) || (o >= 0x3400 && o <= 0x4dbf) ||
    (o >= 0x4e00 && o <= 0x9fff) || (o >= 0xac00 && o <= 0xd7af) || (o >= 0xf900 && o <= 0xfaff);
}

function cpLen(s) {
  return Array.from(s).length;
}

function makeTokenizer(stopwords, stopchars) {
  const fold = (tok) => {
    if (tok.length > 4 && tok.endsWith("ies") && ALPHA.test(tok)) return tok.slice(0, -3) + "y";
    if (tok.length > 3 && tok.endsWith("s") && ALPHA.test(tok) &&
        !(tok.endsWith("ss") || tok.endsWith("us") || tok.endsWith("is"))) return tok.slice(0, -1);
    return tok;
  };
  const keep = (tok) => !stopwords.has(tok) && !(tok.length === 1 && /^[A-Za-z]$/.test(tok));
  const wordTokens = (run, out) => {
    const parts = run.split(/[_\-]+/).filter((p) => p);
    const pieces = [];
    for (const part of parts) pieces.push(...(part.match(CAMEL) || []));
    const whole = fold(parts.join("").toLowerCase());
    if (whole && keep(whole)) out.push(whole);
    if (pieces.length > 1) {
      for (const piece of pieces) {
        const tok = fold(piece.toLowerCase());
        if (tok !== whole && keep(tok)) out.push(tok);
      }
    }
  };
  const cjkTokens = (run, out) => {
    let piece = [];
    for (const ch of [...Array.from(run), "\0"]) {
      if (ch === "\0" || stopchars.has(ch)) {
        if (piece.length === 1) {
          out.push(piece[0]);
        } else {
          for (let i = 0; i < piece.length - 1; i++) {
            const bigram = piece[i] + piece[i + 1];
            if (!stopwords.has(bigram)) out.push(bigram);
          }
        }
        piece = [];
      } else {
        piece.push(ch);
      }
    }
  };
  return (text) => {
    const out = [];
    for (const m of text.normalize("NFKC").matchAll(RUN)) {
      if (isCjk(m[0])) cjkTokens(m[0], out);
      else wordTokens(m[0], out);
    }
    return out;
  };
}

function unique(items) {
  return [...new Set(items)];
}

function makeAnalyzer(index) {
  const tokenize = makeTokenizer(new Set(index.text.stopwords), new Set(index.text.stopchars));
  const byTerm = new Map();
  const cjkTerms = [];
  for (const members of index.text.synonyms) {
    for (const m of members) {
      if (!byTerm.has(m)) byTerm.set(m, []);
      const bucket = byTerm.get(m);
      for (const other of members) if (other !== m && !bucket.includes(other)) bucket.push(other);
      if (m && isCjk(m) && !cjkTerms.includes(m)) cjkTerms.push(m);
    }
  }
  cjkTerms.sort((a, b) => (cpLen(b) - cpLen(a)) || (a < b ? -1 : a > b ? 1 : 0));
  const synWeight = index.params.synonymWeight;
  return (text) => {
    const terms = new Map();
    const base = unique(tokenize(text));
    for (const t of base) terms.set(t, { term: t, weight: 1.0, origin: "query" });
    const sources = [...base];
    const norm = text.normalize("NFKC");
    for (const c of cjkTerms) if (norm.includes(c) && !sources.includes(c)) sources.push(c);
    for (const src of sources) {
      for (const syn of byTerm.get(src) || []) {
        for (const tok of unique(tokenize(syn))) {
          if (!terms.has(tok)) terms.set(tok, { term: tok, weight: synWeight, origin: `synonym:${src}` });
        }
      }
    }
    return [...terms.values()];
  };
}

function queryValues(text) {
  const out = [];
  for (const m of text.normalize("NFKC").matchAll(VALUE)) {
    const key = m[1] === undefined ? m[0].toLowerCase() : String(Number(m[1])) + (m[2] || "").toLowerCase();
    if (!out.includes(key)) out.push(key);
  }
  return out;
}

const rnd = (x) => Math.floor(x * 1000000 + 0.5) / 1000000;
const fmt6 = (x) => x.toFixed(6).replace(/0+$/, "").replace(/\.$/, "");

function search(index, query, top) {
  const params = index.params;
  const terms = makeAnalyzer(index)(query);
  const { postings, idf, chunks, cards } = index;
  const norms = chunks.norm;
  const owners = chunks.card;
  const nChunks = owners.length;
  const k1p1 = params.k1 + 1;
  const acc = new Map();
  for (const qt of terms) {
    const plist = Object.hasOwn(postings, qt.term) ? postings[qt.term] : null;
    if (!plist || plist.length === 0) continue;
    const w = qt.weight * idf[qt.term];
    for (let i = 0; i < plist.length; i += 2) {
      const ci = plist[i];
      const tf = plist[i + 1];
      acc.set(ci, (acc.get(ci) ?? 0.0) + w * tf * k1p1 / (tf + norms[ci]));
    }
  }
  const best = new Map();
  for (const ci of [...acc.keys()].sort((a, b) => a - b)) {
    const owner = owners[ci];
    const score = acc.get(ci);
    if (!best.has(owner) || score > best.get(owner)[0]) best.set(owner, [score, ci]);
  }
  const qset = new Set(terms.map((t) => t.term));
  const roots = new Map();
  for (const qt of terms) {
    const root = qt.origin === "query" ? qt.term : qt.origin.slice(qt.origin.indexOf(":") + 1);
    if (!roots.has(root)) roots.set(root, new Set());
    roots.get(root).add(qt.term);
  }
  const qvalues = queryValues(query);
  const qareas = Object.entries(index.areas).filter(([, words]) => words.some((w) => qset.has(w))).map(([a]) => a);
  const active = index.profile.activeAreas || [];
  let results = [];
  cards.forEach((card, idx) => {
    if (card.status === "blocked") return;
    let [bm25, ci] = best.get(idx) || [0.0, -1];
    const nv = qvalues.filter((v) => card.values.includes(v)).length;
    const tagSet = new Set(card.tagTerms.flat());
    const nt = [...roots.values()].filter((members) => [...members].some((t) => tagSet.has(t))).length;
    const tokenBoost = params.valueBoost * nv + params.tagBoost * nt;
    if (bm25 === 0 && tokenBoost === 0) return;
    const matched = card.areas.some((a) => active.includes(a) && qareas.includes(a));
    const profileBoost = matched ? params.profileBoost : 0.0;
    const raw = bm25 + tokenBoost + profileBoost;
    const score = card.weight * card.licenseFactor * raw;
    if (ci < 0) ci = card.chunks[0];
    const inside = ci >= 0 && ci < nChunks;
    results.push({
      cardId: card.id,
      title: card.title,
      score: rnd(score),
      breakdown: {
        bm25: rnd(bm25), tokenBoost: rnd(tokenBoost), profileBoost: rnd(profileBoost),
        weight: card.weight, licenseFactor: card.licenseFactor,
      },
      section: inside ? chunks.section[ci] : "",
      snippet: inside ? chunks.text[ci] : "",
      tags: card.tags,
      tokens: card.tokens,
      images: card.images,
      source: card.source,
    });
  });
  results.sort((a, b) => (b.score - a.score) || (a.cardId < b.cardId ? -1 : a.cardId > b.cardId ? 1 : 0));
  results = results.slice(0, top);
  const warnings = [];
  if (nChunks > params.maxChunks) {
    warnings.push(`the library has ${nChunks} chunks, more than design.max_chunks=${params.maxChunks}; search still runs`);
  }
  for (const r of results) {
    if (r.breakdown.licenseFactor !== 1) warnings.push(`${r.cardId}: license unknown; ranked lower and kept out of briefs`);
  }
  return { query, ranker: "lexical", reranked: false, terms, results, warnings };
}

function renderMarkdown(result) {
  const lines = [`# design search: ${result.query}`, ""];
  if (result.results.length === 0) {
    lines.push("_no results_");
  } else {
    lines.push("| # | card | score | bm25 | tokenBoost | profileBoost | weight | title | source | license |");
    lines.push("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |");
    result.results.forEach((r, i) => {
      const b = r.breakdown;
      const src = r.source;
      const cells = [String(i + 1), r.cardId, fmt6(r.score), fmt6(b.bm25), fmt6(b.tokenBoost),
        fmt6(b.profileBoost), fmt6(b.weight), r.title, `${src.kind ?? ""} · ${src.ref ?? ""}`, src.license ?? ""];
      lines.push("| " + cells.map((c) => String(c).replaceAll("|", "\\|").replaceAll("\n", " ")).join(" | ") + " |");
    });
  }
  for (const w of result.warnings) {
    lines.push("");
    lines.push(`> warning: ${w}`);
  }
  return lines.join("\n") + "\n";
}

function renderText(result) {
  if (result.results.length === 0) return "no results\n";
  return result.results.map((r, i) => {
    const b = r.breakdown;
    return `${i + 1}. ${r.cardId}  ${fmt6(r.score)}  ${r.title}\n` +
      `   bm25 ${fmt6(b.bm25)} + token ${fmt6(b.tokenBoost)} + profile ${fmt6(b.profileBoost)}` +
      ` × weight ${fmt6(b.weight)}${b.licenseFactor !== 1 ? ` × license ${fmt6(b.licenseFactor)}` : ""}` +
      `  [${r.source.license ?? ""}]\n`;
  }).join("");
}

const REQUIRED = ["tokenizer", "params", "text", "areas", "profile", "avgLen", "cards", "chunks", "idf", "postings"];

function loadIndex(path) {
  const hint = "run `genesis design init`, then `genesis design ingest rules`";
  let text;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    fail(`no index at ${path}`, hint);
  }
  let index;
  try {
    index = JSON.parse(text);
  } catch (err) {
    fail(`${path} is corrupt: ${err.message}`, hint);
  }
  if (index === null || typeof index !== "object" || REQUIRED.some((k) => !(k in index)) ||
      !Array.isArray(index.cards)) {
    fail(`${path} is corrupt: required fields are missing`, hint);
  }
  if (index.tokenizer !== TOKENIZER) fail(`${path} uses tokenizer ${index.tokenizer}; this reader knows ${TOKENIZER}`, hint);
  const chunks = index.chunks;
  if (chunks === null || typeof chunks !== "object" ||
      ["id", "card", "section", "norm", "text"].some((k) => !Array.isArray(chunks[k]) || chunks[k].length !== chunks.id.length)) {
    fail(`${path} is corrupt: bad chunks`, hint);
  }
  if (chunks.id.length === 0) fail(`${path} is empty: the library has no cards`, "run `genesis design ingest rules`");
  return index;
}

const USAGE = "usage: node query.mjs QUERY... [--top N] [--json | --markdown]";

function main(argv) {
  const words = [];
  let top = null;
  let mode = "text";
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "-h" || arg === "--help") {
      process.stdout.write(`${USAGE}\nSearch the design library next to this file (read-only).\n`);
      return 0;
    } else if (arg === "--json") {
      mode = "json";
    } else if (arg === "--markdown") {
      mode = "markdown";
    } else if (arg === "--top" || arg.startsWith("--top=")) {
      const value = arg === "--top" ? argv[++i] : arg.slice(6);
      if (!/^[0-9]+$/.test(value ?? "") || Number(value) < 1) fail(`--top needs a positive integer`, USAGE);
      top = Number(value);
    } else if (arg.startsWith("--")) {
      fail(`unknown option ${arg}`, USAGE);
    } else {
      words.push(arg);
    }
  }
  const query = words.join(" ");
  if (!query.trim()) fail("the query is empty", USAGE);
  const here = dirname(fileURLToPath(import.meta.url));
  const index = loadIndex(join(here, "index.json"));
  const result = search(index, query, top ?? index.params.top ?? 5);
  for (const w of result.warnings) process.stderr.write(`query.mjs: warning: ${w}\n`);
  if (mode === "json") process.stdout.write(JSON.stringify(result, null, 2) + "\n");
  else if (mode === "markdown") process.stdout.write(renderMarkdown(result));
  else process.stdout.write(renderText(result));
  return 0;
}

process.exitCode = main(process.argv.slice(2));
