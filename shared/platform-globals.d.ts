/**
 * The few globals shared/ may use: they exist in Node, in browsers and in
 * Electron's renderer alike. Declared here because shared/ compiles without
 * the DOM and Node type libraries, so that nothing else slips in.
 */

interface TextDecoderOptions {
  fatal?: boolean;
  ignoreBOM?: boolean;
}

declare class TextDecoder {
  constructor(label?: string, options?: TextDecoderOptions);
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}

declare class TextEncoder {
  encode(input?: string): Uint8Array;
}

declare function queueMicrotask(callback: () => void): void;

declare const crypto: {
  getRandomValues<T extends Uint8Array | Uint32Array>(array: T): T;
};
