// The browser console served by the gateway (`--console`).
export { CONSOLE_ASSETS, consolePlugin } from "./console-plugin.ts";
