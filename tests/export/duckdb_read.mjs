// DuckDB, an independent reader of Parquet files, for radar's tests:
//   node duckdb_read.mjs ORACLE_DIR < QUERIES
// ORACLE_DIR holds node_modules/@duckdb/node-api (tests/bootstrap.sh
// installs it). Each line of standard input is a query; for each, prints
// "#ok ROWS COLUMNS" (the column names, comma-separated) and then a line
// per row: each value "N" (null) or "S" and the hex of its text, spaces
// between; or "#error MESSAGE" when DuckDB refused it.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const { DuckDBInstance } = createRequire(process.argv[2] + '/')('@duckdb/node-api');
const hex = (v) => Buffer.from(String(v), 'utf8').toString('hex');
const db = await DuckDBInstance.create(':memory:');
const connection = await db.connect();
for (const query of readFileSync(0, 'utf8').split('\n').filter((q) => q.trim())) {
  try {
    const reader = await connection.runAndReadAll(query);
    const rows = reader.getRows();
    console.log(`#ok ${rows.length} ${reader.columnNames().join(',')}`);
    for (const row of rows) console.log(row.map((v) => (v === null ? 'N' : 'S' + hex(v))).join(' '));
  } catch (e) {
    console.log('#error ' + String(e.message).replace(/\n/g, ' '));
  }
}
