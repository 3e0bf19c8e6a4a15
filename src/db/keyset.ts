// The position of a row in a newest-first list: its sort time and id. Pages continue after one.

export interface Keyset {
  time: string;
  id: string;
}
