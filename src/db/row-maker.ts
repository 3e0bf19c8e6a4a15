// Rows as objects, made by a function written for their columns. Both drivers can hand a statement's
// rows over as arrays (pg's rowMode 'array', better-sqlite3's raw mode); made into objects here, they
// cost a fraction of the drivers' own object rows:
//  - pg copies an empty template and sets each column by name; in a process that runs many different
//    statements those stores go through V8's slowest path (25-40 µs of a page of 25 reviews);
//  - better-sqlite3 builds each row object column by column in C++: on a page of 25 reviews (18
//    columns) the statement took 222 µs with object rows and 147 µs with raw ones, measured in-process
//    on the same file (bench/floor.ts's data).
// An object literal with the columns written out gets one fixed shape per statement, which the code
// that reads the rows then finds fast too.

type Row = Record<string, unknown>;

/** Makes the object of one row's values; `columns` are the names it was written for. */
export type RowMaker = ((values: readonly unknown[]) => Row) & { readonly columns: readonly string[] };

/**
 * A function that makes `{ column: values[i], … }` for these columns, in their order (a later column
 * of the same name wins, as in both drivers' own rows). The names are written as JSON strings, so any
 * name the database can send is a valid, inert property name.
 */
export function rowMaker(columns: readonly string[]): RowMaker {
  // "__proto__" as a plain key would set the prototype; as a computed key it is a column like any other.
  const body = `return {${columns.map((c, i) => `${c === '__proto__' ? '["__proto__"]' : JSON.stringify(c)}: v[${i}]`).join(', ')}};`;
  return Object.assign(new Function('v', body) as (values: readonly unknown[]) => Row, { columns });
}

/** Each array row made into its object (a new array). */
export function rowsAsObjects(maker: RowMaker, rows: readonly (readonly unknown[])[]): Row[] {
  const objects = new Array<Row>(rows.length);
  for (let i = 0; i < rows.length; i++) objects[i] = maker(rows[i]!);
  return objects;
}
