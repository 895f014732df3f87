import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { DriveError, networkCause } from '../errors.js';
import { addConnectCommands } from './connect-commands.js';
import { addDriveCommands } from './drive-commands.js';
import { EXIT, EXIT_CODES_HELP, exitCodeOf } from './exit-codes.js';
import { addFileCommands } from './file-commands.js';
import { addEditCommands } from './edit-commands.js';
import { addIdentityCommands } from './identity-commands.js';
import { addRunCommands } from './run-commands.js';
import { setInvocationCommand } from './session.js';
import { addSyncCommand } from './sync.js';

/** `agent-drive`: the command line over the SDK. Every command has --help; errors go to stderr with an exit code. */
const program = new Command('agent-drive')
  .description('Agent Artifact Drive from the terminal: files, search, shares, the event stream and sync')
  .option('--url <url>', 'API origin (default: AGENT_DRIVE_URL, the logged-in server, or http://localhost:8080)')
  .option('--json', 'print JSON for scripts instead of human lines')
  .option('--actor <name>', 'X-Drive-Actor: who to name in the event log (attribution only)')
  // No commander .version(): it would take `--version` anywhere on the line, and `cat`/`get`/`restore` have their own
  // (`agent-drive --version`, first on the line, is read before parsing).
  .addHelpText('after', '\n  agent-drive --version   print the program version')
  .addHelpText('after', EXIT_CODES_HELP)
  .showHelpAfterError()
  .exitOverride()
  .hook('preAction', (_program, action) => {
    setInvocationCommand(action.name());
  });

addIdentityCommands(program);
addFileCommands(program);
addEditCommands(program);
addDriveCommands(program);
addSyncCommand(program);
addRunCommands(program);
addConnectCommands(program);
for (const cmd of program.commands) cmd.exitOverride().addHelpText('after', EXIT_CODES_HELP);

// `agent-drive cat big.log | head` closes stdout early: that is the reader's choice, not a failure.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(EXIT.ok);
  throw err;
});

try {
  if (['-V', '--version'].includes(process.argv[2] ?? '')) process.stdout.write(`${packageVersion()}\n`);
  else await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // --help and --version end here too, with exit code 0.
    process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else {
    const message = err instanceof DriveError ? `${err.code}: ${err.message}` : networkCause(err as Error);
    process.stderr.write(`agent-drive: ${message}\n`);
    process.exitCode = exitCodeOf(err);
  }
}

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
