// extract.js turns the data modules of the npm package zxcvbn@4.4.2 into plain
// files that the Go package embeds:
//   <list>.txt.gz       one word per line, most frequent first (rank = line number)
//   adjacency_graphs.json  {graph: {key: [neighbour or null, ...]}}
//
// Usage (from this directory):
//   mkdir -p /tmp/zx && (cd /tmp/zx && npm pack zxcvbn@4.4.2 && tar xzf zxcvbn-4.4.2.tgz)
//   node extract.js /tmp/zx/package
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

const pkg = process.argv[2] || '/tmp/zx/package';
const lists = require(path.join(pkg, 'lib', 'frequency_lists.js'));
const graphs = require(path.join(pkg, 'lib', 'adjacency_graphs.js'));

for (const name of Object.keys(lists)) {
  const text = lists[name].join('\n') + '\n';
  // mtime 0 in the gzip header keeps the output byte-identical across runs.
  const gz = zlib.gzipSync(Buffer.from(text, 'utf8'), { level: 9 });
  gz.writeUInt32LE(0, 4);
  fs.writeFileSync(path.join(__dirname, name + '.txt.gz'), gz);
  console.log(name, lists[name].length, 'words', gz.length, 'bytes gzipped');
}

// Key order matters: the Go side counts starting positions and average degree
// over all keys, and the graph order sets match order.
fs.writeFileSync(path.join(__dirname, 'adjacency_graphs.json'), JSON.stringify(graphs) + '\n');
console.log('graphs', Object.keys(graphs).join(' '));
