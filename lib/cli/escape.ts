/**
 * The one escaping function of the human output: every string verify-proof prints to a terminal
 * goes through it, because most of them come from outside (a Herdr server's values and error
 * messages, a leader's self-report, file names). A hostile one could otherwise move the cursor,
 * erase a line and draw a fake PROVEN, set the window title, or reorder what is shown with bidi
 * overrides (Trojan Source, CVE-2021-42574).
 *
 * Escaped: every control (C0, DEL, C1: `\p{Cc}`), every format character (`\p{Cf}`: the bidi
 * embeddings, overrides and isolates U+202A-U+202E and U+2066-U+2069, the marks U+200E/U+200F and
 * U+061C, zero-width characters, U+FEFF, tags, interlinear annotation), the line and paragraph
 * separators U+2028/U+2029, lone surrogates, and the backslash itself (so an escape can never be
 * forged by a string that already looks like one). `--json` is not escaped here: JSON has its own.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\\]/gu;

const NAMED: Readonly<Record<string, string>> = {
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\\": "\\\\",
};

function escapeOne(ch: string): string {
  const named = NAMED[ch];
  if (named !== undefined) return named;
  const cp = ch.codePointAt(0) ?? 0;
  return cp <= 0xff ? `\\x${cp.toString(16).padStart(2, "0")}` : `\\u{${cp.toString(16)}}`;
}

/** `text` with every character a terminal could act on written as a visible escape. */
export function escapeForTerminal(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}
