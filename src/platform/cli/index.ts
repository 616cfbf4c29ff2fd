// The flag parser every program uses: --flag, NOVA_* variables, --help.
export * from "./addresses.ts";
export * from "./flags.ts";
