// How values are stored in the columns both databases share: booleans as 0/1 integers.

export const bit = (value: boolean): number => (value ? 1 : 0);
