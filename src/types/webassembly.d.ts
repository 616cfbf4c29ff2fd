// The part of the WebAssembly JavaScript API the gateway uses. Node has the global, but neither
// @types/node nor TypeScript's ES libs declare it (only the DOM and worker libs do, with globals
// a server must not see).
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Instance {
    constructor(module: Module, imports?: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    readonly buffer: ArrayBuffer;
  }
  function validate(bytes: Uint8Array): boolean;
}
