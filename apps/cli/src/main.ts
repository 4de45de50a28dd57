import { decideCommand } from "./commands/decide.ts";
import { importCommand } from "./commands/import.ts";
import { ingestCommand } from "./commands/ingest.ts";
import { nodesCommand } from "./commands/nodes.ts";
import { quickstart } from "./commands/quickstart.ts";
import { reportCommand } from "./commands/report.ts";
import { runCommand } from "./commands/run.ts";

const usage = `usage: evotrainer <command>

commands:
  quickstart [--exit-when-ready] [--no-demo]  check services, migrate, build, start the worker and the dashboard, start a demo run
  run <config.yaml> [--wait] [--json]         create a run (examples/gym-swe.yaml) and optionally follow it to the end
  status [runId]                              one line on a run (the latest by default)
  report <runId> [--json]                     the branch tree with interventions, verdicts, decisions, labels, skills, sealed result
  decide <branchId> approve|revise|veto --note "…"   decide on a branch awaiting a person
  ingest <file.jsonl> --branch <branchId>     load rollouts into a branch, labelled by its run's harness; bad lines are quarantined
  import verl|trl <dir> (--run <runId> | --config <run.yaml>) [--json]   turn an existing verl or TRL run directory into a branch: labelled rollouts, trainer metrics
  import mini-swe-agent|swe-agent|openai-chat <file-or-dir> [--run <runId> | --config <run.yaml>] [--report <report.json>] [--json]   agent trajectories (SWE-bench results joined) into a labelled branch
  nodes sync <compute.yaml> | nodes list [--json]   register GPU nodes reached over SSH (keys by path, env var, or sealed under EVO_MASTER_KEY)`;

const [command, ...args] = process.argv.slice(2);

try {
  switch (command) {
    case "quickstart":
      process.exitCode = await quickstart(args);
      break;
    case "run":
      process.exitCode = await runCommand(args);
      break;
    case "status":
      process.exitCode = await reportCommand(args, true);
      break;
    case "report":
      process.exitCode = await reportCommand(args, false);
      break;
    case "ingest":
      process.exitCode = await ingestCommand(args);
      break;
    case "import":
      process.exitCode = await importCommand(args);
      break;
    case "nodes":
      process.exitCode = await nodesCommand(args);
      break;
    case "decide":
      process.exitCode = await decideCommand(args);
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
