// The time DuckDB takes to answer a query, its own part (the query, not
// starting Node or DuckDB), median of ROUNDS on a fresh connection each:
//   node duckdb_time.mjs DUCKDB_DIR ROUNDS QUERY
import { createRequire } from 'node:module';

const [dir, rounds, query] = process.argv.slice(2);
const { DuckDBInstance } = createRequire(dir + '/')('@duckdb/node-api');
const times = [];
let rows = 0;
for (let r = 0; r < +rounds; r++) {
  const connection = await (await DuckDBInstance.create(':memory:')).connect();
  const start = performance.now();
  rows = (await connection.runAndReadAll(query)).getRows().length;
  times.push((performance.now() - start) / 1000);
}
times.sort((a, b) => a - b);
console.log(`${times[(times.length - 1) >> 1].toFixed(3)} s (median of ${rounds}; ${rows} rows)`);
