/** `node:path` in the schema loader's bundle: what the schema front end uses of it (file names in messages). */
export function basename(p: string): string {
  return p.slice(p.lastIndexOf("/") + 1);
}

export default { basename };
