// Deal codes to decks, exactly as shared/canfield/dealcode.py does it
// (docs/deal-codes.md). Two versions:
//   CF1-D3-AAAAACL: seven letters, a base-26 seed for SplitMix64;
//   CF2-D3-<26 Crockford base32 characters>: a 130-bit seed; the stream is
//     SHA-256("canfield-race CF2 deal" 0x00 seed[17 bytes] counter[4 bytes]).
// Either stream drives the same Fisher-Yates shuffle with rejection sampling.
// BigInt keeps the 64-bit (and 130-bit) arithmetic exact. SHA-256 is computed
// here synchronously (crypto.subtle is async and missing on plain http:
// origins other than localhost), so a replay is still built in one call.

import { RANKS, SUITS } from "./rules.js";

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const BASE32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const ALIASES = { O: "0", I: "1", L: "1" };
const MASK = (1n << 64n) - 1n;
const TWO64 = 1n << 64n;
const MAX_TEXT = 128;
const V2_DOMAIN = "canfield-race CF2 deal\u0000";
const V2_SEED_BYTES = 17;

/** Only ASCII a-z fold to upper case and only ASCII white space trims (as the engine reads). */
function asciiUpper(text) {
  return text.replace(/^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g, "").replace(/[a-z]/g, (ch) => ch.toUpperCase());
}

/**
 * {version, draw, letters} for a code, or null when malformed. Case and outer
 * spaces are ignored; in a CF2 shuffle part dashes and spaces (grouping) are
 * dropped and O, I, L read as 0, 1, 1. letters is the written form.
 */
export function parseDealCode(text) {
  const raw = String(text);
  if (raw.length > MAX_TEXT) return null;
  const cleaned = asciiUpper(raw);
  const v1 = /^CF1-D([13])-([A-Z]{7})$/.exec(cleaned);
  if (v1) return { version: 1, draw: Number(v1[1]), letters: v1[2] };
  const v2 = /^CF2-D([13])-(.*)$/.exec(cleaned);
  if (!v2) return null;
  const chars = [...v2[2]]
    .filter((ch) => ch !== "-" && ch !== " ")
    .map((ch) => ALIASES[ch] ?? ch)
    .join("");
  if (chars.length !== 26 || [...chars].some((ch) => !BASE32.includes(ch))) return null;
  return { version: 2, draw: Number(v2[1]), letters: chars };
}

/** The written form of a parsed code: CF2-D3-... (upper case, ungrouped). */
export function formatDealCode({ version, draw, letters }) {
  return `CF${version}-D${draw}-${letters}`;
}

function seedOf(letters, alphabet) {
  const base = BigInt(alphabet.length);
  let seed = 0n;
  for (const ch of letters) seed = seed * base + BigInt(alphabet.indexOf(ch));
  return seed;
}

function splitmix64(state) {
  const next = (state + 0x9e3779b97f4a7c15n) & MASK;
  let z = next;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return [next, z ^ (z >> 31n)];
}

// ------------------------------------------------------------------ SHA-256 (FIPS 180-4)

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const rotr = (x, n) => (x >>> n) | (x << (32 - n));

/** SHA-256 of a byte array; returns the 32-byte digest. */
export function sha256(bytes) {
  const bitLength = bytes.length * 8;
  const padded = new Uint8Array(Math.ceil((bytes.length + 9) / 64) * 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bitLength / 2 ** 32));
  view.setUint32(padded.length - 4, bitLength >>> 0);
  const hash = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i += 1) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i += 1) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = hash;
    for (let i = 0; i < 64; i += 1) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    hash[0] += a;
    hash[1] += b;
    hash[2] += c;
    hash[3] += d;
    hash[4] += e;
    hash[5] += f;
    hash[6] += g;
    hash[7] += hh;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  hash.forEach((word, i) => outView.setUint32(i * 4, word));
  return out;
}

/** Block `counter` of the CF2 stream for a seed (a BigInt below 2**130). */
export function v2Block(seed, counter) {
  const message = new Uint8Array(V2_DOMAIN.length + V2_SEED_BYTES + 4);
  for (let i = 0; i < V2_DOMAIN.length; i += 1) message[i] = V2_DOMAIN.charCodeAt(i);
  let rest = seed;
  for (let i = V2_DOMAIN.length + V2_SEED_BYTES - 1; i >= V2_DOMAIN.length; i -= 1) {
    message[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  new DataView(message.buffer).setUint32(V2_DOMAIN.length + V2_SEED_BYTES, counter);
  return sha256(message);
}

// ------------------------------------------------------------------ shuffles

/** New-deck order shuffled with 64-bit values from next64(), without bias. */
function fisherYates(next64) {
  const deck = [];
  for (const suit of SUITS) for (const rank of RANKS) deck.push(rank + suit);
  for (let i = 51; i > 0; i -= 1) {
    const bound = BigInt(i + 1);
    const limit = TWO64 - (TWO64 % bound);
    let value;
    do {
      value = next64();
    } while (value >= limit);
    const j = Number(value % bound);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

function v1Stream(letters) {
  let state = seedOf(letters, LETTERS);
  return () => {
    let value;
    [state, value] = splitmix64(state);
    return value;
  };
}

function v2Stream(letters) {
  const seed = seedOf(letters, BASE32);
  let counter = 0;
  let block = null;
  let at = 32;
  return () => {
    if (at === 32) {
      block = new DataView(v2Block(seed, counter).buffer);
      counter += 1;
      at = 0;
    }
    const value = block.getBigUint64(at);
    at += 8;
    return value;
  };
}

/**
 * The 52 cards (text) in canonical deal order for a code's shuffle part:
 * seven letters A-Z (CF1) or 26 base32 characters (CF2); the length tells
 * the version, so dealDeck(parseDealCode(code).letters) deals any code.
 */
export function dealDeck(letters) {
  return fisherYates(letters.length === 26 ? v2Stream(letters) : v1Stream(letters));
}
