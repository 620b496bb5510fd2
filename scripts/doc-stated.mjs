// The stated results of the docs' examples (`// → …` comments): parsed into checks that
// scripts/doc-examples.mjs places after the statement they end (see its header).

/** The code of a line and the checks its `// →` comment states, or null when it states none. */
export function statedResult(line) {
  const at = line.indexOf('// →');
  if (at < 0) return null;
  let code = line.slice(0, at).trimEnd();
  const claim = line.slice(at + '// →'.length).trim();
  const label = JSON.stringify(claim);
  if (claim.startsWith('prints ')) {
    code = code.replace(/console\.log\(/, '__log(');
    return { code, checks: [`__printed(${JSON.stringify(claim.slice('prints '.length))}, ${label});`] };
  }
  if (/[^=!]===[^=]/.test(claim)) {
    const checks = splitTop(claim).map((part) => {
      const [left, right] = part.split(/\s+===\s+/);
      return `__stated(${left}, ${right}, ${label});`;
    });
    return { code, checks };
  }
  const declared = /^\s*(?:const|let)\s+([A-Za-z_$][\w$]*)\s*=/.exec(code);
  if (!declared) throw new Error(`a stated result needs "const name = …" or "expression === value": ${line.trim()}`);
  return { code, checks: [`__stated(${declared[1]}, ${claim}, ${label});`] };
}

/** Splits "a === 1, b === [1, 2]" at the commas outside brackets and quotes. */
function splitTop(text) {
  const parts = [];
  let level = 0;
  let quote = null;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote && text[i - 1] !== '\\') quote = null;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if ('([{'.includes(c)) level++;
    else if (')]}'.includes(c)) level--;
    else if (c === ',' && level === 0) {
      parts.push(text.slice(from, i).trim());
      from = i + 1;
    }
  }
  parts.push(text.slice(from).trim());
  return parts.filter(Boolean);
}

/** Brackets opened minus closed on a line of code (strings and a trailing comment left out). */
export function openings(code) {
  const plain = code.replace(/\/\/.*$/, '').replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g, '');
  return (plain.match(/[([{]/g) ?? []).length - (plain.match(/[)\]}]/g) ?? []).length;
}
