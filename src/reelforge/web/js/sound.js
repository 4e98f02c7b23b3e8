// Sound effects and a quiet music loop, synthesised with the Web Audio API: no sound file is fetched. Each
// effect is layered (a body, a transient, a shimmer) so that a reel stop, a small win, a big win, a feature
// intro, the count-up and the anticipation each sound like themselves. A game may give any effect its own
// sound, declared as voices in its folder (sounds.toml, served as JSON: useSounds); the others stay these
// generic ones. Sound starts only after the player's first press (browsers require a gesture) and the choices
// (effects on/off, music on/off) are remembered.

const KEY_SOUND = "rf.sound";
const KEY_MUSIC = "rf.music";
let ctx = null;
let master = null;
let noiseBuffer = null;
let musicTimer = null;
let musicStep = 0;

export const soundOn = () => localStorage.getItem(KEY_SOUND) !== "0";
export const musicOn = () => localStorage.getItem(KEY_MUSIC) === "1";

function audio() {
  if (ctx) return ctx;
  const Ctor = window.AudioContext || window.webkitAudioContext;
  if (!Ctor) return null;
  ctx = new Ctor();
  master = makeMaster(ctx);
  return ctx;
}

/** A gentle compressor before the speakers: layered effects never clip. */
function makeMaster(a) {
  const gain = a.createGain();
  gain.gain.value = 0.22;
  const comp = a.createDynamicsCompressor();
  comp.threshold.value = -14;
  comp.ratio.value = 4;
  gain.connect(comp).connect(a.destination);
  return gain;
}

function noise(a) {
  if (noiseBuffer && noiseBuffer.sampleRate === a.sampleRate) return noiseBuffer;
  const buf = a.createBuffer(1, a.sampleRate, a.sampleRate);
  const data = buf.getChannelData(0);
  let seed = 7;
  for (let i = 0; i < data.length; i++) { seed = (seed * 16807) % 2147483647; data[i] = (seed / 2147483647) * 2 - 1; }
  noiseBuffer = buf;
  return buf;
}

/** The voices an effect is made of, each drawn into ``out`` of the context ``a`` starting at ``t0``. */
function voices(a, out, t0) {
  const env = (node, at, peak, attack, length) => {
    const g = a.createGain();
    g.gain.setValueAtTime(0.0001, t0 + at);
    g.gain.exponentialRampToValueAtTime(peak, t0 + at + attack);
    g.gain.exponentialRampToValueAtTime(0.0001, t0 + at + length);
    node.connect(g).connect(out);
    return g;
  };
  return {
    /** A tone: frequency (Hz), start, length (s), wave, loudness, an optional glide. */
    tone(freq, at, length, type = "triangle", peak = 0.5, slideTo = null, attack = 0.008) {
      const osc = a.createOscillator();
      osc.type = type;
      osc.frequency.setValueAtTime(freq, t0 + at);
      if (slideTo) osc.frequency.exponentialRampToValueAtTime(slideTo, t0 + at + length);
      env(osc, at, peak, attack, length);
      osc.start(t0 + at);
      osc.stop(t0 + at + length + 0.03);
    },
    /** A bell: a tone with its inharmonic partials (struck metal, coins). */
    bell(freq, at, length, peak = 0.4) {
      [[1, 1], [2.76, 0.35], [5.4, 0.18], [8.93, 0.08]].forEach(([ratio, share]) =>
        this.tone(freq * ratio, at, length / (1 + ratio / 4), "sine", peak * share, null, 0.003));
    },
    /** Filtered noise: a click, a whoosh or a cymbal, from ``from`` Hz to ``to`` Hz. */
    hiss(at, length, peak, type, from, to = from, q = 1, attack = 0.004) {
      const src = a.createBufferSource();
      src.buffer = noise(a);
      src.loop = true;
      const f = a.createBiquadFilter();
      f.type = type;
      f.Q.value = q;
      f.frequency.setValueAtTime(from, t0 + at);
      f.frequency.exponentialRampToValueAtTime(to, t0 + at + length);
      src.connect(f);
      env(f, at, peak, attack, length);
      src.start(t0 + at);
      src.stop(t0 + at + length + 0.03);
    },
    /** A brass-like chord: detuned saws through a closing low-pass (the feature's fanfare). */
    brass(freqs, at, length, peak = 0.25) {
      const f = a.createBiquadFilter();
      f.type = "lowpass";
      f.frequency.setValueAtTime(600, t0 + at);
      f.frequency.exponentialRampToValueAtTime(3200, t0 + at + 0.08);
      f.frequency.exponentialRampToValueAtTime(900, t0 + at + length);
      env(f, at, peak, 0.03, length);
      for (const fr of freqs) {
        for (const detune of [-7, 7]) {
          const osc = a.createOscillator();
          osc.type = "sawtooth";
          osc.frequency.value = fr;
          osc.detune.value = detune;
          osc.connect(f);
          osc.start(t0 + at);
          osc.stop(t0 + at + length + 0.03);
        }
      }
    },
  };
}

const C5 = 523.25;
const note = (semitones, base = C5) => base * 2 ** (semitones / 12);

/** The effects: each a function of its voices. ``win`` comes in sizes (small, medium, large by the bet). */
export const EFFECTS = {
  spin: (v) => { v.hiss(0, 0.35, 0.35, "bandpass", 400, 2400, 1.2, 0.05); v.tone(90, 0, 0.2, "sine", 0.3, 60); },
  stop: (v) => { v.tone(150, 0, 0.14, "sine", 0.7, 55); v.hiss(0, 0.04, 0.35, "bandpass", 2600, 1800, 2); v.tone(880, 0, 0.05, "square", 0.05); },
  tease: (v) => { v.hiss(0, 1.1, 0.22, "bandpass", 500, 3000, 4, 0.4); [0, 4, 7, 12].forEach((s, i) => v.tone(note(s, 261.6), i * 0.22, 0.3, "triangle", 0.18)); },
  winSmall: (v) => { v.bell(note(7), 0, 0.5, 0.35); v.bell(note(12), 0.09, 0.6, 0.35); },
  winMedium: (v) => { [0, 4, 7, 12].forEach((s, i) => v.bell(note(s), i * 0.08, 0.7, 0.3)); v.hiss(0.3, 0.5, 0.08, "highpass", 7000); },
  winLarge: (v) => { [0, 4, 7, 12, 16, 19].forEach((s, i) => v.bell(note(s), i * 0.07, 0.9, 0.3)); v.brass([note(0, 261.6), note(7, 261.6)], 0, 0.8, 0.12); },
  feature: (v) => {
    v.tone(70, 0, 0.5, "sine", 0.8, 45); v.hiss(0, 0.25, 0.3, "lowpass", 900, 200); // the drum
    v.brass([note(-12), note(-8), note(-5)], 0.05, 0.35); v.brass([note(-10), note(-7), note(-3)], 0.42, 0.3);
    v.brass([note(-12), note(-5), note(0), note(4)], 0.78, 1.1, 0.3); v.hiss(0.78, 1.2, 0.1, "highpass", 6000);
  },
  tick: (v) => { v.bell(note(19), 0, 0.09, 0.18); v.hiss(0, 0.02, 0.08, "highpass", 8000); },
  bigwin: (v) => {
    v.tone(60, 0, 0.7, "sine", 0.9, 40); v.hiss(0, 1.8, 0.16, "highpass", 5000, 9000, 0.7, 0.25); // drum and cymbal swell
    v.brass([note(-12), note(-8), note(-5), note(0)], 0, 0.5, 0.3); v.brass([note(-7), note(-3), note(0), note(5)], 0.5, 0.5, 0.3);
    v.brass([note(-12), note(-5), note(0), note(4), note(7)], 1.0, 1.6, 0.35);
    [0, 4, 7, 12, 16, 19, 24].forEach((s, i) => v.bell(note(s), 1.0 + i * 0.06, 1.0, 0.22));
  },
  click: (v) => { v.tone(1200, 0, 0.03, "square", 0.12); },
};

let own = {};

/** The open game's own effects: ``effects`` as its sounds.toml declares them (effect name -> voices; see
 * reelforge/game/sounds.py), or null for none (the generic effects). */
export function useSounds(effects) {
  own = {};
  for (const [name, list] of Object.entries(effects || {})) own[name] = (v) => list.forEach((d) => declared(v, d));
}

/** One declared voice drawn with the voices ``v``: a tone's or a bell's notes ``step`` s apart, a brass chord,
 * a noise. A field left out takes the generic voices' default (a noise: 0.2 loud, its filter's frequency held). */
function declared(v, d) {
  const at = d.at ?? 0;
  const freqs = [].concat(d.freq ?? []);
  if (d.voice === "brass") v.brass(freqs, at, d.length, d.peak ?? 0.25);
  else if (d.voice === "hiss") v.hiss(at, d.length, d.peak ?? 0.2, d.filter, d.from, d.to ?? d.from, d.q ?? 1, d.attack ?? 0.004);
  else {
    freqs.forEach((f, i) => (d.voice === "bell"
      ? v.bell(f, at + i * (d.step ?? 0), d.length, d.peak ?? 0.4)
      : v.tone(f, at + i * (d.step ?? 0), d.length, d.wave ?? "triangle", d.peak ?? 0.5, d.slide_to ?? null, d.attack ?? 0.008)));
  }
}

/** The effect ``name``: the open game's own, else the generic one (``generic``: the generic one regardless). */
const effect = (name, generic = false) => (!generic && own[name]) || EFFECTS[name];

/** The win effect for a win of ``x`` times the bet. */
export const winSound = (x) => (x >= 5 ? "winLarge" : x >= 1 ? "winMedium" : "winSmall");

/** Play a named effect unless sound is off. */
export function play(name) {
  if (!soundOn() || !effect(name)) return;
  try {
    const a = audio();
    if (!a) return;
    if (a.state === "suspended") a.resume();
    effect(name)(voices(a, master, a.currentTime + 0.01));
  } catch { /* sound is a nicety: never an error for the player */ }
}

/** An effect drawn offline (the tests listen to it): its samples at 22,050 Hz; the open game's own unless
 * ``generic``. */
export async function render(name, seconds = 2.5, generic = false) {
  const rate = 22050;
  const off = new OfflineAudioContext(1, Math.round(rate * seconds), rate);
  effect(name, generic)(voices(off, makeMaster(off), 0));
  return (await off.startRendering()).getChannelData(0);
}

const SCALE = [262, 294, 330, 392, 440, 392, 330, 294];
function musicTick() {
  const a = audio();
  const v = voices(a, master, a.currentTime + 0.01);
  v.tone(SCALE[musicStep % SCALE.length] / 2, 0, 0.5, "sine", 0.16);
  if (musicStep % 4 === 0) v.tone(SCALE[(musicStep / 4) % 3 * 2] / 4, 0, 1.4, "sine", 0.12);
  if (musicStep % 2 === 1) v.hiss(0, 0.05, 0.03, "highpass", 7000);
  musicStep += 1;
}

/** Keep the music loop running exactly when music is on and a game is open. */
export function music(playing) {
  const want = playing && musicOn() && soundOn();
  if (want && !musicTimer && audio()) {
    if (ctx.state === "suspended") ctx.resume();
    musicTimer = setInterval(musicTick, 480);
  } else if (!want && musicTimer) {
    clearInterval(musicTimer);
    musicTimer = null;
  }
}

export function setSound(on) { localStorage.setItem(KEY_SOUND, on ? "1" : "0"); }
export function setMusic(on) { localStorage.setItem(KEY_MUSIC, on ? "1" : "0"); }
