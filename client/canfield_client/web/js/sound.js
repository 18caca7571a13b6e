// The race's sounds and, on phones, its vibration: a draw, a card home, an
// illegal drop, the countdown's seconds and its "go", a rival's finish and
// your own. Notes are made with the Web Audio API (nothing to download). One
// switch in Settings turns both off, remembered by the browser; vibration
// also stays off for people who ask their system for reduced motion.

import { getPref, setPref } from "./store.js";

/** cue -> notes: [frequency Hz, start s, length s, volume] */
const CUES = {
  draw: [[520, 0, 0.05, 0.08]],
  home: [[660, 0, 0.07, 0.14], [990, 0.06, 0.1, 0.12]],
  illegal: [[150, 0, 0.16, 0.16]],
  tick: [[440, 0, 0.09, 0.16]],
  go: [[880, 0, 0.22, 0.2]],
  rival: [[587, 0, 0.12, 0.12], [440, 0.12, 0.18, 0.12]],
  finish: [[523, 0, 0.12, 0.16], [659, 0.1, 0.12, 0.16], [784, 0.2, 0.12, 0.16], [1047, 0.3, 0.3, 0.18]],
};
/** cue -> vibration pattern (ms) on a phone */
const BUZZ = { tick: [40], go: [120], rival: [60, 60, 60], finish: [80, 50, 80, 50, 160] };
const reducedMotion = window.matchMedia?.("(prefers-reduced-motion: reduce)");

export class Sounds {
  constructor() {
    this.on = getPref("sound", true);
    this.context = null;
    // browsers let a page make sound only after a person did something on it
    const wake = () => this.audio()?.resume?.();
    document.addEventListener("pointerdown", wake, { once: true, capture: true });
    document.addEventListener("keydown", wake, { once: true, capture: true });
  }

  /** The Settings switch: both sound and vibration. */
  bind(checkbox) {
    checkbox.checked = this.on;
    checkbox.addEventListener("change", () => {
      this.on = checkbox.checked;
      setPref("sound", this.on);
    });
  }

  audio() {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!this.context && Context) this.context = new Context();
    return this.context;
  }

  play(cue) {
    if (!this.on) return;
    const context = this.audio();
    if (context) {
      const now = context.currentTime;
      for (const [frequency, at, length, volume] of CUES[cue] || []) {
        const osc = context.createOscillator();
        const gain = context.createGain();
        osc.type = "triangle";
        osc.frequency.setValueAtTime(frequency, now + at);
        gain.gain.setValueAtTime(0.0001, now + at);
        gain.gain.exponentialRampToValueAtTime(volume, now + at + 0.01);
        gain.gain.exponentialRampToValueAtTime(0.0001, now + at + length);
        osc.connect(gain).connect(context.destination);
        osc.start(now + at);
        osc.stop(now + at + length + 0.02);
      }
    }
    if (BUZZ[cue] && navigator.vibrate && !reducedMotion?.matches) navigator.vibrate(BUZZ[cue]);
  }

  /** An accepted action of ours: a draw, or a card home. */
  action(before, after, move) {
    if (!after) return;
    if (before && after.on_foundations > before.on_foundations) this.play("home");
    else if (move === "S") this.play("draw");
  }
}
