// English and Croatian UI text. The language comes from the browser and can be
// switched; static markup marks its text with data-i18n="key".

const STRINGS = {
  en: {
    title: "Canfield Race",
    tagline: "Race your friends on the same Canfield deal.",
    name: "Your name",
    new_game: "New race",
    room_code: "Room code",
    join: "Join",
    watch: "Watch",
    join_room: "Join room {code}",
    or: "or",
    settings: "Settings",
    double_click: "Double click",
    double_click_hint: "Tapping a card that cannot go to a foundation moves it to a column",
    language: "Language",
    lobby: "Room {code}",
    share_link: "Share link",
    copy: "Copy",
    copied: "Copied",
    players: "Players",
    spectators: "Spectators",
    host: "host",
    you: "you",
    ready: "Ready",
    not_ready: "Not ready",
    im_ready: "I'm ready",
    start: "Start",
    add_bot: "Add a bot",
    bot: "bot",
    draw_mode: "Draw",
    draw3: "3 cards",
    hard: "Hard",
    draw1: "1 card",
    easy: "Easy",
    deal: "Deal",
    random_deal: "Random deal",
    deal_code: "Deal code",
    typed_deal: "This deal code:",
    custom_deal: "chosen by the host",
    time_limit: "Time limit",
    no_limit: "None",
    minutes: "{n} min",
    winnable_only: "Winnable deals only",
    practice: "Practice (hints)",
    wait_host: "Waiting for the host to start.",
    need_player: "At least one player is needed.",
    starting_in: "Starting in",
    go: "Go!",
    stock: "Stock",
    waste: "Waste",
    reserve: "Reserve",
    foundation: "Foundation",
    column: "Column {n}",
    score: "Score",
    time: "Time",
    left: "Left",
    undo: "Undo",
    hint: "Hint",
    no_hint: "No hint",
    give_up: "Give up",
    sure_give_up: "Sure? Give up",
    no_useful: "No useful move left - undo or give up",
    you_won: "All 52 cards home!",
    you_gave_up: "You gave up. Watch the others finish.",
    rank: "#",
    player: "Player",
    cards: "Cards",
    moves: "Moves",
    status: "Status",
    st_playing: "playing",
    st_won: "won",
    st_gave_up: "gave up",
    st_disconnected: "away",
    results: "Results",
    standings: "Final standings",
    replay: "Replay",
    step_back: "Step back",
    step_forward: "Step forward",
    play: "Play",
    pause: "Pause",
    first: "First",
    last: "Last",
    step: "Move {i} of {n}",
    par: "Solver line: {n} moves",
    rematch: "Rematch",
    wait_rematch: "The host can start a rematch.",
    reconnecting: "Connection lost - reconnecting...",
    spectating: "Watching",
    recycle: "Recycle",
    name_needed: "Type your name first.",
    code_needed: "Type the room code.",
    room_gone: "That room is gone or the link is old.",
    keys: "Keys: Space draws, U or Ctrl+Z undoes, H hints (practice).",
    leave: "Leave",
    sure_leave: "Sure? Leave (you give up)",
    remove: "Remove",
    remove_who: "Remove {name} from the room",
    kicked: "The host removed you from the room.",
  },
  hr: {
    title: "Canfield utrka",
    tagline: "Utrkuj se s prijateljima na istom dijeljenju Canfielda.",
    name: "Tvoje ime",
    new_game: "Nova igra",
    room_code: "Šifra sobe",
    join: "Pridruži se",
    watch: "Gledaj",
    join_room: "Pridruži se sobi {code}",
    or: "ili",
    settings: "Postavke",
    double_click: "Dvostruki klik",
    double_click_hint: "Dodir karte koja ne može na temelj premješta je na stupac",
    language: "Jezik",
    lobby: "Soba {code}",
    share_link: "Poveznica za dijeljenje",
    copy: "Kopiraj",
    copied: "Kopirano",
    players: "Igrači",
    spectators: "Gledatelji",
    host: "domaćin",
    you: "ti",
    ready: "Spreman",
    not_ready: "Nije spreman",
    im_ready: "Spreman sam",
    start: "Započni",
    add_bot: "Dodaj bota",
    bot: "bot",
    draw_mode: "Izvlačenje",
    draw3: "3 karte",
    hard: "Teško",
    draw1: "1 karta",
    easy: "Lako",
    deal: "Dijeljenje",
    random_deal: "Nasumično dijeljenje",
    deal_code: "Šifra dijeljenja",
    typed_deal: "Ova šifra dijeljenja:",
    custom_deal: "odabrao domaćin",
    time_limit: "Vremensko ograničenje",
    no_limit: "Bez",
    minutes: "{n} min",
    winnable_only: "Samo rješiva dijeljenja",
    practice: "Vježba (savjeti)",
    wait_host: "Čeka se da domaćin započne.",
    need_player: "Potreban je barem jedan igrač.",
    starting_in: "Počinje za",
    go: "Kreni!",
    stock: "Špil",
    waste: "Otpad",
    reserve: "Pričuva",
    foundation: "Temelj",
    column: "Stupac {n}",
    score: "Bodovi",
    time: "Vrijeme",
    left: "Preostalo",
    undo: "Poništi",
    hint: "Savjet",
    no_hint: "Nema savjeta",
    give_up: "Odustani",
    sure_give_up: "Sigurno? Odustani",
    no_useful: "Nema više korisnog poteza - poništi ili odustani",
    you_won: "Sve 52 karte su na temeljima!",
    you_gave_up: "Odustao si. Gledaj kako drugi završavaju.",
    rank: "#",
    player: "Igrač",
    cards: "Karte",
    moves: "Potezi",
    status: "Stanje",
    st_playing: "igra",
    st_won: "pobjeda",
    st_gave_up: "odustao",
    st_disconnected: "odsutan",
    results: "Rezultati",
    standings: "Konačni poredak",
    replay: "Snimka",
    step_back: "Korak natrag",
    step_forward: "Korak naprijed",
    play: "Pokreni",
    pause: "Zaustavi",
    first: "Prvi",
    last: "Zadnji",
    step: "Potez {i} od {n}",
    par: "Rješavačev put: {n} poteza",
    rematch: "Revanš",
    wait_rematch: "Domaćin može pokrenuti revanš.",
    reconnecting: "Veza je prekinuta - ponovno spajanje...",
    spectating: "Gledaš",
    recycle: "Okreni otpad",
    name_needed: "Najprije upiši ime.",
    code_needed: "Upiši šifru sobe.",
    room_gone: "Te sobe više nema ili je poveznica stara.",
    keys: "Tipke: razmak vuče, U ili Ctrl+Z poništava, H daje savjet (vježba).",
    leave: "Napusti",
    sure_leave: "Sigurno? Napusti (odustaješ)",
    remove: "Ukloni",
    remove_who: "Ukloni {name} iz sobe",
    kicked: "Domaćin te uklonio iz sobe.",
  },
};

export const LANGUAGES = Object.keys(STRINGS);
const listeners = [];
let lang = "en";

/** The first language of the browser's preferences that this page speaks. */
export function browserLanguage() {
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (base in STRINGS) return base;
  }
  return "en";
}

export function getLang() {
  return lang;
}

export function setLang(next) {
  lang = next in STRINGS ? next : "en";
  document.documentElement.lang = lang;
  applyStatic(document);
  for (const fn of listeners) fn(lang);
}

export function onLangChange(fn) {
  listeners.push(fn);
}

/** The text for key in the current language, with {name} placeholders filled. */
export function t(key, vars = {}) {
  const text = STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? ""));
}

/** Fill static markup: data-i18n (text), data-i18n-placeholder, data-i18n-title. */
export function applyStatic(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) {
    el.placeholder = t(el.dataset.i18nPlaceholder);
  }
  for (const el of root.querySelectorAll("[data-i18n-title]")) {
    el.title = t(el.dataset.i18nTitle);
    el.setAttribute("aria-label", el.title);
  }
  document.title = t("title");
}
