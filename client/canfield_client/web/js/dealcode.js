// Deal codes (CF1-D3-AAAAACL) to decks, exactly as shared/canfield/dealcode.py
// does it: base-26 letters seed SplitMix64, which drives a Fisher-Yates shuffle
// with rejection sampling. BigInt keeps the 64-bit arithmetic exact.

import { RANKS, SUITS } from "./rules.js";

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const MASK = (1n << 64n) - 1n;
const TWO64 = 1n << 64n;

/** {letters, draw} for a code (case and outer spaces ignored), or null when malformed. */
export function parseDealCode(text) {
  const match = /^CF1-D([13])-([A-Z]{7})$/.exec(String(text).trim().toUpperCase());
  return match ? { draw: Number(match[1]), letters: match[2] } : null;
}

function seedOf(letters) {
  let seed = 0n;
  for (const ch of letters) seed = seed * 26n + BigInt(LETTERS.indexOf(ch));
  return seed;
}

function splitmix64(state) {
  const next = (state + 0x9e3779b97f4a7c15n) & MASK;
  let z = next;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return [next, z ^ (z >> 31n)];
}

/** The 52 cards (text) in canonical deal order for a deal code's letters. */
export function dealDeck(letters) {
  const deck = [];
  for (const suit of SUITS) for (const rank of RANKS) deck.push(rank + suit);
  let state = seedOf(letters);
  for (let i = 51; i > 0; i -= 1) {
    const bound = BigInt(i + 1);
    const limit = TWO64 - (TWO64 % bound);
    let value;
    do {
      [state, value] = splitmix64(state);
    } while (value >= limit);
    const j = Number(value % bound);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}
