// The flag parser every program uses: --flag, NOVA_* variables, --help.
export * from "./flags.ts";
