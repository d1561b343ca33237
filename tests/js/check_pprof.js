// Decodes an allocs.pb.gz with an independent pprof reader (npm pprof-format)
// and prints one JSON object: the sample types, the number of samples, the
// sum of each value, the functions named, and whether every location id of
// every sample resolves to a location with a function.
//   node tests/js/check_pprof.js allocs.pb.gz
'use strict';
const fs = require('fs');
const zlib = require('zlib');
const { Profile } = require('pprof-format');

const file = process.argv[2];
if (!file) {
  console.error('usage: check_pprof.js allocs.pb.gz');
  process.exit(2);
}
const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(file)));
const str = (i) => p.stringTable.strings[Number(i)];
const sums = p.sampleType.map(() => 0);
let resolved = true;
const locs = new Map(p.location.map((l) => [Number(l.id), l]));
const fns = new Map(p.function.map((f) => [Number(f.id), f]));
for (const s of p.sample) {
  s.value.forEach((v, i) => { sums[i] += Number(v); });
  for (const id of s.locationId) {
    const l = locs.get(Number(id));
    if (!l || !l.line.length || !fns.has(Number(l.line[0].functionId))) resolved = false;
  }
}
console.log(JSON.stringify({
  sampleTypes: p.sampleType.map((t) => `${str(t.type)}/${str(t.unit)}`),
  samples: p.sample.length,
  sums,
  resolved,
  functions: p.function.map((f) => str(f.name)),
  mappings: p.mapping.map((m) => str(m.filename)),
  defaultSampleType: str(p.defaultSampleType),
}));
