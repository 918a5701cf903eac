/** `node:fs` in the schema loader's bundle: the page reads no files by path (it is given their text). */
export function readFileSync(): never {
  throw new Error("the inspector page has no file system: schemas are given as text");
}
