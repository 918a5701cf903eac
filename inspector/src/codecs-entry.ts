/** The entry of assets/codecs.js (see codecs.ts): every codec of both sets. */
export { generated, kafka } from "../.codecs/codecs.js";
