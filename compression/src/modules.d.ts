// Type declarations for the two codec packages that ship none.

declare module "snappyjs" {
  const snappyjs: {
    compress(data: Uint8Array): Uint8Array;
    uncompress(data: Uint8Array, maxLength?: number): Uint8Array;
  };
  export default snappyjs;
}

declare module "lz4js" {
  const lz4js: {
    compressBound(n: number): number;
    compressBlock(src: Uint8Array, dst: Uint8Array, sIndex: number, sLength: number, hashTable: Uint32Array): number;
  };
  export default lz4js;
}

declare module "lz4js/xxh32.js" {
  const xxh32: { hash(seed: number, src: Uint8Array, index: number, length: number): number };
  export default xxh32;
}
