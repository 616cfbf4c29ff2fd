// Imported first by a script that package.json runs: with --help or -h it prints the script's
// opening comment (scripts/help.ts) and exits before the script's other imports run, so that
// the help costs a bare Node start, not the load of what the script runs.
import { exitOnHelp } from "./help.ts";

exitOnHelp(process.argv[1] as string);
