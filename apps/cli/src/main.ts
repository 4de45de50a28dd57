// Each command is imported when it runs: `evotrainer --version` loads nothing else, and `status`
// only what a status needs (a command's module graph is most of a start-up's time).
import cliPackage from "../package.json" with { type: "json" };

const usage = `usage: evotrainer <command>

commands:
  --version                                   the CLI's version
  login <dashboard url> [--key <apiKey>]      talk to a team's server: status, report, decide, run, import and the run controls go over HTTPS with an API key (Settings → API keys)
  logout                                      forget the server; commands use this machine's database again
  quickstart [--exit-when-ready] [--no-demo]  check services, migrate, build, start the worker and the dashboard, start a demo run
  run <config.yaml> [--wait] [--json]         create a run (examples/gym-swe.yaml) and optionally follow it to the end
  calibrate <config.yaml> --runs N [--power-runs N] [--seed S] [--run <runId>] [--json]   how often this config's gate promotes a null intervention per run, and its power, on the gym
  status [runId]                              one line on a run (the latest by default)
  report <runId> [--json]                     the branch tree with interventions, verdicts, decisions, labels, skills, sealed result
  decide <branchId> approve|revise|veto --note "…" [--anyway]   decide on a branch awaiting a person (--anyway: approve a failed verdict, the note says why)
  pause|resume <runId>                        pause a run (running jobs finish, none starts) or resume it
  stop <runId> [--skip-sealed]                cancel its jobs through their executors, then finish with the sealed evaluation (or without)
  extend-budget <runId> <GPU-seconds>         raise the run's GPU budget to this new total
  cancel-job <jobId>                          end one training job through its executor; its branch is cancelled
  ingest <file.jsonl> --branch <branchId>     load rollouts into a branch, labelled by its run's harness; bad lines are quarantined
  import verl|trl <dir> (--run <runId> | --config <run.yaml>) [--json]   turn an existing verl or TRL run directory into a branch: labelled rollouts, trainer metrics
  import [mini-swe-agent|swe-agent|openhands|openai-chat] <file-or-dir> [--run <runId> | --config <run.yaml>] [--report <report.json or directory>] [--json]   agent trajectories (SWE-bench results joined) into a labelled branch
  orgs create <name> --admin <email> | orgs list   organizations (installation admins): create one and print its first admin's invitation link
  labels export <runId> [--out <file>] | labels import <file> [--run <runId>] | labels quality <runId> [--json]   reviews of labels as a JSONL truth file, and each detector's precision, recall and informativeness from them
  labels unexplained <branchId> [--only-separating] [--json]   the branch's failed rollouts no label explains, clustered by error signature
  users invite|list|role|remove|reset-password …   members of an organization: invitation and reset links, roles (evotrainer users for details)
  gc [runId …] [--yes]                        list (and with --yes delete) model weights the retention policy does not keep: docs/retention.md
  nodes sync <compute.yaml> | nodes list [--json]   register GPU nodes reached over SSH (keys by path, env var, or sealed under EVO_MASTER_KEY)`;

const [command, ...args] = process.argv.slice(2);

// These use this machine's database when not logged in: they wait for it to answer before they start
// (database-wait.ts), so PostgreSQL restarting reads as one line and a wait, not as a failed command.
const usesLocalDatabase = new Set(["run", "calibrate", "status", "report", "ingest", "import", "labels", "nodes", "gc", "users", "orgs", "pause", "resume", "stop", "extend-budget", "cancel-job", "decide"]);

try {
  if (command && usesLocalDatabase.has(command) && !args.includes("--help") && !args.includes("-h")) {
    await (await import("./database-wait.ts")).untilLocalDatabaseAnswers();
  }
  switch (command) {
    case "login":
      process.exitCode = await (await import("./commands/login.ts")).loginCommand(args);
      break;
    case "logout":
      process.exitCode = (await import("./commands/login.ts")).logoutCommand();
      break;
    case "quickstart":
      process.exitCode = await (await import("./commands/quickstart.ts")).quickstart(args);
      break;
    case "run":
      process.exitCode = await (await import("./commands/run.ts")).runCommand(args);
      break;
    case "calibrate":
      process.exitCode = await (await import("./commands/calibrate.ts")).calibrateCommand(args);
      break;
    case "status":
      process.exitCode = await (await import("./commands/status.ts")).statusCommand(args);
      break;
    case "report":
      process.exitCode = await (await import("./commands/report.ts")).reportCommand(args, false);
      break;
    case "ingest":
      process.exitCode = await (await import("./commands/ingest.ts")).ingestCommand(args);
      break;
    case "import":
      process.exitCode = await (await import("./commands/import.ts")).importCommand(args);
      break;
    case "labels":
      process.exitCode = await (await import("./commands/labels.ts")).labelsCommand(args);
      break;
    case "nodes":
      process.exitCode = await (await import("./commands/nodes.ts")).nodesCommand(args);
      break;
    case "gc":
      process.exitCode = await (await import("./commands/gc.ts")).gcCommand(args);
      break;
    case "users":
      process.exitCode = await (await import("./commands/users.ts")).usersCommand(args);
      break;
    case "orgs":
      process.exitCode = await (await import("./commands/orgs.ts")).orgsCommand(args);
      break;
    case "pause":
    case "resume":
    case "stop":
    case "extend-budget":
    case "cancel-job":
      process.exitCode = await (await import("./commands/control.ts")).controlCommand(command, args);
      break;
    case "decide":
      process.exitCode = await (await import("./commands/decide.ts")).decideCommand(args);
      break;
    case "--version":
    case "-v":
    case "version":
      console.log(cliPackage.version);
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
  console.error(`evotrainer: ${(await import("./database-wait.ts")).failureLine(error)}`);
  process.exitCode = 1;
}
