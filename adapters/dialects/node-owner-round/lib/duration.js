'use strict';
// Go duration strings ("50ms", "2s", "1m30s", "1.5h", "-3us") to milliseconds,
// following the grammar of Go's time.ParseDuration: an optional sign, then
// one or more decimal numbers (with an optional fraction), each followed by a
// unit; the bare string "0" is also allowed.

const UNIT_MS = {
  ns: 1e-6,
  us: 1e-3,
  '\u00b5s': 1e-3, // micro sign
  '\u03bcs': 1e-3, // Greek mu
  ms: 1,
  s: 1000,
  m: 60 * 1000,
  h: 60 * 60 * 1000,
};

// parseDuration returns the duration in milliseconds, or throws an Error
// saying what is wrong with the text.
function parseDuration(text) {
  if (typeof text !== 'string' || text === '') throw new Error('empty duration');
  let s = text;
  let sign = 1;
  if (s[0] === '+' || s[0] === '-') {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw new Error('no number after the sign');
  let total = 0;
  const part = /^([0-9]*)(?:\.([0-9]*))?([^0-9.]*)/;
  while (s !== '') {
    const m = part.exec(s);
    if (!m || (m[1] === '' && (m[2] === undefined || m[2] === ''))) throw new Error('expected a number at "' + s + '"');
    const unit = m[3];
    if (unit === '') throw new Error('missing unit after "' + m[0] + '" (use ns, us, ms, s, m or h)');
    const scale = UNIT_MS[unit];
    if (scale === undefined) throw new Error('unknown unit "' + unit + '" (use ns, us, ms, s, m or h)');
    const value = Number((m[1] || '0') + '.' + (m[2] || '0'));
    total += value * scale;
    s = s.slice(m[0].length);
  }
  if (!Number.isFinite(total) || total > 9223372036854.775) throw new Error('duration out of range');
  return sign * total;
}

module.exports = { parseDuration };
