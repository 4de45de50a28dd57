import { quickstart } from "./commands/quickstart.ts";

const usage = `usage: evotrainer <command>

commands:
  quickstart [--exit-when-ready]   check services, migrate, build and start the worker and the dashboard`;

const [command, ...args] = process.argv.slice(2);

try {
  switch (command) {
    case "quickstart":
      process.exitCode = await quickstart(args);
      break;
    case undefined:
    case "help":
    case "--help":
      console.log(usage);
      break;
    default:
      console.error(`evotrainer: unknown command "${command}"\n\n${usage}`);
      process.exitCode = 2;
  }
} catch (error) {
  console.error(`evotrainer: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
