// Extracts the country extras secutil needs from the countries-list npm
// package (MIT). Usage, in a scratch directory:
//   npm pack countries-list@3.4.1 && tar xzf countries-list-3.4.1.tgz
//   node extract.js package/countries.min.json > countries.json
// Output: one object keyed by ISO 3166-1 alpha-2 code with the English name,
// calling codes (numbers, without "+"), ISO 4217 currencies and ISO 639-1
// languages, keys sorted so the file diffs cleanly.
'use strict';
const fs = require('fs');

const source = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const out = {};
for (const iso of Object.keys(source).sort()) {
  const c = source[iso];
  out[iso] = {
    name: c.name,
    phone: c.phone || [],
    currency: c.currency || [],
    languages: c.languages || [],
  };
}
const lines = Object.keys(out).map((iso) => JSON.stringify(iso) + ':' + JSON.stringify(out[iso]));
process.stdout.write('{\n' + lines.join(',\n') + '\n}\n');
