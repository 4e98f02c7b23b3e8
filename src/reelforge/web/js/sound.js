// Sound effects and a quiet music loop, synthesised with the Web Audio API: nothing is fetched.
// Sound starts only after the player's first press (browsers require a gesture) and the choices
// (effects on/off, music on/off) are remembered in localStorage.

const KEY_SOUND = "rf.sound";
const KEY_MUSIC = "rf.music";
let ctx = null;
let master = null;
let musicTimer = null;
let musicStep = 0;

export const soundOn = () => localStorage.getItem(KEY_SOUND) !== "0";
export const musicOn = () => localStorage.getItem(KEY_MUSIC) === "1";

function audio() {
  if (ctx) return ctx;
  const Ctor = window.AudioContext || window.webkitAudioContext;
  if (!Ctor) return null;
  ctx = new Ctor();
  master = ctx.createGain();
  master.gain.value = 0.18;
  master.connect(ctx.destination);
  return ctx;
}

/** One note: frequency (Hz), start offset and length (s), wave shape and loudness. */
function tone(freq, at = 0, length = 0.12, type = "triangle", gain = 0.6, slideTo = null) {
  const a = audio();
  if (!a) return;
  const t = a.currentTime + at;
  const osc = a.createOscillator();
  const env = a.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t);
  if (slideTo) osc.frequency.exponentialRampToValueAtTime(slideTo, t + length);
  env.gain.setValueAtTime(0.0001, t);
  env.gain.exponentialRampToValueAtTime(gain, t + 0.01);
  env.gain.exponentialRampToValueAtTime(0.0001, t + length);
  osc.connect(env).connect(master);
  osc.start(t);
  osc.stop(t + length + 0.02);
}

const EFFECTS = {
  spin: () => tone(180, 0, 0.18, "sawtooth", 0.25, 90),
  stop: () => tone(120, 0, 0.07, "square", 0.3),
  win: () => [660, 880].forEach((f, i) => tone(f, i * 0.08, 0.16)),
  bigwin: () => [523, 659, 784, 1046, 1318].forEach((f, i) => tone(f, i * 0.11, 0.3, "triangle", 0.7)),
  feature: () => [392, 523, 659, 784].forEach((f, i) => tone(f, i * 0.09, 0.22, "square", 0.35)),
  click: () => tone(900, 0, 0.03, "square", 0.15),
};

/** Play a named effect (spin, stop, win, bigwin, feature, click) unless sound is off. */
export function play(name) {
  if (!soundOn() || !EFFECTS[name]) return;
  try {
    if (audio() && ctx.state === "suspended") ctx.resume();
    EFFECTS[name]();
  } catch { /* sound is a nicety: never an error for the player */ }
}

const SCALE = [262, 294, 330, 392, 440, 392, 330, 294];
function musicTick() {
  tone(SCALE[musicStep % SCALE.length] / 2, 0, 0.5, "sine", 0.18);
  if (musicStep % 4 === 0) tone(SCALE[(musicStep / 4) % 3 * 2] / 4, 0, 1.4, "sine", 0.14);
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
