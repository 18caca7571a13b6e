// What the browser remembers: the display name, preferences, and the secret
// token of each room joined (so a reload or a new tab resumes the same seat).

const PREFIX = "cfr.";

function read(storage, key) {
  try {
    const raw = storage.getItem(PREFIX + key);
    return raw === null ? null : JSON.parse(raw);
  } catch {
    return null;
  }
}

function write(storage, key, value) {
  try {
    if (value === null) storage.removeItem(PREFIX + key);
    else storage.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    // private mode or full storage: the page still works, it just forgets
  }
}

export const getName = () => read(localStorage, "name") || "";
export const setName = (name) => write(localStorage, "name", name);

export function getPref(key, fallback) {
  const value = read(localStorage, `pref.${key}`);
  return value === null ? fallback : value;
}
export const setPref = (key, value) => write(localStorage, `pref.${key}`, value);

// the seats this page keeps: "seat." (a person's), or a scope of their own (a TV
// on the same browser watches in a seat of its own, never the one its owner races in)
let seats = "seat.";

/** Keep this page's seats apart under `scope` ("tv"). */
export function scopeSeats(scope) {
  seats = `seat.${scope}.`;
}

/** The seat in a room: {token, player_id}; the tab's own copy wins over the shared one. */
export function getSeat(room) {
  const key = seats + room;
  return read(sessionStorage, key) || read(localStorage, key);
}

export function setSeat(room, seat) {
  write(sessionStorage, seats + room, seat);
  write(localStorage, seats + room, seat);
}

export function clearSeat(room) {
  write(sessionStorage, seats + room, null);
  write(localStorage, seats + room, null);
}
